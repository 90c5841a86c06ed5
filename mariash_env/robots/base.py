"""The robot protocol: what every harness (the arena, the training evaluation, the
environment's own scripts) calls, and what a robot may optionally receive.

A robot decides for the seat to move from what that seat sees.  ``observation`` is what
the AEC environment hands the seat: a dict with ``"observation"`` (float32[OBS_SIZE],
layout in :mod:`mariash_env.games.voleny.observe`) and ``"action_mask"`` (int8[N_ACTIONS]).
Robots never see another seat's cards.

Every harness drives every robot through the same calls:

* :meth:`Robot.begin_deal` ``(seed)`` before each deal it plays (a seed of that deal and
  seating: a robot that draws random numbers reseeds from it, so results do not depend
  on how the deals are spread over processes);
* one decision: :meth:`Robot.act_view` ``(view)`` with a
  :class:`~mariash_env.robots.view.SeatView` (the default asks :meth:`Robot.act` with
  the view's observation), or a batch of decisions: :meth:`Robot.act_batch`
  ``(obs, mask)``;
* :attr:`Robot.wants_view`: ``False`` (the default) when the observation is all the
  robot needs, so it may be handed batches of observations; ``True`` for a robot that
  searches (it samples worlds from the view, e.g.
  :class:`~mariash_env.robots.PIMCRobot`): it then gets one :meth:`act_view` per
  decision and plays one game at a time.

:func:`as_robot` turns a callable ``(obs, mask) -> actions`` or an object with
``act_batch`` / ``act`` into a :class:`Robot`.

A robot declares the games it plays: :attr:`Robot.games` (registry names; None: every
game) and :attr:`Robot.seat_counts`; :func:`check_plays` refuses it for another game with
:class:`RobotGameError` naming both (``make_robot`` and ``SingleAgentEnv`` ask it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .registry import SEED, RobotGameError, register_robot

if TYPE_CHECKING:  # pragma: no cover
    from .view import SeatView

__all__ = ["Robot", "RandomRobot", "PolicyRobot", "RobotGameError", "ObservationError",
           "as_robot", "check_batch", "check_plays", "legal_of", "observation_arrays"]


class ObservationError(ValueError):
    """An observation vector (or its mask) that no seat's observation can be: the check
    names the block at fault and what a canonical observation holds there."""


class Robot:
    """Base class of all robots; subclasses implement :meth:`act` (module docstring)."""

    name = "robot"
    wants_view: ClassVar[bool] = False
    """Whether the robot needs the :class:`SeatView` (``act_view``) rather than the
    observation alone; such a robot is never handed batches (``act_batch``)."""

    games: tuple[str, ...] | None = None
    """The games it plays (registry names, ``mariash_env.games.registry``); None: every
    game (a robot that reads only what it is handed, or one whose author did not say)."""
    seat_counts: tuple[int, ...] | None = None
    """The seat counts it plays (None: every one of its games')."""

    def act(self, observation: dict[str, Any]) -> int:
        raise NotImplementedError

    def act_view(self, view: SeatView) -> int:
        """One decision from the seat's view; by default :meth:`act` on its observation."""
        return self.act(view.observation_dict())

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions for a batch of observations ``[N, D]`` with masks ``[N, A]``."""
        obs, mask = self.check_batch(obs, mask)
        return np.array(
            [self.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask)],
            dtype=np.int64,
        )

    def check_batch(self, obs: Any, mask: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(obs, mask)`` as arrays when they are a batch this robot can decide
        (:func:`check_batch`; the mask as wide as its game's actions when it plays one
        game): every ``act_batch`` asks it first."""
        # here: the games import the robots; the registry fills REGISTERED
        from ..games.registry import REGISTERED

        g = self.games
        kind = REGISTERED.get(g[0]) if isinstance(g, (tuple, list)) and len(g) == 1 else None
        return check_batch(obs, mask, n_actions=None if kind is None else kind.n_actions)

    def reset(self) -> None:
        """Forget anything remembered from an earlier deal (robots are mostly stateless)."""

    def begin_deal(self, seed: int) -> None:
        """A deal starts (harnesses call it before each deal, with a seed of the deal and
        seating): :meth:`reset`, and a robot that draws random numbers reseeds from
        ``seed``."""
        self.reset()


def observation_arrays(observation: Any) -> tuple[np.ndarray, np.ndarray]:
    """The ``(observation, action_mask)`` arrays of the AEC observation dict a robot's
    ``act`` takes; ObservationError when it is not one (so no robot fails on a bare
    vector with an IndexError or on a missing mask with a KeyError)."""
    if type(observation) is dict and "observation" in observation and (
            "action_mask" in observation):  # the envs' own dicts: no Mapping check
        return np.asarray(observation["observation"]), np.asarray(observation["action_mask"])
    if not isinstance(observation, Mapping) or not {"observation", "action_mask"} <= set(
            observation):
        raise ObservationError("expected a dict with 'observation' and 'action_mask', got "
                               f"{type(observation).__name__}"
                               + (f" with keys {sorted(map(str, observation))}"
                                  if isinstance(observation, Mapping) else ""))
    return np.asarray(observation["observation"]), np.asarray(observation["action_mask"])


def no_legal_action() -> ObservationError:
    """What every robot raises for an action mask with no legal action: the observation
    of a seat that is not to move."""
    return ObservationError("the observation's action_mask has no legal action: is this "
                            "seat to move?")


def check_batch(obs: Any, mask: Any, obs_sizes: Collection[int] | None = None,
                n_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(obs, mask)`` as arrays when they are a batch of decisions: observations
    ``[N, D]`` (``D`` in ``obs_sizes`` when given) and 0/1 masks ``[N, A]`` (``A`` =
    ``n_actions`` when given) of the same ``N``, every row with a legal action; else
    ObservationError naming what is wrong (a row with no legal action by its index), so
    that no robot answers a batch it cannot have read."""
    try:
        o, m = np.asarray(obs), np.asarray(mask)
    except (ValueError, TypeError) as e:  # ragged sequences
        raise ObservationError(f"a batch is observations [N, D] and masks [N, A]: {e}") from e
    if o.ndim != 2 or m.ndim != 2:
        raise ObservationError(f"a batch is observations [N, D] and masks [N, A] (2-D), got "
                               f"shapes {o.shape} and {m.shape}")
    if len(o) != len(m):
        raise ObservationError(f"a batch has one mask per observation, got {len(o)} "
                               f"observations and {len(m)} masks")
    if obs_sizes is not None and o.shape[1] not in obs_sizes:
        raise ObservationError(f"observations of {' or '.join(map(str, sorted(obs_sizes)))} "
                               f"floats expected, got shape {o.shape}")
    if n_actions is not None and m.shape[1] != n_actions:
        raise ObservationError(f"masks of {n_actions} actions expected, got shape {m.shape}")
    if m.dtype == object or m.dtype.kind not in "biuf":
        raise ObservationError(f"an action mask is numbers 0 or 1, got dtype {m.dtype}")
    bad = np.argwhere((m != 0) & (m != 1))
    if bad.size:
        i, j = bad[0].tolist()
        raise ObservationError(f"mask row {i}, action {j}: {m[i, j].item()!r}, expected 0 or 1")
    empty = np.flatnonzero(~m.any(axis=1))
    if empty.size:
        raise ObservationError(f"mask row {int(empty[0])} has no legal action ({empty.size} "
                               "such row(s)): is that seat to move?")
    return o, m


def legal_of(observation: dict[str, Any]) -> np.ndarray:
    """The legal action indices of an observation dict (ObservationError: not one)."""
    legal = np.flatnonzero(observation_arrays(observation)[1])
    if legal.size == 0:
        raise no_legal_action()
    return legal


def check_plays(robot: Any, game: Any, players: int | None = None,
                name: str | None = None) -> None:
    """RobotGameError naming the robot (``name``, default its own) unless it plays ``game``
    (a GameKind) with ``players`` seats (default: the game's own), as its ``games`` /
    ``seat_counts`` say; ``robot`` may be a robot class (checked before it is built)."""
    players = game.players[0] if players is None else players
    games = getattr(robot, "games", None)
    counts = getattr(robot, "seat_counts", None)
    if name is None:
        name = getattr(robot, "name", None) or getattr(robot, "__name__", type(robot).__name__)
    if games is not None and game.name not in games:
        raise RobotGameError(
            f"robot {name!r} cannot play {game.title or game.name} (rules={game.name!r}): it "
            f"plays only {', '.join(f'rules={g!r}' for g in games)}")
    if counts is not None and players not in counts:
        raise RobotGameError(
            f"robot {name!r} cannot play {game.title or game.name} with {players} players: "
            f"it plays {' or '.join(map(str, counts))} players")


class RandomRobot(Robot):
    """Uniform over the legal actions."""

    name = "random"
    games = None  # every game: it reads only the mask

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def begin_deal(self, seed: int) -> None:
        super().begin_deal(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any]) -> int:
        return int(self.rng.choice(legal_of(observation)))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        _, mask = self.check_batch(obs, mask)
        # 1 + u > 0: a draw of exactly 0 cannot tie with the illegal actions' zeros
        u = (1.0 + self.rng.random(mask.shape)) * (mask != 0)
        return np.argmax(u, axis=1).astype(np.int64)


register_robot("random", RandomRobot, args={"seed": SEED})


class PolicyRobot(Robot):
    """A robot from a batch policy ``fn(obs [N, D], mask [N, A]) -> actions [N]``."""

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 name: str = "policy") -> None:
        self.fn = fn
        self.name = name

    def act(self, observation: dict[str, Any]) -> int:
        o, m = observation_arrays(observation)
        return int(np.asarray(self.fn(o[None], m[None]))[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.check_batch(obs, mask)  # (the policy gets the batch as it was given)
        return np.asarray(self.fn(obs, mask), dtype=np.int64)


class _Duck(Robot):
    """A robot-like object outside the class tree (``act`` and/or ``act_batch``, maybe
    ``reset`` and a numpy ``rng``), driven through the protocol."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.name = getattr(obj, "name", type(obj).__name__)
        self.games = getattr(obj, "games", None)
        self.seat_counts = getattr(obj, "seat_counts", None)

    def act(self, observation: dict[str, Any]) -> int:
        if hasattr(self.obj, "act"):
            return int(self.obj.act(observation))
        o, m = observation_arrays(observation)
        return int(self.act_batch(o[None], m[None])[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if hasattr(self.obj, "act_batch"):
            self.check_batch(obs, mask)
            return np.asarray(self.obj.act_batch(obs, mask), dtype=np.int64)
        return super().act_batch(obs, mask)

    def reset(self) -> None:
        if hasattr(self.obj, "reset"):
            self.obj.reset()

    def begin_deal(self, seed: int) -> None:
        self.reset()
        if isinstance(getattr(self.obj, "rng", None), np.random.Generator):
            self.obj.rng = np.random.default_rng(seed)


def as_robot(agent: Any, name: str | None = None) -> Robot:
    """``agent`` as a :class:`Robot`: a Robot itself, an object with ``act_batch`` or
    ``act`` (wrapped), or a callable batch policy ``(obs, mask) -> actions``."""
    if isinstance(agent, Robot):
        return agent
    if hasattr(agent, "act_batch") or hasattr(agent, "act"):
        return _Duck(agent)
    if callable(agent):
        return PolicyRobot(agent, name or getattr(agent, "__name__", "policy"))
    raise TypeError(f"cannot play {type(agent).__name__}: expected a Robot, an object with "
                    "act_batch(obs, mask) or act(observation), or a callable "
                    "(obs, mask) -> actions")
