"""The robot interface: ``act(observation) -> action``, given only what the seat sees.

``observation`` is what the AEC environment hands the seat to move: a dict with
``"observation"`` (float32[OBS_SIZE], layout in :mod:`mariash_env.core.observe`)
and ``"action_mask"`` (int8[N_ACTIONS]).  Robots never see another seat's cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Robot:
    """Base class of all robots; subclasses implement :meth:`act`."""

    name = "robot"

    def act(self, observation: dict[str, Any]) -> int:
        raise NotImplementedError

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions for a batch of observations ``[N, D]`` with masks ``[N, A]``."""
        return np.array(
            [self.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask)],
            dtype=np.int64,
        )

    def reset(self) -> None:
        """Forget anything remembered from an earlier deal (robots are mostly stateless)."""


def legal_of(observation: dict[str, Any]) -> np.ndarray:
    legal = np.flatnonzero(np.asarray(observation["action_mask"]))
    if legal.size == 0:
        raise ValueError("the observation's action_mask has no legal action: is this seat to move?")
    return legal


class RandomRobot(Robot):
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any]) -> int:
        return int(self.rng.choice(legal_of(observation)))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        u = self.rng.random(mask.shape) * (mask > 0)
        return np.argmax(u, axis=1).astype(np.int64)
