"""Licitovaný PIMC, new settings against the old ones (issue #35): a duplicate match on
the same deals, every seating, with each robot's seconds per deal measured in the same
run (CPU seconds of its own decisions, ``time.thread_time``, and wall seconds).

    python scripts/licit_pimc_match.py --deals 200 --out runs/licit_pimc

``old`` is :class:`PIMCRobot` as it was before issue #35: no pruning (``race=0``), the
simulations played to the end by the table robot (``endgame=10``) and every table-robot
card of a simulation decoded with the observation check.  The check changes no move
(the new robot skips it because the observations are the encoder's own), so to save the
shared machine's time ``old`` decodes with it only in the first ``--timed`` deals, whose
seconds are its seconds per deal; its moves are the same in every deal.  ``new`` is
``pimc(race=R)`` (``--race``, default 4: the race measured in issue #35).  ``--out`` receives the
arena's ``deals.csv`` as deals finish and ``times.json`` after every deal, so a run cut short
still counts.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from mariash_env import jsonio
from mariash_env.arena import bootstrap_ci, duplicate_match
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.rules import make_rules

TIMES: dict[str, dict[str, float]] = {}


SEATINGS = 6  # of two robots in three seats: begin_deal calls per deal
TIMED = [10]  # deals in which old decodes with the check (--timed)
RACE = [4]  # new's race (--race)


class _Timed:
    """Adds the CPU and wall time of every ``act_view`` to ``TIMES[label]``, per deal."""

    label = ""
    played = 0  # begin_deal calls so far (not "games": the robot's games)

    def begin_deal(self, seed: int) -> None:
        super().begin_deal(seed)  # type: ignore[misc]
        self.played += 1

    def act_view(self, view: Any) -> int:
        t, c = time.perf_counter(), time.thread_time()
        a = super().act_view(view)  # type: ignore[misc]
        rec = TIMES.setdefault(self.label, {"cpu": {}, "wall": {}, "slowest": 0.0})
        d = str((self.played - 1) // SEATINGS)
        rec["cpu"][d] = rec["cpu"].get(d, 0.0) + time.thread_time() - c
        rec["wall"][d] = rec["wall"].get(d, 0.0) + time.perf_counter() - t
        rec["slowest"] = max(rec["slowest"], time.perf_counter() - t)
        return a


class OldPIMC(_Timed, PIMCRobot):
    label = "old"

    def __init__(self) -> None:
        super().__init__(race=0, endgame=10)

    def begin_deal(self, seed: int) -> None:
        super().begin_deal(seed)
        for r in self._rollouts.values():  # as every card was decoded before
            r.licit_table.check = self.played <= TIMED[0] * SEATINGS

    def _rollout(self, rules: Any, solver: Any, from_trick: int = 0) -> Any:
        r = super()._rollout(rules, solver, from_trick)
        r.licit_table.check = self.played <= TIMED[0] * SEATINGS
        return r


class NewPIMC(_Timed, PIMCRobot):
    label = "new"

    def __init__(self) -> None:
        super().__init__(race=RACE[0])


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=200,
                   help="duplicate deals of the match (default 200)")
    p.add_argument("--seed", type=int, default=35, help="the decks' seed (default 35)")
    p.add_argument("--out", type=Path, required=True,
                   help="folder of the arena's deals.csv and of times.json")
    p.add_argument("--timed", type=int, default=10,
                   help="deals in which old runs as before (its seconds per deal)")
    p.add_argument("--race", type=int, default=4, help="new's race (pimc(race=...))")
    a = p.parse_args(argv)
    TIMED[0] = a.timed
    RACE[0] = a.race
    a.out.mkdir(parents=True, exist_ok=True)

    def factory(cls: type) -> Any:
        def make() -> Any:
            return cls()
        return make

    class Tick(NewPIMC):  # writes times.json as each deal ends (begin_deal of the next)
        def begin_deal(self, seed: int) -> None:
            super().begin_deal(seed)
            (a.out / "times.json").write_text(jsonio.dumps({"timed": TIMED[0], **TIMES}))

    res = duplicate_match({"new": factory(Tick), "old": factory(OldPIMC)}, deals=a.deals,
                          seed=a.seed, jobs=1, rules=make_rules(rules="licitovany"),
                          out=a.out, progress=False)
    (a.out / "times.json").write_text(jsonio.dumps({"timed": TIMED[0], **TIMES}))
    print(summary(a.out))
    del res
    return 0


def summary(out: Path) -> str:
    """The paired difference new - old per deal (desetníky, bootstrap CI) and each
    robot's seconds per deal, from ``deals.csv`` and ``times.json`` of ``out``."""
    import csv

    rows = list(csv.DictReader((out / "deals.csv").open()))
    d = np.array([float(r["new"]) - float(r["old"]) for r in rows])
    lo, hi = bootstrap_ci(d)
    t = jsonio.read(out / "times.json")
    done = [r["deal"] for r in rows]
    timed = [i for i in done if int(i) < t["timed"]]
    lines = [f"deals {len(rows)}: new - old {d.mean():+.2f} [{lo:+.2f}, {hi:+.2f}] "
             "desetníky a deal per seat (the deal's mean over its six seatings)"]

    def per(k: str, what: str, deals: list[str]) -> float:
        return sum(t[k][what].get(i, 0.0) for i in deals) / max(len(deals), 1)

    for k in ("new", "old"):
        lines.append(f"{k}: in the first {len(timed)} deals {per(k, 'cpu', timed):.2f} CPU s "
                     f"/ {per(k, 'wall', timed):.2f} wall s per deal (all its seats, six "
                     f"seatings); slowest decision {t[k]['slowest']:.2f} s")
    lines.append(f"old / new: {per('old', 'cpu', timed) / per('new', 'cpu', timed):.2f}x CPU, "
                 f"{per('old', 'wall', timed) / per('new', 'wall', timed):.2f}x wall "
                 f"(over all {len(done)} deals new {per('new', 'cpu', done):.2f} CPU s a deal)")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--summary":
        print(summary(Path(sys.argv[2])))
        sys.exit(0)
    sys.exit(main())
