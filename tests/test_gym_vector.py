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


def test_a_seeded_reset_sets_np_random_seed():
    """Gymnasium's ``VectorEnv.reset(seed=s)`` seeds ``np_random`` and sets
    ``np_random_seed`` to ``s``: ours left both alone (``np_random_seed`` was a fresh
    random int).  An unseeded reset keeps them; the constructor's seed counts as the
    first reset's; a seed list (no one int) gives -1, Gymnasium's "seed unknown", and a
    generator drawn from the games' seeds (the same list, the same generator)."""
    from gymnasium.utils import seeding
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    def draw(env):
        return env.np_random.integers(2**62, size=4).tolist()

    env = GymVectorEnv(2)
    env.reset(seed=5)
    assert env.np_random_seed == 5
    assert draw(env) == seeding.np_random(5)[0].integers(2**62, size=4).tolist()
    env.reset()
    assert env.np_random_seed == 5
    env.reset(seed=np.int64(6))
    assert env.np_random_seed == 6 and type(env.np_random_seed) is int
    env.reset(seed=[1, None])
    assert env.np_random_seed == -1
    twin = GymVectorEnv(2)
    twin.reset(seed=6)
    twin.reset(seed=[1, None])
    assert draw(env) == draw(twin)
    first = GymVectorEnv(2, seed=9)
    first.reset()
    assert first.np_random_seed == 9
    wrapped = RecordEpisodeStatistics(GymVectorEnv(2))
    wrapped.reset(seed=3)
    assert wrapped.np_random_seed == 3
