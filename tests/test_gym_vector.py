"""``mariash_env.gym_vector.GymVectorEnv`` against Gymnasium 1.x's vector conventions
(``gymnasium.vector.SyncVectorEnv`` is the model): seeding, partial resets and the
per-game ``call`` / ``get_attr`` / ``set_attr``.  (Its autoreset, wrappers and one seed a
game are in test_torchrl_env.py, beside the TorchRL env over the same engine.)"""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.gym_vector import GymVectorEnv
from mariash_env.vector import VectorEnv


def _first(rules: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Game 0's first observation and mask after ``reset(seed=seed)``."""
    obs, info = GymVectorEnv(1, rules=rules).reset(seed=seed)
    return obs[0], info["action_mask"][0]


@pytest.mark.parametrize("rules", ["voleny", "lizany"])
def test_a_seed_list_may_hold_none(rules):
    """Gymnasium's ``reset(seed=[...])`` takes None entries (that game unseeded): it was
    refused (OptionError).  A None game gets the seed an unseeded reset gives it (the
    sequence's ``next + i``), so ``seed=[None] * n`` is ``reset()``; the others theirs.
    The engine (both kinds) takes the same list."""
    env = GymVectorEnv(3, seed=100, rules=rules)
    obs, info = env.reset(seed=[None, 7, None])
    for i, s in enumerate((100, 7, 102)):
        one, mask = _first(rules, s)
        assert np.array_equal(obs[i], one) and np.array_equal(info["action_mask"][i], mask)
    later, _ = env.reset()  # the sequence goes on after the largest seed used
    twin = GymVectorEnv(3, rules=rules)
    twin.reset(seed=[100, 7, 102])
    assert np.array_equal(later, twin.reset()[0])
    assert np.array_equal(GymVectorEnv(3, seed=5, rules=rules).reset(seed=[None] * 3)[0],
                          GymVectorEnv(3, seed=5, rules=rules).reset()[0])
    venv = VectorEnv(2, seed=40, rules=rules)
    step = venv.reset(seed=np.array([None, 3], dtype=object))
    assert np.array_equal(step.obs[0], _first(rules, 40)[0])
    assert np.array_equal(step.obs[1], _first(rules, 3)[0])
