"""Files written atomically: under a temporary name in the same directory
(``.NAME.tmp-PID``), flushed and fsynced, then renamed over the target and the
directory fsynced.  A reader sees the old file or the new one, never half of one; a
write that fails leaves the target as it was and removes its temporary file (a killed
process leaves it behind: ``training.checkpoint.remove_stale_temp_files`` knows the
pattern)."""

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


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[IO]:
    """``open(path, mode, **kwargs)`` for writing, made atomic (module docstring).

    ``mode`` is ``"w"`` (text: ``encoding`` defaults to UTF-8) or ``"wb"``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"invalid mode {mode!r}: expected 'w' or 'wb'")
    if mode == "w":
        kwargs.setdefault("encoding", "utf-8")
    path = Path(path)
    tmp = temp_name(path)
    try:
        with doing("write"), open(tmp, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        with doing("write"):
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
