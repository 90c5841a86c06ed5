"""Bounded fuzzing of the play table (issue #29): malformed requests against the web app,
and a hidden-card check of the state the table sends.

* **Requests**: the Starlette app of :mod:`mariash_env.play.web` (every game, volený's
  four-player table too), in-process through Starlette's TestClient (no socket), gets a
  bounded number of requests on every endpoint: wrong types, huge numbers, deep nesting,
  odd unicode, missing and extra fields, stale moves, oversize bodies, wrong methods and
  paths, mixed with valid moves so the partie goes on.  A 5xx, an exception, or a 4xx
  that is not a JSON ``{"error"}`` is a failure.
* **Hidden cards**: parties are played (random human moves, robots); at each deal the
  hidden cards (what the human seat cannot know) are permuted, the same action labels
  are replayed on the permuted deal, and wherever the human seat's observation is still
  the same, the table's state JSON must be the same too (every table game: lízaný's own
  session too, its face-up trump card counted as seen).

    python scripts/fuzz_table.py [--requests 3000] [--seconds 120] [--seed 0]
                                 [--parties 6] [--deals 2]
                                 [--rules voleny,licitovany,lizany]

Prints the figures; the exit status is 1 when anything failed.
"""

from __future__ import annotations

import copy
import json
import random
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mariash_env import jsonio  # noqa: E402
from mariash_env.cards import CARD_CODES  # noqa: E402
from mariash_env.game import IllegalActionError  # noqa: E402
from mariash_env.games.lizany.game import LizanyGame  # noqa: E402
from mariash_env.games.registry import game_kind  # noqa: E402
from mariash_env.play.lizany_table import LizanySession  # noqa: E402
from mariash_env.play.session import TABLE_GAMES  # noqa: E402
from mariash_env.play.tables import open_table  # noqa: E402

ROBOTS = "table,random"
SUITS = "hbla"


# --- hidden cards ------------------------------------------------------------------------
@dataclass
class HiddenReport:
    """What :func:`check_hidden` did: ``compared`` is the number of (variant, state)
    pairs whose JSON was compared, ``states`` the states of the real parties checked."""

    states: int = 0
    compared: int = 0
    variants: int = 0
    cut_short: int = 0  # variants whose replay diverged (illegal, or the human saw it)
    leaks: list[str] = field(default_factory=list)

    def add(self, other: HiddenReport) -> None:
        self.states += other.states
        self.compared += other.compared
        self.variants += other.variants
        self.cut_short += other.cut_short
        self.leaks += other.leaks


def _fork(s: Any) -> Any:
    """A copy of session ``s`` that replays labels without saving anything (its robots
    are shared and never asked)."""
    t = copy.copy(s)
    if isinstance(s, LizanySession):  # a small Python deal: copied whole
        t.game, t.records = copy.deepcopy(s.game), list(s.records)
    else:
        g = copy.copy(s.game)
        g.st, g._mask, g._legal_cache = s.game.st.copy(), s.game._mask.copy(), None
        g.records, g.history = copy.copy(s.game.records), list(s.game.history)
        t.game = g
    t.log, t.events, t.deals = list(s.log), [dict(e) for e in s.events], list(s.deals)
    t._saving = False
    return t


# What differs between the games' sessions, for the permuted replays: the deck as dealt
# (codes), dealing another deck, the human seat's observation, what it sees at once.
def _deck(s: Any) -> list[str]:
    if isinstance(s, LizanySession):
        return [CARD_CODES[c] for c in s.game.deck]
    return s.game.deck()


def _redeal(s: Any, deck: list[str]) -> None:
    if isinstance(s, LizanySession):  # as its _new_deal, without the robot's new seed
        s._set_game(LizanyGame(deck=deck))
    else:
        s.game.deal_deck(deck, s.game.dealer)


def _human_obs(s: Any) -> bytes:
    if isinstance(s, LizanySession):
        return s.game.observe(s._player(s.human)).tobytes()
    return s.game.observation(s.human).tobytes()


def _seen_at_once(s: Any) -> set[str]:
    """The human's cards, and lízaný's trump card face up under the stock."""
    seen = {c["code"] for c in s.state()["hand"]}
    if isinstance(s, LizanySession):
        seen.add(CARD_CODES[s.game.trump_card])
    return seen


def _card_of(label: str) -> str | None:
    head, _, tail = label.partition(":")
    return tail if tail in CARD_CODES else None


def _relabel(label: str, sigma: dict[str, str]) -> str:
    card = _card_of(label)
    return label if card is None else f"{label.partition(':')[0]}:{sigma.get(card, card)}"


def _comparable(st: dict[str, Any]) -> str:
    """The state as JSON, less what is no card of the deal: the series reads only the
    save folder; a finished deal's settlement counts every card in the open."""
    st = {k: v for k, v in st.items() if k != "series"}
    if st["waiting"] in ("next_deal", "partie_over"):
        st = {k: v for k, v in st.items() if k not in ("settlement", "deal_results")}
    return jsonio.dumps(st, sort_keys=True, ensure_ascii=True)


@dataclass
class _Step:
    obs: bytes
    undo_ok: bool
    state: str


def _sigma(pool: list[str], rng: random.Random) -> dict[str, str]:
    """A permutation of hidden cards: two of one suit swapped (most often still a legal
    replay), each suit shuffled, or the whole pool shuffled."""
    way = rng.random()
    out: dict[str, str] = {}
    if way < 0.5:
        by_suit = [[c for c in pool if c[1] == s] for s in SUITS]
        by_suit = [cs for cs in by_suit if len(cs) >= 2]
        if by_suit:
            a, b = rng.sample(rng.choice(by_suit), 2)
            out = {a: b, b: a}
    elif way < 0.8:
        for s in SUITS:
            cs = [c for c in pool if c[1] == s]
            out.update(zip(cs, rng.sample(cs, len(cs))))
    else:
        out = dict(zip(pool, rng.sample(pool, len(pool))))
    return {a: b for a, b in out.items() if a != b}


def _check_deal(start: Any, entries: list[tuple[str, Any, int]], steps: list[_Step],
                human_seen: set[str], variants: int, rng: random.Random, where: str
                ) -> HiddenReport:
    """``variants`` permuted replays of one deal: ``start`` is the session at the deal's
    first state, ``entries`` its log entries, ``steps[i]`` what the human had and was sent
    after ``i`` of them."""
    rep = HiddenReport(states=len(steps))
    deck = _deck(start)
    for _ in range(variants):
        k = rng.randrange(len(entries) + 1)  # the cards played up to step k stay
        seen = human_seen | {c for _, lab, _ in entries[:k] if lab and lab.startswith("play:")
                             for c in [_card_of(lab)] if c}
        sigma = _sigma([c for c in deck if c not in seen], rng)
        if not sigma:
            continue
        rep.variants += 1
        alt = _fork(start)
        _redeal(alt, [sigma.get(c, c) for c in deck])
        for i, step in enumerate(steps):
            if i:
                kind, label, move = entries[i - 1]
                alt.move = move - 1
                try:
                    alt._apply(_relabel(label, sigma))
                except IllegalActionError:
                    rep.cut_short += 1
                    break
            if _human_obs(alt) != step.obs:
                rep.cut_short += 1
                break  # the human could tell the deals apart from here on
            alt._undo_ok = step.undo_ok
            got = _comparable(alt.state())
            rep.compared += 1
            if got != step.state:
                a, b = jsonio.loads(step.state), jsonio.loads(got)
                diff = sorted(k for k in a if a[k] != b.get(k))
                rep.leaks.append(f"{where} step {i}, cards {sigma}: state differs in {diff}: "
                                 f"{[(a[d], b.get(d)) for d in diff][:1]}"[:600])
                break
    return rep


def check_hidden(rules: str, seed: int, human_seat: int, *, deals: int = 2,
                 variants: int = 4, robots: str = ROBOTS, rng: random.Random | None = None,
                 options: dict[str, Any] | None = None) -> HiddenReport:
    """Play ``deals`` deals of a partie (random human moves) and check every deal by
    :func:`_check_deal`: the state may depend on no card the human seat cannot know.
    ``options``: the table's rule options (e.g. ``{"open_contracts": True}``)."""
    rng = rng or random.Random(seed)
    rep = HiddenReport()
    with tempfile.TemporaryDirectory() as tmp:
        kw = {} if options is None else {"options": options}
        s = open_table(robots, save_dir=tmp, human_seat=human_seat, seed=seed, rules=rules,
                       **kw)
        for deal in range(deals):
            start, first = _fork(s), len(s.log)
            seen = _seen_at_once(s)

            def step() -> _Step:
                return _Step(_human_obs(s), s._undo_ok, _comparable(s.state()))

            steps = [step()]
            while s.waiting in ("human", "robot"):
                if s.waiting == "robot":
                    s.advance(s.id, s.move)
                else:
                    s.act(s.id, s.move, rng.choice(s.state()["legal"]))
                steps.append(step())
            rep.add(_check_deal(start, s.log[first:], steps, seen, variants, rng,
                                f"{rules} seed {seed} seat {human_seat} deal {deal}"))
            if s.waiting != "next_deal":
                break
            s.next_deal(s.id, s.move)
    return rep



# --- requests ----------------------------------------------------------------------------
@dataclass
class FuzzReport:
    sent: int = 0
    by_status: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


OVERSIZE = 70 * 1024  # over the table's 64 KiB body limit
ENDPOINTS = ("/api/act", "/api/advance", "/api/next", "/api/undo", "/api/new", "/api/leave")


def _odd_values(rng: random.Random) -> Any:
    return rng.choice([
        None, True, False, -1, 0, 2**31, 10**30, -(10**40), 1.5, float("nan"), float("inf"),
        "", "x", "0", "../escaped", "a" * 65, "é" * 40, "\ud800", "\x00", "😀", "play:Aa",
        [], [1, 2], {}, {"a": 1}, [[[[]]]], "good", "trump:blind",
    ])


def _raw_bodies(rng: random.Random) -> bytes:
    n = rng.choice([10, 500, 5_000, 30_000, 60_000])
    return rng.choice([
        b"", b"null", b"{", b"{not json", b"[1,2]", b"\"text\"", b"12", b"\xff\xfe\x00",
        b"[" * n + b"]" * n, b"{\"a\":" * n + b"1" + b"}" * n, b"[" * n,
        b"{\"move\": " + b"9" * 5000 + b"}", b"{\"session\": \"\\ud800\", \"move\": 0}",
        b"{\"move\": NaN, \"session\": \"x\"}", b"{\"move\": 1e400}",
        bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))),
    ])


def _valid(st: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A move the table should take from state ``st``."""
    base = {"session": st["session"], "move": st["move"]}
    w = st["waiting"]
    if st.get("can_undo") and rng.random() < 0.2:
        return "/api/undo", base
    if w == "human":
        return "/api/act", {**base, "action": rng.choice(st["legal"])}
    if w == "robot":
        return "/api/advance", base
    return ("/api/next" if w == "next_deal" else "/api/new"), base


def _requests(st: dict[str, Any], rng: random.Random, clients: list[str], driver: str
              ) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """One request ``(method, path, httpx keywords)`` after state ``st``; ``driver`` is
    the tab that drove last (most valid moves come from it, so the partie goes on)."""
    r = rng.random()
    client = rng.choice(clients)
    if r < 0.35:  # a valid move, now and then from another tab
        path, body = _valid(st, rng)
        body["client"] = driver if rng.random() < 0.85 else client
        yield "POST", path, {"json": body}
    elif r < 0.45:  # stale, or an action that is not legal now
        path, body = _valid(st, rng)
        if st["waiting"] == "human" and rng.random() < 0.5:
            path, body["action"] = "/api/act", rng.choice(["play:Aa", "good", "pass",
                                                           "trump:blind", "flek:game"])
            body["client"] = driver
        else:
            body["move"] = st["move"] - rng.choice([1, 2, -1, 100])
        yield "POST", path, {"json": body}
    elif r < 0.62:  # a field of a wrong type, missing or extra
        path, body = _valid(st, rng)
        path = rng.choice([path, *ENDPOINTS])
        key = rng.choice(["session", "move", "action", "client", "extra"])
        if rng.random() < 0.3:
            body.pop(key, None)
        else:
            body[key] = _odd_values(rng)
        yield "POST", path, {"json": body}
    elif r < 0.75:  # not JSON, deeply nested, odd bytes
        yield "POST", rng.choice(ENDPOINTS), {"content": _raw_bodies(rng)}
    elif r < 0.8:  # oversize, with a Content-Length or streamed without one
        big = b"{\"session\": \"" + b"a" * OVERSIZE + b"\"}"
        if rng.random() < 0.5:
            yield "POST", rng.choice(ENDPOINTS), {"content": big}
        else:
            yield "POST", rng.choice(ENDPOINTS), {
                "content": iter([big[i:i + 8192] for i in range(0, len(big), 8192)])}
    elif r < 0.9:  # the state, with good and bad query strings
        params = rng.choice([{}, {"client": client}, {"client": _odd_values(rng)},
                             {"x": "1"}, {"client": "a" * 200}, {"client": "a", "x": ""}])
        # built by hand: the odd values go out as raw (even invalid UTF-8) bytes
        query = "&".join(f"{k}={quote(str(v).encode('utf-8', 'surrogatepass'))}"
                         for k, v in params.items())
        yield "GET", "/api/state" + (f"?{query}" if query else ""), {}
    else:  # wrong method or path
        method = rng.choice(["GET", "PUT", "DELETE", "PATCH"])
        path = rng.choice([*ENDPOINTS, "/api/nope", "/static/../session.py", "/api/state/x"])
        yield method, path, {}


def fuzz_requests(count: int = 1000, seconds: float = 60.0, seed: int = 0,
                  rules: str = "voleny", robots: str = ROBOTS,
                  options: dict[str, Any] | None = None) -> FuzzReport:
    """``count`` requests (at most ``seconds``) against a fresh table app in-process
    (``options``: the partie's rule options, ``{"players": 4}`` the four-player table)."""
    with warnings.catch_warnings():  # starlette's TestClient may ask for httpx extras
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from mariash_env.play.web import create_app

    rng = random.Random(seed)
    rep = FuzzReport()
    end = time.monotonic() + seconds
    clients = ["tab-a", "tab-b", "tab_c"]
    driver = clients[0]
    with tempfile.TemporaryDirectory() as tmp:
        seeds = iter(range(seed, seed + 10**6))
        app = create_app(lambda: open_table(robots, save_dir=tmp, rules=rules,
                                            seed=next(seeds), options=options))
        with TestClient(app) as c:
            st = c.get("/api/state").json()
            while rep.sent < count and time.monotonic() < end:
                for method, path, kw in _requests(st, rng, clients, driver):
                    if "json" in kw:  # NaN and lone surrogates as a browser could send
                        kw = {"content": json.dumps(kw.pop("json")).encode(),
                              "headers": {"content-type": "application/json"}}
                    rep.sent += 1
                    where = f"{method} {path} {str(kw)[:200]}"
                    try:
                        res = c.request(method, path, **kw)
                    except Exception:  # the app raised: a failure, named with its cause
                        rep.failures.append(f"{where}: {traceback.format_exc(limit=-3)}")
                        continue
                    rep.by_status[res.status_code] += 1
                    problem = _problem(res, path)
                    if problem:
                        rep.failures.append(f"{where}: {problem}")
                    elif res.status_code == 200 and path.startswith("/api/") and \
                            "session" in res.json():
                        st = res.json()
                        if st.get("driver"):  # this client drives: move as it
                            driver = _sender(path, kw) or driver
                if rng.random() < 0.1:
                    st = c.get("/api/state").json()
    return rep


def _sender(path: str, kw: dict[str, Any]) -> str | None:
    """The client id a request named (query or JSON body), if any."""
    if "?" in path:
        return parse_qs(path.partition("?")[2]).get("client", [None])[0]
    try:
        body = jsonio.loads(kw.get("content") or b"null")
    except (TypeError, ValueError):
        return None
    return body.get("client") if isinstance(body, dict) else None


def _problem(res: Any, path: str) -> str | None:
    """What is wrong with a response, or None."""
    if res.status_code >= 500:
        return f"{res.status_code}: {res.text[:300]}"
    if res.status_code >= 400:
        try:
            err = res.json()["error"]
        except (ValueError, KeyError, TypeError):
            return f"{res.status_code} without a JSON error: {res.text[:200]!r}"
        if not isinstance(err, str) or not err:
            return f"{res.status_code} with an empty error"
    return None


# --- main --------------------------------------------------------------------------------
def run_hidden(parties: int, deals: int, seed: int, rules: list[str], variants: int = 4,
               deadline: Callable[[], bool] = lambda: False) -> HiddenReport:
    """:func:`check_hidden` over ``parties`` parties per game and seat count it is played
    with (lízaný two, volený three and four), the human seat in turn."""
    rep = HiddenReport()
    for r in rules:
        for seats in game_kind(r).players:
            # the table's robots: one fewer than the seats (lízaný's session takes two)
            four = {"options": {"players": 4}, "robots": ROBOTS + ",table"} \
                if seats == 4 else {}
            for p in range(parties):
                if deadline():
                    return rep
                rep.add(check_hidden(r, seed + p, p % seats, deals=deals, variants=variants,
                                     rng=random.Random(seed * 7919 + p), **four))
    return rep


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=3000, help="requests per game")
    ap.add_argument("--seconds", type=float, default=120.0, help="time limit in all")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the requests and of the parties (default 0)")
    ap.add_argument("--parties", type=int, default=6, help="parties per game (hidden cards)")
    ap.add_argument("--deals", type=int, default=2, help="deals per partie (hidden cards)")
    ap.add_argument("--variants", type=int, default=4, help="permuted deals per deal")
    ap.add_argument("--rules", default=",".join(TABLE_GAMES),
                    help="comma-separated games of the table to fuzz (default "
                         + ",".join(TABLE_GAMES) + ")")
    args = ap.parse_args(argv)
    rules = [r for r in args.rules.split(",") if r]
    bad = [r for r in rules if r not in TABLE_GAMES]
    if bad:
        ap.error(f"unknown rules {bad[0]!r}: expected one of {', '.join(TABLE_GAMES)}")
    t0 = time.monotonic()
    end = t0 + args.seconds
    total = FuzzReport()
    # every game at every seat count it is played with (volený's four-player table too)
    tables = [(r, seats) for r in rules for seats in game_kind(r).players]
    for i, (r, seats) in enumerate(tables):
        left = max(1.0, (end - time.monotonic()) / 2 / (len(tables) - i))
        four = {"options": {"players": 4}, "robots": ROBOTS + ",table"} if seats == 4 else {}
        rep = fuzz_requests(args.requests, left, args.seed, r, **four)
        total.sent += rep.sent
        total.by_status.update(rep.by_status)
        total.failures += rep.failures
    hidden = run_hidden(args.parties, args.deals, args.seed, rules, args.variants,
                        lambda: time.monotonic() > end)
    names = [r if seats == game_kind(r).players[0] else f"{r} at {seats}" for r, seats in tables]
    print(f"requests sent: {total.sent} ({', '.join(names)})")
    print("by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(total.by_status.items())))
    print(f"request failures: {len(total.failures)}")
    for f in total.failures[:10]:
        print("  " + f.replace("\n", "\n    "))
    print(f"hidden cards: {hidden.states} states of the parties, {hidden.variants} permuted "
          f"deals, {hidden.compared} states compared ({hidden.cut_short} replays cut short "
          f"where the human could tell), leaks: {len(hidden.leaks)}")
    for leak in hidden.leaks[:10]:
        print("  " + leak)
    print(f"time: {time.monotonic() - t0:.1f} s")
    return 1 if total.failures or hidden.leaks else 0


if __name__ == "__main__":
    sys.exit(main())
