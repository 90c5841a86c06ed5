"""The seed-001 series table over saved parties.

The online table: "Týdenní a měsíční žebříček je série: součet tvých 3 (týden), resp. 5 (měsíc)
nejlepších partií. V pořadí jsi hned od první partie — dokud jich tolik nemáš, chybějící
se počítají nulou. Při shodě je výš ten, kdo v období odehrál víc partií, pak ten, kdo
v započtených partiích víckrát vyhrál hru jako aktér."  A partie's score is the groše it
won at the table, flek included (RULES.md §10); equal rows share a place.
"""

from __future__ import annotations

import copy
import datetime as dt
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import jsonio
from ..games.registry import games as registered_games
from ..record_error import RecordError
from ..records import read_records

BEST = {"week": 3, "month": 5}
log = logging.getLogger(__name__)
_warned: set[tuple[str, float, str]] = set()  # each bad file is logged once, not per poll


def period_of(when: str, period: str) -> str:
    """The week (``2026-W48``, ISO) or month (``2026-11``) of an ISO timestamp."""
    t = dt.datetime.fromisoformat(when)
    if period == "week":
        y, w, _ = t.isocalendar()
        return f"{y}-W{w:02d}"
    if period == "month":
        return f"{t.year}-{t.month:02d}"
    raise ValueError(f"unknown period {period!r}: expected 'week' or 'month'")


def summary_problem(meta: Any) -> str | None:
    """What makes ``meta`` no usable finished-partie summary, or None; an unfinished
    partie's summary (``complete`` false) is fine (it is not counted yet)."""
    if not isinstance(meta, dict):
        return f"expected a JSON object, got a JSON {type(meta).__name__}"
    if not isinstance(meta.get("complete", False), bool):
        return f"complete is {meta['complete']!r:.40}: expected true or false"
    if not isinstance(meta.get("rules", "voleny"), str):
        return "rules: expected a string"
    if meta.get("seats", 3) not in (2, 3, 4) or isinstance(meta.get("seats"), bool):
        return f"seats is {meta['seats']!r:.40}: expected the number of players, 2, 3 or 4"
    if not meta.get("complete"):
        return None
    try:
        period_of(meta["finished"], "week")
    except (KeyError, TypeError, ValueError):
        return "finished: expected an ISO time"
    players = meta.get("players")
    if not isinstance(players, list) or not players:
        return "players: expected a list of {name, score, actor_wins}"
    for i, pl in enumerate(players):
        if not (isinstance(pl, dict) and isinstance(pl.get("name"), str)
                and all(isinstance(pl.get(k), int) and not isinstance(pl.get(k), bool)
                        for k in ("score", "actor_wins"))):
            return f"players[{i}]: expected {{name: string, score: int, actor_wins: int}}"
    return None


def load_parties(save_dir: str | Path, rules: str | None = None,
                 skipped: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """The finished parties' summaries (``*.json`` beside the records) in ``save_dir``;
    with ``rules``, only that game's (a summary without ``rules`` is volený's).  A file
    that is no summary is skipped with a warning (logged once) and listed in ``skipped``
    as ``{file, error}``: one bad file must not take the table down (issue #29 item 6)."""
    out = []
    for p in sorted(Path(save_dir).glob("*.json")):
        if p.name.endswith(".session.json"):
            continue  # a session checkpoint (session.py), no summary
        try:
            meta = jsonio.read(p)
            problem = summary_problem(meta)
        except jsonio.DuplicateKeyError as e:  # not the last value taken, silently
            problem = f"{e}: expected each key once"
        except jsonio.NestingError:
            problem = "not JSON (nested too deeply)"
        except (OSError, ValueError) as e:
            problem = f"not JSON ({e})"
        if problem is not None:
            _skip(p, problem, skipped)
        elif meta.get("complete") and rules in (None, meta.get("rules", "voleny")):
            out.append(meta)
    return out


def _skip(path: Path, problem: str, skipped: list[dict[str, str]] | None) -> None:
    if skipped is not None:
        skipped.append({"file": path.name, "error": problem})
    try:
        key = (str(path), path.stat().st_mtime, problem)
    except OSError:
        key = (str(path), 0.0, problem)
    if key not in _warned:
        _warned.add(key)
        log.warning("skipping %s in the series: %s", path, problem)


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
                  rules: str | None = None, players: int | None = None) -> dict[str, Any]:
    """This week's and this month's tables over the parties saved in ``save_dir`` (with
    ``rules``, that game's only: groše and desetníky do not add up; with ``players``, the
    parties of that many players only, a summary's ``seats`` or 3: a four-player partie
    pays the actor 3A), and ``skipped``: the files left out as no partie summary
    (:func:`load_parties`)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    skipped: list[dict[str, str]] = []
    parties = [m for m in load_parties(save_dir, rules, skipped)
               if players is None or m.get("seats", 3) == players]
    out: dict[str, Any] = {}
    for period in ("week", "month"):
        key = period_of(now.isoformat(), period)
        out[period] = {"key": key, "best": BEST[period],
                       "rows": series_table(parties, period, key)}
    out["skipped"] = skipped
    return out


class SeriesMemo:
    """The series tables of one table's save folder, read again only when the table has
    written a summary (:meth:`forget`) or the week or the month has turned.  Reading them
    parses every summary in the folder, 25 ms a thousand parties, and the table sends them
    with every state; a summary that another process writes into the folder meanwhile
    shows from this table's next summary on."""

    def __init__(self, save_dir: str | Path, rules: str | None = None,
                 players: int | None = None) -> None:
        self.save_dir, self.rules, self.players = Path(save_dir), rules, players
        self._keys: tuple[str, ...] | None = None
        self._tables: dict[str, Any] = {}

    def tables(self, now: dt.datetime) -> dict[str, Any]:
        """:func:`series_tables` at ``now``: a copy of the one read last while it is
        current."""
        keys = tuple(period_of(now.isoformat(), p) for p in BEST)
        if keys != self._keys:
            self._tables = series_tables(self.save_dir, now, self.rules, self.players)
            self._keys = keys
        return copy.deepcopy(self._tables)

    def forget(self) -> None:
        """The folder's summaries changed (this table wrote one): read them again."""
        self._keys = None


def contract_words(name: str) -> dict[str, str]:
    """``{"cz", "en"}``: a contract of the statistics (volený's announcement or contract,
    licitovaný's game id) in words."""
    from .i18n import MESSAGES, both
    from .labels import GAME_IDS, game_words

    for key in (f"announce.{name}", f"contract.{name}"):
        if key in MESSAGES:
            return both(key)
    if name in GAME_IDS:
        cz, en = game_words(name)
        return {"cz": cz, "en": en}
    return {"cz": name, "en": name}


def _partie_figures(path: Path, kinds: dict[str, Any]) -> dict[str, Any]:
    """One saved partie's part of :func:`party_stats`: its game, the human's payment in
    each deal and the contracts the human played as actor with whether each was won.
    Raises what a file that does not read raises (``party_stats`` names it)."""
    meta = jsonio.read(path.with_suffix(".json"))
    seat = meta["human_seat"]
    rules = meta.get("rules", "voleny")
    records = []
    # the records' own reader (replay's): lines end at \n only, so a string holding U+2028,
    # U+2029 or U+0085 (save_records' json.dumps(ensure_ascii=False) writes them as they
    # are) stays whole; str.splitlines() cut the record there
    for n, rec in read_records(path):
        if isinstance(rec, RecordError):
            raise RecordError(f"line {n}: {rec}")
        records.append(rec)
    kind = kinds.get(rules)
    if kind is not None and kind.results_by_player:  # the lead passing each deal
        n = kind.players[0]
        settlements = []
        pays = [int(r["result"]["rewards"][(seat - k) % n]) for k, r in enumerate(records)]
    else:
        settlements = [r["settlement"] for r in records]
        pays = [int(s["payments"][seat]) for s in settlements]
    played = []
    for s, pay in zip(settlements, pays):
        if s.get("actor") != seat:
            continue
        # volený's suit games by their announcement (hra, sedma, sto, sto_sedma)
        name = s.get("announcement") if s.get("contract") == "suit" else \
            s.get("contract") or s.get("game") or s.get("bid")
        if name is not None:
            played.append((name, pay > 0))
    return {"rules": rules, "unit": kind.units if kind is not None else "groše",
            "pays": pays, "played": played, "players": meta.get("seats", 3),
            "complete": meta.get("complete") is True}


def stats_head(g: dict[str, Any]) -> dict[str, str]:
    """``{"cz", "en"}``: a game's line of the statistics (another count of players than
    three, volený's four, its own, the count worded: ``(4 hráči)``, ``(5 hráčů)``),
    every count agreeing with its noun and the amount per deal with its unit (``2 partie
    (+1 nedohraná), 24 rozdání, -15,6 groše na rozdání``)."""
    from .i18n import LANGS, amount, count, t

    n = g["players"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"players is {n!r:.40}: expected the number of players, an int >= 2")

    def game(k: str) -> str:  # the count as it is: 2–4 hráči, 5 and more hráčů
        title = t(f"title.{g['rules']}", k)
        return title if n == 3 else f"{title} ({count(n, 'stats.players', k)})"

    def parties(k: str) -> str:
        text = count(g["parties"], "stats.parties", k)
        return text + (f" (+{count(g['unfinished'], 'stats.unfinished', k)})"
                       if g["unfinished"] else "")

    return {k: t("stats.head", k, game=game(k), parties=parties(k),
                 deals=count(g["deals"], "stats.deals", k),
                 per_deal=t("stats.per_deal", k, amount=amount(g["per_deal"], g["unit"], k)))
            for k in LANGS}


def party_stats(save_dir: str | Path, cache: dict[str, Any] | None = None) -> dict[str, Any]:
    """Statistics over every partie saved in ``save_dir``, per game (volený at four
    players apart, ``voleny:4``): finished parties, unfinished ones apart, deals, the
    human's payments in all and per deal (groše, desetníky; lízaný's ±1/±2), the
    contracts the human played as actor with how many were won, and ``text``, the line
    in words (:func:`stats_head`).  Reads each partie's summary (``<id>.json``: the
    game, the human's seat) and its records (``<id>.jsonl``);
    a file that does not read is skipped and named in ``skipped``.  With ``cache`` (a
    dict the caller keeps, the table's), a partie whose two files have not changed since
    (size and modification time) is not read again: the table asks at every deal's end."""
    games: dict[str, dict[str, Any]] = {}
    skipped: list[dict[str, str]] = []
    kinds = {k.name: k for k in registered_games()}
    seen = set()
    for p in sorted(Path(save_dir).glob("*.jsonl")):
        try:
            stamp = tuple((st.st_mtime_ns, st.st_size) for st in
                          (p.stat(), p.with_suffix(".json").stat()))
        except OSError:
            stamp = None
        key = str(p)
        seen.add(key)
        hit = cache.get(key) if cache is not None and stamp is not None else None
        if hit is not None and hit[0] == stamp:
            figures = hit[1]
        else:
            try:
                figures = _partie_figures(p, kinds)
            except (OSError, ValueError, KeyError, TypeError, IndexError,
                    AttributeError) as e:
                figures = {"error": f"{type(e).__name__}: {e}"[:120]}
            if cache is not None and stamp is not None:
                cache[key] = (stamp, figures)
        if "error" in figures:
            skipped.append({"file": p.name, "error": figures["error"]})
            continue
        # a four-player partie apart (the actor is paid by three, RULES.md §11.3)
        key = figures["rules"] + ("" if figures.get("players", 3) == 3 else
                                  f":{figures['players']}")
        g = games.setdefault(key, {"rules": figures["rules"],
                                   "players": figures.get("players", 3), "parties": 0,
                                   "unfinished": 0, "deals": 0, "total": 0,
                                   "contracts": {}, "unit": figures["unit"]})
        # a partie left unfinished is no partie: its deals count, it is named apart
        g["parties" if figures.get("complete", True) else "unfinished"] += 1
        g["deals"] += len(figures["pays"])
        g["total"] += sum(figures["pays"])
        for name, won in figures["played"]:
            c = g["contracts"].setdefault(name, {"played": 0, "won": 0,
                                                 **contract_words(name)})
            c["played"] += 1
            c["won"] += won
    if cache is not None:  # the parties deleted since
        for key in set(cache) - seen:
            del cache[key]
    for g in games.values():
        g["per_deal"] = round(g["total"] / g["deals"], 2) if g["deals"] else 0.0
        g["text"] = stats_head(g)
    return {"games": games, "skipped": skipped}
