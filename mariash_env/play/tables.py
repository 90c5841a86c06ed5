"""Which session plays a game at the table: :func:`open_table` starts a partie of any
game the table plays, :func:`resume_table` reopens a saved one.  Beside both session
modules so that neither imports the other (lízaný's session builds on the shared one)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .lizany_table import FORMAT as LIZANY_FORMAT
from .lizany_table import LizanySession
from .session import PlaySession

__all__ = ["open_table", "resume_table"]


def open_table(robots: str | Sequence[str], *, rules: str = "voleny", **kw: Any) -> Any:
    """A new partie of ``rules`` at the table: a :class:`PlaySession`, or for lízaný a
    :class:`~mariash_env.play.lizany_table.LizanySession` (the same requests and state)."""
    if rules == "lizany":
        return LizanySession(robots, **kw)
    return PlaySession(robots, rules=rules, **kw)


def resume_table(path: str | os.PathLike, **kw: Any) -> Any:
    """The saved session at ``path``, of whichever game it plays."""
    try:
        head = Path(path).read_text(encoding="utf-8")[:200]
        lizany = f'"{LIZANY_FORMAT.rpartition("/")[0]}/' in head  # any version of its format
    except (OSError, UnicodeDecodeError):
        lizany = False
    if lizany:
        return LizanySession.resume(path, **kw)
    return PlaySession.resume(path, **kw)
