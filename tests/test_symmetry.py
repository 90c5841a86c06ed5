"""Suit symmetry (mariash_env/core/symmetry.py): relabelling the suits of a card-play
state by a permutation that keeps the trumps (RULES.md §6, §9: only the trump suit and
hearts-as-trumps are named by the rules; betl and durch name none) gives a deal with the
relabelled legal moves, the same exact values and the same payments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from mariash_env import actions as A
from mariash_env.core import state as S
from mariash_env.core import symmetry as Y
from mariash_env.core.engine import apply_action, legal_actions
from mariash_env.rules import make_rules
from mariash_env.search import random_position, solve
from tests.helpers import step_cap

RULES = make_rules()
RV = RULES.vector()


def _mask(st: np.ndarray) -> np.ndarray:
    m = np.zeros(A.N_ACTIONS, np.int8)
    legal_actions(st, RV, m)
    return m


def test_the_schema_fields_holding_cards_are_all_relabelled():
    """A new field indexed by card or suit must be added to the relabelling: the schema's
    card-indexed and suit-indexed fields are exactly the ones handled."""
    assert Y.BY_CARD == ("POS",)
    assert Y.BY_SUIT == ("MARR_SEAT", "MARR_ORD")
    names = {f.name for f in S.STATE_SCHEMA if f.kind in ("card", "mask")}
    assert {"TRUMP_CARD", "DISC", "TRICKS", "HAND", "TALON", "PLAYED", "TAKEN"} <= names


def test_symmetries_keep_the_trumps():
    suit = random_position(3, plays=4, contract=S.C_SUIT)
    perms = Y.symmetries(suit)
    t = int(suit[S.TRUMP_CARD]) >> 3
    assert len(perms) == 6 and (perms[:, t] == t).all()
    betl = random_position(4, plays=4, contract=S.C_BETL)
    assert len(Y.symmetries(betl)) == 24
    before = random_position(5, phase=S.PH_CONTRACT)
    assert (Y.symmetries(before) == np.arange(4)).all()


def test_permutation_and_its_inverse_restore_the_state():
    st = random_position(7, plays=11)
    for p in Y.ALL_PERMS:
        inv = np.argsort(p)
        back = Y.permute_suits(Y.permute_suits(st, p), inv)
        np.testing.assert_array_equal(back, st)
    many = np.stack([st] * 24)
    out = Y.permute_suits(many, Y.ALL_PERMS)
    for i, p in enumerate(Y.ALL_PERMS):
        np.testing.assert_array_equal(out[i], Y.permute_suits(st, p))


@pytest.mark.parametrize("contract", [S.C_SUIT, S.C_BETL, S.C_DURCH])
def test_exact_values_move_with_the_cards(contract):
    """The solver's value of every legal card of the relabelled state is the value of
    the original card (both sides' exact play, RULES.md §6-§9)."""
    for seed in range(3):
        st = random_position(20 + seed, plays=15 + seed, contract=contract)
        base = solve(st, RULES, pv=False, all_moves=True).move_values
        perms = Y.symmetries(st)
        for p in perms[np.random.default_rng(seed).choice(len(perms), 3, replace=False)]:
            ps = Y.permute_suits(st, p)
            np.testing.assert_array_equal(_mask(ps), Y.permute_actions(_mask(st), p))
            got = solve(ps, RULES, pv=False, all_moves=True).move_values
            cmap = Y.card_map(p)
            want = {(A.PLAY0 + cmap[a - A.PLAY0] if A.PLAY0 <= a < A.PLAY0 + 32 else a): v
                    for a, v in base.items()}
            assert got == want


@settings(max_examples=30, deadline=None)
@given(seed=st_.integers(0, 10**6), plays=st_.integers(0, 29), k=st_.integers(0, 23))
def test_a_relabelled_deal_plays_and_pays_the_same(seed, plays, k):
    """Random play from a random card-play state: at every step the relabelled state's
    legal moves are the relabelled ones, and the deal ends with the same payments."""
    st = random_position(seed, plays=plays)
    perms = Y.symmetries(st)
    p = perms[k % len(perms)]
    ps = Y.permute_suits(st, p)
    rng = np.random.default_rng(seed)
    tick = step_cap()
    while st[S.PHASE] != S.PH_DONE:
        tick()
        m = _mask(st)
        np.testing.assert_array_equal(_mask(ps), Y.permute_actions(m, p))
        a = int(rng.choice(np.flatnonzero(m)))
        pa = int(np.flatnonzero(Y.permute_actions(np.eye(A.N_ACTIONS, dtype=np.int8)[a], p))[0])
        apply_action(st, RV, a)
        apply_action(ps, RV, pa)
    want = Y.permute_suits(st, p)
    if st[S.END] == S.END_LAID:
        # RULES.md §12: the marriages still held at a lay-down are recorded in seat order
        # from the claimer and suit order h b l a; the lay-down is withheld where which
        # one counts first changes an amount, so only the record's order may differ.
        for f in S.STATE_SCHEMA:
            if f.name in ("MARR_ORD", "SIDE_FIRST"):
                sl = slice(S.OFFSETS[f.name], S.OFFSETS[f.name] + f.slots)
                ps[sl] = want[sl] = 0
    np.testing.assert_array_equal(ps, want)
    for s in range(3):
        assert S.get64(ps, S.PAY + 2 * s) == S.get64(st, S.PAY + 2 * s)


def test_random_symmetries_are_valid_and_cover_all():
    states = np.stack([random_position(s, plays=3) for s in range(12)]
                      + [random_position(99, phase=S.PH_CONTRACT)])
    rng = np.random.default_rng(0)
    seen = [set() for _ in states]
    for _ in range(300):
        for i, p in enumerate(Y.random_symmetries(states, rng)):
            assert any((p == q).all() for q in Y.symmetries(states[i]))
            seen[i].add(tuple(p))
    assert [len(x) for x in seen] == [len(Y.symmetries(s)) for s in states]
