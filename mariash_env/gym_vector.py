"""A Gymnasium ``VectorEnv`` over the compiled batched engine
(:class:`~mariash_env.vector.VectorEnv`).

::

    from mariash_env.gym_vector import GymVectorEnv
    envs = GymVectorEnv(1024, deals=1)              # any rule option: rules="licitovany", players=4
    # or, registered with Gymnasium on import mariash_env (a vector entry point only):
    envs = gymnasium.make_vec("mariash/SelfPlay-v0", num_envs=1024, deals=1)
    obs, infos = envs.reset(seed=0)
    for _ in range(100):
        actions = my_policy(obs, infos["action_mask"])   # one legal action per game
        obs, reward, terminated, truncated, infos = envs.step(actions)

Self-play: in every game the seat to move (``infos["seat"]``) acts, all seats through one
policy.  ``observation_space``: ``Box(float32[obs_size])`` per game (the seat to move's
observation; the game's bounds, as its AEC env's: lízaný's [0, 1], the others' none);
``action_space``: ``MultiDiscrete([n_actions] * num_envs)``, whose
``sample()`` draws a legal action in every game (a copy of the space alone is a plain
``MultiDiscrete``; ``single_action_space`` is a plain ``Discrete``).  Every call
returns fresh arrays and ``infos`` with

``"action_mask"`` bool[N, n_actions]
    the legal actions of the seat to move (an illegal action raises ``ValueError`` and
    nothing is applied);
``"seat"`` int64[N]
    the seat to move (0..2; at ``players=4`` the player 0..3);
``"rewards"`` float64[N, players]  (``step`` only)
    each seat's payment on the step its deal ends, else 0 (zero-sum per game);
``"deal_done"`` bool[N]  (``step`` only)
    a deal ended in this step (a partie of ``deals`` deals is the episode).

``reward`` is the payment of the seat that moved (``rewards[i, seat before the step]``).

Beside each info array is Gymnasium's boolean mask ``"_<key>"`` (``"_action_mask"``,
``"_seat"``, ``"_rewards"``, ``"_deal_done"``: bool[N]), True where that game has the info,
as ``SyncVectorEnv`` writes them (``gymnasium.wrappers.vector.DictInfoToList`` reads
them).  In NEXT_STEP mode a game's autoreset step returns its reset's info, not a step's:
its ``"_rewards"`` and ``"_deal_done"`` are False (the arrays hold 0 and False there); every
other entry is True, a partial reset's kept games' too (their mask and seat are given).
There is no ``"final_obs"`` / ``"final_info"``: those are the SAME_STEP mode's.

Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP`` (the mode
Gymnasium's vector wrappers accept): a step that ends a partie returns
``terminated=True`` with the terminal observation, and the next ``step`` ignores that
game's action and returns the first decision of its new partie with reward 0.  The
terminal observation is all zeros, a placeholder this env writes, not an observation of
the finished deal: the engine restarts a game inside the step that ends its partie, so
no state of the finished partie is left to observe (the engine's ``Step.obs`` row of
that step already is the new partie's first decision, which the next ``step`` returns),
and the AEC environment's last observation of a deal, the seat's view of the played-out
cards, is not zero.  The payments of the finished deal are in that step's
``infos["rewards"]``.  The mask of a terminated game already is that of the new
partie, so a masked sampler never meets an empty mask.  No truncation.

Partial reset: ``reset(options={"reset_mask": mask})``, ``mask`` a numpy bool array of
one entry a game (Gymnasium 1.x's form, checked as ``SyncVectorEnv`` checks it), starts a
new partie in the games where ``mask`` is True only; the others keep their state and
return what the last call returned for them, as ``SyncVectorEnv`` does: their current
observation, and for a game the last step ended (the NEXT_STEP autoreset still pending)
the zero terminal observation again, its next ``step`` still its autoreset (action
ignored, reward 0).  ``SyncVectorEnv`` takes the mask in every autoreset mode, NEXT_STEP
included, and so does this env: a restarted game's pending autoreset is dropped, so its
next step plays the action given.  ``infos`` has the mask and seat of every game (the
kept games' the same as before).  Seeding is by position: game ``i`` of the mask gets
the seed a whole reset with the same ``seed`` would give it (``seed + i``, ``seed[i]``, or
without one the sequence's ``next + i``), so a game's seed does not depend on which
other games restart, and the sequence goes on after the largest seed used.  The engine
restarts those games itself (``VectorEnv.reset_rows``, whose rule this is, and the
TorchRL env's), at a cost of the restarted games only.  A mask of all True is a whole
reset; before the first reset only that is accepted (``RuntimeError`` otherwise: there
is no game to keep).  The options dict is read, not changed.

Rendering: ``render_mode`` is the single env's, ``"ansi"`` or ``"human"`` (another is a
:class:`~mariash_env.game.RenderModeError`, as in the AEC and single-agent envs).
``render()`` answers a tuple of one frame a game, as ``SyncVectorEnv`` does: under
``"ansi"`` each game's table as text, the string its AEC environment's ``render()`` gives;
under ``"human"`` the tables are printed (``game i`` above each) in ``reset``, every
``step`` and ``render()``, which answers one None a game.  A game whose partie the last
step ended shows its new partie (the engine restarted it in that step).

Per-game attributes: Gymnasium's ``call``, ``get_attr`` and ``set_attr`` reach each
game, a row of the engine rather than an env object, and answer a tuple of one value a
game.  ``get_attr`` knows the rule options (``get_attr("deals")``, ``"tariff"``,
``"rules"``, ...: those of the game, the same in every game), ``"seat"`` (the seat to
move, as ``infos["seat"]``) and ``"deal_no"`` (the deal being played, 0-based within its
partie); ``call("action_masks")`` gives each game's legal actions (``bool[n_actions]``).
``set_attr(name, values)`` keeps values of a name of the caller's own, one a game (a list
or tuple of ``num_envs``) or one for all, which ``get_attr`` gives back; nothing in the
engine reads them.  A rule option (fixed when the engine is built), a name read from the
state, and the env's own attributes (one for the batch) cannot be set; an unknown name
is an ``AttributeError`` listing the known ones.

Seeding follows Gymnasium: ``reset(seed=s)`` gives game ``i`` the deals of AEC seed
``s + i``; a later ``reset()`` continues the sequence (``+ num_envs``); the constructor's
``seed`` stands for the first reset without one.  ``reset(seed=[...])`` takes one seed a
game; a None entry leaves that game unseeded: it gets the seed a ``reset()`` without one
would give it (so ``seed=[None] * num_envs`` is ``reset()``), and the sequence goes on
after the largest seed used.  As Gymnasium's ``VectorEnv.reset``, ``reset(seed=s)`` (and
the first reset, with the constructor's ``seed``) seeds ``np_random`` and sets
``np_random_seed`` to ``s``; a list holding a seed sets ``np_random_seed`` to -1
(Gymnasium's "unknown": no one int) and ``np_random`` to a generator of the games' seeds;
a reset without a seed leaves both.  Nothing in the env draws from ``np_random``: it is
the user's.  The seed sequence is the engine's, the batch's only one
(``vector_env.next_seed``): a reset of the engine itself moves it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .copies import independent_copy
from .game import check_render_mode, check_seed
from .spaces import LegalMultiDiscrete
from .vector import VectorEnv, check_rows

__all__ = ["GymVectorEnv", "ResetOptionError"]


class ResetOptionError(ValueError):
    """``reset(options=...)`` got an option other than ``"reset_mask"``, or a
    ``reset_mask`` of another shape or without a True entry (its type and dtype are
    checked with ``TypeError``, as Gymnasium's ``SyncVectorEnv`` checks them)."""


class GymVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` self-play games in one Gymnasium vector env (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "human"],
                "render_fps": 1}
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share the engine

    def __init__(self, num_envs: int, seed: int | None = None,
                 render_mode: str | None = None, **rules: Any) -> None:
        if "observations" in rules:
            raise TypeError("GymVectorEnv always encodes observations: "
                            "drop the 'observations' option")
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        # (checks the seed) The engine keeps the seed sequence, the only one: every reset
        # passes its seed on, and the constructor's seed (the engine's first_seed) stands
        # for the first reset's.
        self._venv = venv = VectorEnv(num_envs, seed=seed, **rules)
        self.num_envs = venv.num_envs
        self.num_players = venv.players
        low, high = venv.kind.obs_bounds  # the game's, as its AEC env declares them
        self.single_observation_space = spaces.Box(low, high, (venv.obs_size,), np.float32)
        self.single_action_space = spaces.Discrete(venv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        # sample() draws one legal action per game (random exploration calls it unmasked)
        self.action_space = LegalMultiDiscrete(venv.num_actions, self.num_envs, self._legal)
        self._seat = np.zeros(self.num_envs, dtype=np.int64)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False
        self._last: Any = None  # the engine's Step (its buffers are updated in place)
        self._rows = np.arange(self.num_envs)
        self._game_attrs: dict[str, tuple[Any, ...]] = {}  # set_attr's values, per game

    def _legal(self) -> np.ndarray | None:
        return self._last.mask if self._started else None

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A copy (deepcopy, pickle) copied its action space as a plain MultiDiscrete: it
        # samples this copy's legal actions again.
        self.__dict__.update(state)
        self.action_space = LegalMultiDiscrete.bound(self.action_space, self._legal)

    @property
    def vector_env(self) -> VectorEnv:
        """The engine underneath (its buffers are overwritten by every step)."""
        return self._venv

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Gymnasium's ``reset``: game ``i`` from ``seed + i``, or from ``seed[i]`` given a
        list of one seed a game (None: that game unseeded); without one, the seeds after
        the last reset's.  ``options={"reset_mask": bool[num_envs]}`` restarts only those
        games (module docstring, *Partial reset*); no other option applies."""
        rows = self._reset_rows(options)
        if seed is None and not self._started:
            seed = self._venv.first_seed
        if rows is not None:
            return self._partial_reset(rows, seed)
        seeds = self._listed_seeds(seed, None)  # (checked first)
        step = self._last = self._venv.reset(seed=seed)
        self._seed_np_random(seed, seeds)
        self._autoreset[:] = False
        self._started = True
        np.copyto(self._seat, step.player)
        self._render_human()
        return step.obs.copy(), self._reset_infos(step)

    def _reset_rows(self, options: dict[str, Any] | None) -> np.ndarray | None:
        """The games a partial reset restarts (``options["reset_mask"]``, checked as
        Gymnasium's ``SyncVectorEnv`` checks it), or None for a reset of every game (no
        options, ``{}``, or a mask of all True).  The options are read, not changed:
        ``SyncVectorEnv`` pops ``"reset_mask"`` from the caller's dict, which hides it
        from a wrapper that reads it after the inner reset (``RecordEpisodeStatistics``)."""
        if not options:
            return None
        if not isinstance(options, Mapping):
            raise ResetOptionError(f"GymVectorEnv.reset: options must be None or a dict, got "
                                   f"{options!r}")
        other = sorted(set(options) - {"reset_mask"}, key=repr)
        if other:
            raise ResetOptionError(
                f"GymVectorEnv.reset takes no option but 'reset_mask', got {other} in "
                f"{options!r}; expected None, {{}} or {{'reset_mask': bool[{self.num_envs}]}}"
                " (no other option applies to a batch of self-play games)")
        mask = options["reset_mask"]
        n = self.num_envs
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"options['reset_mask'] must be a numpy array of {n} bools, got "
                            f"{type(mask).__name__}")
        if mask.shape != (n,):
            raise ResetOptionError(f"options['reset_mask'] must have shape ({n},), one bool "
                                   f"a game, got {mask.shape}")
        if mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
        if not mask.any():
            raise ResetOptionError("options['reset_mask'] must hold at least one True (the "
                                   f"games to restart), got {mask!r}")
        if mask.all():
            return None
        if not self._started:
            raise RuntimeError("a partial reset (reset_mask) keeps the other games as they "
                               "are, and there are none before the first reset: call "
                               "reset() first")
        return mask.copy()

    def _partial_reset(self, rows: np.ndarray, seed: Any) -> tuple[np.ndarray, dict[str, Any]]:
        """New parties in games ``rows`` only, game ``i`` with the seed a whole reset with
        ``seed`` would give it; the others keep their state and show what the last call
        returned for them."""
        idx = np.flatnonzero(rows)
        used = self._listed_seeds(seed, idx)  # (checked first)
        # The engine's own partial reset, by position as here.  It leaves the kept rows'
        # outputs as the last step wrote them: what they show.
        step = self._last = self._venv.reset_rows(idx, seed)
        listed = isinstance(seed, (list, tuple, np.ndarray))
        self._seed_np_random([seed[i] for i in idx] if listed else seed, used)
        self._autoreset[rows] = False
        np.copyto(self._seat, step.player)
        obs = step.obs.copy()
        # A game the last step ended and this reset leaves alone still shows its terminal
        # observation; its next step is its autoreset, as before.
        obs[self._autoreset] = 0.0
        self._render_human()
        return obs, self._reset_infos(step)

    def _reset_infos(self, step: Any) -> dict[str, Any]:
        """A reset's infos: every game's mask and seat, each with Gymnasium's ``_key``
        mask (every game has them: the kept games of a partial reset show theirs)."""
        every = np.ones(self.num_envs, dtype=np.bool_)
        return {"action_mask": step.mask.astype(np.bool_), "_action_mask": every,
                "seat": step.player.copy(), "_seat": every.copy()}

    def _listed_seeds(self, seed: Any, rows: np.ndarray | None) -> list[int] | None:
        """The seeds of the games a reset with the list ``seed`` starts (``rows``: those
        games; None: every game), which seed ``np_random`` (:meth:`_seed_np_random`), from
        the engine's sequence before the reset; None for an int seed or none (the engine
        checks those).  An OptionError names a bad seed before anything changes."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            return self._venv.seeds_of(seed, rows)
        return None

    def _seed_np_random(self, seed: Any, seeds: list[int] | None) -> None:
        """``np_random`` and ``np_random_seed`` as Gymnasium's ``VectorEnv.reset`` sets
        them: seeded by an int seed; by a list holding a seed, a generator of the games'
        seeds and ``np_random_seed`` -1 (Gymnasium's "unknown": no one int); left alone
        by a reset without a seed (or a list of None only, which is that reset)."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if any(s is not None for s in seed):
                self._np_random = np.random.Generator(
                    np.random.PCG64(np.random.SeedSequence(seeds)))
                self._np_random_seed = -1
        elif seed is not None:
            super().reset(seed=check_seed(seed))  # a Python int: Gymnasium takes no other

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or given.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integers (one per game), got "
                             f"shape {given.shape} of {given.dtype}")
        a = given.astype(np.int64)
        restarted = self._autoreset.copy()
        if restarted.any():
            # Those games were restarted by the engine in the step that ended them: their
            # action is ignored (-1: the unchecked step applies nothing there).
            check_rows(self._last.mask, a, ~restarted, given)  # the engine's current masks
            step = self._venv.step_unchecked(np.where(restarted, -1, a))
        else:
            step = self._venv.step(given)
        self._last = step
        per_seat = step.rewards.copy()
        reward = per_seat[self._rows, self._seat]
        terminated = step.partie_done.copy()
        obs = step.obs.copy()
        obs[terminated] = 0.0  # the terminal placeholder: the engine already restarted them
        np.copyto(self._autoreset, terminated)
        np.copyto(self._seat, step.player)
        # Gymnasium's _key masks; a game autoreset in this step has its reset's info (the
        # NEXT_STEP convention): no step's rewards nor deal_done.
        infos = self._reset_infos(step)
        infos.update(rewards=per_seat, _rewards=~restarted, deal_done=step.deal_done.copy(),
                     _deal_done=~restarted)
        self._render_human()
        return obs, reward, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def render(self) -> tuple[str | None, ...] | None:
        """Gymnasium's ``VectorEnv.render``: one frame a game, as ``SyncVectorEnv`` over the
        single env returns them.  ``render_mode="ansi"``: each game's table as text (its
        AEC env's ``render()``); ``"human"``: the tables printed, one ``None`` a game
        (they are printed in ``reset`` and every ``step`` too); without a render mode a
        warning and None."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode: nothing to render "
                            "(GymVectorEnv(..., render_mode='ansi'))")
            return None
        if not self._started:
            raise RuntimeError("call reset() before render()")
        tables = self._venv.render_tables()
        if self.render_mode == "human":
            print("\n\n".join(f"game {i}\n{t}" for i, t in enumerate(tables)))
            return (None,) * self.num_envs
        return tuple(tables)

    def _render_human(self) -> None:
        """Gymnasium's convention: ``"human"`` renders in ``reset`` and every ``step``."""
        if self.render_mode == "human":
            self.render()

    # --- Gymnasium's per-sub-env access: call, get_attr, set_attr ----------------------
    # Every game is one row of one engine, not an env object: what these reach is each
    # game's rule options (the same in every game), what its state says, and values of
    # the caller's own kept per game (module docstring, *Per-game attributes*).

    _STATE_NAMES = ("seat", "deal_no")
    _METHOD_NAMES = ("action_masks",)

    def _rule_options(self) -> dict[str, Any]:
        rules = self._venv.rules
        return rules.to_dict() if hasattr(rules, "to_dict") else dict(rules)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Gymnasium's ``VectorEnv.call``: ``name``'s value in every game, a tuple of one
        a game: ``"action_masks"`` (a method: the legal actions, ``bool[n_actions]``, of
        the seat to move), or an attribute's value as :meth:`get_attr` (which takes no
        arguments); ``AttributeError`` naming what there is otherwise."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {name!r}")
        if name == "action_masks":
            if args or kwargs:
                raise TypeError("action_masks() takes no arguments")
            mask = self._current("action_masks").mask.astype(np.bool_)
            return tuple(mask)
        values = self._attr(name)
        if args or kwargs:
            raise TypeError(f"{name!r} is an attribute of each game, not a method: it takes "
                            "no arguments (get_attr)")
        return values

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Gymnasium's ``VectorEnv.get_attr``: ``name``'s value in every game, a tuple of
        one a game: a rule option (``"deals"``, ``"tariff"``, ...: the same in every game),
        ``"seat"`` (the seat to move, as ``infos["seat"]``), ``"deal_no"`` (the deal being
        played, 0-based within its partie), ``"render_mode"`` (the batch's), a name
        :meth:`set_attr` gave values, or ``"action_masks"`` called (as
        ``SyncVectorEnv.get_attr`` calls a method); ``AttributeError`` naming what there
        is otherwise."""
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Gymnasium's ``VectorEnv.set_attr``: ``values`` (a list or tuple of one a game,
        or one value for every game) kept as ``name``'s per-game value, which
        :meth:`get_attr` and :meth:`call` give back: a name of the caller's own, as
        Gymnasium's sub-envs take any new attribute.  Nothing in the engine reads it: a
        rule option is fixed when the engine is built, ``seat`` / ``deal_no`` /
        ``action_masks`` come from each game's state, and the env's own attributes are
        one for the whole batch; each is an ``AttributeError`` saying so, and a list of
        another length a ``ValueError`` (SyncVectorEnv's), before anything is kept."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {name!r}")
        if name in self._rule_options():
            raise AttributeError(
                f"{name!r} is a rule option of every game, fixed when the engine is built: "
                f"make a new GymVectorEnv(..., {name}=...)")
        if name in self._STATE_NAMES or name in self._METHOD_NAMES:
            raise AttributeError(f"{name!r} comes from each game's state: it cannot be set")
        if name not in self._game_attrs and (  # (no getattr: a property would run)
                name in self.__dict__ or any(name in vars(k) for k in type(self).__mro__)):
            raise AttributeError(
                f"{name!r} is an attribute of the GymVectorEnv itself, one for the whole "
                f"batch, not per game: set it on the env")
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"values must be one value or a list or tuple of one value a "
                             f"game ({self.num_envs}), got {len(values)} values")
        self._game_attrs[name] = tuple(values)

    def _attr(self, name: str) -> tuple[Any, ...]:
        """The per-game value of an attribute name (see :meth:`get_attr`)."""
        options = self._rule_options()
        if name in options:
            return (options[name],) * self.num_envs
        if name in self._STATE_NAMES:
            step = self._current(name)
            return tuple((step.player if name == "seat" else step.deal_no).tolist())
        if name in self._game_attrs:
            return self._game_attrs[name]
        if name == "render_mode":  # the batch's, each game's as SyncVectorEnv answers it
            return (self.render_mode,) * self.num_envs
        known = [*options, *self._STATE_NAMES, *self._METHOD_NAMES, "render_mode",
                 *self._game_attrs]
        raise AttributeError(f"no per-game attribute {name!r}: the games have {known} "
                             "(rule options, state, set_attr's names)")

    def _current(self, name: str) -> Any:
        if not self._started:
            raise RuntimeError(f"{name!r} reads each game's state: call reset() first")
        return self._last

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the engine holds only numpy arrays."""
