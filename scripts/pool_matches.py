"""Pool saved arena matches: each robot's groše per deal and the pairwise differences over
all their deals together, with 95% bootstrap CIs.

A long match is best played in parts (several seeds, several sessions); each part's
``deals.csv`` (``python -m mariash_env.arena --out DIR``) holds every deal's result per
robot, averaged over its seatings, so the parts pool exactly: the pooled figure is the
one a single match over all their deals would print.

    .venv/bin/python scripts/pool_matches.py runs/m_strong_pimc41 runs/m_strong_pimc3
    .venv/bin/python scripts/pool_matches.py runs/m_a runs/m_b --out runs/m_pooled

``--out DIR`` also writes the pooled match as the arena writes one
(:meth:`mariash_env.arena.MatchResult.save`: ``deals.csv``, ``summary.csv``,
``pairwise.csv``), so ``scripts/plot_matches.py`` draws the pooled match as one bar.

The matches must have the same robots in the same order (``--rename`` pools them by
position under the first match's names, for one robot written two ways) and no deal in
common (a deal seed seen twice would count twice).  A robot is known by its spec as the
arena's ``--robots`` gave it, so ``strong`` or ``net`` alone names whatever network the
game's preset had when the part was played: parts naming one pool with a note on
stderr (play parts meant for pooling as ``strong(model='models/...onnx')`` or
``onnx:models/...onnx``).

``--paired B...`` compares two pooled matches played on the same deals (the same
``--seed`` and count), e.g. two versions of a robot each against the table robot: for
each pair of positions, the difference (a - b in the first) - (a - b in the second) per
deal, matched by deal seed, with the arena's bootstrap CI.  What the two matches share
on a deal cancels, so the CI is narrower than that of the two figures apart (by the
correlation of their per-deal differences: about 1.5x for two networks against the table
robot), though not necessarily narrower than either match's own.

    .venv/bin/python scripts/pool_matches.py runs/arena/new_table_11 \\
        --paired runs/arena/old_table_11
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.arena import MatchResult  # noqa: E402
from mariash_env.cli import ArgumentParser, UnwritableError, check_writable  # noqa: E402
from mariash_env.games.registry import games  # noqa: E402
from mariash_env.robots import parse_spec  # noqa: E402


class PoolError(ValueError):
    """Matches that cannot be pooled, or a deals.csv that cannot be read."""


def read_deals(path: str | Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(robot names, deal seeds int64[n], per-deal groše float64[n, robots])`` of a
    match directory (or its ``deals.csv``)."""
    p = Path(path)
    try:  # is_dir() too raises for a path the system refuses (e.g. a name too long)
        if p.is_dir():
            p = p / "deals.csv"
        with open(p, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise PoolError(f"cannot read {p}: {e.strerror or e}") from None
    if not rows or rows[0][:2] != ["deal", "seed"] or len(rows[0]) < 3:
        raise PoolError(f"{p} is not an arena deals.csv: expected the header "
                        "deal,seed,<robot>,...")
    names = rows[0][2:]
    seeds, vals = [], []
    for k, r in enumerate(rows[1:], start=2):
        try:
            if len(r) != len(names) + 2:
                raise ValueError(f"{len(r)} fields, expected {len(names) + 2}")
            seeds.append(int(r[1]))
            vals.append([float(x) for x in r[2:]])
        except ValueError as e:
            raise PoolError(f"{p} line {k} is malformed: {e}") from None
    if not seeds:
        raise PoolError(f"{p} holds no deals")
    return names, np.array(seeds, np.int64), np.array(vals, np.float64)


def pool(paths: list[str | Path], rename: bool = False) -> tuple[list[str], np.ndarray]:
    """The first match's robot names and every match's per-deal rows stacked (sorted by
    deal seed, as :func:`pool_deals`)."""
    names, _, vals = pool_deals(paths, rename)
    return names, vals


def pool_deals(paths: list[str | Path],
               rename: bool = False) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(robot names, deal seeds, per-deal rows)`` of every match stacked, as
    :func:`read_deals` gives them for one, sorted by deal seed: the pooled figures do
    not depend on the order of the matches (or of their rows)."""
    if not paths:
        raise PoolError("no match to pool")
    names, seeds, vals = read_deals(paths[0])
    all_seeds, all_vals = [seeds], [vals]
    for p in paths[1:]:
        n, s, v = read_deals(p)
        if n != names and not (rename and len(n) == len(names)):
            raise PoolError(f"{p} has the robots {n}, {paths[0]} has {names}: pool the "
                            "same robots in the same order (--rename pools by position)")
        all_seeds.append(s)
        all_vals.append(v)
    seeds = np.concatenate(all_seeds)
    uniq, counts = np.unique(seeds, return_counts=True)
    if (counts > 1).any():
        raise PoolError(f"{int((counts > 1).sum())} deal seed(s) appear in more than one "
                        f"match (e.g. {int(uniq[counts > 1][0])}): each deal may count once")
    # The rows by deal seed (unique here): the bootstrap resamples row indices, so rows in
    # the order the files were given would make the CI depend on that order (a glob puts
    # seed97 after seed126).  A match's own seeds grow with its deal index, so one match
    # keeps the arena's order and figures.
    order = np.argsort(seeds, kind="stable")
    return names, seeds[order], np.concatenate(all_vals)[order]


PRESETS = ("net", "strong")
"""Robots that stand for the network (and settings) their game names at the time: the
same name is another robot after the game's preset changes (licitovaný's ``strong`` took
``robot_licitovany_actor_table3.onnx`` on 2026-12-04)."""


def bare_presets(names: list[str]) -> list[str]:
    """The robot names of ``names`` that are a preset (:data:`PRESETS`) without a model."""
    out = []
    for n in names:
        try:
            base, kw = parse_spec(n)
        except ValueError:  # not a spec (a name the arena numbered, ``table#2``): no preset
            continue
        if base in PRESETS and "model" not in kw:
            out.append(n)
    return out


def game_of_units(units: str) -> str | None:
    """The registered game whose scores are counted in ``units`` (None: no game's)."""
    return next((k.name for k in games() if k.units == units), None)


def pooled_result(names: list[str], seeds: np.ndarray, vals: np.ndarray,
                  rules: str = "voleny") -> MatchResult:
    """The pooled deals as the arena's :class:`MatchResult` of the game ``rules``, so that
    its means, CIs and pairs are the arena's own (the same bootstrap resamples) and it
    saves as an arena directory.  The per-game outcomes are not in deals.csv, so it has
    no per-seat statistics, contracts or company split."""
    return MatchResult(names=names, seatings=[], per_deal=vals, seeds=seeds,
                       stats=[{} for _ in names], rules=rules)


POOLED = ("deals.csv", "summary.csv", "pairwise.csv")


def check_out(out: Path, matches: list[str | Path], units: str) -> None:
    """Refuse an ``--out`` that would overwrite an input or sit beside files of another
    match (an arena directory's company.csv, contracts.csv, ...), or ``units`` that are
    no game's (summary.csv's column names them), before any work."""
    if game_of_units(units) is None:
        raise PoolError(f"--out needs a game's units, one of "
                        f"{sorted({k.units for k in games()})}; got {units!r}")

    def where(p: Path) -> Path:
        return (p if p.is_dir() or p.suffix != ".csv" else p.parent).resolve()
    if out.exists() and not out.is_dir():
        raise UnwritableError(f"cannot write into {out}: not a directory")
    if out.resolve() in {where(Path(m)) for m in matches}:
        raise UnwritableError(f"--out {out} is one of the matches pooled: give a new directory")
    other = sorted(p.name for p in out.iterdir() if p.name not in POOLED) if out.is_dir() else []
    if other:
        raise UnwritableError(f"--out {out} holds other files ({', '.join(other[:4])}): give "
                              "an empty or new directory")
    check_writable(out / "pairwise.csv")


def paired(first: tuple[list[str], np.ndarray, np.ndarray],
           second: tuple[list[str], np.ndarray, np.ndarray]
           ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Each pair of positions' difference between two matches on their common deals:
    rows ``{"a", "b", "a2", "b2", "diff", "ci_low", "ci_high", "significant"}`` with
    ``diff`` the mean over the deals of ``(a - b) - (a2 - b2)`` (``a``, ``b`` the first
    match's robots, ``a2``, ``b2`` the second's at the same positions); and the counts
    ``{"deals", "only_first", "only_second"}``.  The pairs are the arena's own
    (:meth:`~mariash_env.arena.MatchResult.pairwise`, its bootstrap and seeds) over the
    per-deal differences robot by robot, ``a - a2``: their pair ``a, b`` is
    ``(a - a2) - (b - b2)``, the same figure."""
    (na, sa, va), (nb, sb, vb) = first, second
    if len(na) != len(nb):
        raise PoolError(f"--paired: the first match has {len(na)} robots ({na}), the "
                        f"second {len(nb)} ({nb}): pair matches of as many robots")
    common, ia, ib = np.intersect1d(sa, sb, assume_unique=True, return_indices=True)
    if not len(common):
        raise PoolError("--paired: the two matches have no deal seed in common: play both "
                        "on the same deals (the same --seed and --deals)")
    res = pooled_result(list(na), common, va[ia] - vb[ib])
    second_name = dict(zip(na, nb))
    rows = [{"a": p["robot_a"], "b": p["robot_b"], "a2": second_name[p["robot_a"]],
             "b2": second_name[p["robot_b"]],
             **{k: p[k] for k in ("diff", "ci_low", "ci_high", "significant")}}
            for p in res.pairwise()]
    return rows, {"deals": len(common), "only_first": len(sa) - len(common),
                  "only_second": len(sb) - len(common)}


def paired_table(rows: list[dict[str, Any]], counts: dict[str, int],
                 units: str = "groše") -> list[str]:
    """:func:`paired`'s figures as printed lines."""
    lines = [f"paired on {counts['deals']} deals in both matches ({counts['only_first']} "
             f"only in the first, {counts['only_second']} only in the second), "
             f"{units} per deal:"]
    for r in rows:
        star = " *" if r["significant"] else ""
        lines.append(f"  ({r['a']} - {r['b']}) - ({r['a2']} - {r['b2']}): {r['diff']:+.3f} "
                     f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]{star}")
    return lines


def table(res: MatchResult, units: str = "groše") -> list[str]:
    """Per-robot means and pairwise differences (a - b) with 95% bootstrap CIs (those of
    one match are the arena's own, up to the rounding of deals.csv), in the game's
    ``units`` (deals.csv does not name them)."""
    lines = [f"pooled: {res.deals} deals"]
    lo, hi = res.ci()
    for i, (name, mean) in enumerate(zip(res.names, res.means())):
        lines.append(f"  {name:<36}{mean:>+9.3f}  [{lo[i]:+.3f}, {hi[i]:+.3f}]")
    lines.append(f"pairwise differences (a - b, {units} per deal):")
    for p in res.pairwise():
        star = " *" if p["significant"] else ""
        lines.append(f"  {p['robot_a']} - {p['robot_b']}: {p['diff']:+.3f} "
                     f"[{p['ci_low']:+.3f}, {p['ci_high']:+.3f}]{star}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matches", nargs="+", help="arena --out directories (or deals.csv files)")
    ap.add_argument("--rename", action="store_true",
                    help="pool robots by position under the first match's names")
    ap.add_argument("--units", default="groše",
                    help="the game's units, for the printout (licitovaný: desetníky)")
    ap.add_argument("--out", type=Path, metavar="DIR",
                    help="also write the pooled match there as an arena directory")
    ap.add_argument("--paired", nargs="+", metavar="MATCH",
                    help="a second match (or parts to pool) on the same deals: print each "
                         "pair's difference between the two, deal by deal")
    args = ap.parse_args(argv)
    if args.paired and args.out is not None:
        ap.error("--out writes one pooled match; --paired compares two: give one of them")
    try:
        if args.out is not None:  # the output before the inputs are read
            check_out(args.out, args.matches, args.units)
        names, seeds, vals = pool_deals(args.matches, args.rename)
        pooled = [(args.matches, names)]
        if args.paired:
            second = pool_deals(args.paired, args.rename)
            pooled.append((args.paired, second[0]))
            rows, counts = paired((names, seeds, vals), second)
    except (PoolError, UnwritableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for parts, ns in pooled:  # a warning, not a refusal: one session's parts pool fine
        for n in bare_presets(ns) if len(parts) > 1 else []:
            print(f"note: {n!r} is the game's preset as it was when each part was played, "
                  "not one network: parts played before and after the preset changed would "
                  f"pool as one robot (play parts as {n}(model='models/...onnx'))",
                  file=sys.stderr)
    if args.paired:
        print("\n".join(paired_table(rows, counts, args.units)))
        return 0
    res = pooled_result(names, seeds, vals, game_of_units(args.units) or "voleny")
    print("\n".join(table(res, args.units)))
    if args.out is not None:
        res.save(args.out, plot=False)
        print(f"saved: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
