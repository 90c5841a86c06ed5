"""Training lízaný (docs/games/lizany.md): DMC self-play on its batched engine
(``VectorEnv(n, rules="lizany")``), two seats and one deal an episode (*Points and
reward*: ±1 / ±2), evaluated through the lízaný arena against its table robot.

A tiny config keeps the file short."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from mariash_env import lizany  # noqa: E402
from mariash_env.games.lizany.table_robot import LizanyRuleRobot  # noqa: E402
from training.checkpoint import read_checkpoint  # noqa: E402
from training.config import Config, ConfigError, load_config  # noqa: E402
from training.methods import get_method  # noqa: E402
from training.rollout import T_SELF, T_TABLE, SelfPlayActor  # noqa: E402
from training.trainer import Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "seed": 5,
    "env": {"num_envs": 40, "rollout_steps": 33, "deals": 1, "rules": {"rules": "lizany"}},
    "network": {"hidden": [32]},
    "selfplay": {"pool_size": 2, "pool_every": 1, "pool_share": 0.2, "random_share": 0.2,
                 "table_robot_share": 0.3},
    "eval": {"every": 2, "deals": 10, "num_envs": 60, "bootstrap": 50,
             "opponents": ["table"]},
    "run": {"max_iterations": 2, "checkpoint_every": 2, "keep_checkpoints": 0,
            "threads": 1, "progress": False, "tensorboard": False, "plot": False},
    "dmc": {"batch_size": 64, "lr": 3e-3, "reward_scale": 1.0},
}


def tiny(**env) -> Config:
    d = json.loads(json.dumps(TINY))
    d["env"].update(env)
    return Config.from_dict(d, "tiny")


def test_rollout_plays_two_seats_and_returns_the_deal_rewards():
    """Each finished deal gives the learner's decisions its seat's reward, ±1 or ±2; the
    learner sits in seat 0 or 1 against the lízaný table robot."""
    actor = SelfPlayActor(tiny(), get_method("dmc"))
    actor.begin_segment(0)
    assert isinstance(actor.table_robot, LizanyRuleRobot) and actor.env.players == 2
    assert set(actor.learner_seats.tolist()) <= {1, 2} and (actor.kind == T_TABLE).any()
    batch, stats = actor.collect({"epsilon": 0.1})
    assert stats["deals"] == 40 and len(batch) > 0  # 33 steps: each game ended a deal (32)
    assert batch.obs.shape[1] == lizany.OBS_SIZE
    assert set(np.abs(batch.ret).tolist()) <= {1.0, 2.0}
    assert {T_SELF, T_TABLE} <= set(batch.table.tolist())


def test_tiny_run_records_lizany_and_evaluates_against_its_table_robot(tmp_path):
    out = tmp_path / "run"
    Trainer(tiny(), out).train()
    ck = read_checkpoint(out / "checkpoint.pt")
    assert ck["game"] == "lizany"
    assert (ck["obs_size"], ck["num_actions"]) == (lizany.OBS_SIZE, lizany.N_ACTIONS)
    assert [h["opponent"] for h in ck["history"]] == ["table"]
    assert -2 <= ck["history"][0]["mean"] <= 2


@pytest.mark.parametrize("env, match", [
    ({"deals": 12}, "one deal"),
    ({"rules": {"rules": "lizany", "tariff": "csm"}}, "do not apply to rules='lizany'"),
])
def test_lizany_rules_checked_in_the_config(env, match):
    with pytest.raises(ConfigError, match=match):
        tiny(**env)


def test_lizany_config_loads():
    cfg = load_config(ROOT / "training/configs/lizany.toml")
    assert cfg.env.rules == {"rules": "lizany"} and cfg.env.deals == 1
