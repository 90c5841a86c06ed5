"""Mariáš as an OpenSpiel game (``pyspiel.load_game("mariash")``), every game of the
project: volený (RULES.md) at three and four players (§11.3), licitovaný (LICITOVANY.md)
on the compiled engine, and two-player lízaný on its own game object.

Importing this package registers the Python game ``"mariash"`` with
:func:`pyspiel.register_game`; OpenSpiel's algorithms (IS-MCTS, NFSP, policy gradient,
its evaluation tools, ``pyspiel.random_sim_test``) then take it like any other game.
``open_spiel`` is needed only here (the ``openspiel`` extra, also in ``dev``;
without it importing this package raises
:class:`~mariash_env.extras.MissingExtraError` naming the extra).  Which game a
parameter set loads is the registry's answer (:func:`mariash_env.games.registry.game_kind`,
front end ``"openspiel"``): a game that does not list that front end is refused by name.

Parameters: every option of :func:`mariash_env.make_rules`, which validates them (a bad
value or combination, e.g. ``tariff="csm"`` with ``open_contracts=True`` or a volený
option under licitovaný, raises ``RulesError`` naming it).  OpenSpiel parameters cannot
be None and OpenSpiel fills in every default, hence the sentinels:

* ``rules`` -- ``"voleny"`` (default), ``"licitovany"`` or ``"lizany"`` (which takes no
  other option: ``players`` 2, ``deals`` 1, the rest at their defaults);
* ``deals`` -- deals in the partie, ``-1`` (default) the game's default: 1 (one deal is
  one OpenSpiel game), at four 16 (RULES.md §11.3);
* ``tariff``, ``killed_seven``, ``open_contracts``, ``hundred_counting`` (volený only),
  ``marriage_order``, ``shuffle``, ``players`` -- as in ``make_rules`` (``players=4``:
  the four-player game, volený only, ``num_players() == 4``);
* ``max_flek`` -- highest flek level, ``-1`` for unlimited (``None``: bounded at level
  24), ``-2`` (default) the game's default (volený 4, licitovaný 5);
* ``payment_cap`` -- groše (licitovaný: desetníky) per defender and deal, ``0`` for none,
  ``-1`` (default) the game's default (volený none, licitovaný 500).

The game's parameters (its string, what serialisation stores) are the rules as played,
defaults filled in, only the options the game takes (licitovaný: none of volený's, and
``players=3``); :func:`game_params` gives them for a :class:`~mariash_env.rules.Rules`.

The package, split by what it holds:

* :mod:`~mariash_env.openspiel.params` -- parameters, rules, bounds, tensor sizes;
* :mod:`~mariash_env.openspiel.game` / :mod:`~mariash_env.openspiel.state` -- the adapter
  over the compiled engine (volený, four players, licitovaný): game, observer, state;
* :mod:`~mariash_env.openspiel.resample` -- ``resample_from_infostate`` for it, the
  gathered partie included;
* :mod:`~mariash_env.openspiel.lizany` -- lízaný's game, state and resampling;
* :mod:`~mariash_env.openspiel.rl` -- :class:`TurnRewardEnvironment`, OpenSpiel's
  ``rl_environment`` crediting every player its payments at its own turn (parties);
* :mod:`~mariash_env.openspiel.robot` -- :class:`OpenSpielRobot`, OpenSpiel bots as robots.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from ..games.registry import REGISTERED  # importing the registry registers the games
from ..rules import make_rules  # noqa: F401 (read as mariash_env.openspiel.make_rules)
from . import resample as _resample
from ._pyspiel import pyspiel  # first: without open_spiel, the error naming its extra
from .game import GAME_TYPE, MariashGame, load_game
from .lizany import MariashLizanyGame, MariashLizanyState
from .params import (
    game_params,
    info_block,
    info_state_size,
    max_game_length,
    rules_from_params,
    utility_bound,
    utility_range,
)
from .resample import ARRANGE_TRIES, RELABEL_STEPS, RESAMPLE_TRIES, ResampleError
from .rl import TurnRewardEnvironment
from .robot import OpenSpielRobot
from .state import MariashState, state_from_record

__all__ = [
    "ARRANGE_TRIES", "GAME_TYPE", "RELABEL_STEPS", "RESAMPLE_TRIES", "MariashGame",
    "MariashLizanyGame", "MariashLizanyState", "MariashState", "OpenSpielRobot",
    "ResampleError", "TurnRewardEnvironment", "game_params", "info_block",
    "info_state_size", "load_game", "max_game_length", "rules_from_params",
    "state_from_record", "utility_bound", "utility_range",
]


def _adapter(rules: Any) -> type[pyspiel.Game]:
    """The OpenSpiel game class of the game ``rules`` names: its own adapter when the
    registry names one (``GameKind.openspiel_game``: a game not on the compiled engine's
    record), else MariashGame.  Each adapter asks the registry for its game with the
    "openspiel" front end, so a game the registry keeps from OpenSpiel (or an unknown
    name) is refused there, by name."""
    kind = REGISTERED.get(rules) if isinstance(rules, str) else None
    return kind.load("openspiel_game") if kind is not None and kind.openspiel_game \
        else MariashGame


class _Create:
    """The game OpenSpiel loads for ``params``: the adapter of ``params["rules"]``.

    A class, not a function: pyspiel keeps the registered factory in a C++ static that is
    destroyed after the interpreter has finalised.  A class refers to itself (its
    ``__mro__``), so that last reference never frees it there; a plain function, once the
    module's namespace is cleared, would be freed without the GIL and abort the process
    at exit (seen under pytest)."""

    def __new__(cls, params: dict[str, Any] | None = None) -> pyspiel.Game:  # type: ignore[misc]
        return _adapter((params or {}).get("rules"))(params)


class _Package(types.ModuleType):
    """Setting a resampling tuning constant on the package (``RELABEL_STEPS``, ...) sets it
    in :mod:`~mariash_env.openspiel.resample`, which reads it at each call."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _resample.TUNING:
            setattr(_resample, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
pyspiel.register_game(GAME_TYPE, _Create)
