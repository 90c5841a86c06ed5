"""The double-dummy solver's values on a fixed benchmark set (issue #10): every speed-up
of the solver must keep them.  Deals of ``scripts/bench_solver.py`` (seed 1: suit games
0-39, betl 100-109, durch 150-159); the values were recorded with the solver before its
speed-ups (tests/test_search.py compares the solver with plain alpha-beta)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mariash_env.core.state import C_BETL, C_DURCH, C_SUIT, CONTRACT
from mariash_env.rules import make_rules
from mariash_env.search import random_position, solve

INDICES = list(range(40)) + list(range(100, 110)) + list(range(150, 160))
EXPECTED = [
    -14, -32, -36, -34, -3, -8, -2, 16, -5, -12, -128, 32, 36, -40, -400, -624, -8, -17, 7,
    -9, -2, -10, -104, 3, -8, -4, -8, 29, -8, -330, -29, 8, 4, -168, 24, 48, -10, -12, 264,
    -3,  # suit games
    -5, -5, -10, -80, -40, -5, -5, -10, -10, -5,  # betl
    -40, -20, -40, -20, -10, -10, -10, -10, -20, -20,  # durch
]


def bench_deal(i: int) -> np.ndarray:
    """Deal ``i`` of ``scripts/bench_solver.py --seed 1`` (200 deals)."""
    contract = C_SUIT if i < 100 else (C_BETL if i < 150 else C_DURCH)
    return random_position(1 * 100003 + i, contract=contract)


def test_solver_values_on_the_benchmark_deals():
    rv = make_rules().vector()
    got = []
    for i in INDICES:
        st = bench_deal(i)
        r = solve(st, rv)
        # the principal variation reaches exactly the value
        assert r.outcome is not None and int(r.outcome.state[CONTRACT]) == int(st[CONTRACT])
        got.append(r.value)
    assert got == EXPECTED



def test_values_moves_and_lines_on_400_benchmark_deals():
    """Every deal of ``scripts/bench_solver.py`` with seeds 1 and 2 (200 each: suit games,
    betl, durch): the value, the principal variation (so the best move) and, on every
    fourth deal, the value of every legal card, as the solver of commit 6daa69b (before
    the solver's reference-counting-free search, issue #10) found them."""
    from scripts.bench_solver import deals

    rows = json.loads((Path(__file__).parent / "data" / "solver_bench_400.json").read_text())
    rv = make_rules().vector()
    positions = {seed: deals(200, seed) for seed in (1, 2)}
    assert len(rows) == 400
    for row in rows:
        st = positions[row["seed"]][row["i"]]
        r = solve(st, rv)
        assert (r.value, r.pv) == (row["value"], row["pv"]), (row["seed"], row["i"])
        assert r.action == row["pv"][0]
        if "move_values" in row:
            m = solve(st, rv, pv=False, all_moves=True)
            assert sorted(m.move_values.items()) == [tuple(x) for x in row["move_values"]]
            assert m.value == row["value"]
