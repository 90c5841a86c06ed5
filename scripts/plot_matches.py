"""One chart of several head-to-head arena matches: the paired difference (robot a − robot b,
the game's units per deal, 95% bootstrap interval) of each match.

``python scripts/plot_matches.py -o docs/robot_matches.png runs/m1 runs/m2 ...`` where each
directory is the ``--out`` of a ``python -m mariash_env.arena --robots A,B`` match (its first
pair is plotted; ``--label DIR=TEXT`` names a bar).

``--csv docs/robot_matches.csv`` keeps the matches in a committed table, since ``runs/``
does not outlive a machine: the directories given are added to it (a row with the same
label is replaced) and the chart shows every row of the table.  Also prints the rows as a
markdown table for the docs (docs/robots.md, docs/research/distillation.md).  ``--units``
names the game's units (volený's groše by default; licitovaný's table is
``docs/licitovany_matches.csv``, in desetníky).

    python scripts/plot_matches.py --csv docs/robot_matches.csv -o docs/robot_matches.png \\
        runs/m_new --label "runs/m_new=robot_x − table" --seed runs/m_new=11
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.atomic import atomic_open  # noqa: E402
from mariash_env.cli import ArgumentParser, UnwritableError, check_writable, path_error  # noqa: E402
from mariash_env.textfile import NotUtf8Error, read_text  # noqa: E402

FIELDS = ("label", "robot_a", "robot_b", "deals", "seed", "diff", "ci_low", "ci_high")


def _rows(path: Path) -> list[dict[str, str]]:
    """The rows of the CSV file at ``path`` (UTF-8, a byte-order mark first left out, a
    quoted field as written: :func:`mariash_env.textfile.read_text`); ValueError naming
    the file where it is not UTF-8 text."""
    try:
        return list(csv.DictReader(io.StringIO(read_text(path, newline=""), newline="")))
    except NotUtf8Error as e:
        raise ValueError(f"{path}: {e}") from None


def read_pair(d: Path) -> dict[str, str]:
    """The first pair of an arena match directory (``pairwise.csv``, ``summary.csv``)."""
    p = d / "pairwise.csv"
    if not p.is_file():
        raise FileNotFoundError(f"{d} has no pairwise.csv: is it the --out of an arena match?")
    rows = _rows(p)
    if not rows:
        raise ValueError(f"{p} holds no pair")
    row = rows[0]
    summary = _rows(d / "summary.csv")
    if not summary:  # StopIteration out of main before
        raise ValueError(f"{d / 'summary.csv'} holds no row")
    row["deals"] = summary[0]["deals"]
    return row


def read_table(path: Path) -> list[dict[str, str]]:
    """The rows of a match table (``FIELDS``); ValueError naming a malformed row."""
    if not path.is_file():
        return []
    rows = _rows(path)
    for i, r in enumerate(rows, 2):
        missing = [k for k in FIELDS if k not in r]
        if missing:
            raise ValueError(f"{path}: columns {missing} missing, expected {list(FIELDS)}")
        try:
            lo, mid, hi = (float(r[k]) for k in ("ci_low", "diff", "ci_high"))
        except ValueError:
            raise ValueError(f"{path} line {i}: diff / ci_low / ci_high must be numbers, "
                             f"got {r['diff']!r}, {r['ci_low']!r}, {r['ci_high']!r}") from None
        if not (lo <= mid <= hi) or any(map(math.isnan, (lo, mid, hi))):
            raise ValueError(f"{path} line {i}: expected ci_low <= diff <= ci_high, got "
                             f"{lo}, {mid}, {hi}")
    return rows


def write_table(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def merge(rows: list[dict[str, str]], new: list[dict[str, str]]) -> list[dict[str, str]]:
    """``rows`` with each of ``new`` replacing the row of its label, or appended."""
    out = list(rows)
    for r in new:
        at = [i for i, o in enumerate(out) if o["label"] == r["label"]]
        if at:
            out[at[0]] = r
        else:
            out.append(r)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", type=Path,
                    help="the --out folders of arena matches to add (their first pair)")
    ap.add_argument("-o", "--out", type=Path, required=True, help="the PNG to write")
    ap.add_argument("--csv", type=Path, help="the match table to add to and to draw")
    ap.add_argument("--label", action="append", default=[], metavar="DIR=TEXT",
                    help="the bar's name of the match in DIR (repeatable)")
    ap.add_argument("--seed", action="append", default=[], metavar="DIR=SEED",
                    help="the arena seed of a match, kept in the table")
    ap.add_argument("--title", default="head to head, duplicate deals (95% CI)",
                    help="the chart's title")
    ap.add_argument("--units", default="groše",
                    help="the game's units, for the axis and the table (licitovaný: desetníky)")
    args = ap.parse_args(argv)
    odd = [x for x in args.label + args.seed if "=" not in x]
    if odd:
        print(f"error: --label and --seed take DIR=VALUE, got {odd}", file=sys.stderr)
        return 2
    labels = dict(x.split("=", 1) for x in args.label)
    seeds = dict(x.split("=", 1) for x in args.seed)
    try:
        for out in (args.out, args.csv):  # the outputs before the inputs are read
            if out is not None:
                check_writable(out)
        new = []
        for d in args.dirs:
            p = read_pair(d)
            new.append({**p, "label": labels.get(str(d)) or f"{p['robot_a']} − {p['robot_b']}",
                        "seed": seeds.get(str(d), "")})
        rows = merge(read_table(args.csv), new) if args.csv else new
    except (UnwritableError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # an input the system refuses (missing, a name too long, …)
        print(f"error: {path_error(e, 'read')}", file=sys.stderr)
        return 2
    if not rows:
        print("error: no match to draw: give arena directories or a --csv table with rows",
              file=sys.stderr)
        return 2
    if args.csv and new:
        write_table(args.csv, rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["label"] for r in rows]
    diff = [float(r["diff"]) for r in rows]
    lo = [d - float(r["ci_low"]) for d, r in zip(diff, rows)]
    hi = [float(r["ci_high"]) - d for d, r in zip(diff, rows)]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.4))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, diff, xerr=[lo, hi], color=["tab:green" if d > 0 else "tab:red" for d in diff],
            capsize=4, alpha=0.8)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, names)
    ax.set_xlabel(f"{args.units} per deal (robot a − robot b)")
    ax.set_title(args.title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"| match | deals | {args.units} per deal (a − b) | 95% CI |")
    print("| --- | ---: | ---: | --- |")
    for r in rows:
        print(f"| {r['label']} | {r['deals']} | {float(r['diff']):+.2f} | "
              f"[{float(r['ci_low']):+.2f}, {float(r['ci_high']):+.2f}] |")
    print(f"saved: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
