"""Dealing, gathering and cutting (RULES.md §2): the cards of one deal shape the next."""

from __future__ import annotations

import numpy as np

from ..games.voleny.four import CORE_DEALER, mirror_scores, start4
from ..rules import G_LICIT, R_PLAYERS, R_SHUFFLE_EVERY
from .jit import lowest_bit, njit, njit_inline
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
    CUT,
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
    PH_BID,
    PH_TRUMP,
    PHASE,
    POS,
    SCORE,
    SEVEN_SEAT,
    SEVEN_TRICK,
    STATE_SIZE,
    TALON,
    TALON_OWNER,
    TLEAD,
    TO_MOVE,
    TRICKS,
    TRUMP_CARD,
    TWIN,
    getm,
    rng_below,
    setm,
)
from .tables import ALL, POS_SEAT, POS_SEAT_LICIT

_DECK_MSG = (f"deal: expected an int32[{STATE_SIZE}] state, a deck holding each card "
             "0..31 once and a dealer seat 0..2 (a player 0..3 at four)")


@njit
def deal_deck(st, deck, dealer, game=0):
    """Start a deal: ``deck`` (32 card indices from the top) dealt in blocks by ``dealer``:
    volený 7-5-5-5-5-5 (RULES.md §2), licitovaný (``game`` = G_LICIT) 5-5-5-2-5-5-5 with
    the auction next (LICITOVANY.md §2, §4).  The cards index the state: ValueError
    unless ``deck`` is a permutation of 0..31 (and ``st`` a whole record)."""
    seen = np.int64(0)
    if deck.shape[0] == 32:
        for p in range(32):
            c = deck[p]
            if 0 <= c < 32:
                seen |= np.int64(1) << c
    if st.shape[0] < STATE_SIZE or seen != ALL or not 0 <= dealer <= 2:
        raise ValueError(_DECK_MSG)
    if game == G_LICIT:
        _deal_licit(st, deck, dealer)
    else:
        _deal_voleny(st, deck, dealer)


@njit
def _clear_deal(st, dealer):
    """Every deal field (DEALER up to the four-player partie fields) to its start value;
    forehand from ``dealer``."""
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


@njit
def _deal_voleny(st, deck, dealer):
    f = _clear_deal(st, dealer)
    h0 = np.int64(0)  # three scalars rather than an array: no allocation per deal
    h1 = np.int64(0)
    h2 = np.int64(0)
    for p in range(32):
        c = deck[p]
        st[POS + c] = p
        s = (f + POS_SEAT[p]) % 3
        bit = np.int64(1) << c
        if s == 0:
            h0 |= bit
        elif s == 1:
            h1 |= bit
        else:
            h2 |= bit
    setm(st, HAND, h0)
    setm(st, HAND + 1, h1)
    setm(st, HAND + 2, h2)
    st[PHASE] = PH_TRUMP
    st[TO_MOVE] = f


@njit
def _deal_licit(st, deck, dealer):
    """LICITOVANY.md §2: forhond 0-4 and 17-21, zadák 5-9 and 22-26, the dealer 10-14 and
    27-31, the talon 15-16 face down; §4: zadák challenges forhond, who holds."""
    f = _clear_deal(st, dealer)
    hands = np.zeros(4, dtype=np.int64)
    for p in range(32):
        c = deck[p]
        st[POS + c] = p
        hands[POS_SEAT_LICIT[p]] |= np.int64(1) << c
    for k in range(3):
        setm(st, HAND + (f + k) % 3, hands[k])
    setm(st, TALON, hands[3])  # nobody's until the auction's winner takes it
    st[LIC_HOLDER] = f
    st[LIC_CHALLENGER] = (f + 1) % 3
    st[PHASE] = PH_BID
    st[TO_MOVE] = (f + 1) % 3


@njit
def shuffled_deck(st):
    """A uniformly shuffled deck drawn from the state's generator (Fisher–Yates)."""
    deck = np.arange(32, dtype=np.int64)
    for i in range(31, 0, -1):
        j = rng_below(st, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return deck


@njit
def start_partie(st, deck, dealer, game=0, players=3):
    """Reset the partie (scores, deal counter) and deal ``deck`` by ``dealer``; at four
    (RULES.md §11.3) ``dealer`` is a player 0..3 who sits out, the core's dealer seat 2."""
    if st.shape[0] < STATE_SIZE or not 0 <= dealer < (4 if players == 4 else 3):
        raise ValueError(_DECK_MSG)
    st[DEAL_NO] = 0
    st[PARTIE_DONE] = 0
    for i in range(6):  # three int64 scores
        st[SCORE + i] = 0
    start4(st, dealer if players == 4 else 0)
    deal_deck(st, deck, CORE_DEALER if players == 4 else dealer, game)


@njit
def deck_of(st):
    """The current deal's deck as dealt (card at each position)."""
    deck = np.empty(32, dtype=np.int64)
    _dealt_into(st, deck)
    return deck


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


@njit
def gathered_deck(st):
    """The finished deal's cards gathered into the next deck, from the top, before the cut.

    Piles bottom to top, per seat: the actor's final talon (discard order), its tricks in
    the order taken (cards in play order), after a lay-down the claimed hands, then the
    cards left in hand in dealt order.  Piles are stacked forehand, middlehand, dealer
    (RULES.md §2, §12); the deck from the top is the stack reversed.  A licitovaný talon
    nobody took lies under them all, position 15 below 16 (LICITOVANY.md §2).
    """
    # One allocation, indexed (no slices: a view costs reference counting); every write
    # stays inside it whatever the state holds: an unchecked illegal action may spoil the
    # game, never write outside this buffer.
    buf = np.empty(_DECK + 32, dtype=np.int64)
    _dealt_into(st, buf)
    n = _STACK
    if st[TALON_OWNER] < 0:  # only an untaken licitovaný talon is nobody's and not empty
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


@njit
def cut_deck(deck, k):
    """Take ``k`` cards from the top and put them under the rest: ``deck[k:] + deck[:k]``."""
    out = np.empty(32, dtype=np.int64)
    for i in range(32):
        out[i] = deck[(i + k) % 32]
    return out


@njit
def next_deal(st, rules, k, game):
    """Gather, cut (``k`` cards; ``k < 0`` draws 2..30 uniformly) and deal the next deal
    in the pattern of ``game`` (the rules vector's game, read by the core's dispatch,
    ``engine.advance_partie``).

    The new dealer is the old forehand.  Returns the cut used (0 when shuffled).  At four
    (§11.3) the deal passes to the left too: the next player deals and sits out, and the
    core seats keep their roles (forehand 0, the dealer's role 2).
    """
    four = rules[R_PLAYERS] == 4
    new_dealer = CORE_DEALER if four else st[FOREHAND]
    if rules[R_SHUFFLE_EVERY]:
        deck = shuffled_deck(st)
        k = 0
    else:
        deck = gathered_deck(st)
        if k < 0:
            k = 2 + rng_below(st, 29)
        deck = cut_deck(deck, k)
    st[DEAL_NO] += 1
    deal_deck(st, deck, new_dealer, game)
    st[CUT] = k
    if four:
        st[P4_DEALER] = (st[P4_DEALER] + 1) % 4
        mirror_scores(st)
    return k


__all__ = ["deal_deck", "shuffled_deck", "start_partie", "gathered_deck", "cut_deck",
           "next_deal", "deck_of"]
