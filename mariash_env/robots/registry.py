"""The registry of robots: the one table :func:`~mariash_env.robots.make_robot` looks a
robot's name up in (issue #30: a robot is added by registering it where it is defined).

A robot is registered once, by the module that defines it::

    register_robot("random", RandomRobot, args={"seed": SEED})

    @register_robot("onnx", spec="onnx:PATH", games=("voleny", "licitovany"),
                    args={"threads": (lambda v: is_int(v) and v >= 1, "an int >= 1")})
    def make_onnx(kind, players, path, **kw):
        return OnnxRobot(path, game=kind.name, **kw)

What an entry declares:

* ``factory`` -- a :class:`~mariash_env.robots.base.Robot` class (called with the
  spec's keyword arguments), a function ``(kind, players, **kw) -> Robot`` (``kind`` the
  game's :class:`~mariash_env.games.base.GameKind`, ``players`` its seat count), or the
  ``"module:name"`` of either, imported only when the robot is built: the way a robot
  whose module needs an optional package (``open_spiel``) or the shipped models stays
  lazily imported;
* ``games`` / ``seat_counts`` -- the games (registry names) and seat counts it plays,
  None for every one; ``front_end`` -- or every game that front end drives (the
  OpenSpiel robots);
* ``args`` -- its keyword arguments, each with a check and what it accepts (the spec
  ``"pimc(worlds=8)"`` is checked before anything is built); ``defaults`` -- keywords the
  factory always gets;
* ``needs_view`` -- whether it decides from the
  :class:`~mariash_env.robots.view.SeatView` (a searching robot, ``wants_view``) rather
  than from the observation alone: True, False, or the games where it does (``pimc``:
  volený and licitovaný; lízaný's own PIMC reads the observation);
* ``per_game`` -- for ``"net"`` and ``"strong"``: the robot is whichever spec the game's
  kind names in that field (``GameKind.net``, ``GameKind.strong``); a game that names none
  has no such robot;
* ``check`` -- a function ``(kind, players, kw)`` raising what the factory refuses before
  it builds, beyond ``args``: a game's own robot's arguments (lízaný's ``pimc``, whose
  class takes fewer), ``nnpimc``'s ``inference=True`` at four players.  ``make_robot`` and
  ``check_robot`` call it (``check_robot`` builds nothing, so it must not either).

The argument checks several robots share (:data:`SEED`, :func:`int_at_least`, ...) are
here too.  This module imports no robot: the robots' modules import it.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.validate import MAX_WORLDS
from ..rules import is_int

__all__ = ["ArgCheck", "RobotEntry", "RobotGameError", "register_robot", "robot_entry",
           "robot_entries", "robot_names", "check_args", "SEED", "WORLDS", "FLAG", "TIME_LIMIT",
           "ANY_GAME", "int_at_least", "positive_number", "one_of", "game_own_robot",
           "game_own_class"]

VIEW_FRONT_END = "game"
"""The game view (:class:`~mariash_env.robots.view.SeatView`) is of a
:class:`~mariash_env.game.Game`: a robot that needs it plays the games that front end
drives."""

ArgCheck = tuple[Callable[[Any], bool], str]
"""One keyword argument's check and what it accepts (``"an int >= 1"``)."""


def real(v: Any) -> bool:
    """A real number: ``True == 1`` in Python, so bools are told apart explicitly."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_))


def int_at_least(low: int) -> ArgCheck:
    return (lambda v: is_int(v) and v >= low, f"an int >= {low}")


def positive_number() -> ArgCheck:
    return (lambda v: real(v) and 0 < v < math.inf, "a finite number > 0")


def one_of(*values: str) -> ArgCheck:
    names = [repr(v) for v in values]
    what = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return (lambda v: isinstance(v, str) and v in values, what)


# Worlds a searching robot samples in one decision: the samplers' bound, checked when the
# robot is built rather than at its first decision.
WORLDS: ArgCheck = (lambda v: is_int(v) and 1 <= v <= MAX_WORLDS, f"an int 1..{MAX_WORLDS}")
SEED: ArgCheck = (lambda v: v is None or (is_int(v) and v >= 0), "an int >= 0 or None")
FLAG: ArgCheck = (lambda v: isinstance(v, bool), "True or False")
TIME_LIMIT: ArgCheck = (lambda v: v is None or (real(v) and 0 < v < math.inf),
                        "a finite number > 0 (seconds per decision) or None")
ANY_GAME: ArgCheck = (lambda v: True, "a Game")


class RobotGameError(ValueError):
    """A robot asked to play a game (or a seat count) it does not play."""


@dataclass(frozen=True)
class RobotEntry:
    """One registered robot (the module docstring says what each field means)."""

    name: str
    factory: Any  # a Robot class, a function (kind, players, **kw), or "module:name"
    games: tuple[str, ...] | None = None
    seat_counts: tuple[int, ...] | None = None
    args: Mapping[str, ArgCheck] = field(default_factory=dict)
    needs_view: bool | tuple[str, ...] = False  # or the games where it needs the view
    spec: str = ""  # how it is written: its name, or "onnx:PATH" for a path robot
    front_end: str | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    per_game: str = ""  # the GameKind field naming the game's robot ("net", "strong")
    check: Callable[[Any, int, Mapping[str, Any]], None] | None = None  # the factory's
    # refusals made before it builds (module docstring), for check_robot too

    @property
    def takes_path(self) -> bool:
        """Whether it is written ``NAME:PATH`` (the path is the factory's first argument)."""
        return self.spec.endswith(":PATH")

    def load(self) -> Any:
        """The factory itself (a ``"module:name"`` is imported now)."""
        if not isinstance(self.factory, str):
            return self.factory
        module, _, name = self.factory.partition(":")
        return getattr(importlib.import_module(module), name)

    def views(self, kind: Any) -> bool:
        """Whether it decides from the game view in the game of ``kind``."""
        if isinstance(self.needs_view, tuple):
            return kind.name in self.needs_view
        return self.needs_view

    def plays(self, kind: Any) -> bool:
        """Whether it plays the game of ``kind`` (a GameKind), seat counts aside."""
        if self.front_end is not None and not kind.supports(self.front_end):
            return False
        if self.per_game and not getattr(kind, self.per_game):
            return False
        if self.views(kind) and not kind.supports(VIEW_FRONT_END):
            return False
        return self.games is None or kind.name in self.games


_ROBOTS: dict[str, RobotEntry] = {}


def register_robot(name: str, factory: Any = None, *, games: tuple[str, ...] | None = None,
                   seat_counts: tuple[int, ...] | None = None,
                   args: Mapping[str, ArgCheck] | None = None,
                   needs_view: bool | tuple[str, ...] = False,
                   spec: str = "", front_end: str | None = None,
                   defaults: Mapping[str, Any] | None = None, per_game: str = "",
                   check: Callable[[Any, int, Mapping[str, Any]], None] | None = None) -> Any:
    """Register robot ``name`` (the module docstring); without ``factory``, a decorator
    registering the function or class it decorates.  ValueError if the name is taken or
    malformed."""
    if factory is None and not per_game:
        def decorate(obj: Any) -> Any:
            register_robot(name, obj, games=games, seat_counts=seat_counts, args=args,
                           needs_view=needs_view, spec=spec, front_end=front_end,
                           defaults=defaults, check=check)
            return obj

        return decorate
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"bad robot name {name!r}: expected an identifier")
    if name in _ROBOTS:
        raise ValueError(f"robot {name!r} is already registered")
    if spec and spec not in (name, f"{name}:PATH"):
        raise ValueError(f"bad spec {spec!r} for robot {name!r}: expected {name!r} or "
                         f"'{name}:PATH'")
    if isinstance(factory, str) and ":" not in factory:
        raise ValueError(f"bad factory {factory!r} for robot {name!r}: expected "
                         "'module:name'")
    entry = RobotEntry(name, factory, None if games is None else tuple(games),
                       None if seat_counts is None else tuple(seat_counts),
                       dict(args or {}),
                       tuple(needs_view) if isinstance(needs_view, (tuple, list))
                       else bool(needs_view), spec or name, front_end,
                       dict(defaults or {}), per_game, check)
    _ROBOTS[name] = entry
    return factory


def robot_entries() -> tuple[RobotEntry, ...]:
    """Every registered robot, in registration order."""
    return tuple(_ROBOTS.values())


def robot_names() -> tuple[str, ...]:
    """How each registered robot is written (``"onnx:PATH"`` for the path robot)."""
    return tuple(e.spec for e in _ROBOTS.values())


def robot_entry(base: str) -> tuple[RobotEntry, str | None]:
    """The entry of a spec's name (``"pimc"``, ``"onnx:m.onnx"``) and its path (None for a
    robot without one); ValueError naming the registered robots for any other."""
    name, colon, path = base.partition(":")
    entry = _ROBOTS.get(name)
    if entry is None or bool(colon) != entry.takes_path:
        raise ValueError(f"unknown robot {base!r}: expected one of {', '.join(robot_names())}")
    if colon and not path:
        raise ValueError(f"robot {entry.spec!r} needs the path of an exported .onnx model")
    return entry, path if colon else None


def check_args(entry: RobotEntry, kw: Mapping[str, Any], name: str | None = None) -> None:
    """ValueError naming an argument of ``kw`` that robot ``entry`` does not take, or a
    value its check refuses (with what it accepts); ``name``: the robot as the spec
    called it (default the entry's)."""
    allowed = entry.args
    name = name or entry.name
    for k, v in kw.items():
        if k not in allowed:
            raise ValueError(
                f"unknown argument {k!r} for robot {name!r}: expected "
                + (", ".join(sorted(allowed)) if allowed else "no arguments"))
        ok, what = allowed[k]
        if not ok(v):
            raise ValueError(f"invalid {k}={v!r} for robot {name!r}: expected {what}")


def game_own_robot(kind: Any, name: str, kw: Mapping[str, Any]) -> Any:
    """Robot ``name`` (``"pimc"``, ``"nnpimc"``) of a game the shared one cannot play: the
    class its kind names in the field of that name (lízaný's decide from the observation),
    built with ``kw``, which :func:`game_own_class` checks first."""
    return game_own_class(kind, name, kw)(**kw)


def game_own_class(kind: Any, name: str, kw: Mapping[str, Any]) -> Any:
    """The class of robot ``name`` of a game the shared one cannot play, once ``kw`` is
    checked against it (nothing built: ``check_robot`` calls it too).  RobotGameError when
    the game has none, ValueError for an argument that class does not take or a value
    outside its own bounds."""
    if not getattr(kind, name):
        raise RobotGameError(f"robot {name!r} cannot play {kind.title or kind.name}: the game "
                             f"has no view for it and no {name} robot of its own "
                             f"(GameKind.{name})")
    cls = kind.load(name)
    extra = sorted(set(kw) - set(cls.args))
    if extra:
        raise ValueError(f"robot {name!r} of {kind.title or kind.name} takes the arguments "
                         f"{sorted(cls.args)}, not {extra}")
    check_args(RobotEntry(name, cls, args=cls.args), kw)  # its own bounds on the values
    return cls
