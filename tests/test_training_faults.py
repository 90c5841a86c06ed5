"""Training under bad input and faults (issue #9): every config value and robot spec is
checked before the first iteration, a checkpoint is written before every evaluation,
stale temporary files are removed, an unreadable checkpoint names the newest good one,
the command lines answer bad input with one ``error:`` line (exit 2), and a run killed
at random points (also inside its final evaluation) resumes to exactly the weights,
counters and evaluations of the uninterrupted run.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from test_training import TINY, tiny  # noqa: E402

from training.checkpoint import CheckpointError, read_checkpoint  # noqa: E402
from training.config import SECTIONS, Config, ConfigError, RunConfig  # noqa: E402
from training.methods import get_method  # noqa: E402
from training.trainer import EvaluationError, Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PY_ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")


# -- config values (issue items 7 and 9) -------------------------------------------------


def _options() -> list[tuple[str, dataclasses.Field]]:
    """(dotted key, field) of every option of every config table, the method's included."""
    out = [(f.name, f) for f in dataclasses.fields(Config) if f.name in ("seed", "init")]
    tables = {**SECTIONS, "dmc": get_method("dmc").config_class}
    for name, cls in tables.items():
        out += [(f"{name}.{f.name}", f) for f in dataclasses.fields(cls)]
    return out


def _bad_values(f: dataclasses.Field) -> list:
    """Values outside what ``f`` declares: beyond its bounds, not finite, of another type."""
    default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
    m = f.metadata
    if isinstance(default, bool):
        return [1, "yes"]
    if isinstance(default, (int, float)):
        bad: list = ["1", True]
        if m.get("ge") is not None:
            bad.append(m["ge"] - 1)
        if m.get("gt") is not None:
            bad.append(m["gt"])
        if m.get("le") is not None:
            bad.append(m["le"] + 1)
        if isinstance(default, int):
            bad.append(1.5)
        else:
            bad += [math.nan, math.inf, -math.inf]
        return bad
    if isinstance(default, list):
        return ["x", [None]] + ([[]] if m.get("nonempty") else []) + (
            [[1.5], ["abc"], [m["ge"] - 1]] if m.get("item") is int else [])
    if isinstance(default, str):
        return [3] + (["no-such-choice"] if m.get("choices") else [])
    return []


def test_every_numeric_option_declares_its_range() -> None:
    """No number is left unchecked: every int/float option declares a lower bound."""
    missing = [k for k, f in _options()
               if type(f.default) in (int, float) and f.metadata.get("ge") is None
               and f.metadata.get("gt") is None]
    assert not missing


@pytest.mark.parametrize("key,field", _options(), ids=[k for k, _ in _options()])
def test_every_option_refuses_what_it_does_not_accept(key: str, field) -> None:
    bad = _bad_values(field)
    if isinstance(field.default, (int, float)) and not isinstance(field.default, bool):
        assert len(bad) >= 4, key  # at least a bound, a type and a non-number
    for value in bad:
        with pytest.raises(ConfigError) as e:
            Config().replace(**{key: value})
        msg = str(e.value)
        assert key in msg and repr(value) in msg and "expected" in msg, (value, msg)


@pytest.mark.parametrize("key,value,expected", [
    ("network.hidden", [1.5], "a non-empty list of integers >= 1"),
    ("network.hidden", ["abc"], "a non-empty list of integers >= 1"),
    ("run.time_budget_s", -5, "a finite number >= 0"),
    ("run.max_iterations", -3, "an integer >= 0"),
    ("eval.every", -1, "an integer >= 0"),
    ("eval.bootstrap", 0, "an integer >= 1"),
    ("dmc.reward_scale", 0, "a finite number > 0"),
    ("dmc.grad_clip", -1, "a finite number >= 0"),
    ("run.threads", -4, "an integer >= 0"),
    ("dmc.lr", math.nan, "a finite number > 0"),
    ("dmc.lr", math.inf, "a finite number > 0"),
    ("seed", -1, "an integer in [0, 9223372036854775807]"),
    ("selfplay.pool_share", 1.5, "a finite number in [0, 1]"),
])
def test_issue_values_refused(key: str, value, expected: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"{key} = {value!r} is not accepted: "
                                                    f"expected {expected}")):
        Config().replace(**{key: value})


def test_limits_themselves_are_accepted(tmp_path: Path) -> None:
    cfg = Config().replace(**{"eval.every": 0, "dmc.grad_clip": 0, "run.threads": 0,
                              "run.time_budget_s": 0, "dmc.lr": 1, "selfplay.pool_share": 0,
                              "eval.final_opponents": [], "seed": 2**63 - 1})
    assert cfg.algo.lr == 1.0 and isinstance(cfg.algo.lr, float)
    # A Config built in Python is checked by the Trainer as well.
    with pytest.raises(ConfigError, match=r"run\.threads = -4"):
        Trainer(Config(run=RunConfig(threads=-4)), tmp_path / "py")
    assert not (tmp_path / "py").exists()


@pytest.mark.parametrize("spec,match", [
    ("onnx:/nonexistent.onnx", "no ONNX model at /nonexistent.onnx"),
    ("pimc(wrlds=3)", "wrlds"),
    ("pimc(worlds=0)", "invalid worlds=0 for robot 'pimc': expected an int 1..100000"),
    ("pimc(worlds=", "bad robot spec"),
    ("bogus", "expected 'random', 'table'"),
])
@pytest.mark.parametrize("key", ["opponents", "final_opponents"])
def test_bad_robot_specs_refused_before_training(tmp_path: Path, key: str, spec: str,
                                                  match: str) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=rf"eval\.{key}.*{re.escape(repr(spec))}.*"
                                          rf"{re.escape(match)}"):
        Trainer(tiny(**{f"eval.{key}": [spec]}), out)
    assert not (out / "checkpoint.pt").exists()


# -- nothing lost when an evaluation fails (item 1) --------------------------------------


@pytest.mark.parametrize("every", [0, 2], ids=["final", "periodic"])
def test_checkpoint_written_before_a_failing_evaluation(tmp_path: Path, monkeypatch,
                                                        every: int) -> None:
    out = tmp_path / "run"
    cfg = tiny(**{"run.max_iterations": 3, "run.checkpoint_every": 100, "eval.every": every,
                  "eval.opponents": ["random"]})

    def broken(self, opponents=None, deals=None):
        raise OSError("disk gone")

    with monkeypatch.context() as m:
        m.setattr(Trainer, "evaluate", broken)
        with pytest.raises(EvaluationError, match="no training is lost") as e:
            Trainer(cfg, out).train()
    failed_at = 3 if every == 0 else 2
    assert f"iteration {failed_at}" in str(e.value) and "disk gone" in str(e.value)
    ck = read_checkpoint(out / "checkpoint.pt")
    assert ck["counters"]["iteration"] == failed_at and ck["history"] == []
    # --resume runs the failed evaluation again and finishes the run.
    Trainer(None, out, resume=True).train()
    ck = read_checkpoint(out / "checkpoint.pt")
    assert ck["counters"]["iteration"] == 3
    evals = [h["iteration"] for h in ck["history"]]
    assert evals == ([3] if every == 0 else [2, 3])
    rows = (out / "eval.csv").read_text().strip().splitlines()[1:]
    assert [int(r.split(",")[0]) for r in rows] == evals


def test_a_run_stopped_by_a_lost_cluster_checkpoints_its_last_iteration(
        tmp_path: Path, monkeypatch) -> None:
    """#36: when the cluster can no longer start a worker (RayClusterError, raised by the
    ray backend) the run writes a checkpoint of its last whole iteration, names it in the
    error, and --resume continues from it (before, the last periodic checkpoint stayed)."""
    from mariash_env.ray_pool import RayClusterError
    from training.actors import LocalActors

    out = tmp_path / "run"
    cfg = tiny(**{"run.max_iterations": 4, "run.checkpoint_every": 100, "eval.every": 0,
                  "eval.deals": 4, "eval.opponents": ["random"]})
    real = LocalActors.finish_collect
    calls = []

    def lost_at_the_third(self):
        calls.append(1)
        if len(calls) == 3:
            raise RayClusterError("rollout worker 1 lost and no node could start it")
        return real(self)

    with monkeypatch.context() as m:
        m.setattr(LocalActors, "finish_collect", lost_at_the_third)
        with pytest.raises(RayClusterError, match="no node could start it; the checkpoint "
                                                  "of iteration 2 is ") as e:
            Trainer(cfg, out, log=lambda *_: None).train()
    assert str(out / "checkpoint.pt") in str(e.value)
    assert read_checkpoint(out / "checkpoint.pt")["counters"]["iteration"] == 2
    Trainer(None, out, resume=True, log=lambda *_: None).train()
    assert read_checkpoint(out / "checkpoint.pt")["counters"]["iteration"] == 4


# -- stale temporary files and unreadable checkpoints ------------------------------------


def test_stale_temp_files_of_killed_saves_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    stale = [out / f".checkpoint.pt.tmp-{dead.pid}",
             out / "checkpoints" / f".it00000002.pt.tmp-{dead.pid}"]
    live = out / f".checkpoint.pt.tmp-{os.getppid()}"  # a live process may still write it
    for p in [*stale, live]:
        p.write_bytes(b"half a checkpoint")
    logs: list[str] = []
    Trainer(tiny(**{"run.max_iterations": 1}), out, log=logs.append).train()
    assert not any(p.exists() for p in stale) and live.exists()
    assert sum("left by a process killed while writing it" in s for s in logs) == 2


def test_unreadable_checkpoint_names_the_newest_good_one(tmp_path: Path, forker) -> None:
    out = tmp_path / "run"
    Trainer(tiny(**{"run.checkpoint_every": 1, "run.keep_checkpoints": 3}), out).train()
    numbered = sorted((out / "checkpoints").glob("it*.pt"))
    assert [p.name for p in numbered] == [f"it0000000{i}.pt" for i in (2, 3, 4)]
    ck = out / "checkpoint.pt"
    ck.write_bytes(ck.read_bytes()[:1000])  # torn
    numbered[-1].write_bytes(b"\0" * 100)  # and the newest numbered one is bad too
    good = numbered[-2]
    with pytest.raises(CheckpointError, match=rf"truncated.*newest good checkpoint is "
                                              rf"{re.escape(str(good))} \(iteration 3\)"):
        Trainer(None, out, resume=True)
    res = _run(forker, "training.train", "--out", str(out), "--resume")
    _one_error_line(res, 2, f"cp {good} {ck}")
    shutil.copyfile(good, ck)  # what the message says
    t = Trainer(None, out, resume=True)
    assert t.counters["iteration"] == 3
    ck.unlink()
    with pytest.raises(CheckpointError, match=r"no checkpoint at .*newest good checkpoint"):
        Trainer(None, out, resume=True)


def _files(d: Path) -> dict[str, bytes]:
    return {str(f.relative_to(d)): f.read_bytes() for f in sorted(d.rglob("*")) if f.is_file()}


# (what is changed in a valid payload, what the error says): rewritten with save_checkpoint,
# so the file's SHA-256 is valid and only the payload's structure can tell
TAMPERED = [
    (lambda p: p["counters"].__setitem__("iteration", "two"),
     "counters.iteration is 'two', expected an int >= 0"),
    (lambda p: p.__setitem__("history", "zz"), "history is 'zz', expected a list"),
    (lambda p: p["history"].insert(0, {"iteration": 1}), "history[0] is dict, expected an "
                                                     "evaluation"),
    (lambda p: p.__setitem__("config", "garbage"), "config is 'garbage', expected a dict"),
    (lambda p: p["network"].__setitem__("params", 5), "network.params is 5, expected a dict"),
    (lambda p: p["pool"].__setitem__("snapshots", [[0, 1]]), "pool.snapshots[0] is 1"),
    (lambda p: p.__setitem__("policy", {"head.bias": [1.0]}), "policy is dict, expected a "
                                                              "dict of named tensors"),
]


def test_tampered_checkpoints_are_refused_naming_the_field(small_run: Path, tmp_path: Path,
                                                           capsys) -> None:
    """A checkpoint rewritten with a payload of the wrong structure is refused on reading
    (resume, load_policy, the command line: one error line, exit 2), naming the field and
    what was expected, before anything in the run directory is rewritten."""
    from training.checkpoint import load_policy, save_checkpoint
    from training.train import main as train_main

    run = tmp_path / "run"
    for patch, says in TAMPERED:
        shutil.rmtree(run, ignore_errors=True)
        shutil.copytree(small_run, run)
        payload = read_checkpoint(run / "checkpoint.pt")
        patch(payload)
        save_checkpoint(run / "checkpoint.pt", payload)
        before = _files(run)
        for load in (lambda: Trainer(None, run, resume=True),
                     lambda: load_policy(run / "checkpoint.pt")):
            with pytest.raises(CheckpointError, match=re.escape(says)):
                load()
        capsys.readouterr()
        assert train_main(["--out", str(run), "--resume"]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and says in err[0], err
        assert _files(run) == before  # config.json and the logs untouched
    # weights that do not fit the network: a CheckpointError, not torch's RuntimeError
    payload = read_checkpoint(small_run / "checkpoint.pt")
    name = next(iter(payload["policy"]))
    for change in ({name: torch.zeros(3)}, {}):
        policy = {k: v for k, v in payload["policy"].items() if k != name}
        save_checkpoint(run / "checkpoint.pt", {**payload, "policy": {**policy, **change}})
        with pytest.raises(CheckpointError, match=f"its policy weights cannot be loaded.*{name}"):
            load_policy(run / "checkpoint.pt")


# -- export: nothing unchecked is written (item 8) ---------------------------------------


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("small") / "run"
    Trainer(tiny(**{"run.max_iterations": 1, "network.hidden": [16]}), out).train()
    return out


def test_export_writes_only_a_checked_model(small_run: Path, tmp_path: Path,
                                            monkeypatch) -> None:
    from training import export as ex

    out = tmp_path / "robot.onnx"
    with pytest.raises(ValueError, match="check = -5"):
        ex.export(small_run / "checkpoint.pt", out, check=-5)
    out.write_bytes(b"an earlier robot")
    monkeypatch.setattr(ex, "check_parity", lambda *a: {"n": 8.0, "same_action": 0.5,
                                                        "max_abs_diff": 1.0})
    with pytest.raises(ex.ParityError, match="was not written"):
        ex.export(small_run / "checkpoint.pt", out, check=8)
    assert out.read_bytes() == b"an earlier robot"
    assert [p.name for p in tmp_path.iterdir()] == ["robot.onnx"]  # no temporary left


# -- the command lines (items 8 and 9) ---------------------------------------------------


# What every training process does first, done once in the forker (below): torch.optim's
# first optimizer imports torch._dynamo, and the engine's, the encoders' and the arena's
# kernels are loaded from numba's cache on their first call (~1.7 s of CPU a process).
_WARM = """
import numpy as np
from mariash_env.arena import duplicate_match
from mariash_env.robots import RandomRobot, TableRobot
from mariash_env.vector import VectorEnv, random_legal_actions

rng = np.random.default_rng(0)
v = VectorEnv(4, seed=0)
step = v.reset(seed=0)
for _ in range(20):
    step = v.step(random_legal_actions(step.mask, rng))
duplicate_match({"table": TableRobot, "random": RandomRobot}, deals=2, seed=0, jobs=1,
                progress=False)
"""


@pytest.fixture(scope="module")
def forker(tmp_path_factory):
    """The module's command lines, each run as ``python -m`` would run it, in a child forked
    from one process that imported torch and the programs and loaded the kernels once
    (tests/forking.py): a fresh ``python`` costs ~2.5 s of CPU to import them and ~1.7 s
    more for the first training iteration, most of these runs well under one.  That
    process writes nothing to stderr (its imports warn of nothing, as a fresh process's
    would not)."""
    from tests.forking import Forker

    f = Forker(["torch", "torch._dynamo", "onnx", "onnxruntime", "training.train",
                "training.export", "training.evaluate", "training.demo"], ROOT, PY_ENV,
               tmp_path_factory.mktemp("forker"), warm=_WARM)
    yield f
    assert f.close() == (0, "")


def _run(forker, module: str, *args: str) -> subprocess.CompletedProcess:
    return forker.run(["-m", module, *args])


def _one_error_line(res: subprocess.CompletedProcess, rc: int, needle: str) -> None:
    lines = res.stderr.strip().splitlines()
    assert res.returncode == rc, res.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert needle in lines[0], lines[0]


def test_command_lines_answer_bad_input_with_one_error_line(small_run: Path, tmp_path: Path,
                                                            capsys, forker) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory")
    keep = tmp_path / "precious"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    ck = str(small_run / "checkpoint.pt")
    onnx_out = tmp_path / "r.onnx"
    quick = ["--set", "run.max_iterations=1", "--set", "run.progress=false"]
    # (module, arguments, what the error line says); the first of each tool and the
    # issue's examples run as command lines (forked, see ``forker``: their exit status and
    # all they write to stderr), the others through the same main() in this process.
    real = [
        (("training.train", "--out", str(tmp_path / "t1"), "--set", "network.hidden=[1.5]"),
         "network.hidden = [1.5] is not accepted"),
        (("training.train", "--out", str(tmp_path / "t2"), "--set", 'network.hidden=["abc"]'),
         "network.hidden = ['abc'] is not accepted"),
        (("training.train", "--out", str(tmp_path / "t3"), "--set", "dmc.lr=nan"),
         "dmc.lr = nan is not accepted"),
        (("training.train", "--out", str(a_file / "run"), *quick),
         f"cannot write {a_file / 'run' / 'checkpoint.pt'}: {a_file} is not a directory"),
        (("training.train", "--out", str(tmp_path / "t5"), *quick,
          "--set", 'eval.opponents=["onnx:/nonexistent.onnx"]'),
         "eval.opponents = 'onnx:/nonexistent.onnx' cannot be built"),
        (("training.export", ck, "-o", str(onnx_out), "--check", "-5"), "--check -5"),
        (("training.export", ck, "-o", str(a_file / "r.onnx")), "is not a directory"),
        (("training.evaluate", ck, "--robot", "bogus"), "--robot 'bogus' cannot be built"),
        (("training.demo", "--out", str(keep)), "refusing to replace it"),
    ]
    in_process = [
        (("training.train", "--out", str(tmp_path / "t4"), "--set", "eval.bootstrap=0"),
         "eval.bootstrap = 0 is not accepted"),
        (("training.train", "--out", str(tmp_path / "t6"), *quick,
          "--set", 'eval.final_opponents=["pimc(wrlds=3)"]'),
         "eval.final_opponents = 'pimc(wrlds=3)' cannot be built"),
        (("training.train", "--config", str(tmp_path / "missing.toml"), "--out", "x"),
         "cannot read config"),
        (("training.train", "--out", str(tmp_path / "t7"), "--resume"), "no checkpoint at"),
        (("training.pimc_labels", "--out", str(tmp_path / "l1"), "--jobs", "100000"),
         "--jobs must be at most 256"),
        # an --out that cannot be made: one line, not a NotADirectoryError's traceback
        (("training.pimc_labels", "--out", str(a_file / "l2"), "--states", "2",
          "--no-progress"), f"cannot write {a_file / 'l2' / 'labels.json'}: {a_file} is not "
         "a directory"),
        (("training.pipeline", str(ROOT / "training" / "recipes" / "tiny.toml"), "--out",
          str(a_file / "p")), f"{a_file} is not a directory"),
        # a typo in the worker count would start a process per worker
        (("training.train", "--out", str(tmp_path / "t8"), "--set", "env.workers=100000"),
         "env.workers = 100000 rollout processes of env.actor_threads = 1 want 100000 "
         "threads"),
        (("training.export", ck, "-o", str(tmp_path)), "it is a directory"),
        (("training.export", ck, "-o", str(onnx_out), "--card", str(a_file / "c.md")),
         "is not a directory"),
        (("training.export", ck, "-o", str(onnx_out), "--card-deals", "-1"), "--card-deals -1"),
        (("training.export", str(tmp_path / "missing.pt")), "no checkpoint at"),
        (("training.evaluate", ck, "--deals", "0"), "--deals 0"),
        (("training.evaluate", ck, "--robot", "pimc(worlds=0)"),
         "invalid worlds=0 for robot 'pimc': expected an int 1..100000"),
        (("training.evaluate", str(tmp_path / "missing.onnx")), "no ONNX model"),
        (("training.demo", "--seconds", "0"), "--seconds 0.0"),
        (("training.demo", "--out", str(tmp_path / "d"), "--config", str(a_file)),
         "not valid TOML"),
    ]
    for args, needle in real:
        _one_error_line(_run(forker, *args), 2, needle)
    assert forker.stderr() == ""  # nor did their imports, done once in the forker
    for (module, *args), needle in in_process:
        main = importlib.import_module(module).main
        capsys.readouterr()
        rc = main(args)
        _one_error_line(subprocess.CompletedProcess(args, rc, "", capsys.readouterr().err), 2,
                        needle)
    assert not onnx_out.exists() and not (tmp_path / "t8").exists()
    assert (keep / "notes.txt").read_text() == "mine"
    assert not any((tmp_path / f"t{i}" / "checkpoint.pt").exists() for i in range(1, 8))


# -- the fault test: SIGKILL at random points, resume, nothing lost ----------------------


FAULT_CFG = {
    **TINY, "seed": 5,
    "selfplay": {"pool_size": 2, "pool_every": 2, "pool_share": 0.3, "random_share": 0.2},
    # an evaluation every 4 iterations and a final one against TableRobot too (each slowed
    # to be killed in, see below): few deals, their results only compared
    "eval": {"every": 4, "deals": 30, "num_envs": 30, "bootstrap": 50,
             "opponents": ["random"], "final_opponents": ["random", "table"]},
    # 10 iterations: the final evaluation is not a periodic one (its checkpoint is its own)
    "run": {**TINY["run"], "max_iterations": 10, "checkpoint_every": 100,
            "keep_checkpoints": 2},
}


# What a training process runs first (its prelude, see ``forker``): every evaluation sleeps,
# so that a kill timed after the "evaluating" line lands inside the evaluation however fast
# the machine or the batched arena is (the batched harness evaluates its 30 deals in well
# under 0.1 s).
_SLOW_EVAL = """
import time
from training import trainer
_evaluate = trainer.Trainer.evaluate
def _slow(self, *a, **k):
    time.sleep(1.5)
    return _evaluate(self, *a, **k)
trainer.Trainer.evaluate = _slow
"""


class _Proc:
    """``python -m training.train *args`` (its evaluations slowed, see above, unless not
    ``slow``) forked by ``forker``, its output (stdout and stderr: one file) read as it
    grows."""

    def __init__(self, forker, *args: str, slow: bool = True) -> None:
        fd, path = tempfile.mkstemp(".log", "train-", forker.scratch)
        os.close(fd)
        self.path, self._read = Path(path), 0  # bytes of it read
        self.pid = forker.start(["-m", "training.train", *args], self.path,
                                prelude=_SLOW_EVAL if slow else "")
        self.status: int | None = None
        self._ended = threading.Event()
        self.log: list[str] = []
        threading.Thread(target=self._wait, args=(forker,), daemon=True).start()

    def _wait(self, forker) -> None:
        self.status = forker.wait()
        self._ended.set()

    def poll(self) -> int | None:
        return self.status

    def _lines(self) -> list[str]:
        """The lines written whole since the last call."""
        new = self.path.read_bytes()[self._read:]
        new = new[:new.rfind(b"\n") + 1]
        self._read += len(new)
        return new.decode().splitlines(keepends=True)

    def wait_for(self, pattern: str, timeout: float = 120) -> bool:
        """True when a line matches; False when the process ended first."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            ended = self._ended.is_set()  # before reading: all it wrote is in the file
            lines = self._lines()
            for line in lines:
                self.log.append(line)
                if re.search(pattern, line):
                    return True
            if not lines:
                if ended:
                    return False
                time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} within {timeout} s: {''.join(self.log)}")

    def wait(self, timeout: float) -> int:
        assert self._ended.wait(timeout), f"still running after {timeout} s"
        return self.status

    def kill(self) -> int:
        """SIGKILL (unless it has ended); its exit status."""
        if not self._ended.is_set():
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended (and was reaped) just now
                pass
        return self.wait(60)


@pytest.fixture
def train(forker):
    """``train(*args, slow=True)``: a :class:`_Proc`; one still running when the test ends
    (it failed) is killed, so that the forker is free for the next."""
    started: list[_Proc] = []

    def start(*args: str, slow: bool = True) -> _Proc:
        started.append(_Proc(forker, *args, slow=slow))
        return started[-1]

    yield start
    for p in started:
        if p.poll() is None:
            p.kill()


def _iteration(ck: Path) -> int:
    return read_checkpoint(ck)["counters"]["iteration"] if ck.exists() else 0


def test_kill_at_random_points_and_resume_loses_nothing(tmp_path: Path, train) -> None:
    rng = np.random.default_rng(9)
    cfg_path = tmp_path / "fault.json"
    cfg_path.write_text(json.dumps(FAULT_CFG))
    out = tmp_path / "run"
    ck = out / "checkpoint.pt"
    last = FAULT_CFG["run"]["max_iterations"]

    # 1. Inside the periodic evaluation of iteration 4 (random delay): saved before it.
    p = train("--config", str(cfg_path), "--out", str(out))
    assert p.wait_for(r"evaluating iteration 4 against random")
    time.sleep(rng.uniform(0.0, 0.5))
    assert p.kill() == -signal.SIGKILL
    assert _iteration(ck) >= 4

    # 2. At a random iteration of the resumed run (watching its metrics rows).
    p = train("--out", str(out), "--resume")
    first = _iteration(ck) + 1
    stop_at = int(rng.integers(first, max(first + 1, last - 1)))
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        rows = (out / "metrics.csv").read_text().strip().splitlines()[1:]
        if rows and int(rows[-1].split(",")[0]) >= stop_at:
            break
        time.sleep(0.01)
    assert p.kill() == -signal.SIGKILL, p.wait_for("never")

    # 3. Inside the final evaluation (against random and TableRobot): the training is
    #    already in the checkpoint, only the evaluation is missing.
    p = train("--out", str(out), "--resume")
    assert p.wait_for(rf"evaluating iteration {last} against .*table")
    time.sleep(rng.uniform(0.05, 0.5))
    assert p.kill() == -signal.SIGKILL, "the final evaluation ended before the kill"
    assert _iteration(ck) == last
    assert not any(h["opponent"] == "table" for h in read_checkpoint(ck)["history"])

    # 4. Resume to the end: exit 0, no training after the last iteration (not killed: its
    #    evaluation is not slowed).
    p = train("--out", str(out), "--resume", slow=False)
    assert p.wait_for(rf"evaluating iteration {last} against .*table")
    assert p.wait(300) == 0, "".join(p.log)

    ref = tmp_path / "ref"
    Trainer(Config.from_dict(FAULT_CFG), ref).train()
    a, b = read_checkpoint(ref / "checkpoint.pt"), read_checkpoint(ck)
    assert b["counters"] == {**a["counters"], "train_s": b["counters"]["train_s"]}
    for k, v in a["policy"].items():
        assert torch.equal(v, b["policy"][k]), k
    for sa, sb in zip(a["method"]["optimizer"]["state"].values(),
                      b["method"]["optimizer"]["state"].values()):
        assert torch.equal(sa["exp_avg"], sb["exp_avg"])

    def evals(h: list[dict]) -> list[tuple]:
        return [(r["iteration"], r["opponent"], r["mean"], r["ci_low"], r["ci_high"])
                for r in h]

    assert evals(b["history"]) == evals(a["history"])
    assert [(i, o) for i, o, *_ in evals(a["history"])] == [
        (4, "random"), (8, "random"), (10, "random"), (10, "table")]

    def cut(path: Path, cols: slice) -> list[list[str]]:
        return [r.split(",")[cols] for r in path.read_text().splitlines()]

    # the logs equal the uninterrupted run's (the timing columns aside)
    for cols in (slice(0, 5), slice(9, 14)):  # counters; loss, Q, gradient, target, epsilon
        assert cut(out / "metrics.csv", cols) == cut(ref / "metrics.csv", cols)
    assert cut(out / "eval.csv", slice(0, 11)) == cut(ref / "eval.csv", slice(0, 11))
    assert not list(out.glob(".*.tmp-*")) and not list((out / "checkpoints").glob(".*"))


@pytest.mark.parametrize("pipeline", ["false", "true"])
def test_games_that_do_not_fit_in_memory_are_one_error_line(tmp_path: Path, pipeline: str,
                                                            capsys) -> None:
    """A num_envs whose buffers cannot be allocated (10 PiB), in the learner's process or
    in a rollout worker (pipeline): exit status 1 and one line saying it is out of memory
    and what to lower, not a traceback (nor a worker's traceback in a RuntimeError)."""
    import warnings

    from training.train import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # VectorEnv's own warning of the size
        rc = main(["--config", str(ROOT / "training/configs/demo.toml"),
                   "--out", str(tmp_path / "r"), "--set", "env.num_envs=10000000000000",
                   "--set", f"env.pipeline={pipeline}"])
    err = capsys.readouterr().err
    assert rc == 1 and "error: out of memory (" in err and "use fewer env.num_envs" in err
    assert "Traceback" not in err
