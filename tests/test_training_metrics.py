"""A training method owns its metrics: ``Method.METRICS`` are the method's columns of
``metrics.csv`` (and TensorBoard ``train/`` scalars), nothing of DMC's is hard-coded in
the trainer."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from training.config import Config  # noqa: E402
from training.logs import metric_fields  # noqa: E402
from training.methods import METHODS, get_method, register_method  # noqa: E402
from training.methods.dmc import DMC  # noqa: E402
from training.trainer import Trainer  # noqa: E402

# metrics.csv as it was before methods declared their metrics, plus demo_loss (runs
# resume onto it: a resume rewrites an older file with these columns).
DMC_COLUMNS = [
    "iteration", "decisions", "samples", "updates", "deals", "train_s", "dec_per_s",
    "samples_per_s", "upd_per_s", "loss", "q_mean", "grad_norm", "target_mean", "epsilon",
    "demo_loss", "label_loss", "rollout_s", "policy_s", "update_s", "carried", "pool_size",
    "ret_vs_pool", "ret_vs_random", "ret_vs_table",
]


def test_dmc_columns_unchanged():
    assert get_method("dmc") is DMC
    assert metric_fields(DMC.METRICS) == DMC_COLUMNS
    assert set(DMC.PROGRESS) <= set(DMC.METRICS)


@pytest.mark.parametrize("bad", [("loss",), ("x", "x"), ("pool_size",)])
def test_metric_names_must_not_clash(bad: tuple[str, ...]):
    with pytest.raises(ValueError, match="repeat a name or reuse"):
        metric_fields(bad)


class _Probe(DMC):
    """DMC reporting one metric of its own and one of its rollout parameters only."""

    name = "dmc_probe_metrics"
    METRICS = ("probe", "epsilon")
    PROGRESS = ("probe",)

    def update(self, batch: Any, rng: Any) -> dict[str, float]:
        return {**super().update(batch, rng), "probe": 7.5}


def test_trainer_logs_the_methods_metrics(tmp_path: Path):
    register_method(_Probe)
    try:
        d = {"seed": 1, "method": _Probe.name,
             "env": {"num_envs": 24, "rollout_steps": 4}, "network": {"hidden": [16]},
             "eval": {"every": 0, "deals": 6, "num_envs": 18, "bootstrap": 20,
                      "opponents": ["random"], "final_opponents": ["random"]},
             "run": {"max_iterations": 2, "checkpoint_every": 2, "threads": 1,
                     "progress": False, "tensorboard": False, "plot": False},
             _Probe.name: {"batch_size": 16}}
        cfg = Config.from_dict(json.loads(json.dumps(d)), "probe")
        Trainer(cfg, tmp_path / "run", log=lambda *a: None).train()
    finally:
        METHODS.pop(_Probe.name, None)
    with open(tmp_path / "run" / "metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == metric_fields(("probe", "epsilon"))
    assert "q_mean" not in rows[0] and "target_mean" not in rows[0]
    assert [float(r["probe"]) for r in rows] == [7.5, 7.5]
    assert all(0 <= float(r["epsilon"]) <= 1 for r in rows)  # from rollout_params
