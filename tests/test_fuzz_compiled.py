"""Issue #29 (items 1, 2, 6): random in-range garbage through the compiled entry points
(``restore_states`` and ``step`` of every game, seat views, observation decoding, lízaný's
solver and searching robots), each
batch in a subprocess so that a crash is a failure of this test, not of pytest.  The
fuzz logic is ``scripts/fuzz_compiled.py``'s; ``python -m scripts.fuzz_compiled`` runs
the bigger campaign."""

from __future__ import annotations

import subprocess

from scripts import fuzz_compiled as F


def test_a_small_fuzz_batch_finds_nothing():
    """Issue #29: every state is refused by name or plays to the end of its deal, every
    seat record is a view or a SeatRecordError, every observation decodes or raises
    ObservationError; and the batch exercised each outcome."""
    total = F.campaign(0, states=60, views=25, observations=300, seed=2029, batches=1)
    assert total["failures"] == [], F.report(total)
    for c in ("states_rejected", "states_accepted", "decisions", "seat_views_built",
              "seat_views_rejected", "observations_decoded", "observations_rejected",
              "lizany_solves_rejected", "lizany_decisions"):
        assert total[c] > 0, (c, F.report(total))
    assert total["states_tried"] == 4 * 60
    assert total["lizany_solves"] == 60 and total["lizany_solves_rejected"] < 60


def test_a_crashing_batch_is_reported_with_its_seed(monkeypatch):
    """Issue #29: a batch killed by a signal is a failure naming the seed to rerun."""
    def segfault(cmd, **kw):
        return subprocess.CompletedProcess(cmd, -11, "", "Fatal Python error: Segmentation")

    monkeypatch.setattr(F.subprocess, "run", segfault)
    total = F.campaign(0, states=1, views=1, observations=1, seed=77, batches=2)
    kinds = [(f["seed"], f["kind"]) for f in total["failures"]]
    assert kinds == [(77, "crash: the batch process exited with -11 (signal 11)"),
                     (78, "crash: the batch process exited with -11 (signal 11)")]
    assert "--seed 77" in total["failures"][0]["reproduce"]
    assert "failures: 2" in F.report(total)
