"""mariash_env.search: world sampling from one seat's knowledge, double-dummy solver.

Worlds: the real state is always admitted, every sample is explained by the public
history (replayed with the core), shows its seat exactly the same observation, and
respects each knowledge constraint, checked here against an independent reading of
RULES.md §5–§7 on many random positions; sampling is uniform (chi-square against an
enumeration of all consistent worlds of small endgames).  Solver: agrees with plain
minimax on random endgames and on whole betl / durch deals that end early; its
principal variation reaches the value it reports.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from mariash_env import actions as A
from mariash_env.core import state as S
from mariash_env.core.engine import apply_action, legal_actions
from mariash_env.core.observe import OBS_SIZE, encode
from mariash_env.rules import make_rules
from mariash_env.search import (
    WorldError,
    brute_force_value,
    check_world,
    knowledge,
    random_position,
    sample_worlds,
    solve,
)
from mariash_env.search import worlds as W

RV = make_rules().vector()
TRUMP_ORDER = (0, 1, 2, 6, 3, 4, 5, 7)  # strength of ranks 7 8 9 T J Q K A with trumps
HIDDEN_SLOTS = ({S.TALON, S.DISC, S.DISC + 1, S.TRUMP_CARD}
                | set(range(S.HAND, S.HAND + 3)) | set(range(S.LAID, S.LAID + 3))
                | set(range(S.TAKEN, S.TAKEN + 4))
                | set(range(S.TOOK, S.TOOK + 3)) | set(range(S.POS, S.POS + 32)))


def obs(st: np.ndarray, seat: int) -> np.ndarray:
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    encode(st, seat, out, False)
    return out


def positions(n: int, seed: int, p_play: float = 0.75) -> list[np.ndarray]:
    """Random positions in every phase (mostly the card play, at a random card)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        if rng.random() < p_play:
            ph, plays = S.PH_PLAY, int(rng.integers(0, 30))
        else:
            ph, plays = int(rng.integers(0, S.PH_PLAY)), 0
        try:
            out.append(random_position(int(rng.integers(1 << 40)), phase=ph, plays=plays,
                                       max_attempts=30))
        except RuntimeError:
            continue
    return out


def assert_world_ok(st: np.ndarray, seat: int, w: np.ndarray, k, o0: np.ndarray) -> None:
    assert np.array_equal(obs(w, seat), o0), "a world changed what the seat sees"
    diff = set(np.flatnonzero(w != st).tolist())
    assert diff <= HIDDEN_SLOTS, f"public slots changed: {diff - HIDDEN_SLOTS}"
    assert k.admits(w)
    assert check_world(w, RV)
    if not (st[S.PHASE] == S.PH_TRUMP and seat == st[S.FOREHAND]):
        assert w[S.HAND + seat] == st[S.HAND + seat]


# --------------------------------------------------------------------------------------
# Worlds: reality admitted, samples consistent and invisible to the seat
# --------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**40), seat=hs.integers(0, 2), plays=hs.integers(0, 29),
       phase=hs.sampled_from([S.PH_PLAY] * 4 + list(range(S.PH_PLAY))))
def test_samples_consistent_property(seed, seat, plays, phase):
    try:
        st = random_position(seed, phase=phase, plays=plays, max_attempts=30)
    except RuntimeError:
        return
    assert check_world(st, RV), "the real state must pass the core replay"
    k = knowledge(st, seat)
    assert k.admits(st), "knowledge excluded the real deal"
    stats: dict = {}
    ws = sample_worlds(st, seat, 12, rng=seed, stats=stats)
    assert stats["rejected_by_check"] == 0, "knowledge less tight than the core replay"
    o0 = obs(st, seat)
    for w in ws:
        assert_world_ok(st, seat, w, k, o0)


def test_sample_worlds_api():
    st = random_position(11, plays=7)
    a = sample_worlds(st, 1, 5, rng=3)
    b = sample_worlds(st, 1, 5, rng=np.random.default_rng(3))
    c = sample_worlds(st, 1, 5, rng=3, rules=make_rules())
    assert a.shape == (5, S.STATE_SIZE) and a.dtype == np.int32
    assert np.array_equal(a, c)
    assert b.shape == a.shape
    assert sample_worlds(st, 1, 0).shape == (0, S.STATE_SIZE)
    done = st.copy()
    done[S.PHASE], done[S.TO_MOVE] = S.PH_DONE, -1  # as a finished deal stands
    with pytest.raises(WorldError):
        knowledge(done, 0)
    # a record the samplers would index past their tables with, checked first (memory
    # safety: trick_no = 50 read past the record), and the arguments
    bad = st.copy()
    bad[S.TRICK_NO] = 50
    for call in (lambda: knowledge(bad, 0), lambda: sample_worlds(bad, 0, 2, rng=1)):
        with pytest.raises(ValueError, match=r"the state record: field trick_no .* = 50 is "
                                             r"out of range"):
            call()
    for seat in (3, -1, True):
        with pytest.raises(ValueError, match=rf"seat {seat!r}: expected a seat"):
            sample_worlds(st, seat, 2, rng=1)
    for n in (-1, 10**12):
        with pytest.raises(ValueError, match="number of worlds"):
            sample_worlds(st, 1, n, rng=1)
    with pytest.raises(ValueError, match="32 location masks"):
        sample_worlds(st, 1, 2, rng=1, restrict=np.zeros(3, np.int64))
    k = knowledge(random_position(5, phase=S.PH_TRUMP), 0)
    f = int(random_position(5, phase=S.PH_TRUMP)[S.FOREHAND])
    assert int(k.counts.sum()) == (25 if f == 0 else 22)


# --------------------------------------------------------------------------------------
# Each kind of constraint, against an independent reading of the rules
# --------------------------------------------------------------------------------------


def _strength(c: int, trump: int) -> int:
    return TRUMP_ORDER[c & 7] if trump >= 0 else c & 7


def _beats(c: int, best: int, trump: int) -> bool:
    if c >> 3 == best >> 3:
        return _strength(c, trump) > _strength(best, trump)
    return trump >= 0 and c >> 3 == trump


def _plays(st):
    """(trick, seat, card, cards before it in the trick) for every card played."""
    ntr = int(st[S.TRICK_NO])
    for t in range(min(ntr + 1, 10)):
        lead = int(st[S.TLEAD + t])
        if lead < 0:
            break
        cnt = 3 if t < ntr else int(st[S.TRICK_N])
        cards = [int(st[S.TRICKS + 3 * t + j]) for j in range(cnt)]
        for j in range(cnt):
            yield t, (lead + j) % 3, cards[j], cards[:j]


def expected_exclusions(st, me):
    """{card: set of seats that cannot hold it} and the kinds of facts used."""
    out: dict[int, set[int]] = {}
    kinds: set[str] = set()
    if st[S.PHASE] != S.PH_PLAY:
        return out, kinds
    trump = int(st[S.TRUMP_CARD]) >> 3 if st[S.CONTRACT] == S.C_SUIT else -1
    first_kq: set[tuple[int, int]] = set()

    def no(cards, seat, kind):
        for c in cards:
            out.setdefault(c, set()).add(seat)
        kinds.add(kind)

    for _t, p, c, before in _plays(st):
        s = c >> 3
        if trump >= 0 and c & 7 in (5, 6) and (p, s) not in first_kq:
            first_kq.add((p, s))
            partner = c + 1 if c & 7 == 5 else c - 1
            if st[S.MARR_SEAT + s] != p and p != me:
                no([partner], p, "marriage not announced")
        if p == me or not before:
            continue
        ls = before[0] >> 3
        best = before[0]
        for b in before[1:]:
            if _beats(b, best, trump):
                best = b
        suit_cards = range(8 * ls, 8 * ls + 8)
        if s != ls:
            no(suit_cards, p, "void")
            if trump >= 0 and s != trump:
                no(range(8 * trump, 8 * trump + 8), p, "no trumps")
            elif trump >= 0 and best >> 3 == trump and not _beats(c, best, trump):
                no([x for x in range(8 * trump, 8 * trump + 8) if _beats(x, best, trump)],
                   p, "no higher trump")
        elif not (trump >= 0 and ls != trump and best >> 3 == trump):
            if not _beats(c, best, trump):
                no([x for x in suit_cards if _beats(x, best, trump)], p, "no higher card")
    return out, kinds


def test_constraints_against_rules():
    kinds_seen: set[str] = set()
    for st in positions(150, seed=7, p_play=0.9):
        f = int(st[S.FOREHAND])
        for me in range(3):
            k = knowledge(st, me)
            assert k.admits(st)
            loc = {(me + 1) % 3: 0, (me + 2) % 3: 1}
            hidden = k.hidden
            excl, kinds = expected_exclusions(st, me)
            kinds_seen |= kinds
            for c, seats in excl.items():
                if hidden >> c & 1:
                    for p in seats:
                        assert not k.allowed[c] >> loc[p] & 1, (me, c, p)
            layer, taker, n, cur, f_suit = W.talon_chain(st)
            tc = int(st[S.TRUMP_CARD])
            s7 = (tc >> 3) * 8 if tc >= 0 else -1
            # announced seven / seven against: that seat holds the trump seven
            if st[S.ANNOUNCE] in (S.AN_SEDMA, S.AN_STO_SEDMA) and me != f and hidden >> s7 & 1:
                assert k.allowed[s7] == 1 << loc[f]
                kinds_seen.add("sedma")
            p7 = int(st[S.BET_SEAT + S.B_SEVEN_AG])
            if st[S.BET_EXISTS + S.B_SEVEN_AG] and p7 != me and hidden >> s7 & 1:
                assert k.allowed[s7] == 1 << loc[p7]
                kinds_seen.add("seven against")
            # the shown trump card is in forehand's hand
            if st[S.TRUMP_PUBLIC] and me != f and hidden >> tc & 1:
                assert k.allowed[tc] == 1 << loc[f]
                kinds_seen.add("trump card")
            # forehand's suit talon on the table: no ace, ten or (known) trump card
            if n == 1 and f_suit and taker[0] < 0 and me != f:
                bar = [c for c in range(32) if c & 7 in (3, 7)]
                if st[S.TRUMP_PUBLIC]:
                    bar.append(tc)
                for c in bar:
                    if hidden >> c & 1:
                        assert not k.allowed[c] & 4
                kinds_seen.add("suit talon")
            # hundred / hundred against: the samples give that seat a marriage
            an = int(st[S.ANNOUNCE])
            sto_seat = f if an in (S.AN_STO, S.AN_STO_SEDMA) else (
                int(st[S.BET_SEAT + S.B_HUNDRED_AG]) if st[S.BET_EXISTS + S.B_HUNDRED_AG] else -1)
            # a talon this seat laid and another took
            for i in range(n):
                if layer[i] == me and taker[i] >= 0:
                    q = taker[i]
                    mine = int(S.getm(st, S.LAID + me)) & hidden
                    if i + 1 < n and taker[i + 1] == me:
                        allowed_bits = 1 << loc[q]
                    elif i + 1 < n and taker[i + 1] >= 0:
                        allowed_bits = 7
                    else:
                        allowed_bits = (1 << loc[q]) | 4
                    for c in range(32):
                        if mine >> c & 1:
                            assert k.allowed[c] & ~allowed_bits == 0
                            kinds_seen.add("my talon taken")
            if sto_seat >= 0 and sto_seat != me and st[S.PHASE] == S.PH_PLAY:
                pb = W.played_by(st)
                for w in sample_worlds(st, me, 4, rng=me):
                    held = int(S.getm(w, S.HAND + sto_seat)) | int(pb[sto_seat])
                    assert any(held >> (8 * s + 5) & 3 == 3 for s in range(4))
                kinds_seen.add("marriage held")
            # an announced marriage: the partner card stays with the seat that announced
            for s in range(4):
                ms = int(st[S.MARR_SEAT + s])
                for c in (8 * s + 5, 8 * s + 6):
                    if ms >= 0 and ms != me and hidden >> c & 1:
                        assert k.allowed[c] == 1 << loc[ms]
                        kinds_seen.add("marriage announced")
    expected = {"void", "no trumps", "no higher card", "no higher trump", "sedma",
                "trump card", "suit talon", "marriage held", "marriage announced",
                "marriage not announced", "my talon taken", "seven against"}
    assert expected <= kinds_seen, f"not exercised: {expected - kinds_seen}"


def test_bad_sayer_keeps_forehands_talon():
    """Forehand laid a suit talon, a defender said bad and took it: forehand knows its
    two cards are in that defender's hand or in the new talon (RULES.md §4)."""
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(400):
        st = random_position(int(rng.integers(1 << 40)), phase=S.PH_FLEK, max_attempts=30)
        if st[S.BAD_SEAT] < 0:
            continue
        f, b = int(st[S.FOREHAND]), int(st[S.BAD_SEAT])
        if st[S.DURCH_SEAT] >= 0:
            continue
        k = knowledge(st, f)
        t1 = int(S.getm(st, S.LAID + f))
        loc_b = 0 if b == (f + 1) % 3 else 1
        for c in range(32):
            if t1 >> c & 1:
                assert k.allowed[c] == (1 << loc_b) | 4
        for w in sample_worlds(st, f, 10, rng=1):
            assert t1 & ~(int(S.getm(w, S.HAND + b)) | int(S.getm(w, S.TALON))) == 0
        found += 1
        if found >= 5:
            break
    assert found >= 5


# --------------------------------------------------------------------------------------
# Uniformity: chi-square against the enumeration of all consistent worlds
# --------------------------------------------------------------------------------------


def consistent_worlds(st: np.ndarray, me: int) -> dict[tuple[int, int, int], bool]:
    """Every split of the hidden cards into (next, prev, rest) with the right sizes that
    the core's replay of the public history accepts (knowledge is not used)."""
    k = knowledge(st, me)
    cards = k.cards
    n0, n1, _ = (int(x) for x in k.counts)
    rs = W._rng_words(0)
    ok = {}
    for first in itertools.combinations(cards, n0):
        rest1 = [c for c in cards if c not in first]
        for second in itertools.combinations(rest1, n1):
            m0 = sum(1 << c for c in first)
            m1 = sum(1 << c for c in second)
            m2 = k.hidden & ~m0 & ~m1
            w = st.copy()
            locm = np.array([m0, m1, m2], dtype=np.int64)
            good = bool(W.complete_world(w, st, me, RV, locm, rs)) and bool(check_world(w, RV))
            ok[(m0, m1, m2)] = good
    return ok


def test_uniform_on_small_endgames():
    from scipy.stats import chisquare

    rng = np.random.default_rng(2024)
    tested = 0
    for _ in range(200):
        st = random_position(int(rng.integers(1 << 40)), plays=int(rng.integers(21, 26)))
        me = int(rng.integers(0, 3))
        ok = consistent_worlds(st, me)
        good = [key for key, v in ok.items() if v]
        if not 4 <= len(good) <= 60 or len(good) == len(ok):
            continue  # want a small set that the constraints actually cut
        k = knowledge(st, me)
        n = 60 * len(good)
        ws = sample_worlds(st, me, n, rng=int(rng.integers(1 << 30)))
        counts = dict.fromkeys(good, 0)
        for w in ws:
            key = k.location_masks(w)
            assert key in counts, "a sample outside the consistent worlds"
            counts[key] += 1
        assert min(counts.values()) > 0
        p = chisquare(list(counts.values())).pvalue
        assert p > 1e-4, (p, counts)
        tested += 1
        if tested >= 4:
            break
    assert tested >= 4


# --------------------------------------------------------------------------------------
# Solver
# --------------------------------------------------------------------------------------


def _replay(st, line):
    fin = st.copy()
    done = False
    for a in line:
        assert not done
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        legal_actions(fin, RV, mask)
        assert mask[a], "PV move illegal"
        done = bool(apply_action(fin, RV, a))
    assert done and fin[S.PHASE] == S.PH_DONE
    return fin


def test_solver_matches_brute_force_on_endgames():
    rng = np.random.default_rng(99)
    checked = {S.C_SUIT: 0, S.C_BETL: 0, S.C_DURCH: 0}
    for i in range(64):
        con = (S.C_SUIT, S.C_SUIT, S.C_BETL, S.C_DURCH)[i % 4]
        lo = 9 if con == S.C_DURCH else 20  # a durch rarely lasts long at random
        plays = int(rng.integers(lo, 30))
        try:
            st = random_position(int(rng.integers(1 << 40)), plays=plays, contract=con,
                                 max_attempts=300)
        except RuntimeError:
            continue
        r = solve(st, RV, all_moves=True)
        bf, _ = brute_force_value(st, RV, prune=plays < 21)
        assert r.value == bf, (i, r.value, bf)
        fin = _replay(st, r.pv)
        assert S.get64(fin, S.PAY + 2 * st[S.ACTOR]) // 2 == r.value
        assert r.move_values[r.action] == r.value
        for a, v in r.move_values.items():
            ch = st.copy()
            if apply_action(ch, RV, a):
                assert v == S.get64(ch, S.PAY + 2 * st[S.ACTOR]) // 2
            else:
                assert v == brute_force_value(ch, RV, prune=True)[0]
        checked[con] += 1
    assert min(checked.values()) >= 8, checked


def test_solver_deep_suit_positions_against_alpha_beta():
    """Suit games with 7 to 9 tricks left: the transposition table then meets many
    positions that differ only by cards already played, which its key (the shape of
    the hands) treats as one; plain alpha-beta has no table and must agree."""
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(16):
        st = random_position(int(rng.integers(1 << 40)), plays=3 * int(rng.integers(1, 4)),
                             contract=S.C_SUIT)
        try:
            bf, _ = brute_force_value(st, RV, prune=True, max_nodes=2_500_000)
        except RuntimeError:
            continue  # too deep for the reference
        assert solve(st, RV, pv=False).value == bf
        checked += 1
    assert checked >= 6, checked


def test_solver_principal_variations_replay():
    """On whole betl and durch deals (history ordering, many transpositions) the PV is
    found and replays to the value.  Deal 100003 + 165 once lost its PV to a collision
    of a weak hash of the table key."""
    for i in range(100, 200, 2):
        st = random_position(100003 + i, contract=S.C_DURCH if i >= 150 else S.C_BETL)
        r = solve(st, RV)
        fin = _replay(st, r.pv)
        assert S.get64(fin, S.PAY + 2 * st[S.ACTOR]) // 2 == r.value
    st = random_position(100003 + 165, contract=S.C_DURCH)
    fin = _replay(st, solve(st, RV).pv)
    assert S.get64(fin, S.PAY + 2 * st[S.ACTOR]) // 2 == solve(st, RV).value


def _swap_in_play(st, x, y):
    """``st`` with card ``x`` of a hand and card ``y`` played earlier exchanged."""
    tw = st.copy()
    for s in range(3):
        h = S.getm(tw, S.HAND + s)
        if h >> x & 1:
            S.setm(tw, S.HAND + s, (h & ~(1 << x)) | (1 << y))
    S.setm(tw, S.PLAYED, (S.getm(tw, S.PLAYED) & ~(1 << y)) | (1 << x))
    for i in range(30):
        if tw[S.TRICKS + i] == y:
            tw[S.TRICKS + i] = x
    return tw


def test_table_key_ignores_cards_out_of_play():
    """A held card and a played card of its suit, adjacent among the cards in play and of
    the same kind, can change places without changing the table key or the value; a
    swap that moves card points changes the key."""
    from mariash_env.search import solver as SV

    checked = same = 0
    for seed in range(200):
        st = random_position(seed, plays=6, contract=S.C_SUIT)
        trump = int(st[S.TRUMP_CARD]) >> 3
        ctx = np.zeros(SV.X_SIZE, dtype=np.int64)
        ctx[SV.X_TRUMP] = trump
        held = S.getm(st, S.HAND) | S.getm(st, S.HAND + 1) | S.getm(st, S.HAND + 2)
        played = S.getm(st, S.PLAYED)
        for su in range(4):
            order = [8 * su + int(r) for r in SV.ORDER_TRUMP]
            for a, b in itertools.pairwise(order):
                pair = {a & 7, b & 7}
                plain = pair <= {1, 2, 4} and not (su == trump and 0 in pair)  # 8 9 J
                for x, y in ((a, b), (b, a)):
                    if held >> x & 1 and played >> y & 1:
                        tw = _swap_in_play(st, x, y)
                        if plain:
                            assert SV._shape_hash(tw, ctx) == SV._shape_hash(st, ctx)
                            assert solve(tw, RV, pv=False).value == solve(st, RV, pv=False).value
                            same += 1
                        elif (a & 7 in (3, 7)) != (b & 7 in (3, 7)):  # a ten or ace and not
                            assert SV._shape_hash(tw, ctx) != SV._shape_hash(st, ctx)
                            checked += 1
        if same >= 5 and checked >= 5:
            break
    assert same >= 5 and checked >= 5, (same, checked)


def test_solver_whole_betl_and_durch_against_brute_force():
    """From the first card: durch by plain minimax (a lost durch ends early), betl by
    plain alpha-beta (no table, ordering or equivalences)."""
    rng = np.random.default_rng(3)
    done = {S.C_BETL: 0, S.C_DURCH: 0}
    for i in range(60):
        con = S.C_BETL if i % 2 == 0 else S.C_DURCH
        if done[con] >= 2:
            continue
        st = random_position(int(rng.integers(1 << 40)), contract=con)
        try:
            bf, _ = brute_force_value(st, RV, max_nodes=400_000, prune=con == S.C_BETL)
        except RuntimeError:
            continue  # plays on too long for the reference
        r = solve(st, RV)
        assert r.value == bf
        assert r.outcome.contract_won == (r.value > 0)
        done[con] += 1
    assert min(done.values()) >= 2, done


def test_solver_whole_deals_options_agree():
    for i in range(6):
        con = (S.C_SUIT, S.C_BETL, S.C_DURCH)[i % 3]
        st = random_position(500 + i, contract=con)
        r = solve(st, RV)
        assert r.nodes > 0 and r.card == r.card.strip()
        for kw in ({"bounds": False}, {"laydown": False}, {"history": True}, {"tt_bits": 12}):
            assert solve(st, RV, pv=False, **kw).value == r.value, kw
        fin = _replay(st, r.pv)
        out = r.outcome
        assert S.get64(fin, S.PAY + 2 * st[S.ACTOR]) // 2 == r.value
        if con == S.C_SUIT:
            assert out.actor_points + out.defence_points == 90
            assert int(out.amounts.sum()) == r.value


def _small_solves() -> dict:
    """Small endgames of each game's solver: a volený suit game (every card's value) and a
    licitovaný stovka, 4 tricks left (the bound cache in use), a lízaný ending of 6 tricks."""
    from mariash_env.core.licit_games import G_STO
    from mariash_env.games.lizany.core import TRICK_NO
    from mariash_env.games.lizany.game import LizanyGame
    from mariash_env.games.lizany.solve import NO_LIMIT, new_table, solve_values
    from mariash_env.search.licit_worlds import random_licit_position

    r = solve(random_position(3, plays=18, contract=S.C_SUIT), RV, all_moves=True)
    out = {"voleny": [r.value, r.pv, sorted(r.move_values.items())]}
    lr = make_rules(rules="licitovany")
    r = solve(random_licit_position(5, game=G_STO, plays=18, rules=lr), lr)
    out["licitovany"] = [r.value, r.pv]
    g = LizanyGame(seed=1)
    while g.st[TRICK_NO] < 11:
        g.play(int(np.flatnonzero(g.legal_mask())[0]))
    vals, nodes = np.zeros(32, np.int64), np.zeros(1, np.int64)
    solve_values(g.st, vals, new_table(10), nodes, NO_LIMIT)
    out["lizany"] = [vals.tolist(), int(nodes[0])]
    return json.loads(json.dumps(out))


def test_the_solvers_run_as_plain_python():
    """NUMBA_DISABLE_JIT=1, the mutation audit's mode (scripts/mutate_rules.py): the
    solvers' hashes are int64 products that wrap when compiled; as plain Python the
    bound cache's row raised OverflowError and lízaný's table slot warned of the overflow.
    Now the plain solvers give the compiled values, and the row is the same function."""
    from mariash_env.search import solver as SV

    plain = getattr(SV._bc_row, "py_func", SV._bc_row)  # itself under NUMBA_DISABLE_JIT
    codes = np.random.default_rng(4).integers(1, 2**50, 5000, dtype=np.int64)
    for code in codes.tolist():
        row = SV._bc_row(np.int64(code))
        assert row == plain(np.int64(code))
        assert row == SV.BC_ROW0 + ((code * 0x9E3779B97F4A7C15 % 2**64) >> 40) % SV.BC_ROWS
    code = "import json; from tests.test_search import _small_solves as f; print(json.dumps(f()))"
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                         cwd=Path(__file__).resolve().parents[1], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.splitlines()[-1]) == _small_solves()


def test_solve_rejects_positions_outside_the_play():
    st = random_position(1, phase=S.PH_FLEK)
    with pytest.raises(ValueError):
        solve(st, RV)


def test_solve_refuses_a_record_the_engine_would_read_past():
    """Memory safety: a record from outside the engine (``to_move = 7`` wrote past the
    solver's tables and crashed the interpreter on exit) is checked first, as restored
    states are (core/validate.py): every indexed field out of its range, a card held
    twice, a phase fault; a table too large to allocate; nothing solved."""
    from mariash_env.core.validate import FIELDS

    good = random_position(1)
    want = solve(good, RV, pv=False).value
    for name, off, n, _lo, hi in FIELDS:
        if hi + 1 >= 2**31:
            continue  # the int32 slot cannot hold it
        st = good.copy()
        st[off + n - 1] = hi + 1
        slot = f"{name}[{n - 1}]" if n > 1 else name
        with pytest.raises(ValueError, match=rf"solve\(\): the state record: field "
                                             rf"{re.escape(slot)} .*out of range"):
            solve(st, RV)
    st = good.copy()
    st[S.HAND + 1] |= st[S.HAND]  # the first hand's cards held twice
    with pytest.raises(ValueError, match="each of the 32 cards exactly once"):
        solve(st, RV)
    st = good.copy()
    st[S.TO_MOVE] = (st[S.TO_MOVE] + 1) % 3  # in range, not the seat whose turn it is
    with pytest.raises(ValueError, match="field to_move = .* in phase play"):
        solve(st, RV)
    for bits in (0, 31, -1, 60):
        with pytest.raises(ValueError, match="tt_bits"):
            solve(good, RV, tt_bits=bits)
    assert solve(good, RV, pv=False).value == want


@pytest.mark.parametrize("options", [{"marriage_order": "queen_first"},
                                     {"tariff": "csm", "payment_cap": 30, "max_flek": None},
                                     {"hundred_counting": "order_free"}])
def test_solver_rule_variants(options):
    rv = make_rules(**options).vector()
    rng = np.random.default_rng(17)
    for _ in range(12):
        plays = int(rng.integers(18, 30))
        st = random_position(int(rng.integers(1 << 40)), rules=rv, plays=plays)
        assert solve(st, rv).value == brute_force_value(st, rv, prune=plays < 21)[0]
        for seat in range(3):
            w = sample_worlds(st, seat, 3, rng=seat, rules=rv)
            assert all(check_world(x, rv) for x in w)
