"""TorchRL environment over the compiled batched engine (:class:`~mariash_env.vector.VectorEnv`).

::

    from mariash_env.torchrl_env import torchrl_env
    env = torchrl_env(4096, seed=0, deals=1)      # any rule option: rules="licitovany", players=4
    td = env.reset()
    for _ in range(100):
        td = env.rand_action(td)                    # or: policy(td), masked by td["action_mask"]
        data, td = env.step_and_maybe_reset(td)

Self-play: one policy acts for the seat to move in every game.  A TorchRL ``EnvBase`` with
``batch_size=(num_envs,)`` and these keys:

``"observation"`` float32[obs_size]
    The observation of the seat to move (the engine's ``Step.obs``); its spec has the
    game's bounds, those of its AEC env's ``Box`` (``GameKind.obs_bounds``): ``Unbounded``
    (the running scores have none), lízaný's ``Bounded`` in [0, 1].
``"action_mask"`` bool[n_actions]
    Its legal actions.
``"seat"`` int64
    The seat to move (0..2; at ``players=4`` the player 0..3).
``"action"`` int64 index (``Categorical(n_actions)``, not one-hot)
    Checked against the mask: an illegal action raises ``ValueError`` and nothing is
    applied (the engine's all-or-nothing step); the message says what fits where the env
    runs: alone, choose among ``"action_mask"``; as a worker of a ``SerialEnv`` or
    ``ParallelEnv``, wrap that env in :func:`action_mask` as below.  The action spec is
    masked, as TorchRL masks a discrete spec: the env sets its ``mask`` to the legal
    actions of every new state (``spec.update_mask``), so ``env.action_spec.rand()``,
    ``rand_action``, ``RandomPolicy``, a collector with ``policy=None``, TorchRL's
    ``ActionMask`` transform and ``check_env_specs`` draw legal actions.  A ``SerialEnv``
    or ``ParallelEnv`` of these envs copies the spec once, so wrap it:
    ``TransformedEnv(ParallelEnv(2, partial(torchrl_env, 64)), action_mask())``
    (:func:`action_mask`).
``"reward"`` float32[players]
    Each seat's payment (groše; licitovaný: desetníky) on the step its deal ends, else 0;
    zero-sum per game.
``"done"`` / ``"terminated"`` bool[1]
    The partie is over (after ``deals`` deals; ``deals=1``: every deal is an episode).
    No truncation.

Auto-reset: the engine restarts a finished game inside the step that ends it, so the
``"next"`` observation of a terminal step already is the first decision of the new
partie (it is not used by value targets: the step is terminated).  The reset that
``step_and_maybe_reset`` then asks for (``"_reset"`` = done) keeps those games as they
are; a ``"_reset"`` row that is *not* fresh (an explicit partial reset) gets a new
partie from the env's seed sequence (by position, see *Seeding*), the other rows are
untouched.  ``reset()`` without ``"_reset"`` restarts every game.  A partial reset costs
the engine the restarted games only (``VectorEnv.reset_rows``): its output shows, for the
games it keeps, what the last step or reset returned for them (TorchRL's own reset then
takes their rows from the tensordict it was given), or, should the engine have been
changed through ``vector_env`` since, every game's outputs recomputed.

Seeding: ``seed=`` or ``set_seed(s)`` fixes the next full reset (game ``i`` gets the deals
of ``VectorEnv.reset(seed=s)``, i.e. AEC seed ``s + i``); every later reset continues
the sequence.  A full reset from ``next`` seeds game ``i`` with ``next + i`` and the
sequence goes on at ``next + num_envs``; a partial reset seeds by position too, as
``GymVectorEnv``'s ``reset_mask`` does (both are the engine's ``VectorEnv.reset_rows``):
restarted game ``i`` gets ``next + i``, the seed a full reset would give it, whichever
other games restart, and the sequence goes on after the largest seed used
(``next + i + 1``, ``i`` the highest index restarted).  The sequence is the engine's,
the batch's only one (``vector_env.next_seed``; ``set_seed`` sets it there).
:meth:`rand_action` draws from the spec's mask with a generator seeded by the same seed:
the same seed and calls give the same rollout (``spec.rand()`` and ``RandomPolicy`` use
torch's generator).  ``"_step"`` (TorchRL's partial steps) is honoured: the rows not
stepped stay as they are.

Zero copy: each step allocates fresh tensors for the observation, mask, seat and done
flag and the engine writes straight into them (``VectorEnv.step(actions, out=...)`` on
their ``.numpy()`` views), so they go into the TensorDict as they are; only the small
rewards are converted (float64 to float32), and the mask is copied into the action
spec's.  A whole reset copies the engine's buffers once; a partial one copies what the
last step or reset returned, with the restarted games' rows from the engine.
``torchrl`` is imported only when :func:`torchrl_env` or :func:`action_mask` is called.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from .copies import independent_copy
from .extras import needs
from .vector import VectorEnv, check_rows, random_legal_actions

__all__ = ["torchrl_env", "action_mask", "ResetRowsError"]

_CLASS: Any = None
_SPEC: Any = None  # LegalCategorical, made with the env class
_MASK: Any = None  # the ActionMask of action_mask(), made with it


def __getattr__(name: str) -> Any:
    # LegalCategorical is made with torch's classes on first use; a pickled spec (a
    # ParallelEnv's worker) finds it here before any env was made in its process.
    if name == "LegalCategorical":
        torchrl_env_class()
        return _SPEC
    if name == "MariashTorchRLEnv":  # likewise a pickled env (pickle, ParallelEnv)
        return torchrl_env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def torchrl_env_class() -> type:
    """The env class (made on the first call: it imports torch and torchrl)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _make_class()
    return _CLASS


def torchrl_env(num_envs: int, device: Any = "cpu", seed: int | None = None,
                **rules: Any) -> Any:
    """A TorchRL ``EnvBase`` of ``num_envs`` self-play games (module docstring); ``rules``:
    the keywords of :class:`~mariash_env.vector.VectorEnv` (rule options, ``deals``,
    ``parallel``).  Needs torch, tensordict and torchrl (the ``examples`` extra; without
    them :class:`~mariash_env.extras.MissingExtraError` names it)."""
    return torchrl_env_class()(num_envs, device=device, seed=seed, **rules)


def action_mask(action_key: Any = "action", mask_key: Any = "action_mask") -> Any:
    """TorchRL's ``ActionMask`` transform for a batched env of these envs
    (``TransformedEnv(SerialEnv(2, partial(torchrl_env, 64)), action_mask())``, or
    ``ParallelEnv``): the batched env's action spec is a copy made once, whose mask no
    worker updates; this transform sets it from every step's ``"action_mask"``, so its
    ``rand_action``, ``check_env_specs`` and collectors without a policy draw legal
    actions.  Unlike ``ActionMask`` itself, a partial reset (a game, or a worker, whose
    partie ended) updates the mask of the reset games only: TorchRL's reset output holds
    no current mask for the others (zeros, or a worker's stale one), and ``ActionMask``
    took those.  (The bare env keeps its own spec's mask: it needs no transform.)"""
    global _MASK
    if _MASK is None:
        with needs("examples", "torchrl_env", "torch", "tensordict", "torchrl"):
            import torch
            from torchrl.envs import ActionMask

        class ResetAwareActionMask(ActionMask):
            """``ActionMask`` that keeps the mask of the games a reset leaves alone."""

            def _reset(self, tensordict: Any, tensordict_reset: Any) -> Any:
                mask = tensordict_reset.get(self.in_keys[1])
                spec = self.action_spec
                reset = None if tensordict is None else tensordict.get("_reset", None)
                if reset is not None and spec.mask is not None and not reset.all():
                    rows = reset.reshape(*mask.shape[:-1], -1).any(-1)
                    mask = torch.where(rows.unsqueeze(-1), mask.to(spec.device),
                                       spec.mask)
                spec.update_mask(mask.to(spec.device))
                return tensordict_reset

        _MASK = ResetAwareActionMask
    return _MASK(action_key, mask_key)


class ResetRowsError(ValueError):
    """A ``"_reset"`` entry that is not one boolean per game."""


def _batched_env_running(env: Any) -> str | None:
    """The name of the TorchRL batched env that is stepping ``env`` as a worker (a
    ``SerialEnv`` steps its workers from its own methods, a ``ParallelEnv``'s worker
    process from its loop, both in ``torchrl.envs.batched_envs``), read off the call
    stack; None when ``env`` runs alone (a collector, a TransformedEnv, a user's loop).
    Only an error's message reads it."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "torchrl.envs.batched_envs":
            owner = frame.f_locals.get("self")
            if owner is not None and owner is not env:
                return type(owner).__name__
            if frame.f_code.co_name.startswith("_run_worker"):
                return "ParallelEnv"
        frame = frame.f_back
    return None


def _make_class() -> type:
    with needs("examples", "torchrl_env", "torch", "tensordict", "torchrl"):
        import torch
        from tensordict import TensorDict, TensorDictBase
        from torchrl.data import Bounded, Categorical, Composite, Unbounded
        from torchrl.envs import EnvBase

    global _SPEC

    class LegalCategorical(Categorical):
        """TorchRL's masked ``Categorical`` whose mask is one tensor, updated in place,
        that its clones share: TorchRL's ``RandomPolicy`` (a collector's ``policy=None``)
        samples from a clone of the env's action spec, which would otherwise keep the
        mask of the moment it was made.  A mask that cannot be written in place (another
        shape, an expanded view) replaces it, as ``Categorical.update_mask`` does."""

        def update_mask(self, mask: Any) -> None:
            old = getattr(self, "mask", None)  # (None while __init__ sets it)
            if (mask is not None and old is not None and isinstance(mask, torch.Tensor)
                    and mask.shape == old.shape and mask.dtype == torch.bool
                    and mask.device == old.device and old.is_contiguous()):
                if mask.data_ptr() != old.data_ptr():
                    old.copy_(mask)
                return
            super().update_mask(mask)
            if self.mask is not None and not self.mask.is_contiguous():
                self.mask = self.mask.contiguous()  # (an expanded view cannot be written)

        def clone(self) -> LegalCategorical:
            return self.__class__(n=self.space.n, shape=self.shape, device=self.device,
                                  dtype=self.dtype, mask=self.mask)

    LegalCategorical.__module__ = __name__
    LegalCategorical.__qualname__ = "LegalCategorical"
    _SPEC = LegalCategorical

    class MariashTorchRLEnv(EnvBase):
        """Self-play TorchRL env over :class:`VectorEnv` (:mod:`mariash_env.torchrl_env`)."""

        def __init__(self, num_envs: int, device: Any = "cpu", seed: int | None = None,
                     **rules: Any) -> None:
            if "observations" in rules:
                raise TypeError("torchrl_env always encodes observations: "
                                "drop the 'observations' option")
            dev = torch.device(device)
            if dev.type == "cuda" and (not torch.cuda.is_available()
                                       or (dev.index or 0) >= torch.cuda.device_count()):
                raise ValueError(f"device {str(device)!r} is not available: torch sees "
                                 f"{torch.cuda.device_count()} CUDA device(s)")
            self._venv = VectorEnv(num_envs, seed=seed, **rules)
            n = self._venv.num_envs
            super().__init__(device=device, batch_size=torch.Size([n]))
            venv = self._venv
            self.num_players = venv.players
            self.n_actions = venv.num_actions
            self.obs_size = venv.obs_size
            dev = self.device
            low, high = venv.kind.obs_bounds  # the game's, as its AEC env declares them
            self.observation_spec = Composite(
                observation=Unbounded(shape=(n, venv.obs_size), dtype=torch.float32,
                                      device=dev)
                if np.isinf(low) and np.isinf(high) else
                Bounded(low, high, shape=(n, venv.obs_size), dtype=torch.float32, device=dev),
                action_mask=Categorical(2, shape=(n, venv.num_actions), dtype=torch.bool,
                                        device=dev),
                seat=Bounded(0, venv.players - 1, shape=(n,), dtype=torch.int64,
                             device=dev),
                shape=(n,), device=dev)
            # TorchRL's masked action spec: the env keeps its mask the legal actions of
            # the current state (_set_mask), so spec.rand(), RandomPolicy and collectors
            # without a policy draw legal actions.  All legal until the first reset.
            self.action_spec = LegalCategorical(
                venv.num_actions, shape=(n,), dtype=torch.int64, device=dev,
                mask=torch.ones((n, venv.num_actions), dtype=torch.bool, device=dev))
            self.reward_spec = Unbounded(shape=(n, venv.players), dtype=torch.float32,
                                         device=dev)
            self.done_spec = Composite(
                done=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                terminated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                shape=(n,), device=dev)
            # The seed sequence is the engine's (VectorEnv.next_seed), the only one; the
            # generator of rand_action is seeded from its start.
            self._rng = np.random.default_rng(self._venv.next_seed)
            # Games that stand at the first decision of a partie never stepped since.
            self._fresh = np.zeros(n, dtype=np.bool_)
            self._src: Any = None
            self._last: Any = None  # the engine's Step (the same buffers every call)
            self._last_out: Any = None  # the observation tensor the last _step returned
            # What the last step or reset returned (observation, mask, seat): every game's
            # current outputs, which a partial reset shows for the games it keeps, while
            # the engine is as this env left it (_synced).
            self._shown: Any = None
            self._left: Any = None  # the engine's (decisions, rewrites) then
            self._cpu = self.device.type == "cpu"

        # -- copies ----------------------------------------------------------

        _VIEWS = ("_t_obs", "_t_mask", "_t_seat", "_t_rew", "_t_done")
        __copy__ = independent_copy  # copy.copy too: a shallow copy would share the engine

        def __getstate__(self) -> dict[str, Any]:
            # The torch views of the engine's buffers would be copied as tensors of their
            # own (deepcopy, pickle), which the copy's engine never writes: its rewards
            # would stay 0 and its resets show the original's observation.  They are made
            # again from the copy's engine (__setstate__).
            state = self.__dict__.copy()
            for name in self._VIEWS:
                state.pop(name, None)
            state["_src"] = None
            return state

        def __setstate__(self, state: dict[str, Any]) -> None:
            self.__dict__.update(state)
            if self._last is not None:
                self._wrap(self._last)

        # -- buffers ---------------------------------------------------------

        def _wrap(self, step: Any) -> None:
            """Torch views of the engine's buffers, made once (they are reused in place)."""
            self._last = step
            if self._src is step.obs:
                return
            with warnings.catch_warnings():  # the mask is read-only; we only copy it
                warnings.simplefilter("ignore", UserWarning)
                self._t_obs = torch.from_numpy(step.obs)
                self._t_mask = torch.from_numpy(step.mask.view(np.bool_))
                self._t_seat = torch.from_numpy(step.player)
                self._t_rew = torch.from_numpy(step.rewards)
                self._t_done = torch.from_numpy(step.partie_done).view(-1, 1)
            self._src = step.obs

        def _copy(self, t: torch.Tensor) -> torch.Tensor:
            return t.clone() if self._cpu else t.to(self.device)

        def _set_mask(self, mask: torch.Tensor) -> torch.Tensor:
            """The action spec's mask becomes ``mask`` (the new state's legal actions, the
            tensor the step returns as ``"action_mask"``), copied into the spec's own mask
            tensor, which its clones share (:class:`LegalCategorical`)."""
            self.full_action_spec["action"].update_mask(mask)
            return mask

        # -- EnvBase ---------------------------------------------------------

        def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
            action = tensordict.get("action")
            if action.dtype.is_floating_point or action.dtype.is_complex or \
                    action.dtype == torch.bool:  # a cast would truncate it to some index
                raise ValueError(f"action must be an integer tensor of action indices, got "
                                 f"{action.dtype}")
            given = action.detach().reshape(-1).cpu().numpy()  # named as given when illegal
            a = given.astype(np.int64)
            rows = tensordict.get("_step", None)
            # The engine writes this step's observation, mask, seat and done flags
            # straight into fresh tensors (VectorEnv.step's out): no copy of them.
            n = self.batch_size[0]
            obs = torch.empty((n, self.obs_size), dtype=torch.float32)
            mask = torch.empty((n, self.n_actions), dtype=torch.bool)
            seat = torch.empty(n, dtype=torch.int64)
            done = torch.empty((n, 1), dtype=torch.bool)
            out = {"obs": obs.numpy(), "mask": mask.numpy(), "player": seat.numpy(),
                   "partie_done": done.numpy().reshape(n)}
            try:
                if rows is None:
                    step = self._venv.step(given, out=out)
                    np.copyto(self._fresh, step.partie_done)
                else:
                    rows = rows.reshape(-1).cpu().numpy().astype(np.bool_)
                    step = self._step_rows(a, given, rows, out)
            except ValueError as e:
                if not str(e).startswith("illegal action"):
                    raise
                raise ValueError(f"{e} ({self._illegal_hint()})") from None
            reward = self._t_rew.to(torch.float32, copy=True)
            if not self._cpu:
                obs, mask, seat, done, reward = (
                    t.to(self.device) for t in (obs, mask, seat, done, reward))
            self._last_out = obs
            self._shown = (obs, mask, seat)
            self._left = self._engine_changes()
            self._set_mask(mask)
            return TensorDict({"observation": obs, "action_mask": mask, "seat": seat,
                               "reward": reward, "done": done, "terminated": done.clone()},
                              batch_size=self.batch_size, device=self.device)

        def _illegal_hint(self) -> str:
            """What an illegal action's error advises, for where this env runs: alone,
            its action spec's mask is the legal actions (the action was not drawn from
            it); as a worker of a SerialEnv or ParallelEnv, the batched env's spec is a
            copy whose mask no worker updates (:func:`action_mask`)."""
            batched = _batched_env_running(self)
            if batched is None:
                return ("this env keeps its action spec's mask the legal actions, so "
                        "rand_action, spec.rand() and RandomPolicy draw legal ones: a "
                        "policy must choose among the tensordict's 'action_mask', e.g. "
                        "with TorchRL's MaskedCategorical")
            return (f"this env is a worker of a {batched}: a random action of the "
                    f"{batched} (its rand_action, RandomPolicy, a collector without a "
                    "policy) comes from its action spec, a copy made once whose mask no "
                    "worker updates: wrap it in TransformedEnv(..., "
                    "mariash_env.torchrl_env.action_mask()); a policy must choose among "
                    "the tensordict's 'action_mask'")

        def _step_rows(self, a: np.ndarray, given: np.ndarray, rows: np.ndarray,
                       out: dict[str, Any]) -> Any:
            """Step only ``rows``: the others get the action -1, which the unchecked step
            leaves unapplied (their outputs are those of their unchanged state), after
            the same all-or-nothing legality check."""
            idx = check_rows(self._current().mask, a, rows, given)
            step = self._venv.step_unchecked(np.where(rows, a, -1), out=out)
            self._fresh[idx] = step.partie_done[idx]
            return step

        def _reset(self, tensordict: TensorDictBase | None = None,
                   **kwargs: Any) -> TensorDictBase:
            n = self.batch_size[0]
            rows = None if tensordict is None else tensordict.get("_reset", None)
            if rows is None or self._last is None:  # (nothing to keep before the first)
                self._wrap(self._venv.reset())  # from the engine's next seed
                self._fresh[:] = True
                shown = tuple(self._copy(t) for t in (self._t_obs, self._t_mask,
                                                      self._t_seat))
            else:
                rows = rows.detach().cpu().numpy()
                if rows.size != n or rows.dtype != np.bool_:
                    raise ResetRowsError(f"'_reset' must be {n} booleans (one per game), "
                                         f"got shape {tuple(rows.shape)} of {rows.dtype}")
                rows = rows.reshape(n)
                shown = self._partial_reset(np.flatnonzero(rows & ~self._fresh))
                self._fresh |= rows
            self._shown = shown
            self._left = self._engine_changes()
            self._last_out = None
            obs, mask, seat = shown
            zero = torch.zeros((n, 1), dtype=torch.bool, device=self.device)
            return TensorDict({"observation": obs, "action_mask": self._set_mask(mask),
                               "seat": seat, "done": zero, "terminated": zero.clone()},
                              batch_size=self.batch_size, device=self.device)

        def _partial_reset(self, restart: np.ndarray) -> tuple[Any, Any, Any]:
            """New parties in games ``restart`` only (:meth:`_restart`); the observation,
            mask and seat of every game: a copy of what the last step or reset returned,
            with the restarted games' rows from the engine, which wrote those rows only.
            The engine computes nothing for the other games: O(restarted games), but for
            the copy (TorchRL's reset returns whole tensors, and the last ones are the
            caller's).  Should the engine have changed since this env's last call (through
            ``vector_env``: a reset, a step, ``restore_states``), what it returned is not
            current: every game's outputs are recomputed (``VectorEnv.current``)."""
            if not self._synced():
                if restart.size:
                    self._restart(restart)
                self._wrap(self._venv.current())
                return tuple(self._copy(t) for t in (self._t_obs, self._t_mask,
                                                     self._t_seat))
            obs, mask, seat = (t.clone() for t in self._shown)
            if restart.size:
                self._restart(restart)
                at = torch.from_numpy(restart).to(self.device)
                rows = torch.from_numpy(restart)
                for dst, src in ((obs, self._t_obs), (mask, self._t_mask),
                                 (seat, self._t_seat)):
                    dst[at] = src[rows].to(self.device)
            return obs, mask, seat

        def _engine_changes(self) -> tuple[int, int]:
            """What changes with every call that changes the engine's games: its
            decisions (steps) and its rewrites (resets, restores)."""
            return self._venv.decisions, self._venv._rewrites

        def _synced(self) -> bool:
            """Whether the engine is as this env's last step or reset left it (so what that
            call returned is every game's current outputs)."""
            return self._shown is not None and self._left == self._engine_changes()

        def maybe_reset(self, tensordict: TensorDictBase) -> TensorDictBase:
            """``step_and_maybe_reset``'s reset of the finished games.  When
            ``tensordict`` carries the observation of this env's last step (the case
            inside ``step_and_maybe_reset``), its finished games already hold their new
            partie (the engine restarts them in the step): only their done flags are
            cleared, with no copy.  Otherwise TorchRL's reset (``_reset`` with
            ``"_reset"``) runs."""
            if tensordict.get("observation", None) is not self._last_out:
                return super().maybe_reset(tensordict)
            done = tensordict.get("done")
            if done.any():
                rows = done.reshape(-1).cpu().numpy()
                self._fresh |= rows
                tensordict.set("done", torch.zeros_like(done))
                tensordict.set("terminated", torch.zeros_like(done))
            return tensordict

        def _current(self) -> Any:
            """The engine's own Step, for its mask: the engine keeps that up to date in
            every step (a game ended by the last step has been restarted by the engine);
            its other buffers are current only after a reset (the steps write theirs
            into the step's tensors)."""
            return self._venv.current() if self._last is None else self._last

        def _restart(self, idx: np.ndarray) -> None:
            """New parties in games ``idx`` only, by position: game ``i`` from the
            sequence's next seed + ``i`` (the engine's ``reset_rows``, without a seed); the
            sequence goes on after the largest seed used.  The engine writes the outputs
            of those games' rows only (the steps wrote the others' into their own
            tensors)."""
            self._wrap(self._venv.reset_rows(idx))

        def _set_seed(self, seed: int | None) -> None:
            """The engine's sequence goes on from ``seed`` (None: a random one), and
            ``rand_action``'s generator is seeded with it."""
            self._venv.next_seed = seed
            self._rng = np.random.default_rng(self._venv.next_seed)

        def rand_action(self, tensordict: TensorDictBase | None = None) -> TensorDictBase:
            """A uniformly random action per game from the action spec, as TorchRL's
            ``rand_action``: legal, as the spec's mask is the current legal actions (or
            whatever mask was put there since); drawn by the compiled sampler from the
            env's seeded generator, so the same seed gives the same actions.  Written into
            ``tensordict`` (a new one if None)."""
            if tensordict is None:
                tensordict = TensorDict({}, batch_size=self.batch_size, device=self.device)
            mask = self.full_action_spec["action"].mask
            if mask is None:  # (a mask taken off the spec: every action)
                a = self._rng.integers(0, self.n_actions, self.batch_size[0])
            else:
                a = random_legal_actions(mask.detach().cpu().numpy(), self._rng)
            tensordict.set("action", torch.from_numpy(a).to(self.device))
            return tensordict

        @property
        def vector_env(self) -> VectorEnv:
            """The engine underneath (its buffers are overwritten by every step)."""
            return self._venv

    MariashTorchRLEnv.__module__ = __name__  # pickled by name (module __getattr__)
    MariashTorchRLEnv.__qualname__ = "MariashTorchRLEnv"
    return MariashTorchRLEnv
