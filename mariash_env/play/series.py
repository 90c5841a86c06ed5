"""The seed-001 series table over saved parties.

Seed 001: "Týdenní a měsíční žebříček je série: součet tvých 3 (týden), resp. 5 (měsíc)
nejlepších partií. V pořadí jsi hned od první partie — dokud jich tolik nemáš, chybějící
se počítají nulou. Při shodě je výš ten, kdo v období odehrál víc partií, pak ten, kdo
v započtených partiích víckrát vyhrál hru jako aktér."  A partie's score is the groše it
won at the table, flek included (RULES.md §10); equal rows share a place.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BEST = {"week": 3, "month": 5}


def period_of(when: str, period: str) -> str:
    """The week (``2026-W48``, ISO) or month (``2026-11``) of an ISO timestamp."""
    t = dt.datetime.fromisoformat(when)
    if period == "week":
        y, w, _ = t.isocalendar()
        return f"{y}-W{w:02d}"
    if period == "month":
        return f"{t.year}-{t.month:02d}"
    raise ValueError(f"unknown period {period!r}: expected 'week' or 'month'")


def load_parties(save_dir: str | Path, rules: str | None = None) -> list[dict[str, Any]]:
    """The finished parties' summaries (``*.json`` beside the records) in ``save_dir``;
    with ``rules``, only that game's (a summary without ``rules`` is volený's)."""
    out = []
    for p in sorted(Path(save_dir).glob("*.json")):
        try:
            meta = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a partie summary: the table skips it rather than failing
        if isinstance(meta, dict) and meta.get("complete") and "players" in meta and \
                rules in (None, meta.get("rules", "voleny")):
            out.append(meta)
    return out


def series_table(parties: Iterable[dict[str, Any]], period: str, key: str) -> list[dict[str, Any]]:
    """Rows ``{place, name, total, parties, wins, counted}`` of the series ``period``
    (week or month) ``key``, best first.  Each partie summary holds ``finished`` (ISO
    time) and ``players``: ``[{name, score, actor_wins}]``."""
    best = BEST[period]
    per: dict[str, list[tuple[int, int]]] = {}
    for meta in parties:
        if period_of(meta["finished"], period) != key:
            continue
        for pl in meta["players"]:
            per.setdefault(pl["name"], []).append((int(pl["score"]), int(pl["actor_wins"])))
    rows = []
    for name, games in per.items():
        # The best `best` parties; for equal scores the one with more actor wins counts
        # (it is the better partie for the tie-break too).
        counted = sorted(games, key=lambda g: (-g[0], -g[1]))[:best]
        rows.append({
            "name": name,
            "total": sum(s for s, _ in counted),  # missing parties count as zero
            "parties": len(games),
            "wins": sum(w for _, w in counted),
            "counted": [s for s, _ in counted],
        })
    rows.sort(key=lambda r: (-r["total"], -r["parties"], -r["wins"], r["name"]))
    for i, r in enumerate(rows):
        prev = rows[i - 1] if i else None
        same = prev is not None and all(prev[k] == r[k] for k in ("total", "parties", "wins"))
        r["place"] = prev["place"] if same else i + 1
    return rows


def series_tables(save_dir: str | Path, now: dt.datetime | None = None,
                  rules: str | None = None) -> dict[str, Any]:
    """This week's and this month's tables over the parties saved in ``save_dir`` (with
    ``rules``, that game's only: groše and desetníky do not add up)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    parties = load_parties(save_dir, rules)
    out: dict[str, Any] = {}
    for period in ("week", "month"):
        key = period_of(now.isoformat(), period)
        out[period] = {"key": key, "best": BEST[period],
                       "rows": series_table(parties, period, key)}
    return out
