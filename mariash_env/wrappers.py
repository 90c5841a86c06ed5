"""Small PettingZoo wrappers for libraries with their own conventions (no library imported).

:class:`ObsKeys` renames the two keys of the Dict observation and gives every agent an
action space whose ``sample()`` draws one of its legal actions.  RLlib needs both: its
action-masking module reads ``obs["observations"]`` and ``obs["action_mask"]``, and
its environment check and random exploration call ``action_space.sample()`` without a
mask (which on mariáš almost always picks an illegal action).  :func:`rllib_env` is
``ObsKeys(env(**kw), "observations", "action_mask", mask_dtype=np.float32)``, the layout
of RLlib's ``ActionMaskingTorchRLModule``; wrap it in
``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`` (see examples/rllib_ppo.py).
:attr:`ObsKeys.returns` holds every seat's payments since the reset, the sitting-out
dealer's at four players too; :func:`rllib_seat_returns`, RLlib's ``on_episode_end``
callback, logs them as ``seat_returns_mean`` (RLlib's own ``agent_episode_returns_mean``
misses a seat that never moved in the episode: ``docs/pitfalls.md``).

The environment's own options are wrappers too, defined beside ``env()`` (which applies
them) and named here: :class:`MaskInInfo` (``env(mask_in_info=True)``: the mask also in
``infos[agent]["action_mask"]``, as AgileRL reads it) and :class:`FlatObs`
(``env(flat_obs=True)``: a ``Box`` observation, the mask in ``infos``, for SuperSuit's
observation wrappers); :func:`parallel_env` is the parallel API over any of them.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from .copies import independent_copy
from .env import FlatObs, MaskInInfo, parallel_env
from .env import env as make_env
from .spaces import AgentSpaces, LegalDiscrete

__all__ = ["ObsKeys", "rllib_env", "rllib_seat_returns", "MaskInInfo", "FlatObs",
           "parallel_env"]


class ObsKeys(BaseWrapper):
    """Observation keys renamed, legal ``action_space(agent).sample()`` (module docs)."""

    __copy__ = independent_copy  # copy.copy too: not a second wrapper over the same env

    def __init__(self, env: AECEnv, observation: str = "observations",
                 action_mask: str = "action_mask", mask_dtype: Any = np.int8) -> None:
        super().__init__(env)
        if not (isinstance(observation, str) and isinstance(action_mask, str)
                and observation != action_mask):
            raise ValueError(
                f"invalid keys {observation!r}, {action_mask!r}: expected two different str"
            )
        dtype = np.dtype(mask_dtype)
        if dtype.kind not in "biuf":
            raise ValueError(f"invalid mask_dtype {mask_dtype!r}: expected a numeric dtype")
        self._keys = (observation, action_mask)
        self._mask_dtype = dtype
        inner = env.observation_space(env.possible_agents[0])
        n = env.action_space(env.possible_agents[0]).n
        space = spaces.Dict({
            observation: inner["observation"],
            action_mask: spaces.Box(0, 1, (n,), dtype),
        })
        self._obs_spaces = AgentSpaces({a: space for a in env.possible_agents})
        self._act_spaces = AgentSpaces({a: LegalDiscrete(n, self._legal_of(a))
                                        for a in env.possible_agents})
        #: each seat's payments since the last reset (all seats, including one that
        #: never moves: the four-player dealer sitting out)
        self.returns: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)

    def _legal_of(self, agent: str) -> Any:
        def legal() -> np.ndarray | None:
            try:
                return self.env.observe(agent)["action_mask"]
            except AttributeError:  # before reset
                return None
        return legal

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A copy (deepcopy, pickle) copied the action spaces as plain Discretes: they
        # sample this copy's legal actions again.
        self.__dict__.update(state)
        self._act_spaces = AgentSpaces({a: LegalDiscrete.bound(s, self._legal_of(a))
                                        for a, s in self._act_spaces.items()})

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.returns = dict.fromkeys(self.possible_agents, 0.0)

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        live = not (self.env.terminations.get(agent, True) or self.env.truncations[agent])
        self.env.step(action)
        if live:  # a dead agent's step leaves the last rewards in place: count them once
            returns = self.returns
            for a, r in self.env.rewards.items():
                returns[a] += r

    # PettingZoo's dict attributes: the inner env's (other keys, int8 mask, plain
    # Discrete) would otherwise show through BaseWrapper's attribute lookup.
    @property
    def observation_spaces(self) -> AgentSpaces:
        return self._obs_spaces

    @property
    def action_spaces(self) -> AgentSpaces:
        return self._act_spaces

    def observation_space(self, agent: str) -> gymnasium.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space:
        return self._act_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {self._keys[0]: obs["observation"],
                self._keys[1]: obs["action_mask"].astype(self._mask_dtype, copy=False)}


def rllib_env(**kw: Any) -> ObsKeys:
    """``mariash_env.env(**kw)`` in RLlib's action-masking layout (module docs), its infos
    the same ints on every step (``stack_infos=True`` unless ``kw`` says otherwise)."""
    kw.setdefault("stack_infos", True)
    return ObsKeys(make_env(**kw), "observations", "action_mask", mask_dtype=np.float32)


def rllib_seat_returns(*, env: Any, env_index: int, metrics_logger: Any,
                       env_runner: Any = None, **_: Any) -> None:
    """RLlib ``on_episode_end`` callback: each seat's return as ``seat_returns_mean``.

    ``config.callbacks(on_episode_end=rllib_seat_returns)`` with
    ``PettingZooEnv(rllib_env(...))``; the result then has
    ``result["env_runners"]["seat_returns_mean"][agent]`` for every seat, averaged over
    the same window as RLlib's own episode metrics.  Unlike ``agent_episode_returns_mean``
    it has the seat that sat out the whole episode (the four-player dealer at
    ``deals=1``), so the seats' means sum to zero.  RLlib resets a finished episode's
    environment only at the next step, so the callback still sees its totals.
    """
    sub = env.envs[env_index].unwrapped  # RLlib's PettingZooEnv (a gymnasium.Env)
    inner = getattr(sub, "env", None)
    while inner is not None and not isinstance(inner, ObsKeys):
        inner = getattr(inner, "env", None)
    if inner is None:
        raise TypeError(
            f"rllib_seat_returns needs PettingZooEnv(rllib_env(...)), got {type(sub).__name__}"
        )
    window = None
    if env_runner is not None:  # RLlib's rule: the smoothing window over the env runners
        cfg = env_runner.config
        window = max(1, -(-cfg.metrics_num_episodes_for_smoothing
                          // max(cfg.num_env_runners or 1, 1)))
    metrics_logger.log_dict({"seat_returns_mean": dict(inner.returns)}, window=window)
