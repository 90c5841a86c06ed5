"""Robot opponents: random, the table robot of the online table, PIMC search, and exported
neural policies (ONNX, no torch needed).

``make_robot(spec, **kw)`` builds one from a name:

* ``"random"`` -- :class:`RandomRobot` (uniform over the legal actions);
* ``"table"`` -- :class:`TableRobot` (the deterministic rule robot of the online table),
  under licitovaný rules
  :class:`~mariash_env.games.licitovany.table_robot.LicitTableRobot`, under lízaný rules
  (``rules="lizany"``) :class:`~mariash_env.games.lizany.table_robot.LizanyRuleRobot` (each
  game's ``table_robot`` in the registry);
* ``"lizany_table"`` -- :class:`~mariash_env.games.lizany.table_robot.LizanyRuleRobot`, the
  rule robot of two-player lízaný (:mod:`mariash_env.lizany`; ``random`` plays it too);
* ``"pimc"`` -- :class:`PIMCRobot` (sampled worlds + solver / rollouts; both games);
* ``"nnpimc"`` -- :class:`~mariash_env.robots.nnpimc.NNPIMCRobot`, PIMC whose card-play
  worlds are weighted by how likely an exported network finds the other seats' recorded
  cards (``"nnpimc(model=models/robot.onnx, worlds=8)"``; volený, three players; imported
  lazily);
* ``"strong"`` -- the strong cheap robot of issue #16: ``nnpimc`` with the settings of
  :data:`STRONG` -- the distilled network's bidding and the first three tricks of suit
  games, PIMC (uniform worlds, solved exactly) from the fourth trick on and in every trick
  of betl and durch; any of them can be overridden (``"strong(from_trick=4, worlds=8)"``);
* ``"onnx:PATH"`` -- :class:`OnnxRobot` playing an exported policy (imported lazily);
* ``"os_random"`` / ``"os_ismcts"`` -- OpenSpiel's ``UniformRandomBot`` / ``ISMCTSBot``
  (:class:`mariash_env.openspiel.OpenSpielRobot`; needs ``open_spiel``, imported lazily).

Keyword arguments may also be written into the spec, ``"pimc(worlds=8, time_limit=0.5)"``.
``make_robot(spec, rules=...)`` names the game the robot will play (a
:class:`~mariash_env.rules.Rules`, a rules dict or a game name; default volený): it picks the
game's table robot and refuses an ONNX model trained for the other game.

Every robot follows the protocol of :mod:`mariash_env.robots.base` (``begin_deal``,
``act`` / ``act_view`` / ``act_batch``, ``wants_view``), so each plays in every harness,
and declares the games it plays (``games``, registry names, None = every game;
``seat_counts``): ``random`` every game, ``table`` the game's own, ``pimc`` volený and
licitovaný, ``nnpimc`` / ``strong`` volený with three players, ``onnx:PATH`` its model's
game.  ``make_robot`` refuses a robot for a game it does not play with
:class:`RobotGameError` (a ValueError) naming both, :func:`check_plays` checks any robot.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..games.voleny.table_robot import TableRobot
from ..rules import is_int
from .base import PolicyRobot, RandomRobot, Robot, RobotGameError, as_robot, check_plays
from .pimc import PIMCRobot
from .view import SeatView

__all__ = [
    "Robot", "RandomRobot", "TableRobot", "PIMCRobot", "SeatView", "OnnxRobot",
    "OnnxRobotError", "PolicyRobot", "as_robot", "make_robot", "parse_spec", "ROBOT_NAMES",
    "check_robot_args", "game_name", "RobotGameError", "check_plays",
]

ROBOT_NAMES = ("random", "table", "pimc", "nnpimc", "strong", "onnx:PATH", "os_random",
               "os_ismcts", "lizany_table")
LIZANY = "lizany"  # the two-player game (mariash_env.lizany): its own engine, not a Rules
STRONG: dict[str, Any] = {
    "model": "models/robot_distilled_dagger2.onnx",  # a shipped model (mariash_env.shipped)
    "bidding": "network", "from_trick": 3, "nt_from_trick": 0, "inference": False,
    "worlds": 6,
}
"""The settings of robot ``"strong"`` (nnpimc): measured in docs/nnpimc.md."""


def __getattr__(name: str) -> Any:
    if name in ("OnnxRobot", "OnnxRobotError"):
        from . import onnx_robot

        return getattr(onnx_robot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc(worlds=8)"`` -> ``("pimc", {"worlds": 8})``; ``"onnx:m.onnx"`` unchanged."""
    spec = spec.strip()
    if spec.startswith("onnx:") or "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise ValueError(f"bad robot spec {spec!r}: expected NAME or NAME(key=value, ...)")
    name, _, args = spec[:-1].partition("(")
    kw: dict[str, Any] = {}
    if args.strip():
        bad = ValueError(f"bad robot spec {spec!r}: arguments must be key=literal pairs")
        try:
            call = ast.parse(f"f({args})", mode="eval").body
            if not isinstance(call, ast.Call) or call.args or any(
                k.arg is None for k in call.keywords
            ):
                raise bad
            for k in call.keywords:
                kw[str(k.arg)] = ast.literal_eval(k.value)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as e:
            raise bad from e
    return name.strip(), kw


def _real(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_))


def _strings(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v)


# Per robot: argument -> (check, what is accepted).  ``True == 1`` in Python, so bools
# are told apart from ints explicitly.
_ARGS: dict[str, dict[str, tuple[Callable[[Any], bool], str]]] = {
    "random": {"seed": (lambda v: v is None or is_int(v), "an int or None")},
    "table": {},
    "lizany_table": {},
    "pimc": {
        "worlds": (lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "time_limit": (lambda v: v is None or (_real(v) and 0 < v < math.inf),
                       "a number > 0 (seconds per decision) or None"),
        "seed": (lambda v: v is None or is_int(v), "an int or None"),
        "game": (lambda v: True, "a Game"),
        "use_solver": (lambda v: isinstance(v, bool), "True or False"),
        "bidding": (lambda v: v in ("simulate", "table") and isinstance(v, str),
                    "'simulate' or 'table'"),
        "solve_bidding": (lambda v: isinstance(v, bool), "True or False"),
        "simulate_discards": (lambda v: isinstance(v, bool), "True or False"),
    },
    "nnpimc": {
        "model": (lambda v: isinstance(v, str) and bool(v), "the path of an exported .onnx "
                  "model"),
        "worlds": (lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "candidates": (lambda v: v is None or (is_int(v) and v >= 1),
                       "an int >= worlds or None (4 x worlds)"),
        "temperature": (lambda v: _real(v) and 0 < v < math.inf, "a number > 0"),
        "floor": (lambda v: _real(v) and 0 < v <= 0.1, "a number in (0, 0.1]"),
        "time_limit": (lambda v: v is None or (_real(v) and 0 < v < math.inf),
                       "a number > 0 (seconds per decision) or None"),
        "seed": (lambda v: v is None or is_int(v), "an int or None"),
        "game": (lambda v: True, "a Game"),
        "bidding": (lambda v: v in ("simulate", "table", "network") and isinstance(v, str),
                    "'simulate', 'table' or 'network'"),
        "threads": (lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "leaf": (lambda v: v in ("solver", "network") and isinstance(v, str),
                 "'solver' or 'network'"),
        "from_trick": (lambda v: is_int(v) and 0 <= v <= 9, "a trick 0..9"),
        "nt_from_trick": (lambda v: v is None or (is_int(v) and 0 <= v <= 9),
                          "a trick 0..9 or None"),
        "inference": (lambda v: isinstance(v, bool), "True or False"),
        "betl_bias": (lambda v: _real(v) and -math.inf < v < math.inf,
                      "a finite number of groše"),
        "durch_bias": (lambda v: _real(v) and -math.inf < v < math.inf,
                       "a finite number of groše"),
    },
    "os_random": {"seed": (lambda v: v is None or is_int(v), "an int or None")},
    "os_ismcts": {
        "simulations": (lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "rollouts": (lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "uct_c": (lambda v: _real(v) and 0 < v < math.inf, "a number > 0"),
        "seed": (lambda v: v is None or is_int(v), "an int or None"),
    },
    "onnx": {
        "threads": (lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "providers": (lambda v: v is None or _strings(v), "a list of provider names or None"),
    },
}


_ARGS["strong"] = _ARGS["nnpimc"]


def check_robot_args(base: str, kw: dict[str, Any]) -> None:
    """Raise ValueError naming a robot argument that is unknown or has a bad value."""
    key = "onnx" if base.startswith("onnx:") else base
    allowed = _ARGS[key]
    for k, v in kw.items():
        if k not in allowed:
            raise ValueError(
                f"unknown argument {k!r} for robot {key!r}: expected "
                + (", ".join(sorted(allowed)) if allowed else "no arguments")
            )
        ok, what = allowed[k]
        if not ok(v):
            raise ValueError(f"invalid {k}={v!r} for robot {key!r}: expected {what}")


def game_name(rules: Any) -> str:
    """The game (``"voleny"`` / ``"licitovany"`` / ``"lizany"``) of a Rules, a rules dict, a
    game name or None (volený); ValueError naming anything else."""
    from ..games.registry import game_kind

    return game_kind(rules).name  # GameError (a ValueError) names the registered games


def _players(rules: Any, kind: Any) -> int:
    """The seat count of ``rules`` (a Rules, a rules dict, a game name or None)."""
    from ..rules import Rules

    if isinstance(rules, Rules):
        return rules.players
    if isinstance(rules, dict) and "players" in rules:
        return rules["players"]
    return kind.players[0]


def _make_nnpimc(players: int, game: str, kw: dict[str, Any], name: str = "nnpimc") -> Robot:
    """NNPIMCRobot, refused by name for a game it does not play (volený, three players)."""
    from .nnpimc import NNPIMCRobot

    if game != "voleny" or players != 3:
        raise RobotGameError(f"robot {name!r} cannot play {game} mariáš with {players} players: "
                         "it plays volený mariáš with three players")
    kw = dict(kw)
    worlds = kw.get("worlds", 8)
    if kw.get("candidates") is not None and kw["candidates"] < worlds:
        raise ValueError(f"invalid candidates={kw['candidates']!r} for robot {name!r}: "
                         f"expected an int >= worlds ({worlds})")
    return NNPIMCRobot(**kw)


def make_robot(name: str, rules: Any = None, **kw: Any) -> Robot:
    """A robot from its registry name (module docstring) for the game of ``rules`` (a
    Rules, a rules dict, a game name or None = volený); ``kw`` go to its constructor.

    Every argument is checked first: an unknown robot, an unknown argument or a bad value
    raises ValueError naming it and what is accepted; so does a robot that cannot play the
    game (an ONNX model of the other game).
    """
    if not isinstance(name, str):
        raise ValueError(f"a robot spec must be a str, got {name!r}")
    base, extra = parse_spec(name)
    kw = {**extra, **kw}
    if base not in _ARGS and not base.startswith("onnx:"):
        raise ValueError(f"unknown robot {name!r}: expected one of {', '.join(ROBOT_NAMES)}")
    if base.startswith("onnx:") and not base[len("onnx:"):]:
        raise ValueError("robot 'onnx:PATH' needs the path of an exported .onnx model")
    check_robot_args(base, kw)
    from ..games.registry import game_kind

    kind = game_kind(LIZANY if base == "lizany_table" and rules is None else rules)
    game = kind.name
    players = _players(rules, kind)
    if base in ("nnpimc", "strong"):
        if base == "strong":
            from ..shipped import shipped_model

            name = STRONG["model"].rsplit("/", 1)[-1]  # the shipped file, checkout or wheel
            model = kw.pop("model", None) or str(shipped_model(name))
            kw = {**STRONG, "model": model, **kw}
        return _make_nnpimc(players, game, kw, base)
    if base in ("os_random", "os_ismcts"):
        kind.require("openspiel")  # GameError naming the front ends that play the game
        from ..openspiel import OpenSpielRobot

        return OpenSpielRobot(base[3:], **kw)
    # Each robot class declares the games it plays (Robot.games): refused by name before
    # it is built, and once built (an ONNX model plays its metadata's game only).
    args: tuple[Any, ...] = ()
    if base == "random":
        cls: Any = RandomRobot
    elif base == "table":
        cls = kind.load("table_robot")  # the game's own table robot
    elif base == "lizany_table":
        cls = game_kind(LIZANY).load("table_robot")
    elif base == "pimc":
        cls = PIMCRobot
    else:
        from .onnx_robot import OnnxRobot

        cls, args, kw = OnnxRobot, (base[len("onnx:"):],), {**kw, "game": game}
    check_plays(cls, kind, players, base)
    robot = cls(*args, **kw)
    check_plays(robot, kind, players, base)
    return robot
