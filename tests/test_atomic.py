"""Atomic writes (mariash_env.atomic.atomic_open): an OSError raised while the file is
written or renamed over its target names the target the caller asked for, not the
temporary ``.NAME.tmp-PID`` file it is written under, and keeps its errno and reason."""

from __future__ import annotations

import errno
import os

import pytest

from mariash_env.atomic import atomic_open, temp_name
from mariash_env.cli import path_error


def _failed_write(target, mode="w") -> OSError:
    with pytest.raises(OSError) as e:
        with atomic_open(target, mode) as f:
            f.write("x" if mode == "w" else b"x")
    return e.value


def test_a_target_that_is_a_directory_is_named(tmp_path):
    """os.replace onto a folder: the error named the temporary file and the target
    ('[Errno 21] Is a directory: '.../.out.tmp-PID' -> '.../out'')."""
    target = tmp_path / "out"
    target.mkdir()
    for given in (target, str(target)):
        e = _failed_write(given)
        assert isinstance(e, IsADirectoryError) and e.errno == errno.EISDIR
        assert e.filename == str(target) and e.filename2 is None, e
        assert str(e) == f"[Errno {errno.EISDIR}] {os.strerror(errno.EISDIR)}: '{target}'"
        assert path_error(e) == f"cannot write {target}: {os.strerror(errno.EISDIR)}"
    assert target.is_dir() and sorted(tmp_path.iterdir()) == [target]  # no temp file left


def test_a_target_under_a_file_is_named(tmp_path):
    """The temporary file could not be created (its folder is a file): the error named
    '.../a_file/.out.json.tmp-PID'."""
    a_file = tmp_path / "a_file"
    a_file.write_text("kept")
    target = a_file / "out.json"
    e = _failed_write(target, "wb")
    assert isinstance(e, NotADirectoryError) and e.errno == errno.ENOTDIR
    assert e.filename == str(target) and ".tmp-" not in str(e), e
    assert e.strerror == os.strerror(errno.ENOTDIR)
    assert a_file.read_text() == "kept"


def test_a_read_only_folder_is_named(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # root writes anyway
            pytest.skip("this user writes into a read-only folder (root)")
        e = _failed_write(folder / "out.csv")
        assert isinstance(e, PermissionError) and e.filename == str(folder / "out.csv"), e
    finally:
        folder.chmod(0o700)


def test_an_error_of_the_write_itself_names_the_target(tmp_path, monkeypatch):
    """An error of atomic_open's own flush/fsync (a full disk, an I/O error) names no file
    at all: it is the target's."""
    target = tmp_path / "out"

    def broken(fd):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", broken)
    e = _failed_write(target)
    assert e.errno == errno.EIO and e.filename == str(target), e
    assert not target.exists() and not temp_name(target).exists()


def test_an_error_of_the_callers_own_is_left_as_it_is(tmp_path):
    """An OSError the caller's block raises on another file keeps that file's name."""
    missing = tmp_path / "missing.txt"
    with pytest.raises(FileNotFoundError) as e:
        with atomic_open(tmp_path / "out") as f:
            f.write(missing.read_text())
    assert e.value.filename == str(missing)
    with atomic_open(tmp_path / "out") as f:  # and a write that succeeds still does
        f.write("done")
    assert (tmp_path / "out").read_text() == "done"
