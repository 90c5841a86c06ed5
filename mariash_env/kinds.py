"""The games of the compiled engine, by name: thin aliases over the registry of games
(:mod:`mariash_env.games.registry`, the one place that lists them).

:class:`GameKind` is the registry's; :data:`KINDS` and :func:`kind_of` hold the games
the engine (Game, env, VectorEnv) plays — a front end that drives other games too asks
:func:`mariash_env.games.registry.game_kind` with its front-end name.
"""

from __future__ import annotations

from .games.base import GameError, GameKind, SeatLayout
from .games.registry import LICITOVANY, VOLENY, game_kind, games
from .rules import Rules

__all__ = ["GameError", "GameKind", "SeatLayout", "KINDS", "VOLENY", "LICITOVANY", "kind_of"]

KINDS: dict[str, GameKind] = {k.name: k for k in games("game")}


def kind_of(rules: Rules | str) -> GameKind:
    """The :class:`GameKind` of a :class:`~mariash_env.rules.Rules` or a game name the
    engine plays (:class:`GameError`, a KeyError, for any other)."""
    return game_kind(rules, front_end="game")
