"""Nothing stays behind: the front ends keep no memory per deal, step, request or refused
input (scripts/leak_check.py run small; the guide's "leak-free under any input"), nor the
play table per partie.

Python's own allocations are counted exactly (tracemalloc) over windows of units after
a warm-up; a leak keeps bytes in every window, so the test asks that each case keep less
than its limit a unit in some window after the first.  The windows are small here, so
objects made before tracing began and replaced during it still count in the first
windows (tens to a few hundred bytes a deal, falling window by window; the script's
long windows show them go): a deal's unit may keep 512 bytes, below what a kept record
(a few kB a deal), seat view or traceback would; a batched step or a refusal, whose
counts are exact, 32.  Resident memory is printed by the script, not asserted (it moves
in pages)."""

from __future__ import annotations

import numpy as np
import pytest

from scripts.leak_check import CASES, Growth, bounded_caches, measure, units

LIMIT = 512.0  # bytes a unit: a deal, a request
EXACT = {"vector": 32.0, "refused": 32.0}  # a step, a round of refusals
# (units a window, warm-up units): the warm-up runs untraced, so it is cheap and fills
# what a first use allocates (the HTTP client's pool, ONNX Runtime's buffers)
SMALL = {"aec": (60, 30), "single_agent": (30, 30), "vector": (100, 50),
         "refused": (100, 50), "openspiel": (30, 30), "service": (20, 150),
         "robots": (20, 60), "table": (8, 6)}
# A partie at the table (a session, its robots, some forty requests) leaves a few kB of
# what the warm-up made still being replaced in the first windows (falling to tens of
# bytes over 60-partie windows: the script); a kept deal record or session is far more.
LIMITS = {"table": 2048.0}


@pytest.mark.parametrize("case", list(SMALL))
def test_nothing_stays_per_unit(case):
    count, warm = SMALL[case]
    for name, unit in units(case):
        g = measure(name, unit, count, windows=3, warm=warm)
        assert g.kept() < EXACT.get(case, LIMITS.get(case, LIMIT)), g.line()


def test_the_check_sees_a_leak():
    # a unit that keeps 1 kB each time is caught; one that allocates and frees is not
    kept: list[bytes] = []
    leak = measure("keeps", lambda: kept.append(bytes(1024)), 50, windows=3, warm=5)
    assert leak.kept() > 1000
    clean = measure("frees", lambda: bytes(1024), 50, windows=3, warm=5)
    assert clean.kept() < 64
    assert isinstance(leak, Growth) and set(SMALL) < set(CASES)


def test_bounded_caches_are_found_and_emptied():
    from mariash_env.games.voleny.table_robot import TableRobot, _best_pair

    caches = bounded_caches()
    assert _best_pair in caches and TableRobot.betl_hand in caches
    hand = int(np.uint32(0b1111_1111_1111 << 8))
    TableRobot.betl_hand(hand)
    g = measure("fills a bounded cache", lambda: TableRobot.betl_hand(hand), 5, 2, 0)
    assert TableRobot.betl_hand.cache_info().currsize == 0 and g.kept() < LIMIT
