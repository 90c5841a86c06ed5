"""One chart of several head-to-head arena matches: the paired difference (robot a − robot b,
groše per deal, 95% bootstrap interval) of each match's ``pairwise.csv``.

``python scripts/plot_matches.py -o docs/robot_matches.png runs/m1 runs/m2 ...`` where each
directory is the ``--out`` of a ``python -m mariash_env.arena --robots A,B`` match (its first
pair is plotted; ``--label DIR=TEXT`` renames a bar).  Also prints the rows as a markdown
table for the README.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path


def read_pair(d: Path) -> dict[str, str]:
    p = d / "pairwise.csv"
    if not p.is_file():
        raise FileNotFoundError(f"{d} has no pairwise.csv: is it the --out of an arena match?")
    with open(p, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError(f"{p} holds no pair")
    row = rows[0]
    with open(d / "summary.csv", encoding="utf-8") as f:
        row["deals"] = next(csv.DictReader(f))["deals"]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("-o", "--out", type=Path, required=True, help="the PNG to write")
    ap.add_argument("--label", action="append", default=[], metavar="DIR=TEXT")
    ap.add_argument("--title", default="head to head, duplicate deals (95% CI)")
    args = ap.parse_args(argv)
    labels = dict(x.split("=", 1) for x in args.label)
    try:
        pairs = [(labels.get(str(d)), read_pair(d)) for d in args.dirs]
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [lab or f"{p['robot_a']} − {p['robot_b']}" for lab, p in pairs]
    diff = [float(p["diff"]) for _, p in pairs]
    lo = [float(p["diff"]) - float(p["ci_low"]) for _, p in pairs]
    hi = [float(p["ci_high"]) - float(p["diff"]) for _, p in pairs]
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(pairs) + 1.4))
    y = list(range(len(pairs)))[::-1]
    ax.barh(y, diff, xerr=[lo, hi], color=["tab:green" if d > 0 else "tab:red" for d in diff],
            capsize=4, alpha=0.8)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, names)
    ax.set_xlabel("groše per deal (robot a − robot b)")
    ax.set_title(args.title)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print("| match | deals | groše per deal (a − b) | 95% CI |")
    print("| --- | ---: | ---: | --- |")
    for name, (_, p) in zip(names, pairs):
        print(f"| {name} | {p['deals']} | {float(p['diff']):+.2f} | "
              f"[{float(p['ci_low']):+.2f}, {float(p['ci_high']):+.2f}] |")
    print(f"saved: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
