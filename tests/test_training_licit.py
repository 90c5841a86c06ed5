"""Training licitovaný mariáš (LICITOVANY.md): the same DMC over the licitovaný action
table, checkpoints that record the game, exact resume, export and the ONNX robot, and
every crossing of the two games refused with a clear error.

Tiny configs keep the file short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from mariash_env.kinds import LICITOVANY, VOLENY  # noqa: E402
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.robots.licit_table import LicitTableRobot  # noqa: E402
from training import export as tx  # noqa: E402
from training.checkpoint import CheckpointError, read_checkpoint, save_checkpoint  # noqa: E402
from training.config import Config, load_config  # noqa: E402
from training.rollout import T_TABLE, SelfPlayActor  # noqa: E402
from training.trainer import Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "seed": 4,
    "env": {"num_envs": 48, "rollout_steps": 6, "rules": {"rules": "licitovany"}},
    "network": {"hidden": [48]},
    "selfplay": {"pool_size": 2, "pool_every": 1, "pool_share": 0.2, "random_share": 0.2,
                 "table_robot_share": 0.3},
    "eval": {"every": 2, "deals": 12, "num_envs": 72, "bootstrap": 100,
             "opponents": ["table"]},
    "run": {"max_iterations": 4, "checkpoint_every": 2, "keep_checkpoints": 1,
            "threads": 1, "progress": False, "tensorboard": False, "plot": False},
    "dmc": {"batch_size": 64, "lr": 3e-3},
}


def tiny(voleny: bool = False, **overrides) -> Config:
    d = json.loads(json.dumps(TINY))
    if voleny:
        d["env"]["rules"] = {}
    cfg = Config.from_dict(d, "tiny")
    return cfg.replace(**overrides) if overrides else cfg


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("licit") / "run"
    Trainer(tiny(), out).train()
    return out


@pytest.fixture(scope="module")
def voleny_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("voleny") / "run"
    Trainer(tiny(True, **{"run.max_iterations": 1, "eval.every": 0,
                          "eval.opponents": ["random"]}), out).train()
    return out


def test_licit_run_records_its_game(trained: Path) -> None:
    ck = read_checkpoint(trained / "checkpoint.pt")
    assert ck["game"] == "licitovany"
    assert (ck["obs_size"], ck["num_actions"], ck["obs_version"]) == (
        LICITOVANY.obs_size, LICITOVANY.n_actions, LICITOVANY.obs_version) == (1016, 136,
                                                                               ck["obs_version"])
    assert ck["network"]["obs_size"] == 1016 and ck["network"]["num_actions"] == 136
    assert ck["counters"]["iteration"] == 4 and ck["counters"]["deals"] > 0
    # evaluated through the arena against the licitovaný table robot
    assert [h["opponent"] for h in ck["history"]] == ["table", "table"]
    assert all(np.isfinite(h["mean"]) for h in ck["history"])


def test_rollout_plays_the_licit_table_robot() -> None:
    from training.methods import get_method

    cfg = tiny(**{"selfplay.table_robot_share": 1.0, "selfplay.pool_share": 0.0,
                  "selfplay.random_share": 0.0})
    actor = SelfPlayActor(cfg, get_method("dmc"))
    actor.begin_segment(0)
    assert isinstance(actor.table_robot, LicitTableRobot)
    assert actor.env.num_actions == 136 and actor.net.num_actions == 136
    batch, stats = actor.collect({"epsilon": 0.1})
    assert stats["n_vs_table"] == len(batch) > 0 and (batch.table == T_TABLE).all()
    assert batch.obs.shape[1] == 1016 and batch.action.max() < 136


def test_guided_deals_record_the_table_robots_actions() -> None:
    """selfplay.guide_share = 1: every learner decision is the table robot's action, and
    it is recorded as the learner's (with the mask the robot saw)."""
    from training.methods import get_method

    cfg = tiny(**{"selfplay.guide_share": 1.0, "selfplay.pool_share": 0.0,
                  "selfplay.random_share": 0.0, "selfplay.table_robot_share": 0.0})
    actor = SelfPlayActor(cfg, get_method("dmc"))
    actor.needs_masks = True  # keep the masks to ask the robot again
    actor.begin_segment(0)
    batch, _ = actor.collect({"epsilon": 1.0})  # the learner alone would play at random
    assert len(batch) > 0
    want = LicitTableRobot().act_batch(batch.obs, batch.mask)
    assert np.array_equal(batch.action, want)
    # unguided, the same exploration rate gives other actions
    cfg = tiny(**{"selfplay.pool_share": 0.0, "selfplay.random_share": 0.0,
                  "selfplay.table_robot_share": 0.0, "env.rollout_steps": 40})
    actor = SelfPlayActor(cfg, get_method("dmc"))
    actor.needs_masks = True
    actor.begin_segment(0)
    batch, _ = actor.collect({"epsilon": 1.0})
    assert len(batch) > 0
    assert not np.array_equal(batch.action, LicitTableRobot().act_batch(batch.obs, batch.mask))


def test_licit_resume_equals_uninterrupted_run(tmp_path: Path) -> None:
    cfg = {"eval.every": 0}
    full = tmp_path / "full"
    Trainer(tiny(**cfg), full).train()
    part = tmp_path / "part"
    Trainer(tiny(**cfg, **{"run.max_iterations": 2}), part).train()
    resumed = Trainer(tiny(**cfg), part, resume=True)
    assert resumed.counters["iteration"] == 2
    resumed.train()
    a, b = read_checkpoint(full / "checkpoint.pt"), read_checkpoint(part / "checkpoint.pt")
    for k in a["policy"]:
        assert torch.equal(a["policy"][k], b["policy"][k]), k
    assert a["counters"] == {**b["counters"], "train_s": a["counters"]["train_s"]}


def test_other_game_refused_on_resume_and_warm_start(trained: Path, voleny_run: Path,
                                                      tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="trained for licitovany mariáš but the config "
                                              "plays voleny"):
        Trainer(tiny(True), trained, resume=True)
    with pytest.raises(CheckpointError, match="trained for voleny mariáš but the config "
                                              "plays licitovany"):
        Trainer(tiny(), voleny_run, resume=True)
    with pytest.raises(CheckpointError, match="trained for licitovany mariáš"):
        Trainer(tiny(True, init=str(trained / "checkpoint.pt")), tmp_path / "a")
    with pytest.raises(CheckpointError, match="trained for voleny mariáš"):
        Trainer(tiny(init=str(voleny_run / "checkpoint.pt")), tmp_path / "b")
    # a checkpoint whose stored env is the other game's cannot be exported or evaluated
    ck = read_checkpoint(trained / "checkpoint.pt")
    ck["config"]["env"]["rules"] = {}
    bad = tmp_path / "bad" / "checkpoint.pt"
    save_checkpoint(bad, ck)
    with pytest.raises(CheckpointError, match="licitovany mariáš but the config plays voleny"):
        tx.load_policy(bad)
    res = subprocess.run([sys.executable, "-m", "training.export", str(bad), "-o",
                          str(tmp_path / "x.onnx")], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert res.returncode == 2 and res.stderr.startswith("error: ") and "Traceback" not in (
        res.stderr)
    assert not (tmp_path / "x.onnx").exists()
    # a checkpoint claiming a game with the other game's sizes is refused on reading
    ck = read_checkpoint(voleny_run / "checkpoint.pt")
    assert ck["game"] == "voleny" and ck["obs_size"] == VOLENY.obs_size
    ck["game"] = "licitovany"
    save_checkpoint(bad, ck)
    with pytest.raises(CheckpointError, match="observation layout version|observation size"):
        read_checkpoint(bad)


@pytest.fixture(scope="module")
def exported(trained: Path, tmp_path_factory) -> Path:
    """The tiny run exported (its own parity check on licitovaný observations passed)."""
    out = tmp_path_factory.mktemp("licit_onnx") / "robot_licitovany.onnx"
    assert tx.export(trained / "checkpoint.pt", out, check=512)["parity"]["same_action"] == 1.0
    return out


def test_export_parity_and_metadata(trained: Path, exported: Path) -> None:
    import onnx

    from mariash_env.robots import OnnxRobot

    props = {p.key: p.value for p in onnx.load(str(exported)).metadata_props}
    assert props["mariash_game"] == "licitovany"
    assert props["mariash_obs_version"] == str(LICITOVANY.obs_version)
    assert (props["mariash_obs_size"], props["mariash_num_actions"]) == ("1016", "136")
    assert json.loads(props["mariash_rules"])["rules"] == "licitovany"
    assert json.loads(props["mariash_action_labels"]) == list(LICITOVANY.labels)
    net, _ = tx.load_policy(trained / "checkpoint.pt")
    robot = OnnxRobot(exported)
    assert robot.game is LICITOVANY
    obs, mask = tx.sample_observations(1500, seed=9, rules={"rules": "licitovany"})
    assert obs.shape == (1500, 1016) and mask.shape == (1500, 136)
    parity = tx.check_parity(net, exported, obs, mask)
    assert parity["same_action"] == 1.0 and parity["max_abs_diff"] < 1e-4
    a_o = robot.act_batch(obs, mask)
    assert mask[np.arange(len(a_o)), a_o].all()
    with pytest.raises(ValueError, match=r"obs \[N, 1016\] and mask \[N, 136\]"):
        robot.scores_and_actions(obs[:, :900], mask[:, :115])


def test_licit_model_refused_by_the_other_game(exported: Path) -> None:
    from mariash_env.robots import OnnxRobot, OnnxRobotError

    with pytest.raises(OnnxRobotError, match="robot of licitovany mariáš but the game here is "
                                             "voleny"):
        make_robot(f"onnx:{exported}")  # volený by default
    with pytest.raises(OnnxRobotError, match="licitovany mariáš but the game here is voleny"):
        OnnxRobot(exported, game="voleny")
    assert make_robot(f"onnx:{exported}", rules="licitovany").game is LICITOVANY


def test_licit_onnx_plays_in_the_arena_without_torch(exported: Path, tmp_path: Path) -> None:
    """The exported robot plays a licitovaný duplicate match through the arena's command
    line (onnxruntime only), and the card names the game and its unit."""
    code = f"""
import sys
sys.modules["torch"] = None  # any torch import now fails
from mariash_env.arena import main
rc = main(["--rules", "licitovany", "--robots", "onnx:{exported},table", "--deals", "2",
           "--batch", "2", "--out", {str(tmp_path / "m")!r}, "--quiet", "--no-plot"])
assert sys.modules["torch"] is None
sys.exit(rc)
"""
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert res.returncode == 0, res.stderr
    assert "desetníky/deal" in res.stdout
    card = tx.write_card(exported, tmp_path / "CARD.md", eval_deals=3)
    assert "licitovaný mariáš player" in card and "float32[B, 1016]" in card
    assert "--rules licitovany" in card and "desetníky/deal" in card


def test_guided_rows_are_marked_with_their_masks_for_the_margin_loss() -> None:
    """dmc.demo_margin: the rows keep their masks and say which deals were guided; the
    guided rows' actions are the table robot's."""
    from training.methods import get_method

    cfg = tiny(**{"selfplay.guide_share": 0.5, "selfplay.pool_share": 0.0,
                  "selfplay.random_share": 0.0, "selfplay.table_robot_share": 0.0,
                  "dmc.demo_margin": 0.1, "env.rollout_steps": 40})
    actor = SelfPlayActor(cfg, get_method("dmc"))
    assert actor.needs_masks
    actor.begin_segment(0)
    batch, _ = actor.collect({"epsilon": 1.0})
    g = batch.extras["guided"]
    assert batch.mask is not None and g.dtype == bool and 0 < g.sum() < len(batch)
    want = LicitTableRobot().act_batch(batch.obs[g], batch.mask[g])
    assert np.array_equal(batch.action[g], want)
    # unguided rows are the learner's own (epsilon = 1: random, not the robot's)
    u = ~g
    assert not np.array_equal(batch.action[u], LicitTableRobot().act_batch(batch.obs[u],
                                                                           batch.mask[u]))


def test_margin_loss_is_dqfds_and_teaches_the_demonstrated_action() -> None:
    """The large-margin loss is max_a [Q(s,a) + m(a != a_E)] - Q(s,a_E) over the legal
    actions of guided rows only; trained on it alone, the greedy action becomes a_E."""
    from training.methods import get_method
    from training.rollout import Batch

    cfg = tiny(**{"selfplay.guide_share": 0.5, "dmc.demo_margin": 0.5, "dmc.lr": 1e-2,
                  "dmc.batch_size": 8, "dmc.loss": "mse"})
    dmc = get_method("dmc")(cfg, torch.device("cpu"))
    scores = torch.tensor([[0.0, 1.0, 0.7, 5.0], [2.0, 0.0, 0.0, 0.0]])
    act = torch.tensor([2, 0])
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], np.int8)  # action 3 of row 0 is illegal
    # row 0: max(0+.5, 1+.5, .7, -inf) - .7 = 0.8; row 1 is not guided
    got = dmc._margin_loss(scores, act, np.array([True, False]), mask)
    assert float(got) == pytest.approx(0.8)
    # both guided: row 1 already leads by more than the margin, so it adds nothing
    got = dmc._margin_loss(scores, act, np.array([True, True]), mask)
    assert float(got) == pytest.approx(0.8)
    # training: 8 guided rows of one observation, demonstrated action 5, returns 0
    rng = np.random.default_rng(0)
    obs = np.repeat(rng.random((1, 1016), np.float32), 8, axis=0)
    m = np.zeros((8, 136), np.int8)
    m[:, :10] = 1
    batch = Batch(obs=obs, action=np.full(8, 5), ret=np.zeros(8, np.float32),
                  table=np.zeros(8, np.int8), mask=m, extras={"guided": np.ones(8, bool)})
    for _ in range(60):
        stats = dmc.update(batch, rng)
    assert stats["demo_loss"] == pytest.approx(0.0, abs=1e-3)
    assert dmc.net.greedy(obs[:1], m[:1])[0] == 5


def test_margin_loss_needs_guided_deals_and_known_phases() -> None:
    from training.config import ConfigError

    with pytest.raises(ConfigError, match="demo_margin = 0.1 .* needs selfplay.guide_share"):
        tiny(**{"dmc.demo_margin": 0.1})
    with pytest.raises(ConfigError, match=r"unknown phase\(s\) \['barva'\] of licitovany"):
        tiny(**{"dmc.demo_margin": 0.1, "selfplay.guide_share": 0.5,
                "dmc.demo_skip_phases": ["flek", "barva"]})  # barva is volený's


def test_skipped_phases_are_not_demonstrations() -> None:
    """dmc.demo_skip_phases: guided rows of those phases get no margin loss."""
    from training.methods import get_method

    def demo_loss(skip: list[str]) -> float:
        cfg = tiny(**{"selfplay.guide_share": 0.5, "dmc.demo_margin": 1.0, "dmc.lr": 1e-9,
                      "dmc.batch_size": len(batch), "dmc.demo_skip_phases": skip})
        torch.manual_seed(0)
        dmc = get_method("dmc")(cfg, torch.device("cpu"))
        return dmc.update(batch, np.random.default_rng(0))["demo_loss"]

    cfg = tiny(**{"selfplay.guide_share": 1.0, "selfplay.pool_share": 0.0,
                  "selfplay.random_share": 0.0, "selfplay.table_robot_share": 0.0,
                  "dmc.demo_margin": 0.1, "env.rollout_steps": 60})
    actor = SelfPlayActor(cfg, get_method("dmc"))
    actor.begin_segment(0)
    b, _ = actor.collect({"epsilon": 0.0})
    phase = LICITOVANY.phase_of(b.obs)
    names = np.array(LICITOVANY.phase_names)[phase]
    assert {"bid", "flek", "play"} <= set(names)
    batch = b  # one gradient step over all of it (batch_size = len)
    every = demo_loss([])
    assert every > 0
    assert demo_loss(list(LICITOVANY.phase_names)) == 0.0
    only_play = demo_loss([p for p in LICITOVANY.phase_names if p != "play"])
    assert 0 < only_play < every


@pytest.mark.parametrize("name", ["licitovany", "licitovany_finetune", "licitovany_guided",
                                  "licitovany_guided2", "licitovany_demo",
                                  "licitovany_demo2", "licitovany_demo3"])
def test_licitovany_configs_load(name: str) -> None:
    cfg = load_config(ROOT / "training" / "configs" / f"{name}.toml")
    assert cfg.env.rules == {"rules": "licitovany"}
    from training.methods import get_method

    net = get_method(cfg.method)(cfg, torch.device("cpu")).net
    assert (net.obs_size, net.num_actions) == (1016, 136)


def test_checkpoint_without_newer_options_resumes(trained: Path, tmp_path: Path) -> None:
    """A checkpoint written before an option existed (here selfplay.guide_share) resumes:
    the stored config is compared with today's defaults filled in."""
    ck = read_checkpoint(trained / "checkpoint.pt")
    del ck["config"]["selfplay"]["guide_share"]
    save_checkpoint(tmp_path / "old" / "checkpoint.pt", ck)
    t = Trainer(tiny(**{"run.max_iterations": 5}), tmp_path / "old", resume=True)
    assert t.counters["iteration"] == 4
    with pytest.raises(CheckpointError, match="selfplay.guide_share: checkpoint 0.0, now 0.5"):
        Trainer(tiny(**{"selfplay.guide_share": 0.5}), tmp_path / "old", resume=True)
