"""How much lízaný's exact solver searches, and how long lízaný's searching robots take a
decision (figures for docs/robots.md and the solver's docstring).

    python -m scripts.lizany_solve_stats [--deals 100] [--robot-deals 30]

Part one: deals played by the rule robot to the end of trick ``k`` (k = 8: the stock just
gone, the deal open; 7, 6: one and two stock tricks left, the world as dealt), then
``solve_values`` (every legal card's exact value) and ``solve_best`` timed; positions
searched and milliseconds, mean and largest.  Part two: the time of every decision of
``strong`` and ``pimc`` over whole deals against the rule robot: mean, 99th percentile,
largest, and the largest against the robot's ``time_limit``.
"""

from __future__ import annotations

import time

import numpy as np

from mariash_env.games.lizany.core import TRICK_NO
from mariash_env.games.lizany.game import LizanyGame
from mariash_env.games.lizany.solve import NO_LIMIT, new_table, solve_best, solve_values, warm_up
from mariash_env.robots import make_robot


def _to_trick(seed: int, k: int, rule) -> LizanyGame:
    g = LizanyGame(seed=seed)
    while g.st[TRICK_NO] < k:
        s = g.to_move
        g.play(int(rule.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)})))
    return g


def solver_table(deals: int) -> None:
    rule = make_robot("table", rules="lizany")
    stats, out = np.zeros(1, np.int64), np.zeros(32, np.int64)
    print(f"solver, {deals} deals played by the rule robot (positions searched, ms; each "
          "solve with an empty table):")
    for k in (8, 7, 6):
        rows = {"values": ([], []), "best": ([], [])}
        for seed in range(deals):
            g = _to_trick(seed, k, rule)
            for what, (nodes, ms) in rows.items():
                tt = new_table()  # nothing learnt from another solve
                stats[0] = 0
                t = time.perf_counter()
                if what == "values":
                    solve_values(g.st, out, tt, stats, NO_LIMIT)
                else:
                    solve_best(g.st, -1, tt, stats, NO_LIMIT)
                ms.append(1e3 * (time.perf_counter() - t))
                nodes.append(int(stats[0]))
        line = "  ".join(f"{what}: {np.mean(n):,.0f} (max {max(n):,}) {np.mean(m):.2f} ms "
                         f"(max {max(m):.2f})" for what, (n, m) in rows.items())
        print(f"  from trick {k + 1} ({16 - k} tricks left): {line}")


def robot_times(deals: int) -> None:
    print(f"robots' decisions, {deals} deals against the rule robot in both seats:")
    rule = make_robot("table", rules="lizany")
    for spec in ("strong", "pimc"):
        bot = make_robot(spec, rules="lizany")
        times = []
        for seed in range(deals):
            for seat in (0, 1):
                g = LizanyGame(seed=seed)
                bot.begin_deal(seed)
                while not g.over:
                    s = g.to_move
                    obs = {"observation": g.observe(s), "action_mask": g.legal_mask(s)}
                    if s == seat:
                        t = time.perf_counter()
                        a = bot.act(obs)
                        times.append(1e3 * (time.perf_counter() - t))
                    else:
                        a = rule.act(obs)
                    g.play(int(a))
        t = np.array(times)
        print(f"  {spec}: {len(t)} decisions, mean {t.mean():.2f} ms, p99 "
              f"{np.percentile(t, 99):.1f} ms, largest {t.max():.1f} ms (time_limit "
              f"{bot.time_limit * 1e3:.0f} ms)")


def main() -> None:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=100,
                   help="deals of the solver's part, each solved after tricks 8, 7 and 6 "
                        "(default 100)")
    p.add_argument("--robot-deals", type=int, default=30,
                   help="deals of the robots' part, each robot in both seats (default 30)")
    a = p.parse_args()
    print(f"solver compiled or loaded in {warm_up():.1f} s")
    solver_table(a.deals)
    robot_times(a.robot_deals)


if __name__ == "__main__":
    main()
