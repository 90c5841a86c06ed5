"""Smoke tests for the project tooling (packaging config, CI script, speed anchors)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_pins_torch_exactly():
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["name"] == "mariash"
    for extra in ("train", "dev"):
        torch_reqs = [r for r in data["project"]["optional-dependencies"][extra] if "torch" in r]
        assert torch_reqs == ["torch==2.13.0"], extra


def test_ci_script_is_executable():
    ci = ROOT / ".ci" / "run"
    assert ci.is_file()
    assert os.access(ci, os.X_OK)
    assert "make test" in ci.read_text(encoding="utf-8")


def test_anchor_runners_count_decisions():
    """The AEC runner counts exactly the decisions of its episodes; the do-nothing AEC
    env (the loop's ceiling) is a valid PettingZoo env; skat runs when installed."""
    import mariash_env
    from scripts import anchors

    env = mariash_env.env(deals=1)
    runner = anchors.AECRunner(env, "aec", seed=5)
    n = runner.episode()
    assert n == len(env.unwrapped.records[-1]["actions"]) > 0
    null = anchors.null_aec_env(wrapped=False)
    from pettingzoo.test import api_test

    api_test(null, num_cycles=20)
    wrapped = anchors.AECRunner(anchors.null_aec_env(length=30), "null")
    assert wrapped.episode() == 30
    rates = anchors.interleaved([wrapped], slice_s=0.01, repeats=2)
    assert len(rates["null"]) == 2 and min(rates["null"]) > 0
    if anchors.skat_available():
        decisions, elapsed = anchors.SkatRunner(with_obs=True).run(0.02)
        assert decisions > 0 and elapsed > 0


def test_bench_env_runs_and_rejects_bad_arguments(tmp_path):
    import json
    import subprocess
    import sys

    from scripts import anchors

    if not anchors.skat_available():
        pytest.skip("OpenSpiel skat is not installed")
    out = tmp_path / "bench.json"
    cmd = [sys.executable, "scripts/bench_env.py", "--slice", "0.02", "--repeats", "1",
           "--num-envs", "32", "--json", str(out)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    rows = {row["ours"]: row for row in data["table"]}
    assert set(rows) == {"aec", "null_aec", "null_aec_raw", "vector_obs", "vector_masks",
                         "licit_masks", "lizany_obs"}
    assert rows["vector_masks"]["peer"] == "skat" and rows["vector_obs"]["peer"] == "skat_obs"
    assert rows["licit_masks"]["peer"] == "vector_masks"
    for row in rows.values():  # one round: the ratio of the round is the ratio of medians
        assert row["ratio"] == pytest.approx(row["ours_rate"] / row["peer_rate"])
    bad = subprocess.run([sys.executable, "scripts/bench_env.py", "--slice", "-1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "error:" in bad.stderr and "Traceback" not in bad.stderr


def test_bench_service_runs_and_rejects_bad_arguments():
    """scripts/bench_service.py: one short round of the one-process and the two-process
    robot service (real servers on loopback), the same answers from both; its ratio is a
    figure to print, never a bound here."""
    import subprocess
    import sys

    cmd = [sys.executable, "scripts/bench_service.py", "--robot", "table", "--rounds", "1",
           "--slice", "0.3", "--records", "6", "--clients", "2"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 process:" in r.stdout and "2 processes:" in r.stdout and "ratio" in r.stdout
    bad = subprocess.run([sys.executable, "scripts/bench_service.py", "--workers", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "error:" in bad.stderr and "Traceback" not in bad.stderr
