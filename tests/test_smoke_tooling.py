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


def test_anchors_measure_or_skip():
    from scripts import anchors

    for result in (
        anchors.pettingzoo_classic(seconds=0.05),
        anchors.openspiel_skat(seconds=0.05),
        anchors.openspiel_skat(seconds=0.05, with_obs=True),
    ):
        if result is None:
            continue
        name, rate = result
        assert isinstance(name, str) and name
        assert rate > 0
