"""training.pipeline: a recipe runs every stage kind end to end, resumes, refuses bad
recipes by stage and key, and prints its plan.

The tiny recipe (training/recipes/tiny.toml) takes seconds per stage; it runs once for
the module and the other tests work on copies of its run directory.  Its teacher is a
stand-in (:func:`_teacher`): PIMC's labels are checked in tests/test_distill.py, and the
solver's compile (about a minute on a cold numba cache) stays out of this file's time.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

from mariash_env import actions as A  # noqa: E402
from mariash_env.rules import Rules  # noqa: E402
from tests.pool_spy import pools_seen  # noqa: E402
from training import pipeline  # noqa: E402
from training.pipeline import PipelineError, load_recipe  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "training" / "recipes" / "tiny.toml"
STAGES = ["labels", "train", "gate_train", "dagger", "gate", "export"]


def _main(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    rc = pipeline.main([*map(str, argv), "--no-progress"])
    out, err = capsys.readouterr()
    return rc, out, err


def _state(run: Path) -> dict:
    return json.loads((run / "pipeline.json").read_text())


def _undone_copy(tiny_run: dict, run: Path, stage: str) -> dict:
    """The finished tiny run copied to ``run`` with ``stage`` marked not done (a run
    stopped in it, or a stage to redo); its pipeline.json's state, as written."""
    shutil.copytree(tiny_run["run"], run)
    st = _state(run)
    st["stages"][stage]["done"] = False
    (run / "pipeline.json").write_text(json.dumps(st))
    return st


def _teacher(st: np.ndarray, seat: int, rules: Rules, worlds: int,
             rng: np.random.Generator, deal: bool = False) -> np.ndarray:
    """Labels of PIMC's shape (groše per legal card, NaN elsewhere) without the solver."""
    from mariash_env.core.engine import legal_actions

    mask = np.zeros(A.N_ACTIONS, np.int8)
    legal_actions(st, rules.vector(), mask)
    values = np.full(A.N_ACTIONS, np.nan, np.float32)
    legal = np.flatnonzero(mask)
    values[legal] = rng.normal(size=len(legal))
    return values


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The tiny recipe run in two invocations: --until train, then the rest."""
    run = tmp_path_factory.mktemp("pipeline") / "tiny"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("training.pimc_labels.label_state", _teacher)
        mp.chdir(ROOT)  # the recipe names its configs from the repository root
        logs = []
        for extra in (["--until", "train"], [], []):
            rc = pipeline.main([str(TINY), "--out", str(run), "--no-progress", *extra])
            assert rc == 0
            logs.append(_state(run))
    return {"run": run, "states": logs}


def test_tiny_recipe_runs_every_stage_kind(tiny_run: dict) -> None:
    run = tiny_run["run"]
    first, full, _ = tiny_run["states"]
    assert [n for n, s in first["stages"].items() if s["done"]] == ["labels", "train"]
    assert [n for n, s in full["stages"].items() if s["done"]] == STAGES
    assert full["stages"]["labels"]["result"]["states"] == 6
    assert full["stages"]["dagger"]["result"]["labels"]["states"] == 4
    # both training stages take learning steps (deals end within their rollouts)
    assert full["stages"]["train"]["result"]["updates"] > 0
    assert full["stages"]["dagger"]["result"]["train"]["updates"] > 0
    # the dagger round's labels are the student's own states (it was their behaviour)
    labels = json.loads((run / "dagger" / "labels" / "labels.json").read_text())
    assert labels["behaviour"] == str(run / "dagger" / "student.onnx")
    assert labels["robot_share"] == 1.0
    cfg = json.loads((run / "dagger" / "train" / "config.json").read_text())
    assert cfg["dmc"]["label_data"] == str(run / "dagger" / "labels")
    assert cfg["init"] == str(run / "train" / "checkpoint.pt")
    gates = pipeline.read_gates(run)
    assert [(g["gate"], g["model_stage"], g["robot"]) for g in gates] == [
        ("gate_train", "train", "random"), ("gate", "dagger", "random")]
    assert (run / "curve.png").stat().st_size > 0
    card = (run / "ROBOT_TINY.md").read_text()
    assert "## Reproduce" in card and "\nFrom scratch, every stage resumable" in card
    assert f"python -m training.pipeline {TINY} --out {run}" in card
    from mariash_env.robots import OnnxRobot

    assert OnnxRobot(str(run / "robot_tiny.onnx")).game.name == "voleny"


def test_a_finished_stage_is_skipped_and_pipeline_json_kept(tiny_run: dict) -> None:
    _, full, again = tiny_run["states"]
    assert again == full  # the third invocation ran nothing: every entry as it was


def test_rerun_skips_finished_stages(tiny_run: dict, tmp_path: Path,
                                     capsys: pytest.CaptureFixture,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    shutil.copytree(tiny_run["run"], run)
    rc, out, _ = _main(capsys, TINY, "--out", run, "--until", "gate_train")
    assert rc == 0
    assert re.findall(r"\[\d/6\] (\w+) \(\w+\): done .*, skipped", out) == [
        "labels", "train", "gate_train"]
    assert "=====" not in out  # no stage ran
    (run / "curve.png").unlink()
    rc, out, _ = _main(capsys, TINY, "--out", run, "--plot")
    assert rc == 0 and (run / "curve.png").stat().st_size > 0
    # a stage an earlier version of the recipe had stays in pipeline.json, uncounted
    st = _state(run)
    st["stages"]["dropped"] = {**st["stages"]["labels"], "seconds": 1e6}
    (run / "pipeline.json").write_text(json.dumps(st))
    rc, out, _ = _main(capsys, TINY, "--out", run)
    # summed as the pipeline sums them (math.fsum): a plain sum of the 0.1 s roundings can
    # fall just under an exact .5 and print one second less (it did, once in CI-like runs)
    total = math.fsum(float(s.get("seconds", 0)) for n, s in st["stages"].items()
                      if n != "dropped")
    assert rc == 0 and f"6/6 stages done ({total:.0f} s)" in out


def test_interrupted_stages_resume(tmp_path: Path,
                                   capsys: pytest.CaptureFixture,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A train stage resumes from its checkpoint (here one already at its last iteration:
    it only finishes); a label stage killed mid-way keeps its shards, and the train stage
    made from its labels before is then made again, not resumed."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("training.pimc_labels.label_state", _teacher)
    run = tmp_path / "tiny"  # a run of its own: it changes its label set
    assert _main(capsys, TINY, "--out", run, "--until", "train")[0] == 0
    st = _state(run)
    st["stages"]["train"]["done"] = False
    (run / "pipeline.json").write_text(json.dumps(st))
    (run / "train" / "model.onnx").unlink()
    rc, out, err = _main(capsys, TINY, "--out", run, "--until", "train")
    assert rc == 0, err
    assert "resumed at iteration 2" in out
    assert (run / "train" / "model.onnx").exists()
    after = _state(run)
    assert [n for n, s in after["stages"].items() if s["done"]] == ["labels", "train"]
    assert after["stages"]["train"]["result"]["iteration"] == 2
    after["stages"]["labels"]["done"] = False
    (run / "pipeline.json").write_text(json.dumps(after))
    (run / "labels" / "shard_00001.npz").unlink()
    rc, out, err = _main(capsys, TINY, "--out", run, "--until", "train")
    assert rc == 0, err
    assert "1 shards made, 1 kept" in out
    assert "train (train): redone, its outputs are stale: stage 'labels' finished anew" in out
    assert "resumed at iteration" not in out
    again = _state(run)
    assert [n for n, s in again["stages"].items() if s["done"]] == ["labels", "train"]
    assert again["stages"]["train"]["inputs"]["stages"] == {
        "labels": again["stages"]["labels"]["fingerprint"]}


def test_a_moved_run_resumes_its_stages(tiny_run: dict, tmp_path: Path,
                                       capsys: pytest.CaptureFixture,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A run copied to another folder (another machine) resumes there: a train stage's
    checkpoint names its label set and warm start by the old path, a DAgger label set its
    student; both are read at the new place (training/relocate.py)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("training.pimc_labels.label_state", _teacher)
    run = tmp_path / "elsewhere" / "tiny"
    _undone_copy(tiny_run, run, "dagger")  # killed while training on its second shard
    (run / "dagger" / "labels" / "shard_00001.npz").unlink()
    (run / "dagger" / "train" / "model.onnx").unlink()
    rc, out, err = _main(capsys, TINY, "--out", run, "--until", "dagger")
    assert rc == 0, err
    assert "dagger (dagger) resumed" in out and "1 shards made, 1 kept" in out
    assert "resumed at iteration 2" in out
    assert (run / "dagger" / "train" / "model.onnx").exists()
    st = _state(run)
    st["stages"]["train"]["done"] = False  # the first train stage, killed at its end
    (run / "pipeline.json").write_text(json.dumps(st))
    rc, out, err = _main(capsys, TINY, "--out", run, "--until", "train")
    assert rc == 0, err
    assert "resumed at iteration 2" in out
    # the run by hand, from its stored config alone: its labels are read here too
    from training import train

    assert train.main(["--out", str(run / "train"), "--resume", "--show-config"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["dmc"]["label_data"] == str((run / "labels").resolve())
    assert train.main(["--out", str(run / "train"), "--resume",
                       "--set", "run.max_iterations=3", "--set", "run.progress=false"]) == 0
    assert "resumed at iteration 2" in capsys.readouterr().out


def test_relocate_reads_only_the_moved_tree_at_its_new_place(tmp_path: Path) -> None:
    from training.relocate import moved_roots, relocate, same_after_move

    assert moved_roots("/a/runs/x/train", "/a/runs/x/train") is None
    assert moved_roots(None, tmp_path) is None  # a run written before it was recorded
    # moved into a folder below its old place: the tree moved is /x, never "/"
    assert moved_roots("/x/train", "/y/x/train") == (Path("/x"), Path("/y/x"))
    roots = moved_roots("/a/runs/x/train", tmp_path / "x" / "train")
    assert roots == (Path("/a/runs"), tmp_path)
    saved = {"label_data": "/a/runs/x/labels", "behaviour": "onnx:/a/runs/x/s.onnx",
             "more": ["/a/runs/x/d"], "other": "/data/labels", "game": "voleny"}
    assert relocate(saved, roots) == {
        "label_data": f"{tmp_path}/x/labels", "behaviour": f"onnx:{tmp_path}/x/s.onnx",
        "more": [f"{tmp_path}/x/d"], "other": "/data/labels", "game": "voleny"}
    # with existing=True only where the new path is there
    (tmp_path / "x" / "labels").mkdir(parents=True)
    assert relocate(saved, roots, existing=True)["more"] == ["/a/runs/x/d"]
    assert relocate(saved, roots, existing=True)["label_data"] == f"{tmp_path}/x/labels"
    # a path that differs otherwise is still another setting
    assert same_after_move("/a/runs/x/labels", f"{tmp_path}/x/labels", roots)
    assert not same_after_move("/a/runs/x/labels", f"{tmp_path}/x/labels2", roots)
    assert not same_after_move("/a/runs/x/labels", f"{tmp_path}/x/labels", None)


def test_gate_below_its_threshold_stops_with_one_line(tiny_run: dict, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    shutil.copytree(tiny_run["run"], run)
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(TINY.read_text().replace("min_gain = -1000.0", "min_gain = 1000.0"))
    rc, _, err = _main(capsys, recipe, "--out", run)
    assert rc == 2 and "finished with other arguments" in err  # the recipe changed
    st = _state(run)
    del st["stages"]["gate"]
    (run / "pipeline.json").write_text(json.dumps(st))
    rc, _, err = _main(capsys, recipe, "--out", run, "--only", "gate")
    assert rc == 1
    assert len(err.strip().splitlines()) == 1
    assert "gate 'gate': dagger against random: mean" in err
    assert "< min_gain = +1000" in err
    assert not _state(run)["stages"]["gate"]["done"]


def test_a_finished_labels_stage_whose_jobs_or_backend_changed_is_kept(
        tiny_run: dict, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``jobs``, ``backend`` and ``address`` say how a labels (or dagger) stage spreads its
    shards, not what they are (each is a function of the settings and its index: the next
    test), and a train stage's backend where its workers run: a finished stage whose recipe
    changed only those stays finished, saying so; a change of what the labels are, with or
    without them, is refused as before."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    shutil.copytree(tiny_run["run"], run)
    before = _state(run)
    text = TINY.read_text()
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(text.replace("robot_share = 0.0", 'robot_share = 0.0\njobs = 2\n'
                                   'backend = "ray"\nray_timeout = 120', 1)
                      .replace("robot_share = 1.0", "robot_share = 1.0\njobs = 3", 1)
                      .replace('demo.toml"', 'demo.toml"\nbackend = "ray"', 1))
    rc, out, err = _main(capsys, recipe, "--out", run)
    assert rc == 0, err
    assert "=====" not in out  # nothing ran again
    assert ('[1/6] labels (labels): done ' in out and ', skipped; jobs 1 then, 2 now, backend '
            '"process" then, "ray" now, ray_timeout 60 s then, 120 s now: how its labels were '
            'made, not what they are' in out), out
    # a train stage's backend likewise: a synchronous run's checkpoint is the same on Ray
    assert ('[2/6] train (train): done ' in out and ', skipped; backend "process" then, "ray" '
            'now: how it ran, not what it made' in out)
    assert ("[4/6] dagger (dagger): done " in out
            and ", skipped; jobs 1 then, 3 now: how it ran, not what it made" in out)
    assert _state(run) == before  # the entries as they were: the later stages not stale
    # a how key written out with its default value, or left out again: no change to name
    recipe.write_text(text.replace("robot_share = 0.0", "robot_share = 0.0\njobs = 1", 1))
    rc, out, err = _main(capsys, recipe, "--out", run)
    assert rc == 0, err
    assert "jobs 1 then, 1 now" not in out, out
    assert ", skipped; jobs 1 as before (written out or left out)" in out, out
    assert _state(run) == before
    for change in ("worlds = 2", "worlds = 2\njobs = 2"):
        recipe.write_text(text.replace("worlds = 1", change, 1))
        rc, _, err = _main(capsys, recipe, "--out", run)
        assert rc == 2 and "error: stage 'labels' finished with other arguments" in err, err
        assert _state(run) == before


def test_a_gate_plays_in_jobs_processes_with_the_same_result(
        tiny_run: dict, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A gate stage takes ``jobs``, ``backend`` and ``address`` as a labels stage does
    (it played in one process): its deals play in that many worker processes (here a deal
    a batch, 4 batches for 2 processes) and its rows are one process's; a finished gate
    whose recipe changed only those is kept, saying so; the plan's command says them."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    shutil.copytree(tiny_run["run"], run)
    before = _state(run)
    text = TINY.read_text()
    recipe = tmp_path / "tiny.toml"

    def with_jobs(jobs: int) -> None:
        recipe.write_text(text.replace("min_gain = -1000.0", f"min_gain = -1000.0\njobs = {jobs}"))

    with_jobs(2)
    rc, out, err = _main(capsys, recipe, "--out", run)
    assert rc == 0, err
    assert "=====" not in out  # nothing ran again
    assert ("[5/6] gate (gate): done " in out
            and ", skipped; jobs 1 then, 2 now: how it ran, not what it made" in out), out
    assert _state(run) == before
    rc, out, _ = _main(capsys, recipe, "--out", run, "--dry-run")
    assert rc == 0 and "--robot random --deals 4 --seed 3 --jobs 2\n" in out, out
    rows = {}
    with pools_seen(monkeypatch) as seen:
        monkeypatch.setattr(pipeline, "GATE_GAMES", 6)  # a deal a batch: 4 of them
        for jobs in (1, 2):
            with_jobs(jobs)
            st = _state(run)
            del st["stages"]["gate"]
            (run / "pipeline.json").write_text(json.dumps(st))
            rc, out, err = _main(capsys, recipe, "--out", run, "--only", "gate")
            assert rc == 0, err
            rows[jobs] = [r for r in pipeline.read_gates(run) if r["gate"] == "gate"]
        assert seen == [(2, 1, 4)]
    assert len(rows[1]) == 1 and rows[1] == rows[2]


def test_the_evaluate_command_takes_jobs_and_backend(tiny_run: dict,
                                                     capsys: pytest.CaptureFixture) -> None:
    """What a gate's plan prints, ``python -m training.evaluate ... --jobs N --backend B``,
    runs: the same table with 1 and 2 processes; an unknown backend is refused."""
    from training import evaluate

    model = str(tiny_run["run"] / "dagger" / "train" / "model.onnx")
    argv = [model, "--robot", "random", "--deals", "2", "--num-envs", "6"]
    tables = []
    for jobs in ("1", "2"):
        assert evaluate.main([*argv, "--jobs", jobs]) == 0
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1] and "random" in tables[0]
    assert evaluate.main([*argv, "--backend", "dask"]) == 2
    assert "invalid backend='dask': expected one of process, ray" in capsys.readouterr().err
    assert evaluate.main([*argv, "--jobs", "0"]) == 2
    assert "--jobs 0: expected an integer >= 1" in capsys.readouterr().err


def test_a_robot_that_plays_from_a_view_spreads_its_deals_over_the_jobs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Against a robot that plays from a view (PIMC: every game alone, each robot
    reseeded by its deal and seating) the batch changes nothing, so duplicate_eval hands
    the jobs a deal a task (a gate of 400 deals against PIMC was one task, one worker
    busy): the score of one process, and of one batch of every deal."""
    from mariash_env.arena import duplicate_match
    from mariash_env.robots import RandomRobot, make_robot
    from training.evaluate import duplicate_eval

    class ViewRandom(RandomRobot):
        name = "view_random"
        wants_view = True

    agent = make_robot("table")
    with pools_seen(monkeypatch) as seen:
        one = duplicate_eval(agent, ViewRandom(), deals=6, seed=2, bootstrap=50)
        two = duplicate_eval(agent, ViewRandom(), deals=6, seed=2, bootstrap=50, jobs=2)
        assert seen == [(2, 1, 6)]
    whole = duplicate_match({"agent": lambda: agent, "robot": ViewRandom}, deals=6, seed=2,
                            progress=False, n_boot=50, batch=6)
    for r in (one, two):
        assert (r.mean, r.ci_low, r.ci_high) == (one.mean, one.ci_low, one.ci_high)
        assert r.mean == pytest.approx(float(whole.means()[0]), abs=0)
        assert r.by_role == whole.by_role(0)


def test_labels_do_not_depend_on_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the previous test relies on: one label set made by one process and by
    worker processes holds the same shards (the Ray backend's: tests/test_ray_backend.py).
    ``jobs`` are capped at the cores this process may use, as the arena's
    (mariash_env.pools.process_jobs): ``jobs = 8`` on 2 usable cores is a pool of 2
    processes, not 8; on one core no pool, this process makes them."""
    from mariash_env import pools
    from training.pimc_labels import _settings, generate

    settings = _settings({"shard_size": 3, "worlds": 1, "seed": 4, "robot_share": 0.0,
                          "behaviour": "table", "epsilon": 0.1, "rules": {}})
    with pools_seen(monkeypatch) as seen:  # 2 usable cores
        for name, jobs, cores in (("one", 1, 2), ("eight", 8, 2), ("alone", 8, 1)):
            monkeypatch.setattr(pools, "usable_cores", lambda cores=cores: cores)
            r = generate(tmp_path / name, settings, 3, jobs=jobs, progress=False)
            assert (r["made"], r["states"]) == (3, 9)
            # the rate from the first shard's start (the workers' start-up apart)
            assert r["label_s"] + r["startup_s"] == pytest.approx(r["seconds"])
            assert r["labels_per_s"] == round(9 / r["label_s"], 1)
    assert seen == [(2, 1, 3)]  # eight: 2 processes; one and alone: this process
    for i in range(3):
        for other in ("eight", "alone"):
            with np.load(tmp_path / "one" / f"shard_{i:05d}.npz") as x, \
                    np.load(tmp_path / other / f"shard_{i:05d}.npz") as y:
                assert x.files == y.files
                for k in x.files:  # a value is NaN for an illegal action
                    assert np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f"), k


@pytest.mark.parametrize("jobs", [0, 2.7, True, "2"])
def test_label_generation_refuses_a_bad_jobs(tmp_path: Path, jobs: Any) -> None:
    """generate's ``jobs`` is checked as the command line's --jobs, not rounded (2.7 ran
    2 workers, True one) on its way to the pool."""
    from training.pimc_labels import LabelError, _settings, generate

    settings = _settings({"shard_size": 3, "worlds": 1, "seed": 4, "robot_share": 0.0,
                          "behaviour": "table", "epsilon": 0.1, "rules": {}})
    with pytest.raises(LabelError, match=re.escape(f"invalid jobs={jobs!r}: expected an int")):
        generate(tmp_path / "l", settings, 1, jobs=jobs, progress=False)
    assert not (tmp_path / "l").exists()


def test_dry_run_prints_the_plan(capsys: pytest.CaptureFixture,
                                 monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    run = tmp_path / "r"
    rc, out, _ = _main(capsys, TINY, "--out", run, "--dry-run")
    assert rc == 0 and not run.exists()
    assert f"reproduce: python -m training.pipeline {TINY} --out {run}" in out
    assert f'student = "@train.checkpoint"  -> "{run}/train/checkpoint.pt"' in out
    assert (f"$ python -m training.pimc_labels --out {run}/dagger/labels --states 4 "
            "--shard-size 2 --worlds 1") in out
    assert f"--behaviour {run}/dagger/student.onnx --robot-share 1.0" in out
    assert f"--set dmc.label_data={run}/labels" in out
    assert f"$ python -m training.export {run}/dagger/train/checkpoint.pt -o " \
           f"{run}/robot_tiny.onnx" in out
    assert "[5/6] gate (gate, to run)" in out
    rc, out, err = _main(capsys, TINY, "--out", run, "--dry-run", "--until", "bogus")
    assert rc == 2 and not out and err.startswith("error: --until 'bogus': no such stage")


@pytest.mark.parametrize("recipe", sorted(p.stem for p in (ROOT / "training" / "recipes")
                                           .glob("*.toml") if p.stem != "tiny"))
def test_shipped_recipes_are_valid(recipe: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    r = load_recipe(ROOT / "training" / "recipes" / f"{recipe}.toml")
    assert r.stages[-1].kind == "export" and r.stages[-2].kind == "gate"
    assert r.stages[-2].resolved["min_ci_low"] == 0.0


def _bad(tmp_path: Path, text: str) -> str:
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(PipelineError) as e:
        load_recipe(p, tmp_path / "run")
    return str(e.value)


HEAD = '[recipe]\nname = "bad"\ngame = "voleny"\n'
TRAIN = '[[stage]]\nname = "t"\nkind = "train"\nconfig = "training/configs/demo.toml"\n'
GATE = TRAIN + '[[stage]]\nname = "g"\nkind = "gate"\nmodel = "@t.model"\nrobots = ["random"]\n'


@pytest.mark.parametrize("body, words", [
    ('[[stage]]\nname = "x"\nkind = "selfplay"\n', ["stage 'x'", "kind = 'selfplay'",
                                                   "'labels'", "'export'"]),
    (TRAIN + 'epochs = 3\n', ["stage 't'", "unknown key 'epochs'", "'config'"]),
    (TRAIN.replace('"t"', '"a"') + 'init = "@b.checkpoint"\n' + TRAIN.replace('"t"', '"b"'),
     ["stage 'a' key 'init'", "'@b.checkpoint'", "'b' is not an earlier stage"]),
    (TRAIN + '[[stage]]\nname = "g"\nkind = "gate"\nmodel = "@t.labels"\nrobots = ["table"]\n',
     ["stage 'g' key 'model'", "outputs ['dir', 'checkpoint', 'model'], not 'labels'"]),
    (TRAIN + '[[stage]]\nname = "g"\nkind = "gate"\nmodel = "@t.model"\nrobots = ["hal"]\n',
     ["stage 'g' key 'robots'", "unknown robot 'hal'"]),
    (TRAIN + '[stage.set]\n"dmc.lr" = "fast"\n', ["stage 't'", "dmc.lr"]),
    (TRAIN.replace("demo.toml", "lizany.toml"), ["stage 't' key 'config'", "trains lizany",
                                                "recipe's game is voleny"]),
    (TRAIN + '[[stage]]\nname = "e"\nkind = "export"\nmodel = "@t.model"\n',
     ["stage 'e' key 'model'", "needs a training checkpoint"]),
    # a model of another game, found by the check (--dry-run), not when the stage runs
    (TRAIN + '[[stage]]\nname = "g"\nkind = "gate"\nmodel = "models/robot_licitovany.onnx"'
     '\nrobots = ["random"]\n', ["stage 'g' key 'model'", "models/robot_licitovany.onnx is "
                                "a model of licitovany, the recipe's game is voleny"]),
    (TRAIN + 'init = "models/robot_licitovany.onnx"\n',
     ["stage 't' key 'init'", "a model of licitovany, the recipe's game is voleny"]),
    # where a train stage's rollout workers run: as a labels stage's backend
    (TRAIN + 'backend = "dask"\n', ["stage 't' key 'backend'", "expected one of 'process', "
                                    "'ray', got 'dask'"]),
    (TRAIN + 'address = "auto"\n', ["stage 't' key 'address'", "needs backend = 'ray'"]),
    (TRAIN + '[stage.set]\n"env.max_lag" = 2\n"env.pipeline" = false\n',
     ["stage 't' key 'backend'", "env.max_lag = 2 (asynchronous sampling) needs backend = "
      "'ray'"]),
    (TRAIN + 'jobs = 2\n', ["stage 't'", "unknown key 'jobs' for a train stage", "'backend'",
                            "'set'"]),
    # a gate's deals: in jobs processes or Ray actors, checked as a labels stage's
    (GATE + 'backend = "dask"\n', ["stage 'g' key 'backend'", "expected one of 'process', "
                                   "'ray', got 'dask'"]),
    (GATE + 'address = "auto"\n', ["stage 'g' key 'address'", "needs backend = 'ray'"]),
    (GATE + 'jobs = 0\n', ["stage 'g' key 'jobs'", "expected >= 1, got 0"]),
    # one deal gives no interval: a gate on its lower end could never be decided
    (GATE + 'deals = 1\nmin_ci_low = 0.0\n', ["stage 'g' key 'deals'",
                                              "min_ci_low needs >= 2 deals", "got 1"]),
    # a threshold that is not finite: the run's state (JSON) has no inf or nan, so a
    # finished gate of one was "finished with other arguments" on every resume
    (GATE + 'min_gain = -inf\n', ["stage 'g' key 'min_gain'",
                                   "expected a finite number, got -inf"]),
    (GATE + 'min_ci_low = nan\n', ["stage 'g' key 'min_ci_low'",
                                    "expected a finite number, got nan"]),
    # the commands' --ray-timeout, checked as the other Ray keys
    (TRAIN + 'ray_timeout = 30\n', ["stage 't' key 'ray_timeout'",
                                     "a Ray timeout needs backend = 'ray'"]),
    (GATE + 'backend = "ray"\nray_timeout = 0\n',
     ["stage 'g' key 'ray_timeout'", "expected seconds > 0 (finite), got 0"]),
    (TRAIN + 'backend = "ray"\nray_timeout = inf\n',
     ["stage 't' key 'ray_timeout'", "expected seconds > 0 (finite), got inf"]),
    (TRAIN + 'backend = "ray"\nray_timeout = "1m"\n',
     ["stage 't': ray_timeout: expected float, got str '1m'"]),
    ('[[stage]]\nname = "l"\nkind = "labels"\nstates = 4\nrobot_share = 0.0\n'
     'backend = "ray"\nray_timeout = -1.5\n',
     ["stage 'l' key 'ray_timeout'", "expected seconds > 0 (finite), got -1.5"]),
    (TRAIN + '[[stage]]\nname = "e"\nkind = "export"\nmodel = "@t.checkpoint"\n'
     'ray_timeout = 30\n', ["stage 'e'", "unknown key 'ray_timeout' for an export stage"]),
    # the article follows the kind: an export stage (each message said "a export stage")
    (TRAIN + '[[stage]]\nname = "e"\nkind = "export"\n', ["stage 'e'",
                                                         "an export stage needs 'model'"]),
    (TRAIN + '[[stage]]\nname = "e"\nkind = "export"\nmodel = "@t.checkpoint"\n'
     '[[stage]]\nname = "g"\nkind = "gate"\nmodel = "@e.dir"\nrobots = ["random"]\n',
     ["stage 'g' key 'model'", "an export stage has the outputs ['model', 'card'], not "
      "'dir'"]),
    (GATE + 'jobs = 1000\n', ["stage 'g' key 'jobs'", "expected at most 256 (processes or "
                              "Ray actors), got 1000"]),
    ('[[stage]]\nname = "l"\nkind = "labels"\nstates = 4\nrobot_share = 0.0\njobs = 0\n',
     ["stage 'l' key 'jobs'", "expected >= 1, got 0"]),
    ('[[stage]]\nname = "l"\nkind = "labels"\nstates = 4\nrobot_share = 0.0\njobs = 1000\n',
     ["stage 'l' key 'jobs'", "expected at most 256"]),
])
def test_bad_recipes_are_refused_by_stage_and_key(tmp_path: Path, body: str, words: list,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    msg = _bad(tmp_path, HEAD + body)
    for w in words:
        assert w in msg, msg


def test_a_recipe_or_config_that_is_not_utf8_is_one_error(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A recipe, or the config a stage names, saved in another encoding (Latin-1's é) was a
    bare UnicodeDecodeError: a PipelineError naming the file (and the stage), the line, the
    byte and the encoding expected."""
    monkeypatch.chdir(ROOT)
    p = tmp_path / "bad.toml"
    p.write_bytes((HEAD + TRAIN + "# café\n").encode("latin-1"))
    with pytest.raises(PipelineError) as e:
        load_recipe(p, tmp_path / "run")
    assert str(e.value) == f"{p}: not UTF-8 text (line 8, byte 6 of the line: b'\\xe9'): " \
                           "expected a file encoded in UTF-8"
    cfg = tmp_path / "cfg.toml"
    cfg.write_bytes((ROOT / "training" / "configs" / "demo.toml").read_bytes()
                    + "# café\n".encode("latin-1"))
    lines = cfg.read_bytes().count(b"\n")
    p.write_text(HEAD + TRAIN.replace("training/configs/demo.toml", str(cfg)))
    with pytest.raises(PipelineError) as e:
        load_recipe(p, tmp_path / "run")
    assert str(e.value) == f"{p}: stage 't' key 'config': {cfg}: not UTF-8 text (line " \
                           f"{lines}, byte 6 of the line: b'\\xe9'): expected a file " \
                           "encoded in UTF-8"


def test_a_recipe_or_config_nested_too_deeply_is_one_error(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """A recipe, or the config a stage names, nested past the TOML reader's depth
    (``seed = [[[...1...]]]``, 2,000 levels) was tomllib's bare RecursionError: the
    PipelineError naming the file (and the stage); the config's hash is None (the recipe
    check says why), as for any config that is not TOML."""
    monkeypatch.chdir(ROOT)
    deep = "nested too deeply (arrays and inline tables inside one another, past the " \
           "depth the reader takes)"
    value = "[" * 2_000 + "1" + "]" * 2_000
    p = tmp_path / "deep.toml"
    p.write_text(HEAD.replace('game = "voleny"', f'game = "voleny"\nseed = {value}') + TRAIN)
    with pytest.raises(PipelineError) as e:
        load_recipe(p, tmp_path / "run")
    assert str(e.value) == f"{p}: not valid TOML: {deep}"
    cfg = tmp_path / "cfg.toml"
    cfg.write_text((ROOT / "training" / "configs" / "demo.toml").read_text(encoding="utf-8")
                   .replace("seed =", f"seed = {value}\nold_seed =", 1))
    p.write_text(HEAD + TRAIN.replace("training/configs/demo.toml", str(cfg)))
    with pytest.raises(PipelineError) as e:
        load_recipe(p, tmp_path / "run")
    assert str(e.value) == f"{p}: stage 't' key 'config': {cfg} is not valid TOML: {deep}"
    assert pipeline._config_hash(str(cfg)) is None


def test_a_gates_or_eval_csv_that_is_not_utf8_is_one_error(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """RUN/gates.csv and a training stage's eval.csv, read back for the curve and for a
    gate's rows, not UTF-8 text (saved by a spreadsheet in cp1250: groše's š) were a bare
    UnicodeDecodeError (eval.csv read in the locale's encoding): the PipelineError naming
    the file, the line and the byte, one line of --plot, and a gate refuses it before
    its games, not after them."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "run"
    (run / "t").mkdir(parents=True)
    (run / "pipeline.json").write_text('{"stages": {"t": {"kind": "train"}}}')
    evals = run / "t" / "eval.csv"
    evals.write_text("iteration,decisions,opponent,mean,ci_low,ci_high\n"
                     "2,576,random,0.5,0.1,0.9\n")
    assert [r["x"] for r in pipeline.training_curve(run)] == [576]
    gates = run / "gates.csv"
    gates.write_bytes((",".join(pipeline.GATE_FIELDS) + "\n"
                       + "g,t,m.onnx,random,4,1,0.5,0.1,0.9,groše\n").encode("cp1250"))
    says = f"{gates}: not UTF-8 text (line 2, byte 38 of the line: b'\\x9a'): expected a " \
           "file encoded in UTF-8"
    p = tmp_path / "gate.toml"
    p.write_text(HEAD + GATE)
    recipe = load_recipe(p, run)
    monkeypatch.setattr("training.evaluate.load_agent", lambda *a: pytest.fail("played"))
    _refused_by_its_readers(capsys, p, recipe, run, says,
                            (pipeline.read_gates, pipeline.plot_curve))
    gates.unlink()
    evals.write_bytes(b"iteration,decisions,opponent,mean\n2,576,n\xe1hodn\xfd,0.5\n")
    with pytest.raises(PipelineError) as e:
        pipeline.training_curve(run)
    assert str(e.value) == f"{evals}: not UTF-8 text (line 2, byte 8 of the line: " \
                           "b'\\xe1'): expected a file encoded in UTF-8"


def test_an_eval_csv_row_with_a_bad_value_is_one_error(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """A training stage's eval.csv read back for the curve whose rows decode as CSV but
    lack a value the curve draws (a word or nothing where a number belongs, a row cut
    short, a column missing) was a bare ValueError, TypeError or KeyError from
    training_curve: the PipelineError naming the file, the line, the column and what was
    expected, one line of --plot, and a gate refuses it before its games."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "run"
    (run / "t").mkdir(parents=True)
    (run / "u").mkdir(parents=True)
    (run / "pipeline.json").write_text('{"stages": {"t": {"kind": "train"}, '
                                       '"u": {"kind": "train"}}}')
    head = "iteration,decisions,opponent,mean,ci_low,ci_high\n"
    (run / "t" / "eval.csv").write_text(head + "2,576,random,0.5,nan,nan\n")
    evals = run / "u" / "eval.csv"
    good = head + "2,576,random,0.5,0.1,0.9\n4,1152,random,0.25,-0.5,1\n"
    evals.write_text(good)
    assert [r["x"] for r in pipeline.training_curve(run)] == [576, 1152, 1728]
    p = tmp_path / "gate.toml"
    p.write_text(HEAD + GATE)
    recipe = load_recipe(p, run)
    monkeypatch.setattr("training.evaluate.load_agent", lambda *a: pytest.fail("played"))
    for bad, says in [
        (good.replace("1152", "abc"), "line 3, column 'decisions': 'abc': expected a whole "
         "number"),
        (good.replace("1152", ""), "line 3, column 'decisions': empty: expected a whole "
         "number"),
        (good.replace("1152", "nan"), "line 3, column 'decisions': 'nan': expected a whole "
         "number"),
        (good.replace("0.25", "-"), "line 3, column 'mean': '-': expected a number (nan for "
         "none)"),
        (good.replace(",random,0.5", ", ,0.5"), "line 2, column 'opponent': empty: expected "
         "a name"),
        (good.replace("4,1152,random,0.25,-0.5,1", "4,1152"), "line 3, column 'opponent': "
         "missing (the row has 2 of the header's 6 columns): expected a name"),
        (good.replace("ci_low", "low"), "line 1 (the header): no column 'ci_low' (its "
         "columns: iteration, decisions, opponent, mean, low, ci_high): expected a column "
         "'ci_low' (a number (nan for none) in each row)"),
    ]:
        evals.write_text(bad)
        _refused_by_its_readers(capsys, p, recipe, run, f"{evals}: {says}",
                                (pipeline.training_curve, pipeline.plot_curve))
    assert not (run / "curve.png").exists()


def _refused_by_its_readers(capsys: pytest.CaptureFixture, p: Path,
                            recipe: pipeline.Recipe, run: Path, error: str,
                            readers: tuple) -> None:
    """A damaged log of ``run`` is the one PipelineError ``error`` from each of
    ``readers``, from ``--plot`` (status 2, one line) and from gate ``g`` before its
    games."""
    for read in readers:
        with pytest.raises(PipelineError) as e:
            read(run)
        assert str(e.value) == error
    rc, _, err = _main(capsys, p, "--out", run, "--plot")
    assert rc == 2 and err == f"error: {error}\n", err
    with pytest.raises(PipelineError) as e:
        pipeline.run_gate(recipe, recipe.stage("g"), False, print)
    assert str(e.value) == error


def test_a_gates_csv_row_with_a_bad_value_is_one_error(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """RUN/gates.csv whose rows decode as CSV but lack a value the curve draws (a word or
    nothing where a number belongs, a row cut short, a column missing) was a bare
    ValueError (or KeyError) from plot_curve after a gate's games: read with its columns
    (GATE_COLUMNS), it is the PipelineError naming the file, the line, the column and
    what was expected, one line of --plot, refused by a gate before its games and by the
    recipe before any stage.  An empty model_stage (a gate of a model file) is read.  A
    row with more cells than the header (DictReader's key None) passed the check, then
    csv.DictWriter failed on it after the gate's games (a StageError wrapping
    ValueError): it is refused too, naming the line and the counts."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "run"
    run.mkdir()
    gates = run / "gates.csv"
    head = ",".join(pipeline.GATE_FIELDS) + "\n"
    good = head + "g,t,m.onnx,random,4,1,0.5,0.1,0.9,groše\nh,,m.onnx,table,4,1,-1,nan,nan,groše\n"
    gates.write_text(good)
    assert [(r["gate"], r["model_stage"]) for r in pipeline.read_gates(run)] == \
        [("g", "t"), ("h", "")]
    assert pipeline.plot_curve(run) == run / "curve.png"
    (run / "curve.png").unlink()
    p = tmp_path / "gate.toml"
    p.write_text(HEAD + GATE)
    recipe = load_recipe(p, run)
    monkeypatch.setattr("training.evaluate.load_agent", lambda *a: pytest.fail("played"))
    for bad, says in [
        (good.replace("0.5,", "abc,"), "line 2, column 'mean': 'abc': expected a number (nan "
         "for none)"),
        (good.replace("-1,", ","), "line 3, column 'mean': empty: expected a number (nan for "
         "none)"),
        (good.replace(",0.9,", ",high,"), "line 2, column 'ci_high': 'high': expected a "
         "number (nan for none)"),
        (good.replace(",table,", ", ,"), "line 3, column 'robot': empty: expected a name"),
        (good.replace("0.9,groše", "0.9,groše,note,x"), "line 2: 12 cells, the header has 10 "
         "columns: expected at most 10"),
        (good.replace("h,,m.onnx,table,4,1,-1,nan,nan,groše", "h,,m.onnx"), "line 3, column "
         "'robot': missing (the row has 3 of the header's 10 columns): expected a name"),
        (good.replace(",unit", ",units"), "line 1 (the header): no column 'unit' (its "
         "columns: gate, model_stage, model, robot, deals, seed, mean, ci_low, ci_high, "
         "units): expected a column 'unit' (a name in each row)"),
        (good.replace(",model_stage,", ",stage,"), "line 1 (the header): no column "
         "'model_stage' (its columns: gate, stage, model, robot, deals, seed, mean, ci_low, "
         "ci_high, unit): expected a column 'model_stage' (a text (empty for none) in each "
         "row)"),
    ]:
        gates.write_text(bad)
        _refused_by_its_readers(capsys, p, recipe, run, f"{gates}: {says}",
                                (pipeline.read_gates, pipeline.plot_curve))
        rc, out, err = _main(capsys, p, "--out", run)
        assert rc == 2 and err == f"error: {gates}: {says}\n" and "=====" not in out, err
    assert not (run / "curve.png").exists() and not (run / "t").exists()


def test_a_gates_csv_column_of_its_own_is_kept_when_a_gate_writes_its_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RUN/gates.csv with a column of its own (a note added by hand): read as it is, then
    csv.DictWriter failed on it after the gate's games (ValueError: dict contains fields
    not in fieldnames), the gate's rows lost.  The column is kept, after the gates'
    columns, empty in the gate's new rows."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "run"
    run.mkdir()
    gates = run / "gates.csv"
    gates.write_text("note," + ",".join(pipeline.GATE_FIELDS) + "\n"
                     "first try,g,t,m.onnx,random,4,1,0.5,0.1,0.9,groše\n"
                     '"a, b",h,,m.onnx,table,4,1,-1,nan,nan,groše\n')
    p = tmp_path / "gate.toml"
    p.write_text(HEAD + GATE)
    recipe = load_recipe(p, run)
    new = {"gate": "g", "model_stage": "t", "model": "n.onnx", "robot": "random",
           "deals": 8, "seed": 1, "mean": 0.25, "ci_low": 0.0, "ci_high": 0.5,
           "unit": "groše"}
    pipeline._write_gates(recipe, "g", [new], before=pipeline.read_gates(run), log=print)
    assert gates.read_text().splitlines() == [
        ",".join(pipeline.GATE_FIELDS) + ",note",
        'h,,m.onnx,table,4,1,-1,nan,nan,groše,"a, b"',
        "g,t,n.onnx,random,8,1,0.25,0.0,0.5,groše,"]
    assert [r["note"] for r in pipeline.read_gates(run)] == ["a, b", ""]


def test_a_finished_stage_damaged_eval_csv_is_refused_before_any_stage(
        tiny_run: dict, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished training stage's eval.csv, read back by every later gate and by the
    curve at the end, damaged: the stages before them ran first (here the export), then
    the recipe stopped at the curve.  Now it is refused at the start, naming the file,
    before any stage; pipeline.json and the run are left as they were."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    _undone_copy(tiny_run, run, "export")
    robot = run / "robot_tiny.onnx"  # the export's model, made again when it runs
    robot.unlink()
    evals = run / "train" / "eval.csv"
    evals.write_text(evals.read_text().replace(",random,", ",random,?", 1))
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    rc, out, err = _main(capsys, TINY, "--out", run)
    assert rc == 2 and re.fullmatch(rf"error: {re.escape(str(evals))}: line 2, column "
                                    r"'mean': '\?[-\d.e]+': expected a number \(nan for "
                                    r"none\)\n", err), err
    assert "=====" not in out and not robot.exists()
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_log_damaged_while_the_recipe_runs_leaves_the_curve_with_a_warning(
        tiny_run: dict, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A training stage's eval.csv damaged while the recipe runs (here during a gate's
    games; the recipe's start refused it before any stage, as it was then): the gate's
    curve after its games and the curve at the end stopped the recipe with status 2 (the
    gate's rows written, the stage not marked done).  Now each leaves RUN/curve.png as it
    was with a warning naming the file, as the trainer's curves.png does: the gate
    checks its threshold and is done, the recipe finishes with status 0."""
    import training.evaluate

    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    _undone_copy(tiny_run, run, "gate")
    evals = run / "train" / "eval.csv"
    real = training.evaluate.duplicate_eval

    def damaging(*a, **kw):  # the games of the gate, meanwhile a log damaged
        evals.write_text(evals.read_text().replace(",random,", ",random,?", 1))
        return real(*a, **kw)

    monkeypatch.setattr(training.evaluate, "duplicate_eval", damaging)
    curve = (run / "curve.png").read_bytes()
    rc, out, err = _main(capsys, TINY, "--out", run, "--only", "gate")
    assert rc == 0 and err == "", err
    warned = re.findall(rf"\[pipeline\] warning: {re.escape(str(run / 'curve.png'))} not "
                        rf"redrawn: {re.escape(str(evals))}: line 2, column 'mean': "
                        r"'\?[-\d.e]+': expected a number \(nan for none\)\n", out)
    assert len(warned) == 2, out  # the gate's, then the end's
    assert "[pipeline] gate: done in" in out and _state(run)["stages"]["gate"]["done"]
    assert (run / "curve.png").read_bytes() == curve
    assert [r["gate"] for r in pipeline.read_gates(run)] == ["gate_train", "gate"]
    assert not list(run.glob(".curve*"))


def test_gates_csv_damaged_during_a_gates_games_keeps_its_rows(
        tiny_run: dict, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """RUN/gates.csv damaged while a gate plays its games (read whole at the gate's
    start): its end read the file again and stopped the recipe with status 2, the gate's
    rows (minutes of games) left only in the printed log.  Now the damaged file is kept
    byte for byte as gates.csv.damaged, gates.csv is written (atomically) from the rows
    read at the gate's start and the gate's new ones, with a warning naming both files,
    and the gate checks its threshold and is done, as a damaged eval.csv's curve."""
    import training.evaluate

    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    st = _undone_copy(tiny_run, run, "gate")
    gates = run / "gates.csv"
    start = pipeline.read_gates(run)
    lines = gates.read_text().splitlines(keepends=True)
    cells = lines[1].split(",")  # gate_train's row, its mean a word
    damaged = "".join([lines[0], ",".join(cells[:6] + ["?" + cells[6]] + cells[7:]),
                       *lines[2:]])
    real = training.evaluate.duplicate_eval

    def damaging(*a, **kw):  # the games of the gate, meanwhile gates.csv damaged
        gates.write_text(damaged)
        return real(*a, **kw)

    monkeypatch.setattr(training.evaluate, "duplicate_eval", damaging)
    rc, out, err = _main(capsys, TINY, "--out", run, "--only", "gate")
    assert rc == 0 and err == "", err
    aside = run / "gates.csv.damaged"
    assert aside.read_text() == damaged
    assert re.search(rf"\[pipeline\] warning: {re.escape(str(gates))}: line 2, column "
                     rf"'mean': .*: kept as {re.escape(str(aside))}; .* the gate's start",
                     out), out
    assert "[pipeline] gate: done in" in out and _state(run)["stages"]["gate"]["done"]
    got = pipeline.read_gates(run)
    assert [r for r in got if r["gate"] == "gate_train"] == \
        [r for r in start if r["gate"] == "gate_train"]
    assert [r["gate"] for r in got] == ["gate_train", "gate"]
    # a second damage keeps the first one's copy: the next name is taken
    gates.write_text(damaged)
    (run / "pipeline.json").write_text(json.dumps(st))
    pipeline._write_gates(pipeline.load_recipe(TINY, out=run), "gate", [],
                          before=start, log=print)
    assert aside.read_text() == damaged
    assert (run / "gates.csv.damaged.2").read_text() == damaged
    assert [r["gate"] for r in pipeline.read_gates(run)] == ["gate_train"]
    assert not list(run.glob(".gates*"))
    # without the rows read at a start (a stage's outputs cleared) it is refused as before
    gates.write_text(damaged)
    with pytest.raises(PipelineError, match="line 2, column 'mean'"):
        pipeline._write_gates(pipeline.load_recipe(TINY, out=run), "gate", [])


def test_a_recipe_config_or_gates_csv_with_a_byte_order_mark_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recipe, the config a stage names and RUN/gates.csv saved "UTF-8 with BOM" (a
    Windows editor's, a spreadsheet's) were refused ("not valid TOML: Invalid statement")
    or read with a first column '\\ufeffgate': each is read as the file without it."""
    monkeypatch.chdir(ROOT)
    bom = b"\xef\xbb\xbf"
    cfg = tmp_path / "cfg.toml"
    cfg.write_bytes(bom + (ROOT / "training" / "configs" / "demo.toml").read_bytes())
    p = tmp_path / "gate.toml"
    p.write_bytes(bom + (HEAD + GATE.replace("training/configs/demo.toml", str(cfg))).encode())
    recipe = load_recipe(p, tmp_path / "run")
    assert [s.name for s in recipe.stages] == ["t", "g"]
    assert pipeline.stage_config(recipe, recipe.stage("t")).seed == 1  # demo.toml's
    assert pipeline._config_hash(str(cfg)) == \
        pipeline._config_hash("training/configs/demo.toml")  # the same settings
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "gates.csv").write_bytes(
        bom + (",".join(pipeline.GATE_FIELDS) + "\r\ng,t,m.onnx,random,4,1,0.5,0.1,0.9,"
               "groše\r\n").encode())
    assert [(r["gate"], r["unit"]) for r in pipeline.read_gates(tmp_path / "run")] == \
        [("g", "groše")]


def test_a_train_stage_runs_its_workers_on_its_backend(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """A train stage's ``backend`` and ``address`` are ``python -m training.train``'s
    ``--backend`` and ``--address``: where its rollout workers run (Ray actors give the
    process run's checkpoint, tests/test_ray_backend.py); the plan names them."""
    monkeypatch.chdir(ROOT)
    p = tmp_path / "ray.toml"
    p.write_text(HEAD + TRAIN + 'backend = "ray"\naddress = "head:6379"\n')
    recipe = load_recipe(p, tmp_path / "run")
    assert "--backend ray --address head:6379   # --resume" in pipeline.plan(recipe)
    seen = {}

    class Trainer:  # what the stage builds, then stopped before any work
        def __init__(self, cfg, out, **kw) -> None:
            seen.update(kw)
            raise training.config.ConfigError("not here")

    import training.config

    monkeypatch.setattr("training.trainer.Trainer", Trainer)
    with pytest.raises(pipeline.StageError, match="not here"):
        pipeline.run_train(recipe, recipe.stages[0], False, lambda *_: None)
    assert (seen["backend"], seen["address"]) == ("ray", "head:6379")
    p.write_text(HEAD + TRAIN)
    recipe = load_recipe(p, tmp_path / "run")
    with pytest.raises(pipeline.StageError):
        pipeline.run_train(recipe, recipe.stages[0], False, lambda *_: None)
    assert (seen["backend"], seen["address"]) == ("process", None)


def test_a_stage_on_ray_takes_its_ray_timeout(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``ray_timeout`` is the commands' ``--ray-timeout``: the plan's commands say it, and
    the stage joins its cluster with it (mariash_env.ray_pool.join sets the session's
    timeout, which its pool or its trainer then use); without it the default 60 s, not an
    earlier stage's."""
    monkeypatch.chdir(ROOT)
    labels = ('[[stage]]\nname = "l"\nkind = "labels"\nstates = 4\nrobot_share = 0.0\n'
              'backend = "ray"\nray_timeout = 120\n')
    p = tmp_path / "ray.toml"
    p.write_text(HEAD + labels + GATE.replace('robots = ["random"]\n', 'robots = ["random"]\n'
                                              'backend = "ray"\nray_timeout = 7.5\n')
                 + TRAIN.replace('"t"', '"u"') + 'backend = "ray"\n')
    recipe = load_recipe(p, tmp_path / "run")
    plan = pipeline.plan(recipe)
    assert "--backend ray --ray-timeout 120\n" in plan, plan
    assert "--backend ray --ray-timeout 7.5\n" in plan, plan  # the gate's evaluate
    assert "--ray-timeout" not in plan.split("[4/4]")[1], plan  # the default: not written
    from mariash_env import ray_pool

    seen = []

    def join(address, timeout):
        seen.append(timeout)
        raise ray_pool.RayClusterError("not here")

    monkeypatch.setattr(ray_pool, "join", join)
    for stage in recipe.stages:
        if stage.resolved.get("backend") == "ray":
            with pytest.raises(pipeline.StageError, match="cannot start on its Ray cluster"):
                pipeline._join_ray(stage)
    assert seen == [120.0, 7.5, ray_pool.DEFAULT_TIMEOUT_S]


def test_a_stage_error_is_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A train stage's refused config or checkpoint is a StageError of its runner, which
    ``run`` wrapped again: "stage 't' (train) failed: StageError: stage 't': ...".  It
    names the stage once, as every other failure of a stage does."""
    import training.config

    class Trainer:
        def __init__(self, cfg, out, **kw) -> None:
            raise training.config.ConfigError("not here")

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("training.trainer.Trainer", Trainer)
    p = tmp_path / "t.toml"
    p.write_text(HEAD + TRAIN)
    recipe = load_recipe(p, tmp_path / "run")
    with pytest.raises(pipeline.StageError) as e:
        pipeline.run(recipe, progress=False, log=lambda *_: None)
    assert str(e.value) == "stage 't' (train) failed: ConfigError: not here"


@pytest.mark.parametrize("stage", [
    TRAIN, '[[stage]]\nname = "g"\nkind = "gate"\nmodel = "models/robot.onnx"\n'
           'robots = ["random"]\n'], ids=["train", "gate"])
def test_a_stage_on_an_unreachable_ray_cluster_fails_at_its_start(
        stage: str, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A train stage on Ray whose cluster cannot be reached failed only once its rollout
    workers started (a gate's once its pool did): its trainer built first, its run folder
    written (config.json, the logs), and the line named ``--address``, a flag of another
    command.  Now the stage checks its cluster at its start, as ``python -m training.train
    --backend ray`` does (the same ray_pool.join): one line naming the stage and its
    address, nothing made, the stage not recorded as begun."""
    pytest.importorskip("ray")
    monkeypatch.chdir(ROOT)
    p = tmp_path / "ray.toml"
    p.write_text(HEAD + stage + 'backend = "ray"\naddress = "127.0.0.1:1"\n')  # refused
    run = tmp_path / "run"
    rc, _, err = _main(capsys, p, "--out", run)
    name, kind = ("t", "train") if "train" in stage else ("g", "gate")
    assert rc == 1 and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"error: stage {name!r} ({kind}) cannot start on its Ray cluster "
                          '(address = "127.0.0.1:1"): cannot reach the Ray cluster at '
                          "--address 127.0.0.1:1: Connection refused"), err
    assert not (run / name).exists()
    assert name not in (_state(run)["stages"] if (run / "pipeline.json").exists() else {})


def test_labels_in_a_game_without_them_and_games_not_trained(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    from training import pimc_labels

    # a game with no label sets (every registered one has them now: lízaný's are made by
    # its own PIMC robot), played here by taking lízaný out of the labelled games
    monkeypatch.delitem(pimc_labels.LABELLED, "lizany")
    msg = _bad(tmp_path, HEAD.replace("voleny", "lizany")
               + '[[stage]]\nname = "l"\nkind = "labels"\nstates = 4\nrobot_share = 0.0\n')
    assert "stage 'l' kind" in msg and "game is lizany" in msg
    assert "licitovany, voleny" in msg
    monkeypatch.undo()
    monkeypatch.chdir(ROOT)
    assert "[recipe] game = 'skat'" in _bad(tmp_path, HEAD.replace("voleny", "skat") + TRAIN)
    # a registered game whose kind the training front end does not drive
    from mariash_env.games import registry

    kind = registry.game_kind("lizany")
    monkeypatch.setitem(registry._GAMES, "lizany",
                        dataclasses.replace(kind, front_ends=frozenset({"arena"})))
    msg = _bad(tmp_path, HEAD.replace("voleny", "lizany") + TRAIN)
    assert "[recipe] game = 'lizany'" in msg and "training" in msg


def test_a_failing_stage_is_named(tmp_path: Path, capsys: pytest.CaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A label directory made with other settings is refused, naming the stage (status 1);
    nothing is marked done."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    (run / "labels").mkdir(parents=True)
    (run / "labels" / "labels.json").write_text(json.dumps({"worlds": 9}))
    rc, _, err = _main(capsys, TINY, "--out", run, "--only", "labels")
    assert rc == 1
    assert "stage 'labels' (labels) failed: LabelError" in err and "worlds: 9 there" in err
    assert not _state(run)["stages"]["labels"]["done"]


@pytest.mark.parametrize("state, says", [
    (b"{cut", "is unreadable (Expecting"),
    (b"\xff\xfe", "is unreadable (not UTF-8 text (line 1, byte 1 of the line: b'\\xff'): "
                  "expected a file encoded in UTF-8)"),
    (b"[]", "is no pipeline state (expected a JSON object with 'stages')"),
    # past the JSON reader's depth: json's RecursionError was a traceback
    (b"[" * 100_000 + b"]" * 100_000, "is unreadable (nested too deeply"),
    (b'{"format": 1}', "is no pipeline state"),
    # one value of the key, and another on the next line: which is meant?
    (b'{"format": "mariash-pipeline-v1", "recipe": "tiny",\n"recipe": "other", "stages": {}}',
     "is unreadable (the key 'recipe' is given twice in one object, the second time on "
     "line 2)"),
])
def test_a_damaged_pipeline_state_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture,
                                              monkeypatch: pytest.MonkeyPatch, state: bytes,
                                              says: str) -> None:
    """``RUN/pipeline.json`` that is not the pipeline's state: one line naming the file and
    what to do (exit status 2), no traceback, the file left as it was."""
    monkeypatch.chdir(ROOT)
    run = tmp_path / "tiny"
    run.mkdir()
    (run / "pipeline.json").write_bytes(state)
    rc, _, err = _main(capsys, TINY, "--out", run)
    assert rc == 2 and f"error: {run / 'pipeline.json'} {says}" in err, err
    assert "Traceback" not in err and (run / "pipeline.json").read_bytes() == state


@pytest.mark.parametrize("card", sorted(p.name for p in (ROOT / "models").glob("*.md")))
def test_every_shipped_card_names_its_recipe_command(card: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    m = re.search(r"^python -m training\.pipeline (training/recipes/\w+\.toml) --out (\S+)"
                  r"(?: --until (\w+))?$", (ROOT / "models" / card).read_text(), re.M)
    assert m, f"models/{card} has no Reproduce command"
    recipe = load_recipe(m[1], m[2])
    last = recipe.stage(m[3]) if m[3] else recipe.stages[-1]
    if last.kind == "export":  # the card's own stage, the recipe's last or --until it
        assert Path(last.outputs["card"]).name == card
        assert recipe.command(until=last.name) == m[0]
        # where the recipe starts: from scratch, or from committed models with their cards
        starts = recipe.warm_starts(until=last.name)
        text = (ROOT / "models" / card).read_text()
        assert ("\nFrom scratch" in text) == (not starts)
        assert "\nFrom the committed " + ", ".join(f"`{s}`" for s in starts) in text \
            or not starts
        assert all((ROOT / s).is_file() for s in starts)
    else:
        assert m[3] and last.kind in ("train", "dagger")


LICIT = ('[recipe]\nname = "licit"\ngame = "licitovany"\nseed = 3\n'
         '[[stage]]\nname = "play"\nkind = "labels"\nstates = 3\nshard_size = 3\n'
         'worlds = 1\n'
         '[[stage]]\nname = "bid"\nkind = "labels"\nphase = "bidding"\nstates = 2\n'
         'shard_size = 2\nworlds = 1\nrobot_share = 0.0\nworlds_from = "deal"\n'
         'playout = "behaviour"\n')


def test_a_licitovany_recipe_labels_its_own_game(
        capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """#35: label stages label the recipe's game (real PIMC labels, one world), by
    default with that game's shipped network as the behaviour robot."""
    from training.pimc_labels import load_labels

    monkeypatch.chdir(ROOT)
    recipe, run = tmp_path / "licit.toml", tmp_path / "r"
    recipe.write_text(LICIT)
    rc, out, _ = _main(capsys, recipe, "--out", run, "--dry-run")
    assert rc == 0
    assert (f"$ python -m training.pimc_labels --rules licitovany --out {run}/play "
            "--states 3") in out
    assert "--behaviour onnx:models/robot_licitovany.onnx --robot-share 0.7" in out
    # the real deal as the one world (a bidding stage's worlds_from), the default unprinted
    assert f"--out {run}/bid --states 2 --shard-size 2 --worlds 1 --worlds-from deal " \
        "--playout behaviour --phase bidding" in out
    assert out.count("--worlds-from") == 1
    # its candidates played out by the behaviour network (#35), the default unprinted
    assert out.count("--playout") == 1
    rc, out, err = _main(capsys, recipe, "--out", run)
    assert rc == 0, err
    for stage, phase, n in (("play", "play", 3), ("bid", "bidding", 2)):
        meta = json.loads((run / stage / "labels.json").read_text())
        assert (meta["game"], meta["phase"], meta["rules"]) == ("licitovany", phase,
                                                                {"rules": "licitovany"})
        assert _state(run)["stages"][stage]["result"]["states"] == n
        obs, mask, value = load_labels(run / stage, game="licitovany")
        assert obs.shape == (n, 1016) and value.shape == (n, 136)  # licitovaný's layout
    assert json.loads((run / "play" / "labels.json").read_text())["behaviour"] == \
        "onnx:models/robot_licitovany.onnx"
    assert [json.loads((run / s / "labels.json").read_text())["worlds_from"]
            for s in ("play", "bid")] == ["sampled", "deal"]
    assert [json.loads((run / s / "labels.json").read_text())["playout"]
            for s in ("play", "bid")] == ["table", "behaviour"]


def test_an_export_before_later_stages_reproduces_with_until(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A model exported before the recipe goes on names ``--until`` its export stage in
    its card, so its command stops there; the last stage's card names the plain command
    (licitovany_distill.toml: the distilled network, then the real-deal bidding round)."""
    monkeypatch.chdir(ROOT)
    r = load_recipe("training/recipes/licitovany_distill.toml", "runs/licit")
    exports = [s.name for s in r.stages if s.kind == "export"]
    assert exports == ["export", "export_deal"]
    head = "python -m training.pipeline training/recipes/licitovany_distill.toml --out runs/licit"
    assert r.command(until="export") == head + " --until export"
    assert r.command(until="export_deal") == r.command() == head


def test_a_redone_stage_redoes_the_stages_that_use_it(tiny_run: dict, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A stage run again (its entry and folder removed, as a refusal advises) makes every
    later stage that uses it stale: they run again, saying why, not "done, skipped"."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("training.pimc_labels.label_state", _teacher)
    run = tmp_path / "tiny"
    shutil.copytree(tiny_run["run"], run)
    st = _state(run)
    del st["stages"]["train"]
    (run / "pipeline.json").write_text(json.dumps(st))
    shutil.rmtree(run / "train")
    rc, out, err = _main(capsys, TINY, "--out", run)
    assert rc == 0, err
    assert re.findall(r"===== \[\d/6\] (\w+)", out) == [
        "train", "gate_train", "dagger", "gate", "export"]
    assert "[3/6] gate_train (gate): redone, its outputs are stale: stage 'train' finished " \
        "anew since" in out
    after = _state(run)
    fp = {n: s["fingerprint"] for n, s in after["stages"].items()}
    assert after["stages"]["gate_train"]["inputs"]["stages"] == {"train": fp["train"]}
    assert after["stages"]["export"]["inputs"]["stages"] == {"dagger": fp["dagger"]}
    assert fp["train"] != st["stages"]["gate_train"]["inputs"]["stages"]["train"]
    cfg = json.loads((run / "dagger" / "train" / "config.json").read_text())
    assert cfg["init"] == str(run / "train" / "checkpoint.pt")
    rc, out, _ = _main(capsys, TINY, "--out", run)  # and now all of it is done
    assert rc == 0 and "=====" not in out and _state(run) == after


def test_an_edited_config_file_refuses_its_finished_stage(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A train stage's config file is part of its settings: edited after the stage
    finished, the stage is refused as a changed recipe is (a comment does not count)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("training.pimc_labels.label_state", _teacher)
    config = tmp_path / "demo.toml"
    config.write_text((ROOT / "training" / "configs" / "demo.toml").read_text())
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(TINY.read_text().replace('"training/configs/demo.toml"', f'"{config}"'))
    run = tmp_path / "tiny"
    assert _main(capsys, recipe, "--out", run, "--until", "train")[0] == 0
    config.write_text(config.read_text() + "\n# a comment\n")
    rc, out, _ = _main(capsys, recipe, "--out", run, "--until", "train")
    assert rc == 0 and "train (train): done" in out
    before = _state(run)
    config.write_text(config.read_text().replace("lr = 1e-3", "lr = 2e-3", 1))
    rc, _, err = _main(capsys, recipe, "--out", run, "--until", "train")
    assert rc == 2 and f"stage 'train' finished with other settings in {config}" in err, err
    assert f"and its folder {run / 'train'}" in err
    assert _state(run) == before


def test_the_curve_has_every_training_stage_and_needs_no_gate(tiny_run: dict,
                                                              tmp_path: Path) -> None:
    """RUN/curve.png: a DAgger stage's training (RUN/<stage>/train/eval.csv) is on the
    learning curve, and a recipe without a gate still has its curve."""
    run = tmp_path / "tiny"
    shutil.copytree(tiny_run["run"], run)
    curve = pipeline.training_curve(run)
    assert list(dict.fromkeys(r["stage"] for r in curve)) == ["train", "dagger"]
    (run / "gates.csv").unlink()
    (run / "curve.png").unlink()
    assert pipeline.plot_curve(run, "tiny", "groše") == run / "curve.png"
    assert (run / "curve.png").stat().st_size > 0


def test_a_stage_stopped_by_a_signal_exits_130(tmp_path: Path, capsys: pytest.CaptureFixture,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in a train stage (its trainer stops gracefully, with a checkpoint) is an
    interrupt: status 130 and one line, as in a labels stage; nothing is marked done."""
    monkeypatch.chdir(ROOT)

    def stopped(recipe, stage, progress, log):
        raise pipeline.StageStopped(f"stage {stage.name!r} stopped at iteration 1")

    monkeypatch.setitem(pipeline.RUNNERS, "labels", stopped)
    run = tmp_path / "tiny"
    rc, _, err = _main(capsys, TINY, "--out", run, "--only", "labels")
    assert rc == 130
    assert err.strip() == "error: stage 'labels' stopped at iteration 1; rerun the same " \
        "command to resume"
    assert not _state(run)["stages"]["labels"]["done"]


@pytest.mark.parametrize("stdout_gone", [True, False])
def test_a_stage_whose_log_reader_left_is_no_stage_failure(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
        stdout_gone: bool) -> None:
    """A stage's log written to a pipe whose reader has gone (``| head``): its
    BrokenPipeError goes on to :func:`mariash_env.cli.quiet_on_closed_pipe` (status 141,
    nothing said), where it was 'stage 'labels' (labels) failed: BrokenPipeError', status
    1; a broken pipe of anything else (a worker's) is the stage's failure, as before."""
    monkeypatch.chdir(ROOT)

    def broken(recipe, stage, progress, log):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setitem(pipeline.RUNNERS, "labels", broken)
    monkeypatch.setattr(pipeline, "closed_stdout", lambda e: stdout_gone)
    run = tmp_path / "tiny"
    if stdout_gone:  # pytest's stdout is no closed pipe: the wrapper raises it again
        with pytest.raises(BrokenPipeError):
            _main(capsys, TINY, "--out", run, "--only", "labels")
        assert capsys.readouterr().err == ""
    else:
        rc, _, err = _main(capsys, TINY, "--out", run, "--only", "labels")
        assert rc == 1 and err.strip() == ("error: stage 'labels' (labels) failed: "
                                           "BrokenPipeError: [Errno 32] Broken pipe")
    assert not _state(run)["stages"]["labels"]["done"]


def test_a_label_set_with_missing_or_extra_shards_is_refused(tiny_run: dict,
                                                             tmp_path: Path) -> None:
    """A finished set declares its shards (labels.json): one deleted, or one more than
    it declares, and the set is refused, naming it; a set remade with fewer states drops
    the shards of the larger one."""
    from training.pimc_labels import LabelError, generate, load_labels, shard_files

    labels = tmp_path / "labels"
    shutil.copytree(tiny_run["run"] / "labels", labels)
    meta = json.loads((labels / "labels.json").read_text())
    assert meta["shards"] == 2 and len(shard_files(labels)) == 2
    (labels / "shard_00001.npz").rename(tmp_path / "kept.npz")
    with pytest.raises(LabelError, match=f"label set {labels} is not whole: 1 of its 2 "
                                         "shards missing \\(shard_00001.npz\\)"):
        load_labels(labels)
    shutil.copy(tmp_path / "kept.npz", labels / "shard_00001.npz")
    shutil.copy(tmp_path / "kept.npz", labels / "shard_00002.npz")
    with pytest.raises(LabelError, match="1 shard\\(s\\) more than its 2 \\(shard_00002.npz"):
        shard_files(labels)
    settings = {k: v for k, v in meta.items() if k != "shards"}
    r = generate(labels, settings, 1, progress=False)  # states = 3 now: shard 0 alone
    assert (r["made"], r["kept"]) == (0, 1)
    assert [f.name for f in shard_files(labels)] == ["shard_00000.npz"]
    assert json.loads((labels / "labels.json").read_text())["shards"] == 1


def test_gate_and_card_evaluations_show_progress_when_asked(capsys):
    """A gate's or a card's evaluation (thousands of deals, minutes) showed no progress:
    ``duplicate_eval(progress=True)`` (what the pipeline passes when it shows progress)
    draws the arena's bar on stderr; without it, nothing."""
    from mariash_env.robots import make_robot
    from training.evaluate import duplicate_eval

    agent = make_robot("random", seed=1)
    duplicate_eval(agent, make_robot("table"), deals=4, seed=2, num_envs=12, progress=True)
    assert "deals" in capsys.readouterr().err
    duplicate_eval(agent, make_robot("table"), deals=4, seed=2, num_envs=12)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("card", sorted(p.name for p in (ROOT / "models").glob("*.md")))
def test_every_shipped_card_loads_a_shipped_model(card: str) -> None:
    """The card's ``OnnxRobot("…")`` line names the committed model beside it (six cards
    named the ``runs/`` file they were exported to, which a clone does not have)."""
    paths = re.findall(r'OnnxRobot\("([^"]+)"\)', (ROOT / "models" / card).read_text())
    assert paths, f"models/{card} shows no OnnxRobot line"
    for p in paths:
        assert p.startswith("models/") and (ROOT / p).is_file(), f"models/{card}: {p}"
