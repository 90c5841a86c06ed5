"""Files written atomically: under a temporary name in the same directory
(``.NAME.tmp-PID``), flushed and fsynced, then renamed over the target and the
directory fsynced.  A reader sees the old file or the new one, never half of one; a
write that fails leaves the target as it was and removes its temporary file (a killed
process leaves it behind: ``training.checkpoint.remove_stale_temp_files`` knows the
pattern), and its OSError names the target, not the temporary file."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .cli import doing


def temp_name(path: Path, pid: int | None = None) -> Path:
    """The temporary file a write of ``path`` by process ``pid`` (default: this one) uses."""
    return path.with_name(f".{path.name}.tmp-{os.getpid() if pid is None else pid}")


def fsync_dir(path: Path) -> None:
    """Make a rename in directory ``path`` durable (a no-op where directories can't be
    opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _name_target(e: OSError, tmp: Path, target: str | bytes, own: bool) -> None:
    """Make ``e`` name the ``target`` the caller asked for where it names the temporary
    file ``tmp`` (its creation; the rename, which named both), or, ``own``: an error of
    atomic_open's flush, fsync or close, which names no file.  Its type, errno and reason
    stay as they are; an error of the caller's on another file keeps that file's name."""
    def is_tmp(name: Any) -> bool:
        return isinstance(name, (str, os.PathLike)) and os.fspath(name) == os.fspath(tmp)

    if is_tmp(e.filename) or is_tmp(e.filename2) or (
            own and e.filename is None and e.errno is not None):
        e.filename = target
        del e.filename2  # unset, as an error of one path has it (None would be shown)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[IO]:
    """``open(path, mode, **kwargs)`` for writing, made atomic (module docstring).

    ``mode`` is ``"w"`` (text: ``encoding`` defaults to UTF-8) or ``"wb"``.  An OSError
    of creating, flushing or renaming the temporary file names ``path`` as given.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"invalid mode {mode!r}: expected 'w' or 'wb'")
    if mode == "w":
        kwargs.setdefault("encoding", "utf-8")
    target = os.fspath(path)  # what an error names: the caller's path, not the temporary
    path = Path(path)
    tmp = temp_name(path)
    own = False  # the caller's block is done: an error naming no file is the write's
    try:
        with doing("write"):
            with open(tmp, mode, **kwargs) as f:
                yield f
                own = True
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
    except OSError as e:
        _name_target(e, tmp, target, own)
        raise
    finally:
        with contextlib.suppress(OSError):  # gone (renamed), or never made: ENOTDIR
            tmp.unlink()
    fsync_dir(path.parent)
