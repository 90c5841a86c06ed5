"""``core.observe.observe_into`` / ``Game.observe``: the AEC env's fused observation is
exactly ``encode`` plus ``legal_mask`` for every seat, in every phase, and at a deal's end."""

from __future__ import annotations

import numpy as np

import mariash_env
from mariash_env.game import Game


def test_game_observe_equals_observation_and_legal_mask():
    game = Game()
    game.new_partie(seed=12)
    rng = np.random.default_rng(12)
    seen_end = False
    for _ in range(400):
        for seat in range(3):
            obs, mask = game.observe(seat)
            np.testing.assert_array_equal(obs, game.observation(seat))
            expected = (np.zeros(115, np.int8) if game.deal_over
                        else game.legal_mask(seat))
            np.testing.assert_array_equal(mask, expected)
            assert mask.any() == (seat == game.to_move and not game.deal_over)
        if game.deal_over:
            seen_end = True
            if not game.next_deal():
                break
            continue
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])
    assert seen_end


def test_env_observe_uses_the_fused_path():
    env = mariash_env.env(deals=1)
    env.reset(seed=3)
    raw = env.unwrapped
    for agent in raw.possible_agents:
        seat = raw.agent_name_mapping[agent]
        o = raw.observe(agent)
        np.testing.assert_array_equal(o["observation"], raw.game.observation(seat))
        np.testing.assert_array_equal(o["action_mask"], raw.game.legal_mask(seat))
