"""Small PettingZoo wrappers for libraries with their own conventions (no library imported).

:class:`ObsKeys` renames the two keys of the Dict observation and gives every agent an
action space whose ``sample()`` draws one of its legal actions.  RLlib needs both: its
action-masking module reads ``obs["observations"]`` and ``obs["action_mask"]``, and
its environment check and random exploration call ``action_space.sample()`` without a
mask (which on mariáš almost always picks an illegal action).  :func:`rllib_env` is
``ObsKeys(env(**kw), "observations", "action_mask", mask_dtype=np.float32)``, the layout
of RLlib's ``ActionMaskingTorchRLModule``; wrap it in
``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`` (see examples/rllib_ppo.py).

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

from .env import FlatObs, MaskInInfo, parallel_env
from .env import env as make_env
from .spaces import LegalDiscrete

__all__ = ["ObsKeys", "rllib_env", "MaskInInfo", "FlatObs", "parallel_env"]


class ObsKeys(BaseWrapper):
    """Observation keys renamed, legal ``action_space(agent).sample()`` (module docs)."""

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
        self._obs_spaces = {a: space for a in env.possible_agents}
        self._act_spaces = {a: LegalDiscrete(n, self._legal_of(a)) for a in env.possible_agents}

    def _legal_of(self, agent: str) -> Any:
        def legal() -> np.ndarray | None:
            try:
                return self.env.observe(agent)["action_mask"]
            except AttributeError:  # before reset
                return None
        return legal

    def observation_space(self, agent: str) -> gymnasium.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space:
        return self._act_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {self._keys[0]: obs["observation"],
                self._keys[1]: obs["action_mask"].astype(self._mask_dtype, copy=False)}


def rllib_env(**kw: Any) -> ObsKeys:
    """``mariash_env.env(**kw)`` in RLlib's action-masking layout (module docs)."""
    return ObsKeys(make_env(**kw), "observations", "action_mask", mask_dtype=np.float32)
