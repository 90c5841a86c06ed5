"""The registry of games: the one place that lists them.  A front end asks
:func:`game_kind` for the :class:`~mariash_env.games.base.GameKind` it drives (and
``kind.supports(front_end)`` whether it drives it); a new game is a package under
``mariash_env/games/`` with a ``kind.py`` and one :func:`register_game` line here."""

from __future__ import annotations

from typing import Any

from .base import REGISTERED, GameError, GameKind
from .licitovany.kind import KIND as LICITOVANY
from .lizany.kind import KIND as LIZANY
from .voleny.kind import KIND as VOLENY

_GAMES = REGISTERED  # kept in games.base so that rules reads it without importing this


def register_game(kind: GameKind) -> GameKind:
    """Add ``kind`` to the registry (GameError if its name or ``R_GAME`` is taken)."""
    if not isinstance(kind, GameKind):
        raise GameError(f"register_game takes a GameKind, got {type(kind).__name__}")
    if kind.name in _GAMES:
        raise GameError(f"game {kind.name!r} is already registered")
    if kind.game is not None and any(k.game == kind.game for k in _GAMES.values()):
        raise GameError(f"game {kind.name!r}: R_GAME {kind.game} is already registered")
    _GAMES[kind.name] = kind
    return kind


def games(front_end: str | None = None) -> tuple[GameKind, ...]:
    """Every registered game, in registration order (only those ``front_end`` drives)."""
    return tuple(k for k in _GAMES.values() if front_end is None or k.supports(front_end))


def game_kind(rules: Any = None, front_end: str | None = None) -> GameKind:
    """The GameKind of a game name, a :class:`~mariash_env.rules.Rules` (or anything with
    a ``rules`` attribute), a rules dict (``{"rules": ...}``) or None (volený).  With
    ``front_end``, GameError unless that front end drives the game."""
    name = rules
    if rules is None:
        name = "voleny"
    elif isinstance(rules, dict):
        name = rules.get("rules", "voleny")
    elif not isinstance(rules, str):
        name = getattr(rules, "rules", rules)
    if not isinstance(name, str) or name not in _GAMES:
        raise GameError(f"unknown game rules {name!r}: expected one of {', '.join(_GAMES)}")
    kind = _GAMES[name]
    if front_end is not None:
        kind.require(front_end)
    return kind


register_game(VOLENY)
register_game(LICITOVANY)
register_game(LIZANY)
