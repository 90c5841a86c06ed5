"""Licitovaný played against an independent referee (tests/referee_licitovany.py, L§1–§13).

The referee is a second reading of LICITOVANY.md, written from the spec alone by an
outside auditor; nothing here shares code with the engine.  Episodes of one to three deals
(and whole parties) are played through the public env (``mariash_env.env(rules=
"licitovany")``) by a biased random policy; at each deal's end the referee replays the
deal from its record and must agree with the env on the seat to move and the legal labels
at every step, on how the deal ended, on the game, bid, actor, trumps and helping suit, on
every component's level, outcome and amount, the points, the net and capped amounts, and
the payments and rewards.  Every later deal's deck must be the previous deal gathered and
cut (L§2, L§13), and the dealer must pass to the left.

Rigged decks (the auditors' targeted modes: a durch hand, a betl hand, a long trump suit,
two sevens, a defender who must show) and a policy that leans to rare choices make every
game, every way a deal ends (no bid, fold, show, bare game flek, played), flek chains up to
``max_flek``, the cap, laid-game transfers and silent sevens and hundreds occur in a few
hundred deals.  Each run asserts a coverage floor, so that a change to the policy or the
engine cannot quietly stop testing a branch.
"""

from __future__ import annotations

import collections
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import mariash_env
from tests.helpers import step_cap
from tests.referee_licitovany import CARDS, GAMES, NOTRUMP, RANKS, SUITS, Referee

Options = dict[str, Any]

DEFAULTS: Options = {"max_flek": 5, "payment_cap": 500, "marriage_order": "any",
                     "shuffle": "partie"}

# Every rules option of licitovaný (L§11: max_flek, payment_cap, marriage order, shuffle)
# away from its default, alone and combined.
VARIANTS: list[Options] = [
    {"max_flek": None},
    {"max_flek": 0},
    {"max_flek": 1},
    {"max_flek": 2},
    {"max_flek": 3},
    {"max_flek": 7},
    {"payment_cap": None},
    {"payment_cap": 100},
    {"payment_cap": 50},
    {"marriage_order": "queen_first"},
    {"shuffle": "every_deal"},
    {"max_flek": None, "payment_cap": None, "marriage_order": "queen_first"},
    {"max_flek": 2, "payment_cap": 50, "shuffle": "every_deal"},
]

DECK_MODES = ("random", "random", "random", "durch", "betl", "suit", "sevens", "showing",
              "stovka")

# The default rules meet every game, every end, both outcomes of every component, and
# the rare settlement rules.
DEFAULT_FLOOR = {
    *(f"game={g}" for g in GAMES), *(f"bid={g}" for g in GAMES),
    "end=nobid", "end=fold", "end=show", "end=bare", "end=played",
    *(f"comp {c} {o}" for c in ("game", "seven", "hundred", "two_sevens", "silent_seven")
      for o in ("won", "lost")),
    "betl won", "betl lost", "durch won", "durch lost",
    "silent hundred actor", "silent hundred defence",
    "silent seven actor won", "silent seven actor lost",
    "silent seven defender won", "silent seven defender lost",
    "level 5", "flek reached max_flek", "laid", "laid transfer", "capped played",
    "reserved seven masked", "reserved seven all early",
    "A3 reached", "A3 bid", "first drop challenger", "first drop holder",
    "show by L", "show by R", "marriages", "ended early",
    "actor=forhond", "actor=zadak", "actor=dealer",
    *(f"gathered after {e}" for e in ("nobid", "fold", "show", "bare", "played")),
}

# What every variant must meet whatever its options.
BASE_FLOOR = {"end=nobid", "end=fold", "end=show", "end=bare", "end=played", "betl won",
              "durch won", "comp hundred won", "comp seven lost", "comp two_sevens lost",
              "marriages", "gathered after played"}


def rules_floor(opts: Options) -> set[str]:
    """BASE_FLOOR, and what each option changes met at least once under it."""
    need = set(BASE_FLOOR)
    top = opts.get("max_flek", 5)
    if top is None:
        need.add("level >5")
    elif top:
        need |= {"flek reached max_flek", f"level {top}"}
    else:
        need.remove("end=bare")  # no flek, so no bare game flek
    if "payment_cap" in opts:
        cap = opts["payment_cap"]
        need.add("capped played" if cap is not None else "net beyond 500")
        if cap is not None and cap < 60:
            need.add("capped show")
    if opts.get("marriage_order") == "queen_first":
        need.add("queen_first: king-first marriage lost")
    if opts.get("shuffle") == "every_deal":
        need.remove("gathered after played")
        need.add("shuffled deal")
    return need


# ---------------------------------------------------------------------------------------
# Decks and policy
# ---------------------------------------------------------------------------------------


def seat_positions(dealer: int) -> dict[int, list[int]]:
    """L§2: the deck positions of each seat's ten cards."""
    f, z = (dealer + 1) % 3, (dealer + 2) % 3
    return {f: [*range(0, 5), *range(17, 22)], z: [*range(5, 10), *range(22, 27)],
            dealer: [*range(10, 15), *range(27, 32)]}


def rigged_deck(rng: random.Random, mode: str) -> tuple[list[str], int, int | None, list[str]]:
    """A deck whose favoured seat holds a hand for ``mode``; returns the deck, the dealer,
    the favoured seat and its cards."""
    deck = CARDS[:]
    rng.shuffle(deck)
    dealer = rng.randrange(3)
    if mode == "random":
        return deck, dealer, None, []
    fav = rng.randrange(3)
    if mode == "durch":
        s = rng.sample(SUITS, 2)
        cards = [r + s[0] for r in "AKQJT98"][:rng.choice([6, 7])] + [r + s[1] for r in "AKQJ"]
        cards += ["A" + x for x in SUITS if x not in s]
    elif mode == "betl":
        cards = [r + x for x in SUITS for r in "78"] + ["9" + rng.choice(SUITS)]
    elif mode == "suit":
        t = rng.choice(SUITS)
        cards = [r + t for r in RANKS] + ["A" + x for x in SUITS if x != t][:2]
        if rng.random() < 0.4:  # a marriage beside the trumps
            o = rng.choice([x for x in SUITS if x != t])
            cards = cards[:8] + ["K" + o, "Q" + o]
    elif mode == "sevens":
        t, y = rng.sample(SUITS, 2)
        cards = [r + t for r in "7AKQT"] + [r + y for r in "7A"]
        cards += ["A" + x for x in SUITS if x not in (t, y)]
        cards += [c for c in CARDS if c not in cards and c[1] == y]
    elif mode == "stovka":  # a trump marriage and a few trumps, the seven with either side
        t = rng.choice(SUITS)
        trumps = [r + t for r in "89JTA"]
        rng.shuffle(trumps)
        cards = ["K" + t, "Q" + t] + trumps[:rng.randint(0, 3)]
        if rng.random() < 0.5:
            cards.append("7" + t)
        cards += ["A" + x for x in SUITS if x != t]
    else:  # showing: two sevens, a defender likely long in the helping suit
        t, y = rng.sample(SUITS, 2)
        cards = ["7" + t, "7" + y] + [c for c in CARDS if c[1] == t and c != "7" + t][:6]
        cards += ["A" + y, "K" + y]
    cards = list(dict.fromkeys(cards))[:10]
    while len(cards) < 10:
        c = rng.choice(CARDS)
        if c not in cards:
            cards.append(c)
    rest = iter(c for c in deck if c not in cards)
    out: list[str | None] = [None] * 32
    shuffled = cards[:]
    rng.shuffle(shuffled)
    for p, c in zip(seat_positions(dealer)[fav], shuffled):
        out[p] = c
    return [c if c is not None else next(rest) for c in out], dealer, fav, cards


class Policy:
    """A random player that leans to the favoured seat's rigged game and to rare choices
    (a fold, a bare game flek, one defender making every odd flek, long flek chains)."""

    def __init__(self, rng: random.Random, mode: str, fav: int | None,
                 fav_cards: list[str]) -> None:
        self.rng = rng
        self.mode = mode
        self.fav = fav
        self.fav_cards = set(fav_cards)
        self.fav_trump = (collections.Counter(c[1] for c in fav_cards).most_common(1)[0][0]
                          if mode in ("suit", "stovka") else None)
        self.bare = rng.random() < 0.3
        self.bare_done = False
        self.game = ""
        self.p_flek = rng.choice([0.1, 0.3, 0.5])
        self.lone_flekker = rng.random() < 0.3  # for the laid game's single payer (L§9)
        self.aggr = rng.choice([0.3, 0.5, 0.7])
        # sevens kept to trick 10: silent sevens in (lepší) stovka
        self.hold_sevens = mode == "stovka" or rng.random() < 0.4
        # everyone keeps trumps too, so that a seven in trick 10 meets a higher trump
        self.hold_trumps = mode == "stovka" and rng.random() < 0.5
        self.actor: int | None = None

    def choose(self, seat: int, labels: list[str]) -> str:
        rng = self.rng
        bids = [lab for lab in labels if lab.startswith("bid:")]
        if bids or "hold" in labels:
            return self._auction(seat, labels, bids)
        games = [lab for lab in labels if lab.startswith("game:")]
        if games or "fold" in labels:
            self.actor = seat
            self.bare_done = False
            self.game = self._game(labels, games)
            return self.game
        if "show" in labels:
            return "show"
        if seat == self.fav:
            if self.fav_trump and "trump:" + self.fav_trump in labels:
                return "trump:" + self.fav_trump
            junk = [lab for lab in labels
                    if lab.startswith("discard:") and lab[8:] not in self.fav_cards]
            if junk and rng.random() < 0.9:
                return rng.choice(junk)
        if labels[0].startswith("play:"):
            if self.hold_sevens and len(labels) > 1:
                labels = [lab for lab in labels if lab[5] != "7"] or labels
            if self.hold_trumps and len(labels) > 1:
                labels = [lab for lab in labels if lab[6] != self.fav_trump] or labels
            return rng.choice(labels)
        if "good" not in labels:
            return rng.choice(labels)
        fleks = [lab for lab in labels if lab.startswith("flek:")]
        if self.bare and self.game in ("game:sedma", "game:lepsi_sedma"):
            # L flekks the game alone, once, and everyone else says good (L§6)
            if ("flek:game" in labels and self.actor is not None
                    and seat == (self.actor + 1) % 3 and not self.bare_done):
                self.bare_done = True
                return "flek:game"
            return "good"
        if fleks:
            if self.lone_flekker and self.actor is not None and seat == (self.actor + 2) % 3:
                return "good"
            if rng.random() < (0.7 if self.lone_flekker else self.p_flek):
                return rng.choice(fleks)
        return "good"

    def _auction(self, seat: int, labels: list[str], bids: list[str]) -> str:
        rng = self.rng
        if self.fav is not None:
            if seat == self.fav:
                pref = {"durch": "bid:durch", "betl": "bid:betl", "stovka": "bid:sto"}.get(
                    self.mode)
                if pref in labels:
                    return pref
                if bids:
                    return rng.choice(bids)
                return "hold" if "hold" in labels else "pass"
            if rng.random() < 0.8:
                return "pass"
        if "hold" in labels and rng.random() < self.aggr + 0.1:
            return "hold"
        if bids and rng.random() < self.aggr:
            return bids[0] if rng.random() < 0.6 else rng.choice(bids)  # mostly small steps
        return "pass"

    def _game(self, labels: list[str], games: list[str]) -> str:
        rng = self.rng
        if "fold" in labels and rng.random() < 0.15:
            return "fold"
        if self.mode in NOTRUMP and "game:" + self.mode in labels and rng.random() < 0.8:
            return "game:" + self.mode
        prefer = {"sevens": lambda g: "dve" in g,
                  "suit": lambda g: "sto" in g or "sedma" in g,  # not dve_sedmy
                  "stovka": lambda g: g == ("game:lepsi_sto" if self.fav_trump == "h"
                                            else "game:sto"),
                  "showing": lambda g: g in ("game:dve_sedmy", "game:lepsi_dve_sedmy"),
                  }.get(self.mode)
        liked = [g for g in games if prefer and prefer(g)]
        if liked and rng.random() < 0.7:
            return rng.choice(liked)
        return games[0] if rng.random() < 0.4 else rng.choice(games)


# ---------------------------------------------------------------------------------------
# Comparison and coverage
# ---------------------------------------------------------------------------------------

END_NAMES = {"no_bid": "nobid", "fold": "fold", "show": "show", "shown": "show",
             "bare_game_flek": "bare", "bare": "bare", "played": "played",
             "decided_early": "played", "nobid": "nobid"}


def settlement_diffs(ref: Referee, es: dict[str, Any]) -> list[tuple]:
    """Every part of the referee's settlement that the env's differs in."""
    rs = ref.settlement
    assert rs is not None
    diffs = []
    if END_NAMES.get(es.get("end"), es.get("end")) != rs["end"]:
        diffs.append(("end", es.get("end"), rs["end"]))
    for key, mine in (("payments", rs["payments"]), ("amount", rs["amount"]),
                      ("actor", -1 if ref.actor is None else ref.actor), ("game", ref.game),
                      ("bid", ref.bid), ("trump", ref.trump), ("helping", ref.helping)):
        if es.get(key) != mine:
            diffs.append((key, es.get(key), mine))
    ec = {c["component"]: c for c in es.get("components", [])}
    rc = {c["component"]: c for c in rs["components"]}
    if set(ec) != set(rc):
        diffs.append(("components", sorted(ec), sorted(rc)))
    for k in set(ec) & set(rc):
        for field in ("amount", "level", "won"):
            if field in rc[k] and not (field == "won" and k == "silent_seven"):
                if ec[k].get(field) != rc[k][field]:
                    diffs.append((f"{k}.{field}", ec[k].get(field), rc[k][field]))
    if rs["end"] == "played" and ref.game not in ("betl", "durch", "dve_sedmy",
                                                  "lepsi_dve_sedmy"):
        if es.get("points") != ref.points:
            diffs.append(("points", es.get("points"), ref.points))
        if es.get("net") != rs["net"]:
            diffs.append(("net", es.get("net"), rs["net"]))
    return diffs


def record_coverage(cov: collections.Counter, ref: Referee) -> None:
    st = ref.settlement
    assert st is not None
    cov["deals"] += 1
    cov[f"end={ref.end}"] += 1
    if ref.bid:
        cov[f"bid={ref.bid}"] += 1
    if ref.end in ("played", "show", "bare"):
        cov[f"game={ref.game}"] += 1
    cov.update(ref.flags)
    if ref.actor is not None:
        cov["actor=" + {ref.f: "forhond", ref.z: "zadak", ref.d: "dealer"}[ref.actor]] += 1
    if ref.end != "played":
        return
    for c in st["components"]:
        outcome = "won" if c.get("won") else "lost"
        cov[f"comp {c['component']} {outcome}"] += 1
        if ref.game in NOTRUMP:
            cov[f"{ref.game} {outcome}"] += 1
        if c.get("silent_hundred"):
            cov["silent hundred " + ("actor" if c["won"] else "defence")] += 1
    top = max(ref.levels.values())
    cov[f"level {top}"] += 1
    cov["level >5"] += top > 5
    cov["marriages"] += bool(ref.marriages)
    cov["laid"] += ref.laid
    cov["laid transfer"] += st["laid_payer"] is not None
    cov["net beyond 500"] += abs(st["net"]) > 500
    cov["ended early"] += len(ref.tricks) < 10


def check_deal(rec: dict[str, Any], es: dict[str, Any], log: list[tuple[int, frozenset, str]],
               opts: Options, rewards: list[float]) -> Referee:
    """Replay one finished deal through the referee: labels at every step, settlement."""
    ctx = {"opts": opts, "dealer": rec["dealer"], "deck": rec["deck"],
           "actions": rec["actions"]}
    assert [tuple(a) for a in rec["actions"]] == [(s, lab) for s, _, lab in log], ctx
    ref = Referee(rec["deck"], rec["dealer"], max_flek=opts["max_flek"],
                  payment_cap=opts["payment_cap"], marriage_order=opts["marriage_order"])
    for i, (seat, legal, lab) in enumerate(log):
        assert ref.to_move == seat, ("seat to move", i, seat, ref.to_move, ctx)
        mine = ref.legal()
        assert mine == legal, ("legal labels", i, ref.phase, sorted(legal - mine),
                               sorted(mine - legal), ctx)
        ref.step(lab)
    assert ref.done, ("the env ended the deal, the referee did not", ctx)
    diffs = settlement_diffs(ref, es)
    assert not diffs, ("settlement", diffs, ctx)
    assert rewards == [float(x) for x in ref.settlement["payments"]], ("rewards", ctx)
    return ref


def play_episode(rng: random.Random, opts: Options, mode: str, deals: int,
                 cov: collections.Counter) -> None:
    """An episode of ``deals`` deals; each checked against the referee as it ends."""
    deck, dealer, fav, fav_cards = rigged_deck(rng, mode)
    reset_opts: dict[str, Any] = {"deck": deck, "dealer": dealer}
    cuts = [rng.randint(2, 30) for _ in range(deals - 1)]
    if rng.random() < 0.5:
        reset_opts["cuts"] = cuts
    else:
        cuts = []
    env = mariash_env.env(rules="licitovany", deals=deals, **opts)
    env.reset(seed=rng.randrange(10**9), options=reset_opts)
    raw = env.unwrapped
    pol = Policy(rng, mode, fav, fav_cards)
    log: list[tuple[int, frozenset, str]] = []
    prev: Referee | None = None
    done = 0
    tick = step_cap(raw, deals=None)
    while env.agents and not all(env.terminations[a] or env.truncations[a]
                                 for a in env.agents):
        tick()
        ag = env.agent_selection
        if env.terminations[ag] or env.truncations[ag]:
            env.step(None)
            continue
        seat = int(ag.split("_")[1])
        labels = raw.legal_labels()
        for other in range(3):
            if other != seat:
                assert not raw.legal_labels(f"player_{other}"), "a seat not to move has labels"
        lab = pol.choose(seat, labels)
        log.append((seat, frozenset(labels), lab))
        env.step(raw.action_index(lab))
        if len(raw.records) == done:
            assert not any(env.rewards.values()), "a reward before the deal's end"
            continue
        rec = raw.records[-1]
        es = raw.last_settlement
        assert rec["settlement"] == es
        for a in env.agents:
            assert env.infos[a].get("settlement") == es
        rewards = [env.rewards[f"player_{s}"] for s in range(3)]
        if prev is None:
            assert rec["cut"] is None and rec["deck"] == deck and rec["dealer"] == dealer
        else:
            assert rec["dealer"] == (prev.d + 1) % 3, "the deal passes to the left"
            if opts["shuffle"] == "partie":
                k = rec["cut"]
                assert isinstance(k, int) and 2 <= k <= 30, k
                if cuts:
                    assert k == cuts[done - 1]
                assert prev.gathered_deck(k) == rec["deck"], ("gathered deck", prev.end, k)
                cov[f"gathered after {prev.end}"] += 1
            else:
                assert rec["cut"] in (None, 0)
                cov["shuffled deal"] += 1
        prev = check_deal(rec, es, log, opts, rewards)
        record_coverage(cov, prev)
        log = []
        pol.actor = None
        done += 1
    assert done == deals, (done, deals)


def run(seed: int, opts: Options, episodes: int) -> collections.Counter:
    rng = random.Random(seed)
    cov: collections.Counter = collections.Counter()
    full = DEFAULTS | opts
    for i in range(episodes):
        play_episode(rng, full, DECK_MODES[i % len(DECK_MODES)], 1 + i % 3, cov)
    return cov


def missing(cov: collections.Counter, floor: set[str]) -> list[str]:
    return sorted(k for k in floor if not cov[k])


# ---------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------


def test_default_rules_every_branch():
    """The default rules: every game, every end, both outcomes of every component, silent
    sevens and hundreds, flek to max_flek, the cap, the laid game, showing by either
    defender, the auction's every path and the gathering after every end."""
    cov = run(2024, {}, 600)
    assert not missing(cov, DEFAULT_FLOOR), missing(cov, DEFAULT_FLOOR)


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: ",".join(
    f"{k}={v}" for k, v in o.items()))
def test_rules_option(opts):
    """Each option of L§11 away from its default, alone and combined: labels and
    settlements agree, and what the option changes is met (a component at max_flek or
    beyond kalhoty, a capped or an uncapped large amount, a king-first marriage lost, a
    fresh deck every deal)."""
    cov = run(VARIANTS.index(opts), opts, 90)
    floor = rules_floor(opts)
    assert not missing(cov, floor), missing(cov, floor)


def test_whole_parties():
    """L§11: a partie is 12 deals, every deck after the first gathered and cut, the deal
    passing to the left, the totals zero-sum (uniformly random play)."""
    rng = random.Random(7)
    cov: collections.Counter = collections.Counter()
    for first_dealer in range(3):
        env = mariash_env.env(rules="licitovany")
        env.reset(seed=first_dealer, options={"dealer": first_dealer})
        raw = env.unwrapped
        log: list[tuple[int, frozenset, str]] = []
        prev: Referee | None = None
        totals = [0, 0, 0]
        tick = step_cap(raw, deals=None)
        while raw.legal_labels():
            tick()
            labels = raw.legal_labels()
            seat = int(env.agent_selection.split("_")[1])
            lab = rng.choice(labels)
            log.append((seat, frozenset(labels), lab))
            deals_before = len(raw.records)
            env.step(raw.action_index(lab))
            if len(raw.records) == deals_before:
                continue
            rec = raw.records[-1]
            if prev is not None:
                assert rec["dealer"] == (prev.d + 1) % 3
                assert prev.gathered_deck(rec["cut"]) == rec["deck"]
            rewards = [float(x) for x in rec["settlement"]["payments"]]
            prev = check_deal(rec, rec["settlement"], log, DEFAULTS, rewards)
            record_coverage(cov, prev)
            totals = [t + p for t, p in zip(totals, rec["settlement"]["payments"])]
            log = []
        assert len(raw.records) == 12 and raw.records[0]["dealer"] == first_dealer
        assert sum(totals) == 0
    assert cov["deals"] == 36


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**32 - 1), opts=hs.sampled_from([{}, *VARIANTS]),
       mode=hs.sampled_from(DECK_MODES), deals=hs.integers(1, 3))
def test_any_episode(seed, opts, mode, deals):
    """Hypothesis draws the seed, the options, the deck mode and the episode's length
    (derandomized: the same examples every run)."""
    play_episode(random.Random(seed), DEFAULTS | opts, mode, deals, collections.Counter())
