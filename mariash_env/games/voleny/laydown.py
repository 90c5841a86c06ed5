"""Volený's lay-down (RULES.md §8): when a seat on lead may lay its cards down.

The laying down itself (the rest of the card play settled as laid) is shared
(:func:`mariash_env.core.play.lay_down`); whether it is offered is volený's rule, and an
announced hundred can withhold it (§8, §12), which is settled by volený's settlement.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_generic
from ...core.play import announce_marriage, held_marriages, lay_down, outstanding, side_of
from ...core.state import (
    ACTOR,
    AN_STO,
    AN_STO_SEDMA,
    ANNOUNCE,
    B_HUNDRED_AG,
    BET_EXISTS,
    C_BETL,
    C_DURCH,
    C_SUIT,
    CONTRACT,
    END,
    END_LAID,
    HAND,
    LEADER,
    MARR_SEAT,
    PAY,
    TRICK_N,
    TRUMP_CARD,
    get64,
    getm,
)
from ...core.tables import ABOVE_PLAIN, ABOVE_TRUMP, BELOW_PLAIN, SUIT_MASK
from ...core.tricks import popcount
from .settle import settle


@njit_generic
def _hundred_withheld(st, rules, claimer):
    """RULES.md §8, §12: withhold a lay-down while an announced hundred's side has
    announced no marriage yet and taking each marriage that side still holds as its
    first gives different payments -- after ``payment_cap``, which can make the order
    harmless.  Each candidate is laid down and settled on a copy by the core itself."""
    an = st[ANNOUNCE]
    if an == AN_STO or an == AN_STO_SEDMA:
        hside = 0
    elif st[BET_EXISTS + B_HUNDRED_AG]:
        hside = 1
    else:
        return False
    for s in range(4):
        ms = st[MARR_SEAT + s]
        if ms >= 0 and side_of(st, ms) == hside:
            return False  # its first marriage is already fixed
    n = 0
    for seat in range(3):
        if side_of(st, seat) == hside:
            n += popcount(held_marriages(getm(st, HAND + seat)))
    if n < 2:
        return False
    sc = np.empty_like(st)
    pay0 = np.int64(0)
    k = 0
    for seat in range(3):
        if side_of(st, seat) != hside:
            continue
        hm = held_marriages(getm(st, HAND + seat))
        for su in range(4):
            if (hm >> su) & 1:
                for j in range(st.shape[0]):  # sc[:] = st, without compiling numba's
                    sc[j] = st[j]  # shape-mismatch message (~2 s on an empty cache)
                announce_marriage(sc, seat, su)  # this one first, then lay_down's order
                lay_down(sc, claimer)
                sc[END] = END_LAID
                settle(sc, rules)
                pay = get64(sc, PAY + 2 * sc[ACTOR])
                if k > 0 and pay != pay0:
                    return True
                pay0 = pay
                k += 1
    return False


@njit_generic
def can_lay_down(st, rules, seat):
    """RULES.md §8: may ``seat``, on lead at the start of a trick, lay its cards down?"""
    if st[TRICK_N] != 0 or st[LEADER] != seat:
        return False
    hand = getm(st, HAND + seat)
    if hand == 0:
        return False
    o = outstanding(st, seat)
    con = st[CONTRACT]
    if con == C_SUIT:
        trump = st[TRUMP_CARD] >> 3
        if o & SUIT_MASK[trump]:
            return False
        for c in range(32):
            if (hand >> c) & 1 and o & ABOVE_TRUMP[c]:
                return False
        return not _hundred_withheld(st, rules, seat)
    if seat != st[ACTOR]:
        return False
    if con == C_DURCH:
        for c in range(32):
            if (hand >> c) & 1 and o & ABOVE_PLAIN[c]:
                return False
        return True
    if con == C_BETL:
        any_open = False
        for c in range(32):
            if (hand >> c) & 1:
                if o & BELOW_PLAIN[c]:
                    return False
                if o & SUIT_MASK[c >> 3]:
                    any_open = True
        return any_open
    return False


