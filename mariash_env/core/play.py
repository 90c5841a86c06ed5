"""Card play: trick legality, trick winner, marriages and laying down (RULES.md §6–§8)."""

from __future__ import annotations

import numpy as np

from ..rules import R_QUEEN_FIRST
from .jit import njit_generic, njit_inline
from .state import (
    ACTOR,
    B_SEVEN,
    B_SEVEN_AG,
    BET_EXISTS,
    C_BETL,
    C_DURCH,
    C_SUIT,
    CLAIM_HANDS,
    CLAIMER,
    CONTRACT,
    END_BROKEN,
    END_NONE,
    END_PLAYED,
    HAND,
    LEADER,
    MARR_ORD,
    MARR_SEAT,
    NMARR,
    NTRICKS,
    PLAYED,
    PTS,
    SEVEN_SEAT,
    SEVEN_TRICK,
    SEVEN_WON,
    TALON,
    TLEAD,
    TRICK_N,
    TRICK_NO,
    TRICKS,
    TRUMP_CARD,
    TWIN,
    getm,
    setm,
)
from .tables import ABOVE_PLAIN, ABOVE_TRUMP, ALL, CARD_POINTS, SUIT_MASK
from .tricks import announces_marriage, follow, trick_best, trump_suit


@njit_generic
def seven_bet_open(st):
    return st[BET_EXISTS + B_SEVEN] != 0 or st[BET_EXISTS + B_SEVEN_AG] != 0


@njit_generic
def legal_cards(st, seat):
    """Mask of the cards ``seat`` may play now (RULES.md §6, §12)."""
    legal = follow_cards(st, seat)
    trump = trump_suit(st)
    # An announced seven (or seven against) may go before the last trick only when forced.
    if trump >= 0 and st[TRICK_NO] < 9 and seven_bet_open(st):
        s7 = np.int64(1) << (trump * 8)
        if legal & s7 and legal != s7:
            legal &= ~s7
    return legal


@njit_inline
def follow_cards(st, seat):
    """RULES.md §6: the cards of ``seat``'s hand that follow suit, beat and trump as
    the trick requires (both games; volený's and licitovaný's sevens restrict further)."""
    hand = getm(st, HAND + seat)
    n = st[TRICK_N]
    if n == 0:
        return hand
    t = st[TRICK_NO]
    best = st[TRICKS + 3 * t + trick_best(st, n)]
    return follow(hand, st[TRICKS + 3 * t], best, trump_suit(st), SUIT_MASK, ABOVE_TRUMP,
                  ABOVE_PLAIN)


@njit_generic
def side_of(st, seat):
    """0 for the actor's side, 1 for the defence."""
    return 0 if seat == st[ACTOR] else 1


@njit_generic
def held_marriages(hand):
    """Bit s set when the hand holds K and Q of suit s."""
    out = 0
    for s in range(4):
        if (hand >> (8 * s + 5)) & 3 == 3:
            out |= 1 << s
    return out


@njit_generic
def announce_marriage(st, seat, s):
    st[MARR_SEAT + s] = seat
    st[MARR_ORD + s] = st[NMARR]
    st[NMARR] += 1


@njit_generic
def play_card(st, rules, seat, c):
    """Play ``c`` (legal) for ``seat``; returns the trick winner when the trick closes, else -1."""
    hand = getm(st, HAND + seat)
    t = st[TRICK_NO]
    n = st[TRICK_N]
    trump = trump_suit(st)
    if trump >= 0:
        if announces_marriage(hand, c, rules[R_QUEEN_FIRST] != 0):
            announce_marriage(st, seat, c >> 3)
        if c == trump * 8:
            st[SEVEN_TRICK] = t
            st[SEVEN_SEAT] = seat
    setm(st, HAND + seat, hand & ~(np.int64(1) << c))
    setm(st, PLAYED, getm(st, PLAYED) | (np.int64(1) << c))
    if n == 0:
        st[TLEAD + t] = seat
    st[TRICKS + 3 * t + n] = c
    if n < 2:
        st[TRICK_N] = n + 1
        return -1
    bi = trick_best(st, 3)
    winner = (st[LEADER] + bi) % 3
    pts = 0
    for j in range(3):
        pts += CARD_POINTS[st[TRICKS + 3 * t + j]]
    if t == 9:
        pts += 10
    st[PTS + winner] += pts
    st[NTRICKS + winner] += 1
    st[TWIN + t] = winner
    if trump >= 0 and st[SEVEN_TRICK] == t:
        st[SEVEN_WON] = 1 if st[TRICKS + 3 * t + bi] == trump * 8 else 0
    st[TRICK_N] = 0
    st[TRICK_NO] = t + 1
    st[LEADER] = winner
    return winner


@njit_inline
def trick_end(st):
    """RULES.md §6 (LICITOVANY.md §7) after a closed trick: ``END_BROKEN`` when a betl's
    actor took it or a durch's actor lost it, ``END_PLAYED`` after the tenth trick, else
    ``END_NONE`` (play goes on)."""
    con = st[CONTRACT]
    winner = st[LEADER]
    actor = st[ACTOR]
    if (con == C_BETL and winner == actor) or (con == C_DURCH and winner != actor):
        return END_BROKEN
    if st[TRICK_NO] == 10:
        return END_PLAYED
    return END_NONE


@njit_generic
def outstanding(st, seat):
    """Cards not in ``seat``'s hand, not played, and for the actor not in its talon."""
    o = ALL & ~getm(st, HAND + seat) & ~getm(st, PLAYED)
    if seat == st[ACTOR]:
        o &= ~getm(st, TALON)
    return o


@njit_generic
def lay_down(st, seat):
    """Settle the rest of the card play as laid down by ``seat`` (RULES.md §8).

    Marriages already announced stay as they are (``_hundred_withheld`` announces a
    candidate first marriage before laying down a copy)."""
    st[CLAIMER] = seat
    if st[CONTRACT] == C_BETL:
        return  # the actor takes no further trick; the cards stay in the hands
    rem = 0
    for k in range(3):
        s = (seat + k) % 3
        h = getm(st, HAND + s)
        setm(st, CLAIM_HANDS + s, h)
        rem |= h
    if st[CONTRACT] == C_SUIT:
        trump = st[TRUMP_CARD] >> 3
        for k in range(3):
            s = (seat + k) % 3
            hm = held_marriages(getm(st, HAND + s))
            for su in range(4):
                if (hm >> su) & 1 and st[MARR_SEAT + su] < 0:
                    announce_marriage(st, s, su)
        if (getm(st, HAND + seat) >> (trump * 8)) & 1:
            st[SEVEN_TRICK] = 9
            st[SEVEN_SEAT] = seat
            st[SEVEN_WON] = 1
    pts = 10
    for c in range(32):
        if (rem >> c) & 1:
            pts += CARD_POINTS[c]
    st[PTS + seat] += pts
    st[NTRICKS + seat] += 10 - st[TRICK_NO]
    for s in range(3):
        setm(st, HAND + s, 0)


@njit_generic
def side_marriages(st):
    """Marriages per side in one pass: (actor's points, defence's points, suit of the
    actor's first marriage, suit of the defence's first), -1 for no marriage."""
    actor = st[ACTOR]
    trump = st[TRUMP_CARD] >> 3
    ma, md, oa, od, fa, fd = 0, 0, 99, 99, -1, -1
    for su in range(4):
        ms = st[MARR_SEAT + su]
        if ms < 0:
            continue
        v = 40 if su == trump else 20
        o = st[MARR_ORD + su]
        if ms == actor:
            ma += v
            if o < oa:
                oa, fa = o, su
        else:
            md += v
            if o < od:
                od, fd = o, su
    return ma, md, fa, fd
