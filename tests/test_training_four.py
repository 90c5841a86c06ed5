"""Training at volený's four-player table (``[env] rules = {players = 4}``, RULES.md §11.3).

Self-play runs on ``VectorEnv(players=4)``; every network and robot of the rollout reads
the first block of the four-player observation, the three-seat observation of the deal
its seat plays, so the network keeps volený's 900 inputs and plays both tables.  The
returns are the four-player payments (the actor ``+3A``, each of the other three
``-A``); the label sets, which value three-player deals, are refused at four by name.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from mariash_env.core import observe as O  # noqa: E402
from mariash_env.robots import OnnxRobot, make_robot  # noqa: E402
from training.config import Config, ConfigError, load_config  # noqa: E402
from training.methods import get_method  # noqa: E402
from training.rollout import T_SELF, T_TABLE, SelfPlayActor  # noqa: E402
from training.trainer import Trainer  # noqa: E402

FOUR = {
    "seed": 3,
    "env": {"num_envs": 40, "rollout_steps": 40, "rules": {"players": 4}, "deals": 16},
    "network": {"hidden": [32]},
    "selfplay": {"pool_size": 2, "pool_every": 1, "pool_share": 0.0, "random_share": 0.0,
                 "table_robot_share": 0.5},
    "eval": {"every": 0, "deals": 4, "num_envs": 56, "bootstrap": 50,
             "opponents": ["table"], "final_opponents": ["table"]},
    "run": {"max_iterations": 2, "checkpoint_every": 1000, "keep_checkpoints": 0,
            "threads": 1, "progress": False, "tensorboard": False, "plot": False},
    "dmc": {"batch_size": 64, "lr": 3e-3},
}


def four(**overrides) -> Config:
    cfg = Config.from_dict(json.loads(json.dumps(FOUR)), "four")
    return cfg.replace(**overrides) if overrides else cfg


def test_self_play_at_four_pays_the_four_player_settlement():
    actor = SelfPlayActor(four(), get_method("dmc"))
    actor.begin_segment(0)
    assert actor.env.players == 4 and actor.env.obs_size == 924
    batch, stats = actor.collect({"epsilon": 0.2})
    assert len(batch) > 0 and stats["deals"] > 0
    assert batch.obs.shape[1] == O.OBS_SIZE == actor.net.obs_size  # the deal's block
    assert {int(t) for t in np.unique(batch.table)} <= {T_SELF, T_TABLE}
    done = actor.outcomes[~np.isnan(actor.outcomes).any(axis=1)]
    assert len(done) > 0
    for row in done[done.any(axis=1)]:  # the actor paid 3A by the three others
        values, counts = np.unique(row, return_counts=True)
        assert row.sum() == 0 and sorted(counts.tolist()) == [1, 3]
        assert values[counts == 1][0] == -3 * values[counts == 3][0]
    # each decision's return is its player's payment of its deal
    assert set(np.unique(batch.ret)) <= set(np.unique(done))


def test_a_network_trained_at_four_plays_both_tables(tmp_path):
    cfg = four()
    summary = Trainer(cfg, tmp_path / "run").train()
    assert summary["iteration"] == 2 and "table" in summary["eval"]
    from training.export import export

    onnx = tmp_path / "four.onnx"
    export(tmp_path / "run" / "checkpoint.pt", onnx, check=256)  # parity on four-player play
    robot = OnnxRobot(onnx)
    assert robot.seat_counts == (3, 4) and robot.rules["players"] == 4
    for players in (3, 4):
        make_robot(f"onnx:{onnx}", rules={"players": players})


def test_label_sets_are_refused_at_four(tmp_path):
    with pytest.raises(ConfigError, match="dmc.label_data: label sets value three-player "
                       "deals .* the four-player table pays the actor 3A"):
        load_config(None, ["env.rules={players = 4}", f"dmc.label_data={tmp_path}"])
    with pytest.raises(ConfigError, match="players=4 and rules='licitovany' conflict"):
        load_config(None, ['env.rules={rules = "licitovany", players = 4}'])
    load_config(None, ["env.rules={players = 4}"])  # self-play at four
