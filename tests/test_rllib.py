"""RLlib from its own recipe: ``PettingZooEnv(rllib_env(...))`` with RLlib's
``ActionMaskingTorchRLModule`` trains under PPO, and every seat's return is reported,
the four-player dealer's too (RULES.md §11.3: the dealer sits out and pays or collects
with the defence).  RLlib is the ``rllib`` extra; without it the training test skips."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.wrappers import rllib_env
from tests.helpers import step_cap


def test_returns_hold_every_seats_payments_the_sitting_out_dealers_too():
    e = rllib_env(players=4, deals=4)
    e.reset(seed=7)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)  # dead steps must not count the last rewards again
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    records = e.unwrapped.records
    assert len(records) == 4
    assert {r["settlement"]["sitting_out"] for r in records} == {0, 1, 2, 3}
    paid = np.sum([r["settlement"]["payments"] for r in records], axis=0)
    got = np.array([e.returns[f"player_{i}"] for i in range(4)])
    assert np.array_equal(got, paid) and got.sum() == 0
    e.reset(seed=8)
    assert e.returns == dict.fromkeys(e.possible_agents, 0.0)


def test_ppo_trains_with_rllibs_masking_module_and_reports_every_seat():
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install -e '.[rllib]')")
    pytest.importorskip("torch")
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    from mariash_env.wrappers import rllib_seat_returns

    register_env("mariash4", lambda _cfg: PettingZooEnv(rllib_env(players=4, deals=1)))
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": [32]})
    config = (
        PPOConfig().environment("mariash4")
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda *a, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=0)  # sampling in the driver: no extra processes
        .callbacks(on_episode_end=rllib_seat_returns)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1,
                  gamma=1.0)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 2**20)
    try:
        algo = config.build_algo()
        try:
            for _ in range(2):
                result = algo.train()
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 2 * 256
    assert "shared" in result["learners"]  # the masking module was updated
    seats = runners["seat_returns_mean"]
    assert set(seats) == {f"player_{i}" for i in range(4)}
    assert abs(sum(seats.values())) < 1e-9  # zero-sum: no seat's payment dropped
    # At deals=1 the dealer is player_0 and never moves, so RLlib's own per-agent
    # metric lacks it; for the seats that play it agrees with ours.
    rllib_agents = runners["agent_episode_returns_mean"]
    assert set(rllib_agents) == {"player_1", "player_2", "player_3"}
    for agent, value in rllib_agents.items():
        assert value == pytest.approx(seats[agent])


def test_the_parallel_api_is_no_way_around_for_rllib():
    """docs/pitfalls.md, *The parallel API*: it said the parallel API was "a way around"
    RLlib's missing sitting-out dealer; RLlib asks for an action of every agent that has
    an observation, so over the turn-based parallel env most of its agent steps are the
    ignored actions of agents with an all-zero mask (2 of 3, 3 of 4 at four players), and
    the default parallel_env fails RLlib's environment check.  The page says so now."""
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install -e '.[rllib]')")
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    import mariash_env

    for kw, share in (({"deals": 1}, 2 / 3), ({"players": 4, "deals": 1}, 3 / 4)):
        plain = mariash_env.parallel_env(**kw)
        for a in plain.possible_agents:  # (RLlib's check samples them: the same draw)
            plain.action_space(a).seed(0)
        with pytest.raises(ValueError, match="step"):  # an illegal action of the mover
            check_multiagent_environments(ParallelPettingZooEnv(plain))
        env = ParallelPettingZooEnv(turn_based_aec_to_parallel(rllib_env(**kw)))
        check_multiagent_environments(env)
        seen = ignored = 0
        obs, _ = env.reset(seed=1)
        tick = step_cap(kw, deals=None)
        while True:
            tick()
            seen += len(obs)
            ignored += sum(1 for o in obs.values() if not o["action_mask"].any())
            obs, _, term, _, _ = env.step({a: env.get_action_space(a).sample() for a in obs})
            if term["__all__"]:
                break
        assert ignored / seen == pytest.approx(share)
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "pitfalls.md").read_text()
    section = page.split("## The parallel API")[1].split("\n## ")[0]
    assert "way around the RLlib issue above." not in section
    assert "2 of every 3 agent steps" in " ".join(section.split())
