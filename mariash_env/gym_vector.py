"""A Gymnasium ``VectorEnv`` over the compiled batched engine
(:class:`~mariash_env.vector.VectorEnv`).

::

    from mariash_env.gym_vector import GymVectorEnv
    envs = GymVectorEnv(1024, deals=1)              # any rule option: rules="licitovany", players=4
    obs, infos = envs.reset(seed=0)
    for _ in range(100):
        actions = my_policy(obs, infos["action_mask"])   # one legal action per game
        obs, reward, terminated, truncated, infos = envs.step(actions)

Self-play: in every game the seat to move (``infos["seat"]``) acts, all seats through one
policy.  ``observation_space``: ``Box(float32[obs_size])`` per game (the seat to move's
observation); ``action_space``: ``MultiDiscrete([n_actions] * num_envs)``, whose
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

Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP`` (the mode
Gymnasium's vector wrappers accept): a step that ends a partie returns
``terminated=True`` with the terminal observation (all zeros, the engine's observation of
a finished deal); the next ``step`` ignores that game's action and returns the first
decision of its new partie with reward 0.  The mask of a terminated game already is that
of the new partie, so a masked sampler never meets an empty mask.  No truncation.

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
the user's.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .copies import independent_copy
from .game import batch_seeds, check_seed
from .spaces import LegalMultiDiscrete
from .vector import VectorEnv, check_rows

__all__ = ["GymVectorEnv", "ResetOptionError"]


class ResetOptionError(ValueError):
    """``reset(options=...)`` got something other than None or an empty dict."""


class GymVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` self-play games in one Gymnasium vector env (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
    __copy__ = independent_copy  # copy.copy too: a shallow copy would share the engine

    def __init__(self, num_envs: int, seed: int | None = None, **rules: Any) -> None:
        if "observations" in rules:
            raise TypeError("GymVectorEnv always encodes observations: "
                            "drop the 'observations' option")
        self._venv = venv = VectorEnv(num_envs, seed=seed, **rules)  # (checks the seed)
        # The seed sequence: the seeds of the next reset without one start here (the
        # engine gets each reset's seeds as a list).  The constructor's seed stands for
        # the first reset's.
        self._first_seed = check_seed(seed)
        self._next_seed = (int(np.random.SeedSequence().entropy) if seed is None
                           else int(seed))
        self.num_envs = venv.num_envs
        self.num_players = venv.players
        self.single_observation_space = spaces.Box(-np.inf, np.inf, (venv.obs_size,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(venv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        # sample() draws one legal action per game (random exploration calls it unmasked)
        self.action_space = LegalMultiDiscrete(venv.num_actions, self.num_envs, self._legal)
        self._seat = np.zeros(self.num_envs, dtype=np.int64)
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False
        self._last: Any = None  # the engine's Step (its buffers are updated in place)
        self._rows = np.arange(self.num_envs)

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
        the last reset's."""
        if options:  # no option applies to a whole batch of self-play games
            raise ResetOptionError(f"GymVectorEnv.reset takes no options, got {options!r}; "
                                   "expected None or {}")
        if seed is None and not self._started:
            seed = self._first_seed
        seeds = batch_seeds(seed, self._next_seed, self.num_envs)  # checked first
        step = self._last = self._venv.reset(seed=seeds)
        self._next_seed = max(seeds) + 1
        self._seed_np_random(seed, seeds)
        self._autoreset[:] = False
        self._started = True
        np.copyto(self._seat, step.player)
        return step.obs.copy(), {"action_mask": step.mask.astype(np.bool_),
                                 "seat": step.player.copy()}

    def _seed_np_random(self, seed: Any, seeds: list[int]) -> None:
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
        obs[terminated] = 0.0  # the engine's observation of a finished deal
        np.copyto(self._autoreset, terminated)
        np.copyto(self._seat, step.player)
        infos = {"action_mask": step.mask.astype(np.bool_), "seat": step.player.copy(),
                 "rewards": per_seat, "deal_done": step.deal_done.copy()}
        return obs, reward, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the engine holds only numpy arrays."""
