"""Which session plays a game at the table: :func:`open_table` starts a partie of any
game the table plays, :func:`resume_table` reopens a saved one.  Beside both session
modules so that neither imports the other (lízaný's session builds on the shared one)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..games.base import GameError
from ..games.registry import game_kind, games
from .session import PlaySession

__all__ = ["open_table", "resume_table"]


def _session_class(rules: Any) -> Any:
    """The table session of game ``rules``: its kind's ``table_session`` when it has its
    own (lízaný's two seats), else :class:`PlaySession` (which refuses an unknown game)."""
    try:
        kind = game_kind(rules)
    except GameError:
        return PlaySession
    return kind.load("table_session") if kind.table_session else PlaySession


def open_table(robots: str | Sequence[str], *, rules: str = "voleny", **kw: Any) -> Any:
    """A new partie of ``rules`` at the table: a :class:`PlaySession`, or the game's own
    session (lízaný's :class:`~mariash_env.play.lizany_table.LizanySession`, the same
    requests and state)."""
    cls = _session_class(rules)
    if cls is PlaySession:
        return PlaySession(robots, rules=rules, **kw)
    return cls(robots, **kw)


def resume_table(path: str | os.PathLike, **kw: Any) -> Any:
    """The saved session at ``path``, of whichever game it plays (a game's own session
    is known by its ``FORMAT``, any version of it)."""
    try:
        head = Path(path).read_text(encoding="utf-8")[:200]
    except (OSError, UnicodeDecodeError):
        head = ""
    for kind in games():
        if kind.table_session:
            cls = kind.load("table_session")
            if f'"{cls.FORMAT.rpartition("/")[0]}/' in head:
                return cls.resume(path, **kw)
    return PlaySession.resume(path, **kw)
