"""Benchmark of the double-dummy solver on whole deals.

Deals are drawn by random legal actions from shuffled decks until the card play
starts (``mariash_env.search.random_position``), split between suit games, betl and
durch; each is solved from its first card with ``solve`` (value, best move and
principal variation).  Prints mean / median / max time per deal and nodes per
second, overall and per contract (CPU time of this process, which is what the
solver costs; wall time is also shown: on a busy machine it is larger).  The first solve (numba
compilation or cache load) is not timed.

Then licitovaný mariáš (``--licit N``, default 10 deals of each of its twelve games,
``0`` skips it): deals drawn by ``random_licit_position`` (random auction below the
game, random fleks, trumps, helping suit and discards), solved from their first card,
mean / median / max CPU ms per game.

    .venv/bin/python scripts/bench_solver.py            # 200 deals: 100 suit, 50 betl, 50 durch
    .venv/bin/python scripts/bench_solver.py --n 50 --seed 7
    .venv/bin/python scripts/bench_solver.py --n 0 --licit 20   # licitovaný only
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.cli import ArgumentParser, nonnegative  # noqa: E402
from mariash_env.core.licit_games import GAME_IDS  # noqa: E402
from mariash_env.core.state import C_BETL, C_DURCH, C_SUIT, CONTRACT  # noqa: E402
from mariash_env.rules import make_rules  # noqa: E402
from mariash_env.search import random_position, solve  # noqa: E402
from mariash_env.search.licit_worlds import random_licit_position  # noqa: E402

NAMES = {C_SUIT: "suit", C_BETL: "betl", C_DURCH: "durch"}


def deals(n: int, seed: int) -> list[np.ndarray]:
    """``n`` deals at their first card: half suit games, a quarter each betl and durch."""
    n_suit = n // 2
    n_betl = (n - n_suit) // 2
    plan = [C_SUIT] * n_suit + [C_BETL] * n_betl + [C_DURCH] * (n - n_suit - n_betl)
    return [random_position(seed * 100003 + i, contract=con) for i, con in enumerate(plan)]


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=nonnegative(int), default=200,
                    help="number of deals (default 200, 0: none)")
    ap.add_argument("--seed", type=nonnegative(int), default=1,
                    help="seed of the deals drawn (default 1)")
    ap.add_argument("--no-pv", action="store_true", help="value and best move only")
    ap.add_argument("--licit", type=nonnegative(int), default=10,
                    help="licitovaný deals per game (default 10, 0: none)")
    args = ap.parse_args(argv)
    if args.n:
        bench_voleny(args)
    if args.licit:
        bench_licit(args)
    return 0


def _ms_line(name: str, cpu: np.ndarray, wall: np.ndarray, nodes: np.ndarray) -> str:
    t = cpu * 1e3
    return (f"{name:>20} {len(t):4d} deals  cpu ms: mean {t.mean():6.2f} median "
            f"{np.median(t):6.2f} max {t.max():7.2f}  (wall mean {wall.mean() * 1e3:6.2f})  "
            f"nodes/deal {nodes.mean():8.0f}  nodes/s {nodes.sum() / max(cpu.sum(), 1e-9):9.0f}")


def bench_licit(args: argparse.Namespace) -> None:
    """Licitovaný: ``args.licit`` whole deals of each game from the first card."""
    rules = make_rules(rules="licitovany")
    rv = rules.vector()
    per_game = {g: [random_licit_position(args.seed * 100003 + 1000 * g + i, game=g,
                                          rules=rules) for i in range(args.licit)]
                for g in range(1, 13)}
    solve(per_game[1][0], rv)  # compile / load the cache
    what = "value + best move" if args.no_pv else "value, best move, PV"
    print(f"licitovaný: solve() per whole deal ({what}); cpu = process time")
    allrows = []
    for g, positions in per_game.items():
        rows = []
        for st in positions:
            c0 = time.process_time()
            r = solve(st, rv, pv=not args.no_pv)
            rows.append((time.process_time() - c0, r.seconds, r.nodes))
        a = np.array(rows, dtype=np.float64)
        allrows.append(a)
        print(_ms_line(GAME_IDS[g - 1], a[:, 0], a[:, 1], a[:, 2]))
    a = np.concatenate(allrows)
    print(_ms_line("all", a[:, 0], a[:, 1], a[:, 2]))


def bench_voleny(args: argparse.Namespace) -> None:
    rv = make_rules().vector()
    positions = deals(args.n, args.seed)
    solve(positions[0], rv)  # compile / load the cache
    rows = []
    for st in positions:
        c0 = time.process_time()
        r = solve(st, rv, pv=not args.no_pv)
        rows.append((int(st[CONTRACT]), time.process_time() - c0, r.seconds, r.nodes))
    rows_arr = np.array(rows, dtype=np.float64)

    def line(name: str, sel: np.ndarray) -> str:
        t = rows_arr[sel, 1] * 1e3
        wall = rows_arr[sel, 2] * 1e3
        nodes = rows_arr[sel, 3]
        return (f"{name:>6} {int(sel.sum()):4d} deals  cpu ms: mean {t.mean():6.2f} median "
                f"{np.median(t):6.2f} max {t.max():7.2f}  (wall mean {wall.mean():6.2f})  "
                f"nodes/deal {nodes.mean():8.0f}  nodes/s {nodes.sum() / (t.sum() / 1e3):9.0f}")

    print(f"solve() per whole deal ({'value + best move' if args.no_pv else 'value, best move, PV'}"
          "); cpu = process time of the solving process")
    print(line("all", np.ones(len(rows), dtype=bool)))
    for con, name in NAMES.items():
        sel = rows_arr[:, 0] == con
        if sel.any():
            print(line(name, sel))


if __name__ == "__main__":
    raise SystemExit(main())
