"""One rating per robot and game from duplicate matches: ``mariash ladder``.

::

    mariash ladder --deals 200 --jobs 2 --matches runs/ladder --out docs
    mariash ladder --game voleny=random,table,onnx:models/robot.onnx --game lizany=random,table
    mariash ladder --game voleny=random,table,strong --slow-deals 10 --slow-opponents table
    mariash ladder --from docs/ladder_deals.json.gz --out docs   # again, without playing

For every game, every pair of its robots plays a duplicate match of the arena
(:func:`mariash_env.arena.duplicate_match`: the same decks in every seating, the luck of the
cards cancels).  All pairs of a game play the same decks (``--seed``), so that a pair's
deals can be resampled together.  On each deal the robot with the higher mean score over
its seats beats the other (equal: half a win each); a Bradley–Terry model,
``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``, is fitted to those wins by maximum
likelihood (:func:`fit_bradley_terry`; Elo's scale, ``--anchor`` -- the table robot by
default -- at 0, ``mean``: each game's mean at 0).  95 % confidence intervals: the fit repeated
on decks resampled with replacement, each deck as one unit in every pair that played it
(:func:`bootstrap_ratings`, :func:`deck_draws`).

Robots that search (``wants_view``: ``pimc``, ``nnpimc``, ``strong``) take seconds per
game, so their pairs play ``--slow-deals`` deals, and only against ``--slow-opponents``
(default: every robot) -- the rating of such a robot then rests on fewer games (wider CI).

Each pair's match is saved as it finishes (``MATCHES/GAME/A--B/``, A and B the robots'
names on the page, :func:`page_names`: the arena's CSVs and ``pair.json``); a rerun of
the same command skips the pairs already played, so a stopped ladder resumes.  Pairs play
in ``--jobs`` processes, at most one a core this process may use
(:func:`mariash_env.pools.process_jobs`, as the arena's deals); with ``--backend ray
[--address A]`` the pairs play one after another, each pair's deals spread over ``--jobs`` Ray
actors of the cluster (the arena's Ray backend: the same match as in processes; a lízaný
pair, whose match plays in the driver, stays there).  The ladder is written to
``OUT/ladder.csv``, ``OUT/ladder.md`` (a table per game, the command that made it) and
``OUT/ladder.png`` (a chart), each rating with the robot's mean wall-clock time per
decision (as the arena measures it: in batches for robots that are handed batches), and
``OUT/ladder_deals.json.gz``, the record they are made from (:func:`record`: per pair its
settings, times and per-deal score differences); ``--from`` that record writes the same
pages again without playing.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import jsonio
from ..arena import build_robot, check_backend, duplicate_match
from ..atomic import atomic_open
from ..cli import (
    ArgumentParser,
    add_ray_arguments,
    doing,
    fail,
    nonnegative,
    positive,
    quiet_on_closed_pipe,
)
from ..extras import plot_or_note, pyplot
from ..games.registry import game_kind, games
from ..pools import jobs_above_cores
from ..robots import split_robot_specs
from ..textfile import decode_text
from . import PartialRunError, folder_name, parse_page_args, run_command

MAX_JOBS = 256
ELO = 400.0 / math.log(10.0)  # natural-log strengths to Elo points

ROSTER: dict[str, list[str]] = {k.name: list(k.ladder_robots) for k in games()
                                 if k.ladder_robots}
"""The robots a ladder rates by default (each game's ``GameKind.ladder_robots``): every
shipped robot of every game but ``pimc``
(about half a second per decision; add it with ``--game``).  ``strong`` searches, one game
at a time: its pairs play ``--slow-deals``."""

PAIR_FILE = "pair.json"


class LadderError(ValueError):
    """Bad ladder settings or results that cannot be fitted (names what is wrong)."""


def short_name(spec: str) -> str:
    """A robot spec as a label: ``onnx:models/robot.onnx`` -> ``onnx:robot``."""
    if spec.startswith("onnx:"):
        return "onnx:" + Path(spec[5:]).stem
    return spec


def page_names(specs: Sequence[str]) -> list[str]:
    """Each robot's name on the page (``ladder.md``, ``ladder.csv``'s ``robot``, the chart)
    and in its pairs' match folders (:meth:`Pair.folder`), one robot of a game each: its
    short name (:func:`short_name`), else its spec where another robot of ``specs`` has
    that short name or that spec (``onnx:a/robot.onnx`` and ``onnx:b/robot.onnx``, both
    ``onnx:robot``: two rows of one name, sharing one folder).  Distinct for distinct
    specs; each names its robot in :func:`robot_index`."""
    specs = list(specs)
    short = [short_name(s) for s in specs]
    return [n if short.count(n) == 1 and n not in specs[:i] + specs[i + 1:] else s
            for i, (s, n) in enumerate(zip(specs, short))]


def robot_index(name: str, specs: Sequence[str]) -> int | None:
    """The index in ``specs`` of the robot ``name`` names: its spec, else its short name,
    as the page shows it (:func:`short_name`); ``name`` as given is looked for before its
    short name.  None where ``specs`` has no such robot; LadderError, listing them, where
    the name is that of two or more (``onnx:robot`` of ``onnx:a/robot.onnx`` and
    ``onnx:b/robot.onnx``: the first was taken, silently), whose full specs each name one.
    How ``--anchor`` and ``--slow-opponents`` name a robot."""
    if name in specs:  # a full spec: that robot, whatever short names the others have
        return list(specs).index(name)
    for wanted in (name, short_name(name)):
        found = [i for i, spec in enumerate(specs) if wanted in (spec, short_name(spec))]
        if len(found) > 1:
            raise LadderError(f"{name!r} names {len(found)} robots: "
                              f"{', '.join(specs[i] for i in found)}; give the full spec of "
                              "the one meant")
        if found:
            return found[0]
    return None


# --- Bradley–Terry ----------------------------------------------------------------------------


def fit_bradley_terry(wins: np.ndarray, prior: float = 0.5, iters: int = 2000,
                      tol: float = 1e-10) -> np.ndarray:
    """Natural-log strengths ``s`` (mean 0) maximising the Bradley–Terry likelihood of
    ``wins[i, j]`` (games ``i`` won against ``j``; a tie adds 0.5 to both), by the
    minorise-maximise iteration of Hunter (2004).  ``prior``: that many virtual games each
    robot won and lost against every robot it met (keeps a robot that won every game at a
    finite strength).  LadderError when the robots that met do not form one connected
    group (their strengths are then not comparable)."""
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    if w.ndim != 2 or w.shape != (k, k) or k < 1:
        raise LadderError(f"wins must be a square matrix, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise LadderError("wins must be finite and >= 0")
    games = w + w.T
    met = games > 0
    np.fill_diagonal(met, False)
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(met[i]):
            if j not in seen:
                seen.add(int(j))
                todo.append(int(j))
    if len(seen) < k:
        raise LadderError(f"robots {sorted(set(range(k)) - seen)} met none of robot 0's "
                          "group: no common scale")
    w = w + prior * met
    games = w + w.T
    won = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(iters):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = won / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    s = np.log(p)
    return s - s.mean()


def _diffs(x: np.ndarray) -> np.ndarray:
    """A pair's per-deal score differences, a's minus b's: ``x`` is float[deals, 2] (each
    robot's mean score per deal) or already float[deals] (the differences)."""
    x = np.asarray(x, dtype=np.float64)
    return x[:, 0] - x[:, 1] if x.ndim == 2 else x


def wins_of(per_deal: Mapping[tuple[int, int], np.ndarray], k: int,
            rows: Mapping[int, np.ndarray] | None = None) -> np.ndarray:
    """The win matrix of pairs' per-deal scores: ``per_deal[(a, b)]`` float[deals, 2] (a's
    and b's mean score per deal) or float[deals] (a's minus b's); ``rows``: the deals to
    count (resampled indices), one array per deal count, for the pairs of that many
    deals."""
    w = np.zeros((k, k))
    for (a, b), x in per_deal.items():
        d = _diffs(x)
        if rows is not None:
            d = d[rows[len(d)]]
        ties = float((d == 0).sum())
        w[a, b] += float((d > 0).sum()) + 0.5 * ties
        w[b, a] += float((d < 0).sum()) + 0.5 * ties
    return w


def deck_draws(counts: Sequence[int], rng: np.random.Generator) -> dict[int, np.ndarray]:
    """One bootstrap resample of the decks, for pairs of each deal count in ``counts``:
    ``{m: int[m]}``, the deals a pair of ``m`` deals counts.  Every pair of a ladder plays
    the same decks, deal ``i`` of each the same deck (a pair of fewer deals, a searching
    robot's, the first of them), so a deck is the resampled unit: it is drawn as often in
    every pair that played it.  The decks are drawn within the strata the counts cut
    (``[0, m1)``, ``[m1, m2)``, ...), so that each pair keeps its number of deals (a pair
    of few deals is never left with none, and the ladder keeps one scale)."""
    out: dict[int, np.ndarray] = {}
    parts: list[np.ndarray] = []
    lo = 0
    for m in sorted(set(counts)):
        parts.append(rng.integers(lo, m, size=m - lo))
        out[m] = np.concatenate(parts)
        lo = m
    return out


def bootstrap_ratings(per_deal: Mapping[tuple[int, int], np.ndarray], k: int,
                      n_boot: int = 300, seed: int = 0, alpha: float = 0.05,
                      anchor: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strengths (:func:`fit_bradley_terry`; ``anchor``: that robot's at 0, else the mean)
    and their percentile bootstrap CI: the decks resampled with replacement, each deck as
    one unit in every pair that played it (:func:`deck_draws`; the outcomes of the pairs on
    one deck are not independent).  A robot whose every pair played one deal has no
    interval (NaN): each resample of one deck is that deck, so its own results never vary
    (the anchor's is [0, 0] all the same)."""
    s = fit_bradley_terry(wins_of(per_deal, k))
    counts = [len(x) for x in per_deal.values()]
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, k))
    for b in range(n_boot):
        boot[b] = fit_bradley_terry(wins_of(per_deal, k, deck_draws(counts, rng)))
    if anchor is not None:
        s = s - s[anchor]
        boot -= boot[:, anchor:anchor + 1]
    lo, hi = np.quantile(boot, alpha / 2, axis=0), np.quantile(boot, 1 - alpha / 2, axis=0)
    most = np.zeros(k, int)  # the most deals of each robot's pairs
    for (a, b), x in per_deal.items():
        most[[a, b]] = np.maximum(most[[a, b]], len(x))
    blind = most < 2
    if anchor is not None:
        blind[anchor] = False
    lo[blind] = hi[blind] = np.nan
    return s, lo, hi


# --- playing the pairs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """One match of the ladder: robots ``a`` and ``b`` (specs) of ``game``."""

    game: str
    a: str
    b: str
    deals: int
    seed: int
    batch: int
    # a's and b's names on the page among the robots of their game (page_names: what
    # plan() gives), which name the match folder; None: their short names.  Not a setting
    # of the match (not compared, not saved)
    names: tuple[str, str] | None = field(default=None, compare=False)

    def settings(self) -> dict[str, Any]:
        return {"game": self.game, "a": self.a, "b": self.b, "deals": self.deals,
                "seed": self.seed, "batch": self.batch}

    def folder(self, matches: Path) -> Path:
        """``MATCHES/GAME/A--B``: A and B the robots' names (``names``), each character
        but a letter, a digit and ``._-`` written ``_``."""
        a, b = self.names or (short_name(self.a), short_name(self.b))
        return matches / self.game / f"{folder_name(a)}--{folder_name(b)}"


def check_folders(pairs: Sequence[Pair]) -> None:
    """LadderError naming the two pairs where two would play into one match folder
    (:meth:`Pair.folder`): each would be read back as the other's, played again at every
    rerun, or written over by it at once with ``--jobs``.  Robots of one name on the page
    have their own (:func:`page_names`); this is what is left: names that differ only in
    the characters a folder leaves out, or pairs made without ``names``."""
    seen: dict[Path, Pair] = {}
    for p in pairs:
        d = p.folder(Path())
        q = seen.setdefault(d, p)
        if q is not p and q != p:
            raise LadderError(
                f"game {p.game}: the pairs {q.a} - {q.b} and {p.a} - {p.b} would share the "
                f"match folder {d} (a folder keeps the letters, digits and . _ - of the "
                "robots' names on the page): give one of the robots another name, its "
                "file's or its spec's")


def load_pair(pair: Pair, matches: Path) -> dict[str, Any] | None:
    """The saved result of ``pair`` (None when it was not played with these settings, or
    when its file is damaged: then a warning says the pair is played again)."""
    p = pair.folder(matches) / PAIR_FILE
    with doing("read"):
        if not p.exists():
            return None
    try:
        saved = jsonio.read(p)
        if not isinstance(saved, dict):
            raise ValueError(f"a JSON {type(saved).__name__}, not an object")
        if saved.get("settings") != pair.settings():
            return None  # another match's (other deals, seed or batch): played again
        saved["per_deal"] = _checked_pair(saved, pair.deals)
    except (OSError, ValueError, TypeError, KeyError) as e:
        print(f"warning: {p} is damaged ({type(e).__name__}: {e}): the pair is played "
              "again", file=sys.stderr)
        return None
    return saved


def _checked_pair(saved: dict[str, Any], deals: int) -> np.ndarray:
    """The per-deal results of a saved pair as float64[deals, 2]; ValueError naming the
    field that is not what :func:`play_pair` writes."""
    per_deal = np.asarray(saved["per_deal"], dtype=np.float64)
    if per_deal.shape != (deals, 2) or not np.isfinite(per_deal).all():
        raise ValueError(f"'per_deal' of shape {per_deal.shape}: expected ({deals}, 2) "
                         "finite numbers")
    for key in ("seconds_per_decision", "seats", "means"):
        v = saved[key]
        if not (isinstance(v, list) and len(v) == 2 and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                for x in v)):
            raise ValueError(f"{key!r} = {v!r}: expected two numbers")
    if not isinstance(saved["seconds"], (int, float)) or not saved["seconds"] >= 0:
        raise ValueError(f"'seconds' = {saved['seconds']!r}: expected a number >= 0")
    dec = saved.get("decisions")  # absent from pairs saved before it was
    if dec is not None and not (isinstance(dec, list) and len(dec) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in dec)):
        raise ValueError(f"'decisions' = {dec!r}: expected two ints >= 0")
    return per_deal


def decisions_of(res: Any) -> list[int]:
    """Each robot's decisions in a match (a :class:`~mariash_env.arena.MatchResult` of two
    robots): what its time per decision is averaged over."""
    n = [0, 0]
    for deal in res.outcomes:
        for seating, o in zip(res.seatings, deal):
            for s, r in enumerate(seating):
                n[r] += int(o["decisions"][s])
    return n


def play_pair(pair: Pair, matches: Path, jobs: int = 1, backend: str = "process",
              address: str | None = None, on_deal: Callable[[], Any] | None = None
              ) -> dict[str, Any]:
    """Play ``pair``'s duplicate match and save it (the arena's CSVs, then ``pair.json``
    last: a pair counts as played only once that is written).  ``jobs``/``backend``/
    ``address``: where its deals play (:func:`~mariash_env.arena.duplicate_match`; the
    result does not depend on them); ``on_deal``: called as each deal finishes."""
    names = {pair.a: pair.a, pair.b: pair.b}
    if game_kind(pair.game).players == (2,):  # lízaný's match plays in the driver
        jobs, backend, address = 1, "process", None
    res = duplicate_match(names, deals=pair.deals, seed=pair.seed, rules={"rules": pair.game},
                          progress=False, batch=pair.batch, jobs=jobs, backend=backend,
                          address=address, on_deal=on_deal)
    d = pair.folder(matches)
    with doing("write"):
        res.save(d, plot=False)
    spd = {n: res.stats[r]["seconds_per_decision"] for r, n in enumerate(res.names)}
    saved = {"settings": pair.settings(), "seconds": res.seconds,
             "seconds_per_decision": [spd[pair.a], spd[pair.b]],
             "seats": [res.stats[r]["seats_played"] for r in range(2)],
             "decisions": decisions_of(res),
             "means": [float(m) for m in res.means()],
             "per_deal": res.per_deal.round(6).tolist()}
    with atomic_open(d / PAIR_FILE) as f:
        jsonio.dump(saved, f)
    saved["per_deal"] = res.per_deal
    return saved


class PairError(PartialRunError):
    """A pair's match failed (a robot or the disk); the pairs finished before are saved."""


# a worker process's count of the deals it finished, shared with the ladder's progress
_DEALS: dict[str, Any] = {}


def _init_counter(counter: Any) -> None:
    _DEALS["counter"] = counter


def _count_deal() -> None:
    counter = _DEALS.get("counter")
    if counter is not None:
        with counter.get_lock():
            counter.value += 1


def _play(job: tuple[Pair, str], on_deal: Callable[[], Any] | None = _count_deal
          ) -> tuple[Pair, dict[str, Any]]:
    pair, matches = job
    try:
        return pair, play_pair(pair, Path(matches), on_deal=on_deal)
    except Exception as e:  # named by its pair: the traceback of a worker process is lost
        raise PairError(f"the match {pair.a} - {pair.b} of {pair.game} failed "
                        f"({type(e).__name__}: {e})") from e


def slow(spec: str, game: str) -> bool:
    """Whether a robot searches (``wants_view``): its pairs play ``--slow-deals``."""
    return bool(build_robot(spec, {"rules": game}).wants_view)


def _robots(roster: Mapping[str, Sequence[str]]) -> set[str]:
    return {s for specs in roster.values() for s in specs}


def unknown_robots(roster: Mapping[str, Sequence[str]], specs: Sequence[str]) -> list[str]:
    """The robots of ``specs`` (specs or short names, :func:`robot_index`) that no game of
    ``roster`` plays, in their order; LadderError naming the game where a name is that of
    two of its robots."""
    def absent(name: str, game: str) -> bool:
        try:
            return robot_index(name, roster[game]) is None
        except LadderError as e:
            raise LadderError(f"game {game}: {e}") from None

    return [s for s in dict.fromkeys(specs) if all(absent(s, game) for game in roster)]


def plan(roster: Mapping[str, Sequence[str]], deals: int, seed: int, batch: int = 50,
         slow_deals: int = 20, slow_opponents: Sequence[str] | None = None) -> list[Pair]:
    """Every pair of every game's robots (``slow_opponents``: the only opponents of a
    searching robot, each its spec or its short name (:func:`robot_index`), in every game
    that has it; None: every robot)."""
    try:
        unknown = unknown_robots(roster, slow_opponents or ())
    except LadderError as e:
        raise LadderError(f"invalid slow_opponents: {e}") from None
    if unknown:
        raise LadderError(f"invalid slow_opponents {unknown}: no game of the ladder has "
                          f"them (its robots: {', '.join(sorted(_robots(roster)))})")
    pairs = []
    for game, specs in roster.items():
        if len(set(specs)) != len(specs) or len(specs) < 2:
            raise LadderError(f"game {game}: expected two or more different robots, got "
                              f"{list(specs)}")
        kind = game_kind(game)
        kind.require("arena")
        is_slow = {s: slow(s, game) for s in specs}
        found = (robot_index(name, specs) for name in slow_opponents or ())
        chosen = {specs[i] for i in found if i is not None}
        name = dict(zip(specs, page_names(specs)))
        for a, b in itertools.combinations(specs, 2):
            if is_slow[a] or is_slow[b]:
                if slow_opponents is not None and not (
                        (is_slow[a] and b in chosen) or (is_slow[b] and a in chosen)):
                    continue
                pairs.append(Pair(game, a, b, slow_deals, seed, 1, (name[a], name[b])))
            else:
                pairs.append(Pair(game, a, b, deals, seed, batch, (name[a], name[b])))
    check_folders(pairs)
    return pairs


def run(pairs: list[Pair], matches: str | os.PathLike, jobs: int = 1,
        progress: bool = True, backend: str = "process",
        address: str | None = None) -> dict[Pair, dict[str, Any]]:
    """Every pair's result: the saved ones read back, the others played (``jobs``
    processes, at most one a core this process may use, :func:`mariash_env.pools.process_jobs`;
    or with ``backend="ray"`` each pair's deals on ``jobs`` Ray actors) and saved as each
    finishes.  The results do not depend on ``jobs``."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise LadderError(f"invalid jobs={jobs!r}: expected an int 1..{MAX_JOBS}")
    check_backend(backend, address)
    check_folders(pairs)
    if backend == "process":  # a process a core, as the arena's (the same results)
        from ..pools import process_jobs

        jobs = process_jobs(jobs)
    m = Path(matches)
    with doing("write"):
        m.mkdir(parents=True, exist_ok=True)
    out: dict[Pair, dict[str, Any]] = {}
    todo = []
    for p in pairs:
        got = load_pair(p, m)
        if got is None:
            todo.append(p)
        else:
            out[p] = got
    # the progress counts deals, as the arena's does (a pair of a searching robot takes
    # minutes): those of the pairs read back at once, the others as they finish
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(p.deals for p in pairs), initial=sum(p.deals for p in out),
                   desc="deals", unit="deal", file=sys.stderr)
        bar.set_postfix_str(f"{len(out)}/{len(pairs)} pairs", refresh=False)

    def deal() -> None:
        if bar is not None:
            bar.update(1)

    def finished(p: Pair, r: dict[str, Any]) -> None:
        out[p] = r
        if bar is not None:
            bar.set_postfix_str(f"{len(out)}/{len(pairs)} pairs")

    try:
        if backend == "ray":  # pairs in turn, each one's deals over the cluster
            for p in todo:
                try:
                    r = play_pair(p, m, jobs, backend, address, on_deal=deal)
                except Exception as e:
                    raise PairError(f"the match {p.a} - {p.b} of {p.game} failed "
                                    f"({type(e).__name__}: {e})") from e
                finished(p, r)
        elif jobs <= 1 or len(todo) <= 1:
            for p in todo:
                finished(*_play((p, str(m)), on_deal=deal))
        else:
            import multiprocessing as mp

            from ..pools import worker_pool

            # the slowest first, so that the last process does not start a long pair late
            todo.sort(key=lambda p: -p.deals * (100 if p.batch == 1 else 1))
            # the workers count their deals in shared memory; read while waiting on pairs
            counter = mp.get_context("fork").Value("q", 0)
            shown = 0

            def catch_up() -> None:
                nonlocal shown
                if bar is not None and counter.value > shown:
                    bar.update(counter.value - shown)
                    shown = counter.value

            with worker_pool(min(jobs, len(todo)), "fork", _init_counter,
                             (counter,)) as pool:
                pending = pool.imap_unordered(_play, [(p, str(m)) for p in todo])
                while True:
                    try:
                        p, r = pending.next(timeout=0.5)
                    except mp.TimeoutError:
                        catch_up()
                        continue
                    except StopIteration:
                        break
                    catch_up()
                    finished(p, r)
            catch_up()
    finally:
        if bar is not None:
            bar.close()
    return {p: out[p] for p in pairs}  # in plan order, however they finished


# --- the ladder -------------------------------------------------------------------------------


def anchor_index(anchor: str | None, game: str, specs: Sequence[str]) -> int | None:
    """The index in ``specs`` of the robot rated 0 (``anchor``: its spec or its short name,
    as the page shows it); None for ``anchor`` None (the mean at 0).  LadderError when
    ``game`` has no such robot: its ratings would be the mean's while the page said the
    anchor's; and when it names two of them (:func:`robot_index`)."""
    if anchor is None:
        return None
    try:
        i = robot_index(anchor, specs)
    except LadderError as e:
        raise LadderError(f"--anchor {anchor}: game {game}: {e}") from None
    if i is not None:
        return i
    raise LadderError(f"--anchor {anchor}: game {game} has no such robot to rate at 0 "
                      f"(its robots: {', '.join(page_names(specs))}); name one of them, "
                      "or --anchor mean")


def ratings(results: Mapping[Pair, dict[str, Any]], n_boot: int = 300, seed: int = 0,
            anchor: str | None = "table") -> list[dict[str, Any]]:
    """One row per game and robot: Elo-scale rating with its 95 % CI (``anchor``: the
    robot rated 0 in each game, and in each resample, its spec or short name -- LadderError
    for a game without it (:func:`anchor_index`); None: the mean of the
    game's robots is 0), the pairs and deals
    it played, its mean score difference against the others (paired per deal), its mean
    seconds per decision; sorted by game, then rating."""
    rows: list[dict[str, Any]] = []
    for game in dict.fromkeys(p.game for p in results):
        pairs = {p: r for p, r in results.items() if p.game == game}
        specs = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
        k = len(specs)
        ix = {s: i for i, s in enumerate(specs)}
        names = page_names(specs)
        per_deal = {(ix[p.a], ix[p.b]): r["per_deal"] for p, r in pairs.items()}
        s, lo, hi = bootstrap_ratings(per_deal, k, n_boot, seed,
                                      anchor=anchor_index(anchor, game, specs))
        for i, spec in enumerate(specs):
            mine = [(p, r) for p, r in pairs.items() if spec in (p.a, p.b)]
            diffs, times, weights, deals = [], [], [], 0
            # its total time over its decisions: each pair's time per decision weighted
            # by the decisions it made there (a record without them: by its seats)
            by = "decisions" if all(r.get("decisions") for _, r in mine) else "seats"
            for p, r in mine:
                j = 0 if p.a == spec else 1
                x = _diffs(r["per_deal"])
                diffs.append((x if j == 0 else -x).mean())
                times.append(r["seconds_per_decision"][j])
                weights.append(r[by][j])
                deals += len(x)
            rows.append({
                "game": game, "robot": names[i], "spec": spec,
                # plain floats (numpy's leaked into the rows' repr and their users)
                "rating": round(ELO * float(s[i]), 1),
                "ci_low": round(ELO * float(lo[i]), 1),
                "ci_high": round(ELO * float(hi[i]), 1),
                "pairs": len(mine), "deals": deals,
                "mean_diff": round(float(np.mean(diffs)), 3),
                "unit": game_kind(game).units,
                "ms_per_decision": round(1000 * float(np.average(times, weights=weights)),
                                         3),
            })
    order = list(dict.fromkeys(r["game"] for r in rows))
    rows.sort(key=lambda r: (order.index(r["game"]), -r["rating"]))
    return rows


# --- the per-deal record: the committed ladder rebuilt without playing ----------------------

DEALS_FILE = "ladder_deals.json.gz"
"""The ladder's per-deal record, written beside ``ladder.md`` (:func:`record`)."""

RECORD_FORMAT = 1


def record(results: Mapping[Pair, dict[str, Any]], command: str, note: str = "",
           n_boot: int = 300, seed: int = 0, anchor: str | None = "table") -> dict[str, Any]:
    """What the ladder's page is made of, to be saved (:func:`write_record`) and rebuilt
    from (:func:`results_of`, ``mariash ladder --from``): the command and the fit's
    settings, and per pair its settings, the seconds it took, each robot's seats, decisions
    and mean seconds per decision, and its per-deal score differences (a's minus b's, 4 decimals;
    deal ``i`` is the deck of :func:`mariash_env.arena.deal_seed` ``(seed, i)``)."""
    pairs = []
    for p, r in results.items():
        d = np.round(_diffs(r["per_deal"]), 4) + 0.0  # + 0.0: no -0.0 written
        pairs.append({**p.settings(), "seconds": float(r["seconds"]),
                      "seats": [int(x) for x in r["seats"]],
                      **({"decisions": [int(x) for x in r["decisions"]]}
                         if r.get("decisions") else {}),
                      "seconds_per_decision": [float(x) for x in r["seconds_per_decision"]],
                      "diff": d.tolist()})
    return {"format": RECORD_FORMAT, "command": command, "note": note, "boot": int(n_boot),
            "boot_seed": int(seed), "anchor": anchor, "pairs": pairs}


def write_record(rec: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """``rec`` as gzipped JSON, the same bytes for the same record (no time stamp)."""
    import gzip

    p = Path(path)
    data = jsonio.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with atomic_open(p, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0,
                                                  filename="") as g:
        g.write(data)
    return p


def read_record(path: str | os.PathLike) -> dict[str, Any]:
    """A record written by :func:`write_record`; LadderError naming what is wrong (a
    truncated or damaged file too: gzip's EOFError, BadGzipFile and zlib.error)."""
    import gzip
    import zlib

    try:
        with gzip.open(path, "rb") as f:  # not UTF-8: the line and the byte, from 1
            rec = jsonio.load(io.StringIO(decode_text(f.read())))
    except (OSError, EOFError, ValueError, zlib.error) as e:  # the reason, not the path again
        raise LadderError(f"cannot read the ladder's record {path}: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise LadderError(f"{path} is not a ladder record of format {RECORD_FORMAT} "
                          f"(written by mariash ladder as {DEALS_FILE})")
    results_of(rec, str(path))  # checks every pair
    return rec


def results_of(rec: Mapping[str, Any], where: str = "the record") -> dict[Pair, dict[str, Any]]:
    """The pairs' results of a record, as :func:`run` returns them (``per_deal``: the
    per-deal differences) for :func:`ratings`."""
    out: dict[Pair, dict[str, Any]] = {}
    try:
        for i, q in enumerate(rec["pairs"]):
            pair = Pair(str(q["game"]), str(q["a"]), str(q["b"]), int(q["deals"]),
                        int(q["seed"]), int(q["batch"]))
            diff = np.asarray(q["diff"], dtype=np.float64)
            if diff.shape != (pair.deals,) or not np.isfinite(diff).all():
                raise ValueError(f"pair {i} ({pair.a} - {pair.b}): 'diff' of shape "
                                 f"{diff.shape}, expected {pair.deals} finite numbers")
            _checked_pair({**q, "per_deal": np.zeros((pair.deals, 2)), "means": [0, 0]},
                          pair.deals)
            out[pair] = {"per_deal": diff, "seconds": float(q["seconds"]),
                         "seats": list(q["seats"]),
                         "seconds_per_decision": list(q["seconds_per_decision"])}
            if q.get("decisions") is not None:  # records before it have none
                out[pair]["decisions"] = list(q["decisions"])
    except (KeyError, TypeError, ValueError) as e:
        raise LadderError(f"{where}: {type(e).__name__}: {e}") from None
    return out


CSV_FIELDS = ("game", "robot", "spec", "rating", "ci_low", "ci_high", "pairs", "deals",
              "mean_diff", "unit", "ms_per_decision")


def write_csv(rows: list[dict[str, Any]], path: str | os.PathLike) -> Path:
    p = Path(path)
    with atomic_open(p, newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(CSV_FIELDS))
        w.writeheader()
        w.writerows(rows)
    return p


def markdown(rows: list[dict[str, Any]], command: str, seconds: float | None = None,
             notes: str = "", anchor: str | None = "table", chart: bool = True) -> str:
    """The ladder as a markdown page: one table per game and the command that made it;
    with ``chart``, the chart ``ladder.png`` beside it too."""
    # the anchor as its rows name it (its spec where its short name is two robots')
    names = {r["robot"] for r in rows if r["spec"] == anchor}
    shown = names.pop() if len(names) == 1 else anchor if names else short_name(anchor or "")
    zero = f"`{shown}` at 0" if anchor else "each game's mean at 0"
    lines = ["# Ladder", "",
             "<!-- written by `mariash ladder` (mariash_env/research/ladder.py); do not edit -->",
             "",
             f"One Bradley–Terry rating per robot and game (Elo scale, {zero}), "
             "fitted to the per-deal wins of duplicate matches between every pair; 95 % "
             "bootstrap CIs over the decks (each deck resampled as one unit in every pair "
             "that played it).  *Mean diff*: the robot's mean score per deal "
             "minus its opponent's, averaged over its pairs.  *ms/decision*: its mean "
             "wall-clock time per decision (every decision it made) in these matches, on "
             "the machine and load that played them: robots handed batches (volený's and "
             "licitovaný's random, table and networks) timed per batch and divided among "
             "its games, searching robots and every lízaný robot one decision at a time.  "
             "How it is made: [the ladder](research/ladder.md).", "",
             "Made by:", "", "```", command, "```", ""]
    if seconds is not None:
        lines += [f"The matches took {seconds / 60:.1f} minutes (summed over the pairs, each "
                  "in one process).", ""]
    lines += [f"The per-deal results behind these figures: [`{DEALS_FILE}`]({DEALS_FILE}) "
              "beside this page (per pair: its settings, each robot's time per decision, "
              f"every deal's score difference); `mariash ladder --from {DEALS_FILE}` "
              "rebuilds the page, its CSV and chart from them without playing.", ""]
    if notes:
        lines += [notes, ""]
    if chart:
        lines += ["![ladder](ladder.png)", ""]
    for game in dict.fromkeys(r["game"] for r in rows):
        mine = [r for r in rows if r["game"] == game]
        kind = game_kind(game)
        lines += [f"## {kind.title or game}", "",
                  f"| robot | rating | 95% CI | pairs | deals | mean diff ({mine[0]['unit']}) "
                  "| ms/decision |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for r in mine:
            lines.append(f"| `{r['robot']}` | {r['rating']:+.0f} | [{r['ci_low']:+.0f}, "
                         f"{r['ci_high']:+.0f}] | {r['pairs']} | {r['deals']} | "
                         f"{r['mean_diff']:+.2f} | {r['ms_per_decision']:.3f} |")
        lines.append("")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: str | os.PathLike) -> Path:
    """Ratings with their CIs, a panel per game, each robot's ms/decision beside it
    (matplotlib: the ``research`` extra)."""
    plt = pyplot("the ladder's plot")

    games = list(dict.fromkeys(r["game"] for r in rows))
    heights = [max(1.2, 0.45 * sum(r["game"] == g for r in rows)) for g in games]
    fig, axes = plt.subplots(len(games), 1, figsize=(8, 1.2 + sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, game in zip(axes[:, 0], games):
        mine = [r for r in rows if r["game"] == game][::-1]
        y = np.arange(len(mine))
        v = np.array([r["rating"] for r in mine])
        err = np.array([[r["rating"] - r["ci_low"] for r in mine],
                        [r["ci_high"] - r["rating"] for r in mine]])
        ax.errorbar(v, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
        ax.set_yticks(y, [f"{r['robot']}  ({r['ms_per_decision']:.2g} ms)" for r in mine])
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_title(game_kind(game).title or game, fontsize=10)
    axes[-1, 0].set_xlabel("Bradley–Terry rating (Elo scale; 95% bootstrap CI)")
    fig.tight_layout()
    p = Path(path)
    fig.savefig(p, dpi=100)
    plt.close(fig)
    return p


def parse_games(options: Sequence[str]) -> dict[str, list[str]]:
    """``--game NAME=spec,spec`` options as a roster (none: :data:`ROSTER`)."""
    if not options:
        return {g: list(s) for g, s in ROSTER.items()}
    out: dict[str, list[str]] = {}
    for opt in options:
        name, eq, specs = opt.partition("=")
        name = name.strip()
        if not eq or not name:
            raise LadderError(f"invalid --game {opt!r}: expected NAME=ROBOT,ROBOT,... "
                              "(e.g. voleny=random,table)")
        game_kind(name)  # GameError (a ValueError) naming the games
        if name in out:
            raise LadderError(f"--game {name} is given twice")
        out[name] = split_robot_specs(specs)
        if not all(out[name]):
            raise LadderError(f"invalid --game {opt!r}: an empty robot spec")
    return out


# what --from takes: the fit and the pages, not the matches
_FROM_OPTIONS = ("source", "boot", "anchor", "out", "note", "no_plot", "quiet")


@quiet_on_closed_pipe
def main(argv: list[str] | None = None, prog: str = "mariash ladder") -> int:
    ap = ArgumentParser(prog=prog, description="Rate every robot of every game from duplicate "
                        "matches of every pair (docs/research/ladder.md).")
    ap.add_argument("--game", action="append", default=[], metavar="NAME=ROBOTS",
                    help="a game and its robots, repeatable (default: the fast robots of "
                         "every game: " + "; ".join(f"{g}={','.join(page_names(s))}"
                                                    for g, s in ROSTER.items()) + ")")
    ap.add_argument("--deals", type=positive(int), default=200,
                    help="deals per pair (default 200)")
    ap.add_argument("--slow-deals", type=positive(int), default=20,
                    help="deals per pair of a searching robot (pimc, nnpimc, strong; "
                         "default 20)")
    ap.add_argument("--slow-opponents", default=None,
                    help="comma-separated: the only opponents of a searching robot, each "
                         "its spec or its name on the page, as --anchor (default: every "
                         "robot)")
    # checked here: the bootstrap's generator refuses a negative seed, after every match
    ap.add_argument("--seed", type=nonnegative(int), default=0,
                    help="the decks of every pair, an int >= 0 (default 0)")
    ap.add_argument("--batch", type=positive(int), default=50,
                    help="deals per batched engine of the fast pairs (default 50)")
    ap.add_argument("--jobs", type=positive(int), default=1,
                    help=f"pairs played at once, 1..{MAX_JOBS} (with --backend ray: each "
                         f"pair's deals on that many Ray actors; default 1); "
                         f"{jobs_above_cores()}, the same ladder")
    ap.add_argument("--backend", choices=("process", "ray"), default="process",
                    help="where the matches play: local processes, or a Ray cluster")
    add_ray_arguments(ap, "the ladder stops, the pairs finished so far saved")
    ap.add_argument("--boot", type=positive(int), default=None,
                    help="bootstrap resamples (default 300; with --from: the record's)")
    ap.add_argument("--anchor", default=None,
                    help="the robot rated 0 in every game (default table; 'mean': the mean "
                         "of each game's robots; with --from: the record's)")
    ap.add_argument("--from", dest="source", default=None, metavar="RECORD",
                    help=f"rebuild the ladder from a saved record (OUT/{DEALS_FILE}) without "
                         "playing: its pairs, command and note (it takes --boot, --anchor, "
                         "--out, --note, --no-plot and --quiet; the options that choose "
                         "the matches are refused)")
    ap.add_argument("--matches", default="runs/ladder",
                    help="folder of each pair's match, saved as it finishes (resume)")
    ap.add_argument("--out", default="runs/ladder",
                    help=f"folder of ladder.csv, ladder.md, ladder.png and {DEALS_FILE} "
                         "(default runs/ladder; the committed ladder is --out docs)")
    args, command = parse_page_args(ap, argv, prog,
                                    "a paragraph for the page (e.g. what is left out)")
    if args.source is not None:  # refused, not ignored: the record's pairs are the ladder's
        playing = ["--" + k.replace("_", "-") for k in vars(args)
                   if k not in _FROM_OPTIONS and getattr(args, k) != ap.get_default(k)]
        if playing:
            fail(f"--from rebuilds the ladder from the record's pairs and plays nothing; "
                 f"{', '.join(playing)} "
                 f"{'is not its option' if len(playing) == 1 else 'are not its options'} "
                 "(it takes --boot, --anchor, --out, --note, --no-plot and --quiet)")

    def body() -> int:
        if args.jobs > MAX_JOBS:
            raise LadderError(f"invalid --jobs {args.jobs}: expected 1..{MAX_JOBS}")
        plot_or_note(args, "plot (ladder.png)")
        out = Path(args.out)
        if args.source is not None:  # the pages again from the record: nothing is played
            rec = read_record(args.source)
            if args.note:
                rec["note"] = args.note
        else:
            roster = parse_games(args.game)
            for game, specs in roster.items():
                for spec in specs:
                    build_robot(spec, {"rules": game})  # a bad spec fails before any match
            anchor = args.anchor or "table"
            for game, specs in roster.items():  # before any match, not after them all
                anchor_index(None if anchor == "mean" else anchor, game, specs)
            opponents = split_robot_specs(args.slow_opponents) if args.slow_opponents else None
            try:
                unknown = unknown_robots(roster, opponents or ())
            except LadderError as e:  # a name of two robots of a game
                raise LadderError(f"invalid --slow-opponents {args.slow_opponents}: {e}") \
                    from None
            if unknown:  # the option and the choices named, not plan()'s keyword
                raise LadderError(
                    f"invalid --slow-opponents {args.slow_opponents}: "
                    f"{', '.join(map(repr, unknown))} "
                    f"{'is no robot' if len(unknown) == 1 else 'are no robots'} of the "
                    f"ladder's games (expected some of: {', '.join(sorted(_robots(roster)))})")
            check_backend(args.backend, args.address)
            pairs = plan(roster, args.deals, args.seed, args.batch, args.slow_deals,
                         opponents)
            if args.backend == "ray":  # joined before any folder is made: fails in seconds
                from ..ray_pool import RayClusterError, join

                try:
                    join(args.address, args.ray_timeout)
                except RayClusterError as e:
                    raise LadderError(str(e)) from None
            with doing("write"):
                out.mkdir(parents=True, exist_ok=True)
            results = run(pairs, args.matches, args.jobs, not args.quiet, args.backend,
                          args.address)
            rec = record(results, command, args.note, 300, args.seed, "table")
        if args.boot is not None:
            rec["boot"] = args.boot
        if args.anchor is not None:
            rec["anchor"] = None if args.anchor == "mean" else args.anchor
        # the pages from the record as saved (4 decimals), whether played or read back:
        # --from rebuilds them exactly
        results = results_of(rec)
        rows = ratings(results, rec["boot"], rec["boot_seed"], rec["anchor"])
        seconds = sum(r["seconds"] for r in results.values())
        with doing("write"):
            out.mkdir(parents=True, exist_ok=True)
            paths = [write_csv(rows, out / "ladder.csv")]
            with atomic_open(out / "ladder.md") as f:
                # the chart written now or already beside the page (--out docs --no-plot)
                chart = not args.no_plot or (out / "ladder.png").is_file()
                f.write(markdown(rows, rec["command"], seconds, rec["note"], rec["anchor"],
                                 chart))
            paths.append(out / "ladder.md")
            if not args.no_plot:
                paths.append(plot(rows, out / "ladder.png"))
            paths.append(write_record(rec, out / DEALS_FILE))
        for r in rows:
            print(f"{r['game']:<11}{r['robot']:<28}{r['rating']:>+7.0f} "
                  f"[{r['ci_low']:+.0f}, {r['ci_high']:+.0f}]  {r['ms_per_decision']:.3f} ms")
        print("saved: " + ", ".join(map(str, paths)))
        return 0

    return run_command(body, f"the pairs finished so far are saved in {args.matches}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
