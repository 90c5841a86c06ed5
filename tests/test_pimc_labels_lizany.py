"""Lízaný search labels (issue #35: a teacher's labels for any game):
``python -m training.pimc_labels --rules lizany``.

Lízaný has an engine of its own, so its label sets are made by its own PIMC robot
(``LizanyPIMCRobot.action_values``) on its AEC env's observations, from ``from_trick``
on: worlds of the seat's knowledge solved exactly to their end, the one real deal once
the stock is gone (docs/games/lizany.md: tricks 9-16 are open).  Checked here: the values
of an open position are the exact solver's on the stored record, the observations the
stored record encodes are the env's, a shard is a pure function of its settings, the
other games' focuses are refused by name, and a lízaný DMC run regresses on the set.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mariash_env.games.lizany import core as C
from mariash_env.games.lizany import solve as LS
from mariash_env.games.registry import game_kind
from tests.helpers import label_loss_logged
from training import pimc_labels as pl

LIZANY = game_kind("lizany")


def _settings(**kw) -> dict:
    return pl._settings({"rules": {"rules": "lizany"}, "worlds": 3, "shard_size": 12,
                         "seed": 4, "behaviour": "onnx:models/robot_lizany.onnx",
                         "robot_share": 0.7, "epsilon": 0.1, **kw})


@pytest.fixture(scope="module")
def label_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lizany") / "labels"
    argv = ["--rules", "lizany", "--out", str(out), "--states", "24", "--shard-size", "12",
            "--worlds", "3", "--seed", "5", "--no-progress"]
    assert pl.main(argv) == 0
    return out


def test_a_set_labels_the_decisions_strong_searches(label_set: Path) -> None:
    meta = json.loads((label_set / "labels.json").read_text())
    # from the trick lízaný's strong (nnpimc(from_trick=7)) searches from, by default
    assert (meta["game"], meta["phase"], meta["from_trick"]) == ("lizany", "play", 7)
    rows = pl.read_shards(label_set, pl.shard_files(label_set))
    assert rows["state"].shape == (24, C.LZ_STATE_SIZE) and rows["value"].shape == (24, 32)
    for st, seat, mask, value in zip(rows["state"], rows["seat"], rows["mask"], rows["value"]):
        legal = np.flatnonzero(mask)
        assert len(legal) >= 2  # only decisions with a choice
        assert int(st[C.TRICK_NO]) >= 7 and int(st[C.TO_MOVE]) == seat
        assert (C.legal_cards(st) >> legal & 1).all()  # the mask is the record's
        assert np.isfinite(value[legal]).all() and np.isnan(np.delete(value, legal)).all()
        assert (np.abs(value[legal]) <= 2).all()  # rewards: ±1, ±2


def test_open_positions_get_the_exact_values(label_set: Path) -> None:
    """Once the stock is gone a label is the exact solve of the stored record (its one
    world is the real deal), whatever the worlds setting."""
    rows = pl.read_shards(label_set, pl.shard_files(label_set))
    table, stats = LS.new_table(12), np.zeros(1, np.int64)
    out = np.zeros(32, np.int64)
    n_open = 0
    for st, mask, value in zip(rows["state"], rows["mask"], rows["value"]):
        if C.stock_left(st):
            continue
        n_open += 1
        LS.solve_values(st.copy(), out, table, stats, LS.NO_LIMIT)
        legal = np.flatnonzero(mask)
        np.testing.assert_array_equal(value[legal], out[legal].astype(np.float32))
    assert n_open >= 10


def test_stored_records_encode_the_seats_observations(label_set: Path) -> None:
    from mariash_env.games.lizany.game import LizanyGame

    rows = pl.read_shards(label_set, pl.shard_files(label_set))
    obs, mask, _ = pl.load_labels(label_set, game="lizany")
    assert obs.shape == (24, LIZANY.obs_size)
    g = LizanyGame(seed=0)
    for st, seat, o in zip(rows["state"], rows["seat"], obs):
        g.st[:] = st
        np.testing.assert_array_equal(g.observe(int(seat)), o)


def test_a_shard_is_a_function_of_its_settings() -> None:
    s = _settings(from_trick=8)
    a, b = pl.make_shard(s, 1), pl.make_shard(s, 1)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert (a["state"][:, C.TRICK_NO] >= 8).all()
    assert not np.array_equal(a["state"], pl.make_shard(s, 2)["state"])


@pytest.mark.parametrize("kw, words", [
    ({"phase": "bidding"}, "phase must be 'play'"),
    ({"roles": "actor"}, "roles must be 'all'"),
    ({"worlds_from": "deal", "worlds": 1}, "worlds_from must be 'sampled'"),
    ({"playout": "behaviour"}, "playout must be 'table'"),
    ({"contracts": ["betl"]}, "no contracts"),
    ({"from_trick": 9}, "from_trick must be a trick 0..8"),
    ({"rules": {"rules": "lizany", "players": 3}}, "no rule options"),
])
def test_what_lizany_labels_cannot_be_is_refused(kw: dict, words: str) -> None:
    with pytest.raises(pl.LabelError, match=words):
        _settings(**kw)


def test_from_trick_is_refused_for_the_engine_games(tmp_path: Path) -> None:
    with pytest.raises(pl.LabelError, match="from_trick is for the games labelled by their "
                                            "own robot"):
        pl._settings({"rules": {"rules": "licitovany"}, "worlds": 2, "shard_size": 2,
                      "seed": 0, "behaviour": "table", "robot_share": 0.0, "epsilon": 0.0,
                      "from_trick": 3})
    # and the command line says so before anything is made
    assert pl.main(["--out", str(tmp_path / "x"), "--from-trick", "3", "--states", "2",
                    "--robot-share", "0", "--no-progress"]) == 2
    assert not (tmp_path / "x").exists()


def test_resume_refuses_other_settings(label_set: Path) -> None:
    with pytest.raises(pl.LabelError, match="from_trick: 7 there, 8 now"):
        pl.check_settings(label_set, _settings(from_trick=8))


def test_a_lizany_student_trains_on_lizany_labels(label_set: Path, tmp_path: Path) -> None:
    """The lízaný DMC run regresses its network (32 actions, 221 inputs) on the set every
    step (the label loss logged and positive); a volený run is refused the set by name."""
    pytest.importorskip("torch")
    from training.config import Config, ConfigError
    from training.trainer import Trainer

    def cfg(rules: dict, deals: int) -> Config:
        return Config.from_dict({
            "seed": 3, "env": {"num_envs": 16, "rollout_steps": 40, "rules": rules,
                               "deals": deals},
            "network": {"hidden": [32]},
            "eval": {"every": 0, "deals": 4, "num_envs": 8, "bootstrap": 20,
                     "opponents": [], "final_opponents": []},
            "run": {"max_iterations": 2, "checkpoint_every": 1, "keep_checkpoints": 1,
                    "threads": 1, "progress": False, "tensorboard": False, "plot": False},
            "dmc": {"batch_size": 32, "label_data": str(label_set), "label_batch": 8},
        }, "test")

    out = tmp_path / "run"
    tr = Trainer(cfg({"rules": "lizany"}, 1), out, log=lambda *a: None)
    assert [ls.game for ls, _ in tr.method._label_sets] == ["lizany"]
    tr.train()
    assert label_loss_logged(out)
    with pytest.raises(ConfigError, match="holds lizany labels, not voleny"):
        Trainer(cfg({}, 12), tmp_path / "other", log=lambda *a: None)


def test_a_lizany_recipe_labels_from_its_trick(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture,
                                               tmp_path: Path) -> None:
    """The shipped lízaný distillation recipe plans lízaný labels from trick 7 (its
    ``from_trick``); a volený recipe given ``from_trick`` is refused naming the stage."""
    from training import pipeline

    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    assert pipeline.main(["training/recipes/lizany_distill.toml", "--out", "runs/x",
                          "--dry-run", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert ("$ python -m training.pimc_labels --rules lizany --out runs/x/labels --states "
            "150000 --shard-size 2000 --worlds 6 --from-trick 7 --phase play --seed 0 "
            "--behaviour onnx:models/robot_lizany.onnx") in out
    assert "--roles" not in out and "--contracts" not in out
    bad = Path(root / "training" / "recipes" / "tiny.toml").read_text().replace(
        'kind = "labels"\n', 'kind = "labels"\nfrom_trick = 3\n', 1)
    p = tmp_path / "bad.toml"
    p.write_text(bad)
    with pytest.raises(pipeline.PipelineError, match="from_trick is for the games labelled"):
        pipeline.load_recipe(p, tmp_path / "run")
