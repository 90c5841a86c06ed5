"""mariash_env.wrappers (RLlib's observation keys, legal sampling) and mariash_env.spaces."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

import mariash_env
from mariash_env.spaces import LegalDiscrete, LegalMultiDiscrete
from mariash_env.wrappers import ObsKeys, rllib_env


def test_rllib_layout_passes_the_api_test():
    api_test(rllib_env(), num_cycles=500)


def test_rllib_layout_and_unmasked_sampling_is_legal():
    # RLlib's env check calls action_space(agent).sample() with no mask.
    e = rllib_env(deals=2)
    space = e.observation_space("player_0")
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.float32
    e.reset(seed=3)
    raw = e.unwrapped
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        assert obs in space
        inner = raw.observe(agent)
        assert np.array_equal(obs["observations"], inner["observation"])
        assert np.array_equal(obs["action_mask"], inner["action_mask"].astype(np.float32))
        a = e.action_space(agent).sample()
        assert raw.game.legal_mask(raw.game.to_move)[a] == 1
        e.step(a)
        steps += 1
    assert steps >= 2 * 8 and len(raw.records) == 2  # two whole deals, every action legal


def test_obs_keys_other_names_and_bad_arguments():
    e = ObsKeys(mariash_env.env(deals=1), "obs", "mask")
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    assert set(obs) == {"obs", "mask"} and obs["mask"].dtype == np.int8 and obs["mask"].any()
    with pytest.raises(ValueError, match="two different"):
        ObsKeys(mariash_env.env(), "a", "a")
    with pytest.raises(ValueError, match="mask_dtype"):
        ObsKeys(mariash_env.env(), mask_dtype=str)


def test_legal_discrete_samples_the_mask_and_accepts_float_masks():
    legal = np.zeros(10, np.int8)
    legal[[2, 7]] = 1
    space = LegalDiscrete(10, lambda: legal, seed=0)
    assert {int(space.sample()) for _ in range(50)} == {2, 7}
    only3 = np.zeros(10, np.float32)
    only3[3] = 1.0
    assert int(space.sample(only3)) == 3  # an explicit (float) mask wins
    none = LegalDiscrete(10, lambda: None, seed=0)  # no state yet: any action
    assert len({int(none.sample()) for _ in range(100)}) > 5


@pytest.mark.parametrize("make", [
    pytest.param(lambda: rllib_env(deals=1), id="rllib_env"),
    pytest.param(lambda: mariash_env.env(deals=1, flat_obs=True), id="flat_obs"),
    pytest.param(lambda: mariash_env.env(rules="lizany", flat_obs=True), id="lizany_flat_obs"),
])
def test_the_spaces_dicts_are_the_wrappers_own(make):
    # PettingZoo's observation_spaces / action_spaces attributes say what
    # observation_space(agent) / action_space(agent) say, not the inner env's spaces.
    e = make()
    for agent in e.possible_agents:
        assert e.observation_spaces[agent] == e.observation_space(agent)
        assert e.action_spaces[agent] is e.action_space(agent)
    with pytest.raises(KeyError, match="unknown agent"):
        e.observation_spaces["player_9"]


def test_legal_multi_discrete_samples_each_rows_legal_actions():
    legal = np.zeros((3, 10), np.int8)
    legal[0, [2, 7]] = 1
    legal[1, 5] = 1  # row 2: nothing legal, the space's start (0) as MultiDiscrete's rule
    space = LegalMultiDiscrete(10, 3, lambda: legal, seed=0)
    drawn = np.array([space.sample() for _ in range(200)])
    assert drawn.dtype == np.int64 and drawn.shape == (200, 3)
    assert set(drawn[:, 0]) == {2, 7} and set(drawn[:, 1]) == {5} and set(drawn[:, 2]) == {0}
    only = tuple(np.eye(10, dtype=np.int8)[[1, 2, 3]])
    assert space.sample(mask=only).tolist() == [1, 2, 3]  # an explicit mask wins
    none = LegalMultiDiscrete(10, 3, lambda: None, seed=0)  # no state yet: any actions
    assert len({int(none.sample()[0]) for _ in range(100)}) > 5
