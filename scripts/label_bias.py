"""How far a bidding label set's values lie from the real deals' (issue #35).

A bidding label (:mod:`training.pimc_labels` ``--phase bidding``) values each legal
action over worlds drawn uniformly from the seat's knowledge.  Every row also holds the
real state, so the same action can be valued in the real deal too: applied to it and
played out by the game's table robot, PIMC's own simulation (the generator's
``label_bidding`` with ``deal=True``, as ``--worlds-from deal`` labels).  Over many rows the real
deals' mean is the value under the true posterior of the set's behaviour policy; a gap
between the two means is the bias of the uniform worlds.

For the flek decisions (licitovaný and volený) the table splits the rows by side
(defender, actor) and by the highest level already reached, and prints per group the
mean label and the mean real-deal value of ``good`` (no raise) and of the first legal
flek, and how often the label ranks a flek above ``good``:

    .venv/bin/python scripts/label_bias.py runs/licit/bid_labels --rows 2000

Measured on the licitovaný recipe's ``bid_labels`` (uniform worlds, ``--rows 1500``): a
defender's ``good`` before any flek is worth +26.8 desetníky in the labels and +7.7 in
the real deals, and a flek +36.1 against +11.0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.core import state as S  # noqa: E402
from mariash_env.kinds import kind_of  # noqa: E402
from mariash_env.robots.pimc import PIMCRobot  # noqa: E402
from mariash_env.rules import make_rules  # noqa: E402
from training.pimc_labels import (  # noqa: E402
    label_bidding,
    read_settings,
    read_shards,
    shard_files,
)


def flek_actions(kind_name: str) -> tuple[list[int], int]:
    """The game's flek actions and its ``good``, by their labels (INTERFACE.md)."""
    labels = kind_of(kind_name).labels
    fleks = [a for a, n in enumerate(labels) if n.startswith("flek")]
    return fleks, labels.index("good")


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", help="a bidding label directory")
    ap.add_argument("--rows", type=int, default=2000, help="flek rows looked at, at most")
    args = ap.parse_args(argv)
    settings = read_settings(Path(args.labels))
    if settings["phase"] != "bidding":
        print(f"error: {args.labels} is a {settings['phase']!r} set; expected a bidding "
              "set", file=sys.stderr)
        return 2
    rules = make_rules(**settings["rules"])
    rows = read_shards(args.labels, shard_files(args.labels))
    fleks, good = flek_actions(kind_of(rules).name)
    pimc = PIMCRobot(worlds=1)
    st_all, seats, masks, values = rows["state"], rows["seat"], rows["mask"], rows["value"]
    pick = np.flatnonzero(st_all[:, S.PHASE] == S.PH_FLEK)[:args.rows]
    print(f"{args.labels}: {settings['game']}, worlds_from {settings['worlds_from']}, "
          f"{len(pick)} flek rows")
    print(f"{'side':8s} {'level':>5s} {'rows':>5s} | {'good: label':>11s} {'real':>6s} | "
          f"{'flek: label':>11s} {'real':>6s} | flek ranked first")
    out: dict[tuple[str, int], list[list[float]]] = {}
    for i in pick:
        st, seat = st_all[i], int(seats[i])
        legal = [a for a in fleks if masks[i, a]]
        if not legal or not masks[i, good]:
            continue
        in_deal = label_bidding(st, seat, rules, 1, None, pimc, deal=True)
        real = [in_deal[good], in_deal[legal[0]]]
        side = "actor" if int(st[S.ACTOR]) == seat else "defender"
        level = int(st[S.BET_LEVEL:S.BET_LEVEL + 4].max())
        best = max(values[i, a] for a in legal)
        out.setdefault((side, level), []).append(
            [values[i, good], real[0], values[i, legal[0]], real[1], best > values[i, good]])
    for (side, level), v in sorted(out.items()):
        m = np.asarray(v, dtype=float)
        print(f"{side:8s} {level:5d} {len(m):5d} | {m[:, 0].mean():+11.1f} {m[:, 1].mean():+6.1f}"
              f" | {m[:, 2].mean():+11.1f} {m[:, 3].mean():+6.1f} | {m[:, 4].mean():.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
