"""Training: the loop, exact resume, checkpoint refusal, ONNX export parity, OnnxRobot.

Tiny configs keep the whole file short.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from training.checkpoint import (  # noqa: E402
    CheckpointError,
    read_checkpoint,
    save_checkpoint,
)
from training.config import Config, ConfigError, load_config, parse_override  # noqa: E402
from training.evaluate import bootstrap_ci, duplicate_eval  # noqa: E402
from training.export import (  # noqa: E402
    export,
    load_policy,
    sample_observations,
    write_card,
)
from training.logs import CsvLog, plot_run  # noqa: E402
from training.methods import get_method  # noqa: E402
from training.trainer import Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "seed": 3,
    "env": {"num_envs": 48, "rollout_steps": 6},
    "network": {"hidden": [48]},
    "selfplay": {"pool_size": 2, "pool_every": 1, "pool_share": 0.3, "random_share": 0.2,
                 "table_robot_share": 0.2},
    "eval": {"every": 0, "deals": 40, "num_envs": 120, "bootstrap": 200},
    "run": {"max_iterations": 4, "checkpoint_every": 2, "keep_checkpoints": 1,
            "threads": 1, "progress": False, "tensorboard": False, "plot": False},
    "dmc": {"batch_size": 64, "lr": 3e-3},
}


def tiny(**overrides) -> Config:
    cfg = Config.from_dict(json.loads(json.dumps(TINY)), "tiny")
    return cfg.replace(**overrides) if overrides else cfg


def params_of(path: Path) -> dict[str, torch.Tensor]:
    return read_checkpoint(path)["policy"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A tiny run with logs, plot and TensorBoard on."""
    out = tmp_path_factory.mktemp("run") / "tiny"
    cfg = tiny(**{"run.tensorboard": True, "run.plot": True, "eval.every": 2,
                  "eval.opponents": ["random"]})
    Trainer(cfg, out).train()
    return out


# -- the loop ----------------------------------------------------------------------------


def test_training_runs_and_writes_checkpoint(trained: Path) -> None:
    ck = read_checkpoint(trained / "checkpoint.pt")
    assert ck["counters"]["iteration"] == 4
    assert ck["counters"]["decisions"] == 4 * 48 * 6
    assert 0 < ck["counters"]["samples"] <= ck["counters"]["decisions"]
    assert len(ck["pool"]["snapshots"]) == 2
    rows = (trained / "metrics.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 4
    evals = (trained / "eval.csv").read_text().strip().splitlines()
    assert len(evals) == 1 + 2  # iterations 2 and 4, vs random
    assert (trained / "curves.png").stat().st_size > 1000
    assert any((trained / "tb").iterdir())
    assert len(list((trained / "checkpoints").glob("it*.pt"))) == 1
    assert json.loads((trained / "config.json").read_text())["seed"] == 3


def test_existing_run_needs_resume(trained: Path) -> None:
    with pytest.raises(FileExistsError, match="--resume"):
        Trainer(tiny(), trained)


# -- exact resume --------------------------------------------------------------------------


def _same_params(a: Path, b: Path) -> None:
    pa, pb = params_of(a), params_of(b)
    assert pa.keys() == pb.keys()
    for k in pa:
        assert torch.equal(pa[k], pb[k]), k


@pytest.mark.parametrize("pipeline", [False, True], ids=["in-process", "pipelined-worker"])
def test_resume_equals_uninterrupted_run(tmp_path: Path, pipeline: bool,
                                        forkserver_workers) -> None:
    """Exact: same weights, optimizer state, counters and losses as the uninterrupted run
    (pipelined: its three runs' worker processes forked, tests/conftest.py)."""
    # The evaluation at each run's end against random alone: TINY's also against the table
    # robot was two thirds of the test, and this one compares no evaluation (the
    # evaluations of a resumed run: test_kill_at_random_points_and_resume_loses_nothing).
    p = {"env.pipeline": pipeline, "eval.opponents": ["random"]}
    full = tmp_path / "full"
    Trainer(tiny(**p), full).train()
    part = tmp_path / "part"
    Trainer(tiny(**p, **{"run.max_iterations": 2}), part).train()
    # "Kill": a fresh Trainer built from the files on disk.
    resumed = Trainer(tiny(**p), part, resume=True)
    assert resumed.counters["iteration"] == 2
    resumed.train()
    _same_params(full / "checkpoint.pt", part / "checkpoint.pt")
    a, b = read_checkpoint(full / "checkpoint.pt"), read_checkpoint(part / "checkpoint.pt")
    assert a["counters"] == {**b["counters"], "train_s": a["counters"]["train_s"]}
    for sa, sb in zip(a["method"]["optimizer"]["state"].values(),
                      b["method"]["optimizer"]["state"].values()):
        assert torch.equal(sa["exp_avg"], sb["exp_avg"])
    # The logs were cut back to the checkpoint and continued: same losses, row for row.
    la = [r.split(",")[9] for r in (full / "metrics.csv").read_text().splitlines()]
    lb = [r.split(",")[9] for r in (part / "metrics.csv").read_text().splitlines()]
    assert la == lb


def _cli(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "training.train", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def test_kill_and_resume_from_cli(tmp_path: Path) -> None:
    """SIGKILL a training process after its first checkpoint; --resume in a new process;
    stop that one with SIGTERM (graceful: checkpoint, exit 0); compare with one run."""
    cfg_path = tmp_path / "tiny.json"
    d = json.loads(json.dumps(TINY))
    d["run"].update(max_iterations=100000, checkpoint_every=2)
    cfg_path.write_text(json.dumps(d))
    out = tmp_path / "killed"
    ck = out / "checkpoint.pt"

    def wait_for_checkpoint(p: subprocess.Popen, after: int) -> None:
        deadline = time.time() + 90
        while time.time() < deadline and p.poll() is None:
            try:
                if read_checkpoint(ck)["counters"]["iteration"] > after:
                    return
            except CheckpointError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"no checkpoint after iteration {after}: {p.stdout.read()}")

    p = _cli("--config", str(cfg_path), "--out", str(out))
    wait_for_checkpoint(p, 0)
    p.send_signal(signal.SIGKILL)
    p.wait()
    killed_at = read_checkpoint(ck)["counters"]["iteration"]  # intact despite the kill
    r = _cli("--out", str(out), "--resume")
    wait_for_checkpoint(r, killed_at)
    r.send_signal(signal.SIGTERM)
    log, _ = r.communicate(timeout=60)
    assert r.returncode == 0, log
    assert "SIGTERM: stopping after this iteration" in log
    stopped_at = read_checkpoint(ck)["counters"]["iteration"]
    assert stopped_at > killed_at
    ref = tmp_path / "ref"
    Trainer(tiny(**{"run.max_iterations": stopped_at}), ref).train()
    _same_params(ref / "checkpoint.pt", ck)


# -- refusing bad checkpoints -----------------------------------------------------------


def test_truncated_checkpoint_refused(trained: Path, tmp_path: Path) -> None:
    raw = (trained / "checkpoint.pt").read_bytes()
    for n in (10, 100, len(raw) // 2, len(raw) - 1):
        p = tmp_path / f"trunc{n}.pt"
        p.write_bytes(raw[:n])
        with pytest.raises(CheckpointError, match="truncated"):
            read_checkpoint(p)


def test_random_bytes_and_flipped_byte_refused(trained: Path, tmp_path: Path) -> None:
    p = tmp_path / "noise.pt"
    p.write_bytes(np.random.default_rng(0).bytes(5000))
    with pytest.raises(CheckpointError, match="not a mariash training checkpoint"):
        read_checkpoint(p)
    raw = bytearray((trained / "checkpoint.pt").read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    p.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="SHA-256"):
        read_checkpoint(p)
    plain = tmp_path / "plain.pt"
    torch.save({"x": torch.zeros(2)}, plain)
    with pytest.raises(CheckpointError, match="plain torch.save"):
        read_checkpoint(plain)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        read_checkpoint(tmp_path / "missing.pt")


def test_wrong_layout_version_refused(trained: Path, tmp_path: Path) -> None:
    ck = read_checkpoint(trained / "checkpoint.pt")
    ck["obs_version"] = ck["obs_version"] + 1
    p = tmp_path / "run" / "checkpoint.pt"
    save_checkpoint(p, ck)
    with pytest.raises(CheckpointError, match="observation layout version"):
        read_checkpoint(p)
    with pytest.raises(CheckpointError, match="observation layout version"):
        Trainer(None, p.parent, resume=True)


def test_mismatched_config_or_network_refused(trained: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match=r"env\.num_envs: checkpoint 48, now 64"):
        Trainer(tiny(**{"env.num_envs": 64}), trained, resume=True)
    with pytest.raises(CheckpointError, match=r"network\.hidden"):
        Trainer(tiny(**{"network.hidden": [32]}), trained, resume=True)
    # A checkpoint whose stored config no longer fits its weights: the shape check.
    ck = read_checkpoint(trained / "checkpoint.pt")
    ck["config"]["network"]["hidden"] = [32]
    p = tmp_path / "bad" / "checkpoint.pt"
    save_checkpoint(p, ck)
    with pytest.raises(CheckpointError, match="network of another shape"):
        load_policy(p)
    # Budget and evaluation options may change on resume.
    t = Trainer(tiny(**{"run.max_iterations": 5, "eval.deals": 10}), trained, resume=True)
    assert t.counters["iteration"] == 4


def test_warm_start_from_another_run(trained: Path, tmp_path: Path) -> None:
    """``init``: a new run starts from the weights of another run's checkpoint, with its
    own optimizer, counters and pool; a checkpoint of another shape is refused."""
    ck = trained / "checkpoint.pt"
    t = Trainer(tiny(**{"init": str(ck), "dmc.lr": 1e-3}), tmp_path / "ft")
    for k, v in t.method.net.state_dict().items():
        assert torch.equal(v, params_of(ck)[k]), k
    assert t.counters["iteration"] == 0 and not t.pool
    t.train()
    ft = read_checkpoint(tmp_path / "ft" / "checkpoint.pt")
    assert ft["config"]["init"] == str(ck)
    assert [(x["checkpoint"], x["iteration"]) for x in ft["lineage"]] == [(str(ck), 4)]
    # the exported robot's card lists both stages
    export(tmp_path / "ft" / "checkpoint.pt", tmp_path / "ft.onnx", check=0)
    card = write_card(tmp_path / "ft.onnx", tmp_path / "cards" / "FT.md", eval_deals=0)
    # the card's snippet names the model beside the card, where both are shipped
    assert f'OnnxRobot("{(tmp_path / "cards" / "ft.onnx").as_posix()}")' in card
    assert "Warm-started" in card and str(ck) in card and "in all: 2,304 engine decisions" in card
    png = plot_run(tmp_path / "ft", tmp_path / "stages.png", lineage=ft["lineage"])
    assert png.stat().st_size > 1000  # both stages' evaluations on one axis
    with pytest.raises(CheckpointError, match="network of another shape"):
        Trainer(tiny(**{"init": str(ck), "network.hidden": [32]}), tmp_path / "ft2")
    with pytest.raises(CheckpointError, match="no checkpoint"):
        Trainer(tiny(**{"init": str(tmp_path / "missing.pt")}), tmp_path / "ft3")


def test_widen_mlp_keeps_the_function_and_breaks_the_copies() -> None:
    """Net2net widening: each unit copied k times (LayerNorm's mean and variance kept),
    its outgoing weight split in shares summing to one, so the wide network's scores are
    the narrow one's; the shares differ, so one gradient step pulls the copies apart."""
    from training.networks import MLP, mlp_of_shapes, widen_mlp

    x = torch.randn(64, 20, generator=torch.Generator().manual_seed(1))
    for ln in (True, False):
        narrow = MLP([8, 6], layer_norm=ln, obs_size=20, num_actions=5)
        for p in narrow.parameters():  # LayerNorm's are 1 and 0 at init: make them count
            torch.nn.init.normal_(p, generator=torch.Generator().manual_seed(p.numel()))
        wide = MLP([16, 18], layer_norm=ln, obs_size=20, num_actions=5)
        widen_mlp(narrow, wide, seed=3)
        assert torch.allclose(wide.scores(x), narrow.scores(x), atol=1e-4, rtol=1e-4), ln
        # copies 0 and 8 of the first unit: same incoming weights, other outgoing shares
        w0, w1 = wide.body[0].weight, wide.body[3 if ln else 2].weight
        assert torch.equal(w0[0], w0[8]) and not torch.equal(w1[:, 0], w1[:, 8])
        wide.scores(x).pow(2).mean().backward()
        with torch.no_grad():
            w0 -= 0.1 * w0.grad
        assert not torch.allclose(w0[0], w0[8])
        assert mlp_of_shapes(narrow.state_dict()).signature() == narrow.signature()
    bad = [(MLP([8, 6], obs_size=20, num_actions=5), MLP([12, 12], obs_size=20, num_actions=5),
            "whole multiple"),
           (MLP([8, 6], obs_size=20, num_actions=5), MLP([16], obs_size=20, num_actions=5),
            "same depth"),
           (MLP([8], obs_size=20, num_actions=5), MLP([16], obs_size=21, num_actions=5),
            "sizes differ"),
           (MLP([8], obs_size=20, num_actions=5),
            MLP([16], layer_norm=False, obs_size=20, num_actions=5), "LayerNorm")]
    for a, b, msg in bad:
        with pytest.raises(ValueError, match=msg):
            widen_mlp(a, b)


def test_warm_start_widened(trained: Path, exported: Path, tmp_path: Path) -> None:
    """``network.widen_init``: a run of a wider network starts from a checkpoint's or an
    exported robot's weights and plays what they played, then trains and exports."""
    ck = trained / "checkpoint.pt"
    narrow, _ = load_policy(ck)
    obs, mask = sample_observations(500, seed=4)
    o, m = torch.from_numpy(obs), torch.from_numpy(mask)
    for init in (ck, exported):
        cfg = tiny(**{"init": str(init), "network.hidden": [96], "network.widen_init": True})
        t = Trainer(cfg, tmp_path / f"wide_{init.suffix[1:]}")
        net = t.method.net
        assert net.body[0].out_features == 96
        with torch.inference_mode():
            assert torch.allclose(net.scores(o), narrow.scores(o), atol=1e-4, rtol=1e-4)
            assert torch.equal(net(o, m)[1], narrow(o, m)[1])
        assert t.lineage and t.lineage[-1]["checkpoint"] == str(init)
    t.train()
    export(tmp_path / "wide_onnx" / "checkpoint.pt", tmp_path / "wide.onnx", check=64)
    with pytest.raises(CheckpointError, match="whole multiple"):
        Trainer(tiny(**{"init": str(ck), "network.hidden": [100], "network.widen_init": True}),
                tmp_path / "bad")
    with pytest.raises(CheckpointError, match="network of another shape"):
        Trainer(tiny(**{"init": str(ck), "network.hidden": [96]}), tmp_path / "bad2")
    with pytest.raises(CheckpointError, match="no exported model"):
        Trainer(tiny(**{"init": str(tmp_path / "gone.onnx"), "network.hidden": [96],
                        "network.widen_init": True}), tmp_path / "bad3")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(CheckpointError, match="not a loadable ONNX model"):
        Trainer(tiny(**{"init": str(broken), "network.hidden": [96],
                        "network.widen_init": True}), tmp_path / "bad4")
    with pytest.raises(ConfigError, match="widen_init .* needs an init"):
        tiny(**{"network.hidden": [96], "network.widen_init": True})


def test_warm_start_with_knowledge(trained: Path, exported: Path, tmp_path: Path) -> None:
    """``network.features = ['knowledge']`` (training.features): a run starts from a network
    without the derived inputs (checkpoint or export) and plays what it played, trains,
    exports a robot that takes the plain observation, and warm-starts a run of its own
    kind; with ``widen_init`` or an unknown feature it is refused."""
    ck = trained / "checkpoint.pt"
    plain, _ = load_policy(ck)
    o = torch.from_numpy(sample_observations(500, seed=4)[0])
    know = {"network.features": ["knowledge"]}
    for init in (ck, exported):
        t = Trainer(tiny(**{"init": str(init), **know}), tmp_path / f"k_{init.suffix[1:]}")
        with torch.inference_mode():
            assert torch.allclose(t.method.net.scores(o), plain.scores(o), atol=1e-5)
    t.train()
    export(tmp_path / "k_onnx" / "checkpoint.pt", tmp_path / "k.onnx", check=64)
    again = Trainer(tiny(**{"init": str(tmp_path / "k.onnx"), **know}), tmp_path / "k2")
    trained_net, _ = load_policy(tmp_path / "k_onnx" / "checkpoint.pt")
    with torch.inference_mode():
        assert torch.allclose(again.method.net.scores(o), trained_net.scores(o), atol=1e-4)
    assert "features" not in tiny().to_dict()["network"]  # stored runs resume unchanged
    with pytest.raises(ConfigError, match="widen first"):
        tiny(**{"init": str(ck), "network.hidden": [96], "network.widen_init": True, **know})
    with pytest.raises(ConfigError, match="from \\['knowledge'\\]"):
        tiny(**{"network.features": ["voids"]})


# -- export and the ONNX robot -------------------------------------------------------------


@pytest.fixture(scope="module")
def exported(trained: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("onnx") / "robot.onnx"
    report = export(trained / "checkpoint.pt", out, check=512)
    assert report["parity"]["same_action"] == 1.0
    return out


def test_export_parity_on_real_play(trained: Path, exported: Path) -> None:
    from mariash_env.robots import OnnxRobot

    net, _ = load_policy(trained / "checkpoint.pt")
    robot = OnnxRobot(exported)

    def policy(obs, mask):
        with torch.inference_mode():
            m = np.require(mask, requirements="W")  # Step.mask is a read-only view
            return net(torch.from_numpy(obs), torch.from_numpy(m))[1].numpy()

    # Observations from the trained policy's own games and from random games.
    for pol in (policy, None):
        obs, mask = sample_observations(3000, seed=11, policy=pol)
        with torch.inference_mode():
            q_t, a_t = net(torch.from_numpy(obs), torch.from_numpy(mask))
        q_o, a_o = robot.scores_and_actions(obs, mask, claims=False)  # the graph's argmax
        assert np.array_equal(a_t.numpy(), a_o)
        legal = mask.astype(bool)
        assert np.allclose(q_t.numpy()[legal], q_o[legal], atol=1e-4)
        assert mask[np.arange(len(a_o)), a_o].all()
    assert robot.act({"observation": obs[0], "action_mask": mask[0]}) == a_o[0]


def test_onnx_robot_runs_without_torch(exported: Path, tmp_path: Path) -> None:
    from mariash_env.robots import OnnxRobot

    obs, mask = sample_observations(600, seed=5)
    np.savez(tmp_path / "batch.npz", obs=obs, mask=mask)
    expected = OnnxRobot(exported).act_batch(obs, mask)
    code = f"""
import sys
sys.modules["torch"] = None  # any torch import now fails
import numpy as np
from mariash_env.robots import OnnxRobot
d = np.load({str(tmp_path / "batch.npz")!r})
r = OnnxRobot({str(exported)!r})
a = r.act_batch(d["obs"], d["mask"])
one = r.act({{"observation": d["obs"][0], "action_mask": d["mask"][0]}})
assert one == a[0]
assert sys.modules["torch"] is None
np.save({str(tmp_path / "out.npy")!r}, a)
"""
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert res.returncode == 0, res.stderr
    assert np.array_equal(np.load(tmp_path / "out.npy"), expected)


def test_onnx_robot_refuses_other_layout(exported: Path, tmp_path: Path) -> None:
    import onnx

    from mariash_env.robots import OnnxRobot, OnnxRobotError

    model = onnx.load(str(exported))
    props = {p.key: p.value for p in model.metadata_props}
    assert props["mariash_obs_version"] and json.loads(props["mariash_action_labels"])[0]
    assert json.loads(props["mariash_rules"])["deals"] == 12
    assert json.loads(props["mariash_training"])["method"] == "dmc"
    for key, value, match in (("mariash_obs_version", "999", "layout version 999"),
                              ("mariash_obs_size", "901", "observation size 901"),
                              ("mariash_format", "other", "not a mariash robot")):
        m = onnx.load(str(exported))
        for p in m.metadata_props:
            if p.key == key:
                p.value = value
        bad = tmp_path / f"bad_{key}.onnx"
        onnx.save(m, str(bad))
        with pytest.raises(OnnxRobotError, match=match):
            OnnxRobot(bad)
    with pytest.raises(OnnxRobotError, match="no ONNX model"):
        OnnxRobot(tmp_path / "missing.onnx")


# -- evaluation, config, registry ----------------------------------------------------------


class FirstLegal:
    name = "first"

    def act_batch(self, obs, mask):
        return np.argmax(mask, axis=1)


def test_duplicate_eval_cancels_luck() -> None:
    r = duplicate_eval(FirstLegal(), FirstLegal(), deals=60, seed=1, num_envs=90,
                       bootstrap=100)
    assert r.mean == 0.0 and r.ci_low == 0.0 and r.ci_high == 0.0  # same robot everywhere
    from mariash_env.robots import RandomRobot

    r = duplicate_eval(RandomRobot(seed=1), FirstLegal(), deals=60, seed=1, num_envs=90,
                       bootstrap=100)
    assert r.ci_low <= r.mean <= r.ci_high and r.deals == 60
    lo, hi = bootstrap_ci(np.arange(100.0), 500, 0)
    assert lo < 49.5 < hi
    assert np.isnan(bootstrap_ci(np.array([3.0]))).all()  # one value: no interval


def test_configs_load_and_validate(tmp_path: Path) -> None:
    for name in ("default.toml", "demo.toml", "long.toml", "ship.toml",
                 "ship_finetune.toml", "distill.toml", "distill_bid.toml",
                 "distill_dagger.toml", "distill_dagger2.toml"):
        cfg = load_config(ROOT / "training" / "configs" / name)
        assert cfg.method == "dmc" and cfg.algo.batch_size > 0
    dagger = load_config(ROOT / "training" / "configs" / "distill_dagger.toml").algo
    assert dagger.more_label_data == ["runs/labels_b"] and dagger.label_augment
    assert dagger.label_advantage_weight > 0
    second = load_config(ROOT / "training" / "configs" / "distill_dagger2.toml")
    assert second.init == "models/robot_distilled_dagger.onnx"
    assert second.algo.more_label_data == ["runs/labels_actor", "runs/labels_betl"]
    bad = tmp_path / "bad.toml"
    bad.write_text("[env]\nnum_env = 3\n")
    with pytest.raises(ConfigError, match="num_env"):
        load_config(bad)
    bad.write_text("[dmc]\nlr = 'fast'\n")
    with pytest.raises(ConfigError, match="lr"):
        load_config(bad)
    bad.write_text("[env]\nrules = {tariff = 'nope'}\n")
    with pytest.raises(ConfigError, match="tariff"):
        load_config(bad)
    with pytest.raises(ConfigError, match="unknown training method"):
        Config.from_dict({"method": "ppo9"})
    assert get_method("dmc").name == "dmc"


def test_a_config_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    """A config saved in another encoding (Latin-1's é, UTF-16) was a bare
    UnicodeDecodeError ("'utf-8' codec can't decode byte 0xe9 in position 19"): a
    ConfigError naming the file, the line, the byte and the encoding expected."""
    for name, data, where in (
            ("latin1.toml", "[run]\n# café\nmax_iterations = 2\n".encode("latin-1"),
             "line 2, byte 6 of the line: b'\\xe9'"),
            ("utf16.json", '{"seed": 1}'.encode("utf-16"),
             "line 1, byte 1 of the line: b'\\xff'")):
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(ConfigError) as e:
            load_config(p)
        assert str(e.value) == f"{p}: not UTF-8 text ({where}): expected a file encoded in " \
                               "UTF-8", e.value
        p.write_bytes(data.decode("latin-1" if name.endswith("toml") else "utf-16")
                      .encode("utf-8"))
        load_config(p)


def test_a_bad_key_of_an_override_is_named_as_the_overrides(tmp_path: Path) -> None:
    """A ``--set`` override naming an unknown key, or a bad value, is named as the
    override's: the error named the config file alone (``demo.toml: unknown key(s)
    ['bogus']``), sending the reader to look for a key the file does not hold."""
    p = tmp_path / "run.toml"
    p.write_text("seed = 3\n[run]\nmax_iterations = 2\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, ["run.max_iterations=4", "bogus.key=1"])
    assert str(e.value).startswith(
        f"{p} with the overrides of run.max_iterations, bogus.key: unknown key(s) ['bogus']"
    ), e.value
    with pytest.raises(ConfigError) as e:
        load_config(None, ["run.bogus=1"])
    assert str(e.value).startswith("defaults with the overrides of run.bogus: [run] unknown "
                                   "key(s) ['bogus']"), e.value
    p.write_text("bogus = 1\n")  # the file's own key: the file alone
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert str(e.value).startswith(f"{p}: unknown key(s) ['bogus']"), e.value


def test_a_config_nested_too_deeply_is_a_config_error(tmp_path: Path) -> None:
    """TOML nested past the reader's depth (``seed = [[[...1...]]]``, 2,000 levels, or
    inline tables in one another) was tomllib's bare RecursionError out of load_config and
    of a ``--set`` override: the ConfigError naming the file (or the override)."""
    deep = "nested too deeply (arrays and inline tables inside one another, past the " \
           "depth the reader takes)"
    for value in ("[" * 2_000 + "1" + "]" * 2_000, "{a = " * 2_000 + "1" + "}" * 2_000):
        p = tmp_path / "deep.toml"
        p.write_text(f"seed = {value}\n")
        with pytest.raises(ConfigError) as e:
            load_config(p)
        assert str(e.value) == f"{p}: not valid TOML: {deep}", e.value
        with pytest.raises(ConfigError) as e:
            load_config(None, [f"seed={value}"])
        assert str(e.value) == f"override 'seed': {deep}", e.value
    p.write_text("seed = 3\n")
    assert load_config(p).seed == 3
    assert parse_override("x=[[1], {a = [2]}]") == ("x", [[1], {"a": [2]}])


def test_a_log_that_is_not_utf8_is_one_error(trained: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    """A run's metrics.csv read back on --resume, and an earlier stage's eval.csv read for
    the curves, not UTF-8 text (one damaged byte) were a bare UnicodeDecodeError: the
    LogError naming the file, the line and the byte, one line of training.train (status
    2) before the run changes anything."""
    from training import train
    from training.logs import LogError, read_csv

    run = tmp_path / "run"
    shutil.copytree(trained, run)
    metrics = run / "metrics.csv"
    lines = metrics.read_bytes().splitlines(keepends=True)
    metrics.write_bytes(b"".join(lines[:2] + [b"\xff" + lines[2][1:]] + lines[3:]))
    says = f"{metrics}: not UTF-8 text (line 3, byte 1 of the line: b'\\xff'): expected a " \
           "file encoded in UTF-8"
    with pytest.raises(LogError) as e:
        read_csv(metrics)
    assert str(e.value) == says
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    capsys.readouterr()
    assert train.main(["--out", str(run), "--resume"]) == 2
    assert capsys.readouterr().err == f"error: {says}\n"
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    evals = run / "eval.csv"
    evals.write_bytes(evals.read_bytes().replace(b"random", b"n\xe1hodn\xfd", 1))
    with pytest.raises(LogError, match=f"^{re.escape(str(evals))}: not UTF-8 text "):
        plot_run(trained, tmp_path / "stages.png",
                 lineage=[{"checkpoint": str(run / "checkpoint.pt"), "decisions": 1}])


def test_a_log_row_with_a_bad_value_is_one_error(trained: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    """A run's metrics.csv read back on --resume (its rows after the checkpoint dropped)
    whose rows decode as CSV but lack the iteration they are kept by (a word, nothing, a
    row cut short, no such column) was a bare ValueError, TypeError or KeyError: the
    LogError naming the file, the line, the column and what was expected, one line of
    training.train (status 2), the run unchanged."""
    from training import train
    from training.logs import LogError

    run = tmp_path / "run"
    shutil.copytree(trained, run)
    metrics = run / "metrics.csv"
    good = metrics.read_text()
    lines = good.splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    rest = lines[2][lines[2].index(","):]
    for bad, says in [
        ("".join(lines[:2] + ["two" + rest] + lines[3:]), "line 3, column 'iteration': "
         "'two': expected a whole number"),
        ("".join(lines[:3] + ["" + rest] + lines[4:]), "line 4, column 'iteration': empty: "
         "expected a whole number"),
        ("".join(lines[:2] + ["2.5" + rest] + lines[3:]), "line 3, column 'iteration': "
         "'2.5': expected a whole number"),
        ("".join(lines[:4] + ["zero\n"] + lines[5:]), "line 5, column 'iteration': 'zero': "
         "expected a whole number"),
        ("decisions,iteration\n576\n", "line 2, column 'iteration': missing (the row has 1 "
         "of the header's 2 columns): expected a whole number"),
        ("".join([lines[0].replace("iteration", "it", 1)] + lines[1:]),
         f"line 1 (the header): no column 'iteration' (its columns: it, "
         f"{', '.join(header[1:])}): expected a column 'iteration' (a whole number in each "
         "row)"),
    ]:
        metrics.write_text(bad)
        before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
        with pytest.raises(LogError) as e:
            CsvLog(metrics, header, keep_until=2)
        assert str(e.value) == f"{metrics}: {says}"
        capsys.readouterr()
        assert train.main(["--out", str(run), "--resume"]) == 2
        assert capsys.readouterr().err == f"error: {metrics}: {says}\n"
        assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    metrics.write_text(good)  # the rows after the checkpoint's iteration dropped, as before
    CsvLog(metrics, header, keep_until=2).close()
    assert metrics.read_text() == "".join(lines[:3])


def test_a_damaged_earlier_stage_log_is_refused_before_training(trained: Path,
                                                                tmp_path: Path) -> None:
    """A run warm-started from another (``init``: a recipe's next stage) draws that run's
    eval.csv before its own evaluations on its curves: damaged (not UTF-8, a word where a
    number belongs), it stopped the run at its first evaluation's plot (a LogError after
    iteration 2 of 4).  It is refused when the run is made, fresh or resumed, before any
    training, naming the file; damaged while the run trains, the picture is left as it
    was, with a warning, and the training goes on to its end."""
    from training.logs import LogError

    first = tmp_path / "first"
    shutil.copytree(trained, first)
    evals = first / "eval.csv"
    good = evals.read_bytes()
    head, row, *rest = good.splitlines(keepends=True)
    cells = row.split(b",")
    cells[3] = b"n/a"  # the mean
    damaged = [
        (b"".join([head, b",".join(cells), *rest]),
         f"{evals}: line 2, column 'mean': 'n/a': expected a number (nan for none)"),
        (good.replace(b"random", b"n\xe1hodn\xfd", 1),
         f"{evals}: not UTF-8 text (line 2, byte 8 of the line: b'\\xe1'): expected a "
         "file encoded in UTF-8"),
    ]
    cfg = tiny(**{"init": str(first / "checkpoint.pt"), "run.plot": True, "eval.every": 2,
                  "eval.opponents": ["random"], "eval.deals": 4})
    second = tmp_path / "second"
    for bad, says in damaged:
        evals.write_bytes(bad)
        with pytest.raises(LogError) as e:
            Trainer(cfg, second)
        assert str(e.value) == says
        assert not list(second.iterdir())  # no training, no log
    evals.write_bytes(good)
    logs: list[str] = []
    t = Trainer(cfg, second, log=logs.append)
    evals.write_bytes(damaged[0][0])  # while it trains
    assert t.train()["iteration"] == 4
    warned = [x for x in logs if "warning" in x]
    assert warned == [f"[train] warning: {second / 'curves.png'} not redrawn: "
                      f"{damaged[0][1]}"] * 3, logs  # iterations 2 and 4, and the end
    assert [h["iteration"] for h in read_checkpoint(second / "checkpoint.pt")["history"]] \
        == [2, 4]
    with pytest.raises(LogError, match=re.escape(damaged[0][1])):
        Trainer(cfg.replace(**{"run.max_iterations": 6}), second, resume=True)
    evals.write_bytes(good)
    Trainer(cfg.replace(**{"run.max_iterations": 6}), second, resume=True).train()
    assert (second / "curves.png").stat().st_size > 1000


def test_a_runs_own_log_damaged_is_a_log_error_and_a_warning(tmp_path: Path) -> None:
    """plot_run read the run's own metrics.csv and eval.csv without their columns: one
    missing (a column renamed, a row cut short) was a bare KeyError, which the trainer's
    redraw (a LogError: a warning, the picture left as it was) did not catch, so a log
    damaged while the run trains stopped it.  Now each is the LogError naming the file,
    as an earlier stage's eval.csv is."""
    from training.logs import LogError

    run = tmp_path / "run"
    run.mkdir()
    metrics, evals = run / "metrics.csv", run / "eval.csv"
    good_m = "iteration,decisions,loss,dec_per_s\n1,10,0.5,100\n2,20,,\n"
    good_e = "iteration,decisions,opponent,mean,ci_low,ci_high\n2,20,random,0.5,nan,nan\n"
    metrics.write_text(good_m)
    evals.write_text(good_e)
    assert plot_run(run) == run / "curves.png"  # an empty loss drawn as none, as before
    picture = (run / "curves.png").read_bytes()
    for path, bad, says in [
        (evals, good_e.replace("opponent", "opp"), "line 1 (the header): no column "
         "'opponent'"),
        (evals, good_e.replace(",nan,nan", ""), "line 2, column 'ci_low': missing"),
        (evals, good_e.replace("0.5", "half"), "line 2, column 'mean': 'half'"),
        (metrics, good_m.replace(",dec_per_s", ",rate"), "line 1 (the header): no column "
         "'dec_per_s'"),
        (metrics, good_m.replace("2,20,,", "2,20"), "line 3, column 'loss': missing"),
    ]:
        path.write_text(bad)
        with pytest.raises(LogError, match=f"^{re.escape(f'{path}: {says}')}"):
            plot_run(run)
        t = Trainer.__new__(Trainer)  # its redraw alone
        logs: list[str] = []
        t.out, t.lineage, t.log = run, [], logs.append
        t._plot()
        assert len(logs) == 1 and logs[0].startswith(
            f"[train] warning: {run / 'curves.png'} not redrawn: {path}: {says}"), logs
        assert (run / "curves.png").read_bytes() == picture
        path.write_text(good_m if path == metrics else good_e)


def test_the_time_budget_counts_the_whole_run_across_resumes(tmp_path: Path) -> None:
    """``run.time_budget_s`` is the run's training time (``counters.train_s``), a resume's
    earlier processes included: a run resumed with its budget spent trains no more."""
    out = tmp_path / "budget"
    Trainer(tiny(**{"run.max_iterations": 2, "eval.final_opponents": ["random"],
                    "eval.opponents": ["random"], "eval.deals": 2}), out).train()
    spent = read_checkpoint(out / "checkpoint.pt")["counters"]["train_s"]
    assert spent > 0
    resumed = Trainer(tiny(**{"run.max_iterations": 0, "run.time_budget_s": spent / 2,
                              "eval.final_opponents": ["random"],
                              "eval.opponents": ["random"], "eval.deals": 2}),
                      out, resume=True)
    assert resumed.train()["iteration"] == 2  # the budget was spent before the resume


def test_a_run_without_opponents_evaluates_nothing_and_says_nothing_of_it(tmp_path: Path) -> None:
    """No ``eval.opponents`` nor ``eval.final_opponents`` (a best response's ``--endgame``
    check, a searching robot's exploiter): no evaluation and no line about one (the final
    one printed "[train] evaluating iteration 1 against " with nothing after it)."""
    lines: list[str] = []
    res = Trainer(tiny(**{"run.max_iterations": 1, "eval.opponents": [],
                          "eval.final_opponents": []}), tmp_path / "r",
                  log=lines.append).train()
    assert res["eval"] == {} and not any("evaluating" in line for line in lines), lines


def test_rollout_threads_are_checked_against_the_cores_this_process_may_use(monkeypatch):
    """The process backend's check of env.workers x env.actor_threads counted the machine's
    cores (os.cpu_count()), where a container's cpuset or taskset leaves this process fewer:
    it counts those (mariash_env.pools.usable_cores), as the arena caps its jobs."""
    import training.trainer as T

    cfg = load_config(ROOT / "training" / "configs" / "demo.toml").replace(
        **{"env.workers": 4, "env.actor_threads": 4})
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(T, "usable_cores", lambda: 1)
    with pytest.raises(ConfigError, match="want 16 threads; this process may use 1 cores"):
        T.check_processes(cfg, "process")
    T.check_processes(cfg, "ray")  # the cluster's CPUs: Ray's own check
    monkeypatch.setattr(T, "usable_cores", lambda: 2)
    T.check_processes(cfg, "process")  # 16 threads on 2 cores: at most 8 a core
