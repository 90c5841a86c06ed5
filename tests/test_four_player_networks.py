"""Networks at the four-player table (``players=4``, RULES.md §11.3).

The four-player observation opens with the three-player observation of the deal, byte for
byte (``tests/test_four_players.py``), so a volený network plays every seat of the deal
from that block: robot ``onnx:PATH``, ``net``, and ``nnpimc`` / ``strong`` (the latter two
through the game view, as PIMC; their inference over worlds is three players' only).
A network of another game keeps its own seat count.
"""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env.core import observe as O
from mariash_env.core import observe4 as Q
from mariash_env.games.registry import game_kind
from mariash_env.robots import OnnxRobot, SeatView, make_robot, robots_of
from mariash_env.robots.base import RobotGameError, check_plays
from mariash_env.vector import VectorEnv, random_legal_actions
from tests.helpers import step_cap

NET = "models/robot_voleny_seated3.onnx"
FOUR = {"players": 4}


def test_the_four_player_table_has_the_networks_of_its_game():
    assert game_kind("voleny").model_seat_counts == (3, 4)
    assert game_kind("licitovany").model_seat_counts == (3,)
    assert game_kind("lizany").model_seat_counts == (2,)
    four = robots_of("voleny", 4)
    assert {"net", "strong", "nnpimc", "onnx:PATH"} <= set(four)
    assert OnnxRobot(NET).seat_counts == (3, 4)
    assert OnnxRobot("models/robot_licitovany.onnx").seat_counts == (3,)
    assert OnnxRobot("models/robot_lizany.onnx").seat_counts == (2,)


def test_a_voleny_network_reads_the_deals_block_of_the_four_player_observation():
    """Every decision of a four-player deal: the robot's scores on the 924 features are
    its scores on the first 900, the three-player observation of the seat in the deal."""
    net = make_robot("net", rules=FOUR)
    env = mariash_env.env(players=4, deals=4)
    env.reset(seed=3)
    seen = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o, m = obs["observation"], obs["action_mask"]
        assert o.shape == (Q.OBS4_SIZE,)
        s4, a4 = net.scores_and_actions(o, m)
        s3, a3 = net.scores_and_actions(o[:O.OBS_SIZE].copy(), m)
        np.testing.assert_array_equal(s4, s3)
        assert net.act(obs) == int(a4[0]) == int(a3[0]) and m[int(a4[0])]
        # the deal's block alone: whatever the four-player features after it say
        other = o.copy()
        other[O.OBS_SIZE:] = 1 - other[O.OBS_SIZE:]
        np.testing.assert_array_equal(net.scores_and_actions(other, m)[0], s4)
        seen += 1
        env.step(int(a4[0]))
    assert seen >= 40


def test_a_batch_of_four_player_observations():
    net = make_robot(f"onnx:{NET}", rules=FOUR)
    venv = VectorEnv(16, seed=5, players=4)
    step = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(12):
        assert step.obs.shape == (16, Q.OBS4_SIZE)
        a = net.act_batch(step.obs, step.mask)
        np.testing.assert_array_equal(a, net.act_batch(step.obs[:, :O.OBS_SIZE], step.mask))
        assert step.mask[np.arange(16), a].all()
        step = venv.step(np.where(rng.random(16) < 0.5, a,
                                  random_legal_actions(step.mask, rng)))


def test_other_observation_sizes_are_refused_by_name():
    net = OnnxRobot(NET)
    with pytest.raises(ValueError, match=r"expected obs \[N, 900 \(or 924\)\]"):
        net.scores_and_actions(np.zeros(901, np.float32), np.ones(32, np.int8))
    licit = OnnxRobot("models/robot_licitovany.onnx")
    n = licit.game.obs_size
    with pytest.raises(ValueError, match=rf"expected obs \[N, {n}\] and mask"):
        licit.scores_and_actions(np.zeros(n + 24, np.float32),
                                 np.ones(licit.game.n_actions, np.int8))
    with pytest.raises(RobotGameError, match="cannot play lízaný mariáš with 3 players"):
        check_plays(OnnxRobot("models/robot_lizany.onnx"), game_kind("lizany"), 3)


def test_nnpimc_and_strong_play_the_four_player_deal_without_inference():
    assert make_robot("nnpimc(worlds=2)").inference  # three players: weighted worlds
    assert not make_robot("nnpimc(worlds=2)", rules=FOUR).inference
    with pytest.raises(ValueError, match="inference=True plays three players only"):
        make_robot("nnpimc(worlds=2, inference=True)", rules=FOUR)
    strong = make_robot("strong(worlds=2)", rules=FOUR)
    g = mariash_env.Game(players=4, deals=1)
    g.new_partie(seed=11)
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        view = SeatView.from_game(g)
        a = strong.act_view(view)
        assert view.action_mask()[a]
        g.step(a)
    pay = g.settlement()["payments"]
    assert len(pay) == 4 and sum(pay) == 0
    assert strong.stats["decisions"] > 0
    # built for three with its inference, the robot refuses the four-player deal by name
    three = make_robot("nnpimc(worlds=2)")
    g.new_partie(seed=11)
    with pytest.raises(ValueError, match="inference=True plays three players only"):
        three.act_view(SeatView.from_game(g))
