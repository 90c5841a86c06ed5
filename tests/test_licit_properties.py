"""Invariants of licitovaný mariáš over many seeded random deals (LICITOVANY.md, "L§n").

The core is driven directly (``engine.legal_actions`` / ``engine.apply_action`` on the
rules vector) by a compiled random player that checks, after every action: every card in
exactly one place (hands, talon, played), a legal action until the deal ends, reserved
sevens held back exactly as L§7 says (checked against the plain R§6 legal cards, not
against the engine's own reserved-seven code), and at each deal's end zero-sum payments
and, for played suit games, 90 card points.  Whole parties are played, so every later deal
is a gathered and cut deck (L§2).
"""

from __future__ import annotations

import numpy as np
from numba import njit  # not the core's cached njit: a cache here would miss core edits

from mariash_env.core import state as S
from mariash_env.core.deal import shuffled_deck
from mariash_env.core.engine import advance_partie, apply_action, legal_actions, start_partie
from mariash_env.core.licit_games import COMPONENTS
from mariash_env.core.licit_observe import LOBS_SIZE, LSTATE_OBS_SIZE, encode_licit
from mariash_env.core.play import follow_cards
from mariash_env.licit_actions import N_ACTIONS, PLAY0
from mariash_env.rules import G_LICIT, make_rules
from tests.helpers import step_cap

ALL = np.int64(0xFFFFFFFF)
SEVEN_BITS = (1 << S.K_SEVEN) | (1 << S.K_TWO_SEVENS)

# Violation counters returned by _run (index: what broke).
V_PARTITION, V_STUCK, V_RESERVED, V_ZERO_SUM, V_POINTS, V_SCORE = range(6)
N_V = 6


@njit
def _early_sevens(st, seat):
    """L§7, written from the text: the actor's reserved sevens that are early now."""
    if seat != st[S.ACTOR] or st[S.CONTRACT] != S.C_SUIT:
        return np.int64(0)
    comp = COMPONENTS[st[S.LIC_GAME]]
    hand = S.getm(st, S.HAND + seat)
    t = st[S.TRICK_NO] + 1  # 1-based trick number
    early = np.int64(0)
    for which in range(2):
        if which == 0:
            if not comp & SEVEN_BITS:
                continue
            c, target = (st[S.TRUMP_CARD] >> 3) * 8, 10
        else:
            if not comp & (1 << S.K_TWO_SEVENS):
                continue
            c, target = st[S.LIC_HELP] * 8, 9
        if not (hand >> c) & 1:
            continue
        suit = np.int64(0xFF) << (c & ~7)
        if t < target or hand & suit & ~(np.int64(1) << c):
            early |= np.int64(1) << c
    return early


@njit
def _partition_ok(st):
    h0 = S.getm(st, S.HAND)
    h1 = S.getm(st, S.HAND + 1)
    h2 = S.getm(st, S.HAND + 2)
    tal = S.getm(st, S.TALON)
    pl = S.getm(st, S.PLAYED)
    parts = (h0, h1, h2, tal, pl)
    union = np.int64(0)
    total = 0
    for m in parts:
        union |= m
        x = m
        while x:
            x &= x - 1
            total += 1
    return union == ALL and total == 32


@njit
def _run(st, seed, n_deals, rv):
    """Play ``n_deals`` random deals (whole parties); return the violation counters and
    how many deals ended each way (by END code), and how many actor plays were checked."""
    viol = np.zeros(N_V, dtype=np.int64)
    ends = np.zeros(16, dtype=np.int64)
    checked = np.zeros(2, dtype=np.int64)  # actor play decisions; ones with an early seven
    np.random.seed(seed)
    start_partie(st, shuffled_deck(st), 0, G_LICIT)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    legal = np.zeros(N_ACTIONS, dtype=np.int64)
    done = 0
    while done < n_deals:
        if not _partition_ok(st):
            viol[V_PARTITION] += 1
        if st[S.PHASE] == S.PH_DONE:
            done += 1
            ends[st[S.END]] += 1
            pay = np.int64(0)
            for s in range(3):
                pay += S.get64(st, S.PAY + 2 * s)
            if pay != 0:
                viol[V_ZERO_SUM] += 1
            if st[S.END] == S.END_PLAYED and st[S.CONTRACT] == S.C_SUIT:
                if st[S.PTS] + st[S.PTS + 1] + st[S.PTS + 2] != 90:
                    viol[V_POINTS] += 1
            if not advance_partie(st, rv, -1):
                score = np.int64(0)
                for s in range(3):
                    score += S.get64(st, S.SCORE + 2 * s)
                if score != 0:
                    viol[V_SCORE] += 1
                start_partie(st, shuffled_deck(st), done % 3, G_LICIT)
            continue
        legal_actions(st, rv, mask)
        n = 0
        for a in range(N_ACTIONS):
            if mask[a]:
                legal[n] = a
                n += 1
        if n == 0:
            viol[V_STUCK] += 1
            # Abandon the stuck deal so that the run goes on.
            start_partie(st, shuffled_deck(st), 0, G_LICIT)
            continue
        seat = st[S.TO_MOVE]
        if st[S.PHASE] == S.PH_PLAY and seat == st[S.ACTOR]:
            base = follow_cards(st, seat)
            early = _early_sevens(st, seat) & base
            want = base & ~early if base & ~early else base
            got = np.int64(0)
            for a in range(PLAY0, PLAY0 + 32):
                if mask[a]:
                    got |= np.int64(1) << (a - PLAY0)
            checked[0] += 1
            if early:
                checked[1] += 1
            if got != want or n != _popcount(got):
                viol[V_RESERVED] += 1
        apply_action(st, rv, legal[np.random.randint(n)])
    return viol, ends, checked


@njit
def _popcount(m):
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


def _state(seed: int) -> np.ndarray:
    st = S.new_state()
    S.seed_rng(st, seed)
    return st


def test_invariants_over_10000_random_deals():
    """Zero-sum (every deal and every partie), every card in exactly one place after
    every action, never stuck, reserved sevens exactly per L§7, 90 card points."""
    rv = make_rules(rules="licitovany").vector()
    viol, ends, checked = _run(_state(12), 12, 10_000, rv)
    assert viol.tolist() == [0] * N_V, dict(zip(
        ["partition", "stuck", "reserved", "zero_sum", "points", "score"], viol.tolist()))
    assert ends.sum() == 10_000
    # The random deals reach every kind of end, and early sevens were really exercised.
    for end in (S.END_PLAYED, S.END_NO_BID, S.END_FOLD, S.END_BARE_FLEK, S.END_BROKEN,
                S.END_SHOW):
        assert ends[end] > 0, S.END_NAMES[end]
    assert checked[1] > 1000 and checked[0] > checked[1]


def test_invariants_unbounded_flek_and_no_cap():
    """The same invariants with ``max_flek=None`` and ``payment_cap=None``."""
    rv = make_rules(rules="licitovany", max_flek=None, payment_cap=None).vector()
    viol, ends, _ = _run(_state(5), 5, 2000, rv)
    assert viol.tolist() == [0] * N_V


# --------------------------------------------------------------------------------------
# Observations never show another seat's hidden cards
# --------------------------------------------------------------------------------------


def _hidden_swap(st: np.ndarray, me: int, rng: np.random.Generator) -> np.ndarray | None:
    """A second world: one card exchanged between two places hidden from ``me`` (another
    seat's hand, the untaken talon, another actor's discards), with every record that
    names the card (talon taken, discards, face-down lead, deal position) following it."""
    st2 = st.copy()
    places = [S.getm(st, S.HAND + o) for o in range(3) if o != me]  # card masks
    if st[S.TALON_OWNER] != me:
        places.append(S.getm(st, S.TALON))
    places = [m for m in places if m]
    if len(places) < 2:
        return None
    i, j = rng.choice(len(places), 2, replace=False)
    m1, m2 = places[i], places[j]
    c = int(rng.choice([x for x in range(32) if m1 >> x & 1]))
    d = int(rng.choice([x for x in range(32) if m2 >> x & 1]))
    bc, bd = 1 << c, 1 << d

    def swap_in(off: int) -> None:
        m = S.getm(st2, off)
        has_c, has_d = m & bc, m & bd
        m &= ~(bc | bd)
        if has_c:
            m |= bd
        if has_d:
            m |= bc
        S.setm(st2, off, m)

    for off in [S.HAND + s for s in range(3)] + [S.TALON] + [S.TOOK + s for s in range(3)] \
            + [S.LAID + s for s in range(3)]:
        swap_in(off)
    for off in (S.DISC, S.DISC + 1, S.LIC_LEAD):
        if st2[off] == c:
            st2[off] = d
        elif st2[off] == d:
            st2[off] = c
    st2[S.POS + c], st2[S.POS + d] = st[S.POS + d], st[S.POS + c]
    return st2


def test_observation_hides_other_seats_cards():
    """L§5, §7 Decision: a seat's observation is the same in two worlds that differ only
    in cards hidden from it: other hands, the untaken talon, the actor's discards and his
    face-down lead card (the omniscient state does differ)."""
    from mariash_env import Game

    rng = np.random.default_rng(3)
    g = Game(make_rules(rules="licitovany"))
    out1 = np.empty(LSTATE_OBS_SIZE, dtype=np.float32)
    out2 = np.empty(LSTATE_OBS_SIZE, dtype=np.float32)
    compared = 0
    phases = set()
    for deal in range(60):
        g.new_partie(seed=deal)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            for me in range(3):
                st2 = _hidden_swap(g.st, me, rng)
                if st2 is None:
                    continue
                encode_licit(g.st, me, out1, False)
                encode_licit(st2, me, out2, False)
                assert (out1[:LOBS_SIZE] == out2[:LOBS_SIZE]).all(), (g.phase_name, me)
                encode_licit(g.st, me, out1, True)
                encode_licit(st2, me, out2, True)
                assert not (out1 == out2).all()  # the swap changed the hidden world
                compared += 1
                phases.add(g.phase_name)
            labs = g.legal_labels()
            g.step(labs[rng.integers(len(labs))])
    assert compared > 1000
    assert {"bid", "hold", "game", "discard", "flek", "play"} <= phases


def test_observation_face_down_lead_hidden_from_defenders():
    """L§5 T5: the betl / durch lead card is known only to the actor until played; the
    defenders' observations agree whichever card it is."""
    from tests.helpers import licit_game, play
    from tests.test_licit_rules import LOW

    outs = {}
    for lead in ("7h", "7b"):
        g = licit_game(LOW)
        play(g, ["pass", "pass", "bid:betl", "game:betl", "discard:8a", "discard:9a",
                 f"lead:{lead}"])
        for me in range(3):
            out = np.empty(LOBS_SIZE, dtype=np.float32)
            encode_licit(g.st, me, out, False)
            outs[lead, me] = out
    actor = 1
    for me in range(3):
        same = (outs["7h", me] == outs["7b", me]).all()
        assert same == (me != actor)


# --------------------------------------------------------------------------------------
# Settlement against an independent oracle written from L§7–§9
# --------------------------------------------------------------------------------------

_TRUMP_ORDER = (0, 1, 2, 6, 3, 4, 5, 7)  # strength of 7 8 9 T J Q K A in suit games (R§6)
_GAME_COMPONENTS = {  # L§3: game, seven, hundred, two sevens
    "sedma": "gs", "lepsi_sedma": "gs", "sto": "h", "sto_sedma": "hs", "lepsi_sto": "h",
    "lepsi_sto_sedma": "hs", "betl": "g", "durch": "g", "dve_sedmy": "t",
    "dve_sedmy_sto": "th", "lepsi_dve_sedmy": "t", "lepsi_dve_sedmy_sto": "th"}
_KEY = {"g": "game", "s": "seven", "h": "hundred", "t": "two_sevens"}


def _suit(c: str) -> str:
    return c[1]


def _strength(c: str, plain: bool) -> int:
    r = "789TJQKA".index(c[0])
    return r if plain else _TRUMP_ORDER[r]


def _trick_winner(cards: list[str], trump: str | None, plain: bool) -> int:
    best = 0
    for i, c in enumerate(cards[1:], 1):
        b = cards[best]
        if _suit(c) == _suit(b):
            if _strength(c, plain) > _strength(b, plain):
                best = i
        elif trump and _suit(c) == trump:
            best = i
    return best


def _oracle(deck: list[str], dealer: int, hist: list[tuple[int, str]], cap: int | None):
    """Payments and component amounts of one licitovaný deal, from L§2–§9 alone."""
    f = (dealer + 1) % 3
    z = (dealer + 2) % 3
    hands = {f: set(deck[0:5] + deck[17:22]), z: set(deck[5:10] + deck[22:27]),
             dealer: set(deck[10:15] + deck[27:32])}
    talon = set(deck[15:17])
    actor = game = trump = helping = lead = None
    levels = {k: 0 for k in _KEY.values()}
    odd_raisers: set[int] = set()
    plays: list[tuple[int, str]] = []
    end = None
    for seat, lab in hist:
        head, _, arg = lab.partition(":")
        if head == "game":
            actor, game = seat, arg
            hands[actor] |= talon
            trump = "h" if arg.startswith("lepsi") else None
        elif head == "fold":
            end = "fold"
            actor = seat
        elif head == "trump":
            trump = arg
        elif head == "helping":
            helping = arg
        elif head == "discard":
            hands[actor].discard(arg)
        elif head == "lead":
            lead = arg
        elif head == "flek":
            levels[arg] += 1
            if levels[arg] % 2:
                odd_raisers.add(seat)
        elif head == "show":
            end = "show"
        elif head == "play":
            plays.append((seat, arg))
    if actor is None:
        return [0, 0, 0], {}
    lepsi = bool(game and game.startswith("lepsi"))
    h = 2 if lepsi else 1
    comps: dict[str, int] = {}
    if end == "fold":
        a = -6
    elif end == "show":
        a = -90 if lepsi else -60
    else:
        keys = [_KEY[k] for k in _GAME_COMPONENTS[game]]
        plain = game in ("betl", "durch")
        defenders = [(actor + 1) % 3, (actor + 2) % 3]
        laid = _laid(game, trump, lead, hands, actor, defenders, plain)
        top = max(levels.values())
        payer = next(iter(odd_raisers)) if len(odd_raisers) == 1 and top >= 3 else None
        if game in ("sedma", "lepsi_sedma") and levels["game"] == 1 and levels["seven"] == 0:
            comps = {"game": -2 * h, "seven": 2 * h}
            a = 0
        else:
            comps = _played(game, trump, helping, lead, hands, actor, f, plays, levels, h,
                            keys, plain)
            a = sum(comps.values())
        if cap is not None:
            a = max(-cap, min(cap, a))
        pay = [-a, -a, -a]
        pay[actor] = 2 * a
        if laid and payer is not None and a > 0:
            for d in defenders:
                pay[d] = -2 * a if d == payer else 0
        return pay, comps
    pay = [-a, -a, -a]
    pay[actor] = 2 * a
    return pay, comps


def _laid(game, trump, lead, hands, actor, defenders, plain) -> bool:
    """L§9 (a) and §13, on the hands when flekking ends."""
    mine = hands[actor]
    theirs = hands[defenders[0]] | hands[defenders[1]]
    if game == "betl":
        if any(_suit(d) == _suit(c) and _strength(d, True) < _strength(c, True)
               for c in mine for d in theirs):
            return False
        return any(_suit(d) == _suit(lead) for d in theirs)
    if any(_suit(d) == _suit(c) and _strength(d, plain) > _strength(c, plain)
           for c in mine for d in theirs):
        return False
    if game == "durch":
        return True
    if any(_suit(d) == trump for d in theirs):
        return False
    if "sto" in game and not any(f"K{s}" in mine and f"Q{s}" in mine for s in "hbla"):
        return False
    return True


def _played(game, trump, helping, lead, hands, actor, f, plays, levels, h, keys, plain):
    hands = {s: set(c) for s, c in hands.items()}
    pts = [0, 0, 0]
    marriages: list[tuple[int, str]] = []  # (seat, suit) in play order
    tricks: list[tuple[int, list[tuple[int, str]], int]] = []  # leader, cards, winner
    seq = list(plays)
    if plain:
        seq.insert(0, (actor, lead))
    leader = actor if plain else f
    for i in range(0, len(seq), 3):
        trick = seq[i:i + 3]
        assert trick[0][0] == leader
        for seat, c in trick:
            if not plain and c[0] in "KQ" and {"K" + c[1], "Q" + c[1]} <= hands[seat]:
                marriages.append((seat, c[1]))
            hands[seat].discard(c)
        w = trick[_trick_winner([c for _, c in trick], None if plain else trump, plain)][0]
        pts[w] += sum(10 for _, c in trick if c[0] in "TA")
        tricks.append((leader, trick, w))
        leader = w
    if len(tricks) == 10:
        pts[tricks[-1][2]] += 10

    def mult(k):
        return 2 ** levels[k]

    comps = {}
    if plain:
        won = all(w != actor for _, _, w in tricks) if game == "betl" else \
            all(w == actor for _, _, w in tricks)
        price = 15 if game == "betl" else 30
        comps["game"] = (price if won else -price) * mult("game")
        return comps

    def mval(suit):
        return 40 if suit == trump else 20

    ca = pts[actor]
    cd = sum(pts) - ca
    ma = sum(mval(s) for seat, s in marriages if seat == actor)
    md = sum(mval(s) for seat, s in marriages if seat != actor)
    first = next((mval(s) for seat, s in marriages if seat == actor), 0)
    if keys == ["two_sevens"]:
        ma = md = first = 0
    pa, pd = ca + ma, cd + md

    def took(t, card, seat):
        if len(tricks) <= t:
            return False
        _, trick, w = tricks[t]
        return (seat, card) in trick and w == seat

    seven = "7" + trump
    if "game" in keys:
        won = pa > pd
        best = pa if won else pd
        worth = 2 * (best - 90) // 10 if best >= 100 else 1
        comps["game"] = (1 if won else -1) * worth * h * mult("game")
    if "seven" in keys:
        comps["seven"] = (2 if took(9, seven, actor) else -2) * h * mult("seven")
    if "hundred" in keys:
        counted = ca + first
        comps["hundred"] = (4 * (pa - 90) // 10 if counted >= 100 else
                            -4 * ((100 - counted) + md) // 10) * h * mult("hundred")
    if "two_sevens" in keys:
        price = 60 if game.startswith("lepsi") else 40
        won = took(8, "7" + helping, actor) and took(9, seven, actor)
        comps["two_sevens"] = (price if won else -price) * mult("two_sevens")
    if game in ("sto", "lepsi_sto") and len(tricks) == 10:
        for seat, c in tricks[9][1]:
            if c == seven:
                mine = seat == actor
                takes = tricks[9][2] == seat
                comps["silent_seven"] = (1 if mine == takes else -1) * h
    return comps


def test_settlement_matches_oracle_on_random_deals():
    """Every payment and component amount of 1500 random deals (random auctions, fleks and
    play, whole parties so later decks are gathered) equals the oracle's."""
    from mariash_env import Game

    rng = np.random.default_rng(11)
    g = Game(make_rules(rules="licitovany"))
    ends: dict[str, int] = {}
    n = 0
    while n < 1500:
        g.new_partie(seed=n)
        tick = step_cap(g, deals=None)
        while True:
            tick()
            deck, dealer = g.deck(), int(g.st[S.DEALER])
            while not g.deal_over:
                tick()
                labs = g.legal_labels()
                g.step(labs[rng.integers(len(labs))])
            s = g.settlement()
            hist = [(seat, g.kind.labels[a]) for seat, a in g.history]
            pay, comps = _oracle(deck, dealer, hist, 500)
            assert s["payments"] == pay, (deck, dealer, hist, s)
            got = {c["component"]: c["amount"] for c in s["components"]}
            assert got == comps, (deck, dealer, hist, s)
            ends[s["end"]] = ends.get(s["end"], 0) + 1
            n += 1
            if not g.next_deal():
                break
    assert {"played", "decided_early", "fold", "no_bid", "bare_game_flek"} <= set(ends)


# --------------------------------------------------------------------------------------
# Every legal set against an independent §3–§7 state machine
# --------------------------------------------------------------------------------------

_GAMES = tuple(_GAME_COMPONENTS)  # §3 order (dict order)


class _Machine:
    """L§3–§7 written from the text: the legal labels of the seat to move, fed the labels
    applied.  Trick legality of R§6 (unchanged) is the one thing read from the core."""

    def __init__(self, deck: list[str], dealer: int, max_flek: int | None) -> None:
        self.f, self.z, self.d = (dealer + 1) % 3, (dealer + 2) % 3, dealer
        self.hands = {self.f: set(deck[0:5] + deck[17:22]),
                      self.z: set(deck[5:10] + deck[22:27]),
                      self.d: set(deck[10:15] + deck[27:32])}
        self.talon = set(deck[15:17])
        self.max_flek = 10**9 if max_flek is None else max_flek
        self.phase, self.to_move = "A1", self.z
        self.holder, self.challenger = self.f, self.z
        self.high, self.high_seat, self.drops = 0, None, 0
        self.actor = self.game = self.trump = self.helping = None
        self.ndisc = 0
        self.levels: dict[str, int] = {}
        self.turn = self.quiet = 0
        self.raised = False
        self.show_seat = None
        self.l_fleked = False

    # --- §3 needs ---
    def _trumps_ok(self, game: str, hand: set[str], t: str) -> bool:
        comps = _GAME_COMPONENTS[game]
        if "s" not in comps and "t" not in comps:
            return True
        if "7" + t not in hand:
            return False
        return "t" not in comps or any("7" + s in hand for s in "hbla" if s != t)

    def _needs(self, game: str, hand: set[str]) -> bool:
        if game in ("betl", "durch"):
            return True
        suits = "h" if game.startswith("lepsi") else "bla"
        return any(self._trumps_ok(game, hand, t) for t in suits)

    def _reserved(self) -> set[str]:
        comps = _GAME_COMPONENTS[self.game]
        out = set()
        if "s" in comps or "t" in comps:
            out.add("7" + self.trump)
        if "t" in comps and self.helping:
            out.add("7" + self.helping)
        return out

    # --- legal labels ---
    def legal(self, seat: int, core_follow: set[str], trick_no: int) -> set[str]:
        ph = self.phase
        hand = self.hands[seat]
        if ph in ("A1", "A3"):
            lo = self.high if ph == "A1" else 0
            return {f"bid:{g}" for g in _GAMES[lo:] if self._needs(g, hand)} | {"pass"}
        if ph == "A2":
            return ({"hold"} if self._needs(_GAMES[self.high - 1], hand) else set()) | {"pass"}
        if ph == "T1":
            out = {f"game:{g}" for g in _GAMES[self.high - 1:] if self._needs(g, hand)}
            return out | ({"fold"} if self.high == 1 else set())
        if ph == "T2":
            return {f"trump:{t}" for t in "bla" if self._trumps_ok(self.game, hand, t)}
        if ph == "T3":
            return {f"helping:{s}" for s in "hbla" if s != self.trump and "7" + s in hand}
        if ph == "T4":
            if self.game in ("betl", "durch"):
                return {f"discard:{c}" for c in hand}
            bad = self._reserved()
            return {f"discard:{c}" for c in hand if c[0] not in "TA" and c not in bad}
        if ph == "T5":
            return {f"lead:{c}" for c in hand}
        if ph == "F":
            if self.show_seat == seat and (self.turn == 0 or (self.turn == 1
                                                               and not self.l_fleked)):
                return {"show"}
            parity = 1 if seat == self.actor else 0
            return {f"flek:{k}" for k, v in self.levels.items()
                    if v % 2 == parity and v < self.max_flek} | {"good"}
        if ph == "P":
            if seat != self.actor or self.game in ("betl", "durch"):
                return {f"play:{c}" for c in core_follow}
            early = set()
            for c in self._reserved() & core_follow:
                target = 10 if c == "7" + self.trump else 9
                if trick_no < target or any(x[1] == c[1] and x != c for x in hand):
                    early.add(c)
            keep = core_follow - early
            return {f"play:{c}" for c in (keep or core_follow)}
        return set()

    # --- transitions ---
    def _drop(self, seat: int) -> None:
        self.drops += 1
        if self.drops == 1:
            if seat == self.challenger:
                self.challenger, self.phase = self.d, "A1"
            else:
                self.holder, self.phase = self.d, "A2"
            self.to_move = self.d
        elif self.high == 0:
            self.phase, self.to_move = "A3", self.f
        else:
            self._win(self.high_seat)

    def _win(self, seat: int) -> None:
        self.actor = seat
        self.hands[seat] |= self.talon
        self.phase, self.to_move = "T1", seat

    def _start_flek(self) -> None:
        self.phase, self.to_move, self.turn, self.quiet = "F", (self.actor + 1) % 3, 0, 0
        if self.game in ("dve_sedmy", "lepsi_dve_sedmy"):
            for k in (1, 2):
                d = (self.actor + k) % 3
                if sum(c[1] == self.helping for c in self.hands[d]) >= 4:
                    self.show_seat = d

    def step(self, seat: int, lab: str) -> None:
        head, _, arg = lab.partition(":")
        ph = self.phase
        if ph in ("A1", "A3"):
            if lab == "pass":
                if ph == "A3":
                    self.phase = "done"
                else:
                    self._drop(seat)
            else:
                self.high, self.high_seat = _GAMES.index(arg) + 1, seat
                if ph == "A3":
                    self._win(seat)
                else:
                    self.phase, self.to_move = "A2", self.holder
        elif ph == "A2":
            if lab == "pass":
                self._drop(seat)
            else:
                self.high_seat = seat
                self.phase, self.to_move = "A1", self.challenger
        elif ph == "T1":
            if lab == "fold":
                self.phase = "done"
                return
            self.game = arg
            self.levels = {_KEY[k]: 0 for k in _GAME_COMPONENTS[arg]}
            if arg in ("betl", "durch"):
                self.phase = "T4"
            elif arg.startswith("lepsi"):
                self.trump = "h"
                self.phase = "T3" if "t" in _GAME_COMPONENTS[arg] else "T4"
            else:
                self.phase = "T2"
        elif ph == "T2":
            self.trump = arg
            self.phase = "T3" if "t" in _GAME_COMPONENTS[self.game] else "T4"
        elif ph == "T3":
            self.helping, self.phase = arg, "T4"
        elif ph == "T4":
            self.hands[seat].discard(arg)
            self.ndisc += 1
            if self.ndisc == 2:
                if self.game in ("betl", "durch"):
                    self.phase = "T5"
                else:
                    self._start_flek()
        elif ph == "T5":
            self.lead = arg
            self._start_flek()
        elif ph == "F":
            if lab == "show":
                self.phase = "done"
            elif head == "flek":
                self.levels[arg] += 1
                self.raised = True
                if self.turn == 0:
                    self.l_fleked = True
            else:
                self.quiet = 0 if self.raised else self.quiet + 1
                self.raised = False
                self.turn += 1
                if self.quiet == 3:
                    g, lv = self.game, self.levels
                    if g in ("sedma", "lepsi_sedma") and lv["game"] == 1 and lv["seven"] == 0:
                        self.phase = "done"
                        return
                    self.phase = "P"
                    if g in ("betl", "durch"):
                        self.hands[self.actor].discard(self.lead)
                        self.to_move = (self.actor + 1) % 3
                    else:
                        self.to_move = self.f
                else:
                    self.to_move = (self.to_move + 1) % 3
        elif ph == "P":
            self.hands[seat].discard(arg)  # the core tells whose turn is next in play


def test_every_legal_set_matches_the_state_machine():
    """At every step of 1500 random deals the seat to move and its legal labels are those
    of the §3–§7 state machine (trick legality R§6 from the core)."""
    from mariash_env import Game
    from mariash_env.cards import codes_of

    rng = np.random.default_rng(5)
    for max_flek in (5, 2):
        g = Game(make_rules(rules="licitovany", max_flek=max_flek))
        n = 0
        while n < 750:
            g.new_partie(seed=1000 * max_flek + n)
            tick = step_cap(g, deals=None)
            while True:
                tick()
                m = _Machine(g.deck(), int(g.st[S.DEALER]), max_flek)
                while not g.deal_over:
                    tick()
                    seat = g.to_move
                    if m.phase != "P":
                        assert seat == m.to_move, (m.phase, g.history)
                    follow = set(codes_of(follow_cards(g.st, seat)))
                    want = m.legal(seat, follow, int(g.st[S.TRICK_NO]) + 1)
                    assert set(g.legal_labels()) == want, (m.phase, seat, g.history)
                    assert set(g.legal_mask().tolist()) <= {0, 1}  # INTERFACE: 1 = legal
                    labs = sorted(want)
                    lab = labs[rng.integers(len(labs))]
                    g.step(lab)
                    m.step(seat, lab)
                assert m.phase in ("done", "P"), m.phase
                n += 1
                if not g.next_deal():
                    break
