"""Decision times of a searching robot: its construction, its first decision, its first
card-play decision and its slowest, over whole deals against table robots (issue #35).

    python scripts/bench_decisions.py --robot strong --deals 5
    python scripts/bench_decisions.py --robot pimc --rules licitovany --cold

``--cold`` runs on an empty numba cache (``NUMBA_CACHE_DIR`` set to a new temporary
folder before anything imports numba), as a fresh install or a new machine does; nobody's
cache is touched.  The robot plays seat 0 against the game's table robot in every other
seat; every decision it takes (forced ones included) is timed with ``perf_counter``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the checkout this script is in, not an installed copy
    sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    tmp = None
    if "--cold" in argv:  # before the parser's package (mariash_env) imports numba
        tmp = tempfile.TemporaryDirectory(prefix="mariash-numba-")
        os.environ["NUMBA_CACHE_DIR"] = tmp.name
    t0 = time.perf_counter()  # the package's import counts, as before the parser used it
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    p = ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    p.add_argument("--robot", default="strong", help="robot spec (make_robot)")
    p.add_argument("--rules", default="voleny", help="the game (default voleny)")
    p.add_argument("--deals", type=int, default=5, help="whole deals played (default 5)")
    p.add_argument("--seed", type=int, default=0,
                   help="the first deal's seed, the next deals' the ones after (default 0)")
    p.add_argument("--cold", action="store_true", help="empty numba cache")
    p.add_argument("--json", action="store_true", help="one JSON line")
    a = p.parse_args(argv)
    import numpy as np

    from mariash_env.arena import deal_states
    from mariash_env.core import state as S
    from mariash_env.playout import play_games
    from mariash_env.robots import make_robot
    from mariash_env.rules import make_rules

    t_import = time.perf_counter() - t0
    rules = make_rules(rules=a.rules)
    t0 = time.perf_counter()
    robot = make_robot(a.robot, rules=rules)
    t_build = time.perf_counter() - t0
    table = make_robot("table", rules=rules)
    times: list[tuple[float, bool]] = []
    inner = robot.act_view

    def timed(view):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        out = inner(view)
        times.append((time.perf_counter() - t, view.phase == S.PH_PLAY))
        return out

    robot.act_view = timed  # type: ignore[method-assign]
    t0 = time.perf_counter()
    for d in range(a.deals):
        seed = a.seed + d
        for r in (robot, table):
            r.begin_deal(seed)
        st = deal_states(np.array([seed]), np.array([d % rules.players]), rules)
        play_games([robot, table], st, np.array([[0] + [1] * (rules.players - 1)]), rules,
                   True)
    t_play = time.perf_counter() - t0
    dt = np.array([t for t, _ in times])
    play = [t for t, p in times if p]
    res = {
        "robot": a.robot, "rules": a.rules, "cold": a.cold, "deals": a.deals,
        "import_s": round(t_import, 2), "construct_s": round(t_build, 2),
        "first_s": round(float(dt[0]), 3), "first_play_s": round(play[0], 3) if play else None,
        "max_s": round(float(dt.max()), 3), "max_after_first_s": round(float(dt[1:].max()), 3)
        if len(dt) > 1 else None, "mean_s": round(float(dt.mean()), 4),
        "decisions": len(dt), "s_per_deal": round(t_play / a.deals, 2),
        "time_limit": getattr(robot, "time_limit", None),
    }
    from mariash_env import jsonio  # after the timed import

    print(jsonio.dumps(res) if a.json else "\n".join(f"{k}: {v}" for k, v in res.items()))
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
