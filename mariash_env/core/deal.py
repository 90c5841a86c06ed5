"""Dealing, gathering and cutting (RULES.md §2): the cards of one deal shape the next.

The layer every game shares: the deck's check, a cleared deal, the partie's reset, the
shuffle, and the gathering and cut that make the next deck.  Each game deals in its own
pattern (``games/<game>/deal.py``); the compiled dispatch (:mod:`.engine`) picks it:
``deal_deck``, ``start_partie`` and ``next_deal`` are there.
"""

from __future__ import annotations

import numpy as np

from ..rules import R_SHUFFLE_EVERY
from .jit import lowest_bit, njit_generic, njit_inline
from .state import (
    ACTOR,
    BAD_SEAT,
    BET_SEAT,
    BETL_SEAT,
    C_NONE,
    CHOOSER,
    CLAIM_HANDS,
    CLAIMER,
    CONTRACT,
    DEAL_NO,
    DEALER,
    DISC,
    DURCH_SEAT,
    FOREHAND,
    HAND,
    LEADER,
    LIC_CHALLENGER,
    LIC_HELP,
    LIC_HIGH_SEAT,
    LIC_HOLDER,
    LIC_LAID_PAYER,
    LIC_LEAD,
    LIC_SHOW_SEAT,
    MARR_ORD,
    MARR_SEAT,
    P4_DEALER,
    PARTIE_DONE,
    POS,
    SCORE,
    SEVEN_SEAT,
    SEVEN_TRICK,
    STATE_SIZE,
    TALON,
    TALON_OWNER,
    TLEAD,
    TRICKS,
    TRUMP_CARD,
    TWIN,
    getm,
    rng_below,
)
from .tables import ALL

_DECK_MSG = (f"deal: expected an int32[{STATE_SIZE}] state, a deck holding each card "
             "0..31 once and a dealer seat 0..2 (a player 0..3 at four)")


@njit_generic
def check_deck(st, deck, dealer, players=3):
    """ValueError unless ``deck`` is a permutation of the card indices 0..31, ``dealer`` one
    of the ``players`` (a seat 0..2; at four a player 0..3) and ``st`` a whole record."""
    seen = np.int64(0)
    if deck.shape[0] == 32:
        for p in range(32):
            c = deck[p]
            if 0 <= c < 32:
                seen |= np.int64(1) << c
    if st.shape[0] < STATE_SIZE or seen != ALL or not 0 <= dealer < players:
        raise ValueError(_DECK_MSG)


@njit_generic
def clear_deal(st, dealer):
    """Every deal field (DEALER up to the four-player partie fields) to its start value;
    forehand from ``dealer``, returned."""
    for i in range(DEALER, P4_DEALER):
        st[i] = 0
    for off in (TRUMP_CARD, ACTOR, CHOOSER, TALON_OWNER, BAD_SEAT, DURCH_SEAT, BETL_SEAT,
                LEADER, SEVEN_TRICK, SEVEN_SEAT, CLAIMER):
        st[off] = -1
    for i in range(2):
        st[DISC + i] = -1
    for i in range(4):
        st[BET_SEAT + i] = -1
        st[MARR_SEAT + i] = -1
        st[MARR_ORD + i] = -1
    for i in range(30):
        st[TRICKS + i] = -1
    for i in range(10):
        st[TLEAD + i] = -1
        st[TWIN + i] = -1
    for off in (LIC_HIGH_SEAT, LIC_HOLDER, LIC_CHALLENGER, LIC_HELP, LIC_LEAD, LIC_SHOW_SEAT,
                LIC_LAID_PAYER):
        st[off] = -1
    f = (dealer + 1) % 3
    st[DEALER] = dealer
    st[FOREHAND] = f
    return f


@njit_generic
def reset_partie(st):
    """A new partie's counters: no deal dealt yet, no score."""
    st[DEAL_NO] = 0
    st[PARTIE_DONE] = 0
    for i in range(6):  # three int64 scores
        st[SCORE + i] = 0


@njit_generic
def shuffled_deck(st):
    """A uniformly shuffled deck drawn from the state's generator (Fisher–Yates)."""
    deck = np.arange(32, dtype=np.int64)
    for i in range(31, 0, -1):
        j = rng_below(st, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return deck


@njit_generic
def deck_of(st):
    """The current deal's deck as dealt (card at each position)."""
    deck = np.empty(32, dtype=np.int64)
    _dealt_into(st, deck)
    return deck


@njit_generic
def deck_into(st, buf):
    """``deck_of`` into ``buf`` (int64[32]): no array made and handed back (what costs
    most of a compiled call)."""
    _dealt_into(st, buf)


@njit_inline
def _dealt_into(st, buf):
    """``buf[0:32]``: the card at each deck position of the current deal."""
    for c in range(32):
        buf[st[POS + c] & 31] = c  # & 31: a corrupted position stays inside the buffer


@njit_inline
def _append_hand(buf, st, m, n):
    """Append at ``buf[n]`` the cards of mask ``m`` in the order dealt (``buf[0:32]``);
    returns the new end.  Walks the set bits (a hand's deck positions as a 32-bit set,
    then its cards by position), not all 32 positions."""
    pm = np.int64(0)
    while m:
        pm |= np.int64(1) << (st[POS + lowest_bit(m)] & 31)
        m &= m - 1
    while pm:
        buf[n] = buf[lowest_bit(pm)]
        n += 1
        pm &= pm - 1
    return n


# gathered_deck's buffer: the dealt order, then the stack (room for every pile a corrupted
# state could claim: an untaken talon 32, the discards 2, tricks 30, one claimer's 3 hands
# and the 3 hands, 32 each, plus the slots that the branch-free trick appends write past the
# end), then the deck.
_STACK = 32
_DECK = _STACK + 32 + 2 + 30 + 3 * 32 + 3 * 32 + 3


@njit_generic
def gathered_deck(st):
    """The finished deal's cards gathered into the next deck, from the top, before the cut.

    Piles bottom to top, per seat: the actor's final talon (discard order), its tricks in
    the order taken (cards in play order), after a lay-down the claimed hands, then the
    cards left in hand in dealt order.  Piles are stacked forehand, middlehand, dealer
    (RULES.md §2, §12); the deck from the top is the stack reversed.  A talon nobody
    took (an auction's, dealt face down) lies under them all, in dealt order.
    """
    # One allocation, indexed (no slices: a view costs reference counting); every write
    # stays inside it whatever the state holds: an unchecked illegal action may spoil the
    # game, never write outside this buffer.
    buf = np.empty(_DECK + 32, dtype=np.int64)
    _dealt_into(st, buf)
    n = _STACK
    if st[TALON_OWNER] < 0:  # only a talon dealt for an auction and untaken is nobody's
        n = _append_hand(buf, st, getm(st, TALON), n)
    f = st[FOREHAND]
    actor = st[ACTOR]
    talon = st[CONTRACT] != C_NONE and st[DISC + 1] >= 0
    for k in range(3):
        seat = (f + k) % 3
        if seat == actor and talon:
            buf[n] = st[DISC]
            buf[n + 1] = st[DISC + 1]
            n += 2
        for t in range(10):  # branch-free: the three cards written, kept when won
            buf[n] = st[TRICKS + 3 * t]
            buf[n + 1] = st[TRICKS + 3 * t + 1]
            buf[n + 2] = st[TRICKS + 3 * t + 2]
            n += 3 * (st[TWIN + t] == seat)
        if st[CLAIMER] == seat:
            for j in range(3):
                n = _append_hand(buf, st, getm(st, CLAIM_HANDS + (seat + j) % 3), n)
        n = _append_hand(buf, st, getm(st, HAND + seat), n)
    n -= _STACK
    seen = np.int64(0)
    for i in range(min(n, 32)):
        c = buf[_STACK + i]
        seen |= np.int64(0 <= c < 32) << (c & 31)
    if n == 32 and seen == ALL:
        for i in range(32):
            buf[_DECK + i] = buf[_STACK + 31 - i]
        return buf[_DECK:]
    # Only a corrupted state gets here: keep the first copy of each valid card, then
    # the missing ones in card order, so that the next deal is still a permutation.
    seen = np.int64(0)
    m = 0
    for i in range(n + 32):
        c = buf[_STACK + i] if i < n else i - n
        if 0 <= c < 32 and not (seen >> c) & 1:
            seen |= np.int64(1) << c
            buf[_DECK + 31 - m] = c
            m += 1
    return buf[_DECK:]


@njit_generic
def cut_deck(deck, k):
    """Take ``k`` cards from the top and put them under the rest: ``deck[k:] + deck[:k]``."""
    out = np.empty(32, dtype=np.int64)
    for i in range(32):
        out[i] = deck[(i + k) % 32]
    return out


@njit_generic
def next_deck(st, rules, k):
    """The finished deal's cards as the next deck: gathered and cut ``k`` cards (``k < 0``
    draws 2..30 uniformly), or shuffled when the rules say so (cut 0).  Returns the deck
    and the cut; counts the deal."""
    if rules[R_SHUFFLE_EVERY]:
        deck = shuffled_deck(st)
        k = 0
    else:
        deck = gathered_deck(st)
        if k < 0:
            k = 2 + rng_below(st, 29)
        deck = cut_deck(deck, k)
    st[DEAL_NO] += 1
    return deck, k


__all__ = ["check_deck", "clear_deal", "reset_partie", "shuffled_deck", "gathered_deck",
           "cut_deck", "next_deck", "deck_of"]
