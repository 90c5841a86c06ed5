"""Lízaný's compiled rules core: one deal as a compact ``int32[LZ_STATE_SIZE]`` record and
pure functions on it (numba, ``cache=True``; plain Python under ``NUMBA_DISABLE_JIT=1``).

:class:`~mariash_env.games.lizany.game.LizanyGame` (and with it the AEC environment, the
arena and the records) and the batched engine
(:class:`~mariash_env.games.lizany.vector.LizanyVectorEnv`) call these same functions: a
rule of lízaný is written once, here, on the shared card vocabulary of
:mod:`mariash_env.core.tricks` (the follow-and-beat rule, beating, the marriage rule) and
the card points of :mod:`mariash_env.core.tables`.  The rules themselves, and the decisions
taken where table practice varies, are in the game's module documentation
(:mod:`mariash_env.games.lizany.game`, ``docs/games/lizany.md``).

Card sets are 32-bit masks in ``int32`` slots (:func:`~mariash_env.core.state.getm` /
``setm``); -1 means "none".  The generator words sit where the main core keeps them
(``core.state.RNG``), so :func:`mariash_env.core.deal.shuffled_deck` deals a lízaný deck
from a lízaný state.
"""

from __future__ import annotations

import numpy as np

from ...cards import NCARDS
from ...core import state as S
from ...core.deal import shuffled_deck
from ...core.jit import borrow, njit_flags, njit_generic, put_bits32
from ...core.state import getm, setm
from ...core.tables import ABOVE_PLAIN, ABOVE_TRUMP, CARD_POINTS, SUIT_MASK
from ...core.tricks import announces_marriage, beats, follow
from .actions import OBS, OBS_SIZE, STATE_SIZE

__all__ = ["LZ_STATE_SIZE", "LZ_LAYOUT", "LZ_OFFSETS", "LZ_SLOTS", "new_deal", "deal_shuffled",
           "legal_cards", "legal_cards_of", "play_card", "encode", "observe_into", "stock_left"]

HAND_SIZE = 8
N_TRICKS = NCARDS // 2
STOCK_SIZE = NCARDS - 2 * HAND_SIZE  # 15 face down + the trump card, drawn last
TRUMP_POS = 2 * HAND_SIZE  # the turned-up card's deck position
LAST_TRICK = 10
DEAL_DECISIONS = NCARDS  # a deal's player decisions: a card each, 16 tricks of two

# The record, field by field: (name, slots, what it holds).  RNG must sit at the main
# core's offset (checked below) so that the core's dealing reads the same words.
LZ_LAYOUT = (
    ("hand", 2, "each seat's cards (mask)"),
    ("played", 2, "cards each seat has played (mask)"),
    ("known", 2, "cards of a hand its opponent knows: the trump card drawn, a marriage partner"),
    ("to_move", 1, "the seat to move (after the deal: the last trick's winner)"),
    ("table", 1, "the card led to the current trick, -1 none"),
    ("rng", 4, "xorshift128 generator words (the next deals of the batched engine)"),
    ("points", 2, "card points taken, the last trick's 10 included"),
    ("marriages", 2, "marriage points announced (20, 40 in trumps)"),
    ("tricks", 2, "tricks taken"),
    ("marriage_by", 4, "per suit: the seat that announced its marriage, -1 none"),
    ("trump_card", 1, "the turned-up card (its suit is trumps)"),
    ("trick_no", 1, "tricks finished, 0..16"),
    ("last_winner", 1, "the last trick's winner, -1 before the first"),
    ("over", 1, "1 once the 16th trick is taken"),
    ("rewards", 2, "the deal's rewards once over (+-1, +-2), else 0"),
    ("stock_pos", 1, "slot of the next card to draw in ``stock`` (16: the stock is gone)"),
    ("stock", STOCK_SIZE, "the stock in drawing order, the trump card last"),
    ("deck", NCARDS, "the deck as dealt, from the top"),
)
LZ_SLOTS = {name: n for name, n, _ in LZ_LAYOUT}
LZ_OFFSETS = {name: sum(n for _, n, _ in LZ_LAYOUT[:k]) for k, (name, _, _) in
              enumerate(LZ_LAYOUT)}
LZ_STATE_SIZE = sum(LZ_SLOTS.values())
_OFF = LZ_OFFSETS
HAND, PLAYED, KNOWN = _OFF["hand"], _OFF["played"], _OFF["known"]
TO_MOVE, TABLE, RNG = _OFF["to_move"], _OFF["table"], _OFF["rng"]
POINTS, MARRIAGES, TRICKS = _OFF["points"], _OFF["marriages"], _OFF["tricks"]
MARRIAGE_BY, TRUMP_CARD, TRICK_NO = _OFF["marriage_by"], _OFF["trump_card"], _OFF["trick_no"]
LAST_WINNER, OVER, REWARDS = _OFF["last_winner"], _OFF["over"], _OFF["rewards"]
STOCK_POS, STOCK, DECK = _OFF["stock_pos"], _OFF["stock"], _OFF["deck"]
assert RNG == S.RNG, "lízaný's generator words must sit where core.deal reads them"

# Observation offsets, frozen into the compiled encoder.
_O_HAND, _O_TRUMP_CARD = OBS["hand"][0], OBS["trump_card"][0]
_O_TRUMP_SUIT, _O_PLAYED_ME = OBS["trump_suit"][0], OBS["played_me"][0]
_O_PLAYED_OPP, _O_TABLE = OBS["played_opp"][0], OBS["table"][0]
_O_OPP_KNOWN, _O_MARR, _O_SC = OBS["opp_known"][0], OBS["marriages"][0], OBS["scalars"][0]
_O_HAND1 = OBS_SIZE  # state(): player_1's hand, then each stock card's place
_O_ORDER = OBS_SIZE + NCARDS
# encode writes the card sets and the scalars whole and zeroes only the other blocks.
_ZEROED = ("trump_card", "trump_suit", "table", "marriages")
assert set(_ZEROED) | {"hand", "played_me", "played_opp", "opp_known", "scalars"} == set(OBS)
_O_ZERO = tuple(OBS[name] for name in _ZEROED)  # (start, size)


@njit_generic
def stock_left(st):
    """Cards still to draw (the trump card included)."""
    return STOCK_SIZE - st[STOCK_POS]


@njit_generic
def _check_record(st):
    """ValueError unless ``st`` is a whole record: numba checks no bounds, and every
    entry point below indexes it with its own fields."""
    if st.shape[0] < LZ_STATE_SIZE:
        raise ValueError("the state must be a whole lízaný record (int32[LZ_STATE_SIZE])")


@njit_generic
def new_deal(st, deck):
    """Deal ``deck`` (32 card codes from the top, a permutation) into ``st``: 0-7 to
    ``player_0``, 8-15 to ``player_1``, 16 turned up as the trump card and drawn last, 17-31
    the stock; ``player_0`` leads.  The generator words are kept.  ValueError for a short
    record or a deck that is not a permutation of the 32 cards (nothing written)."""
    _check_record(st)
    if deck.shape[0] != NCARDS:
        raise ValueError("new_deal: a deck holds the 32 cards")
    seen = np.int64(0)
    for p in range(NCARDS):
        if deck[p] < 0 or deck[p] >= NCARDS:
            raise ValueError("new_deal: a card of the deck is not a card 0..31")
        seen |= np.int64(1) << deck[p]
    if seen != (np.int64(1) << NCARDS) - 1:
        raise ValueError("new_deal: the deck holds a card twice")
    for name_off in (HAND, PLAYED, KNOWN, POINTS, MARRIAGES, TRICKS, REWARDS):
        st[name_off] = 0
        st[name_off + 1] = 0
    h0 = np.int64(0)
    h1 = np.int64(0)
    for p in range(NCARDS):
        c = deck[p]
        st[DECK + p] = c
        if p < HAND_SIZE:
            h0 |= np.int64(1) << c
        elif p < TRUMP_POS:
            h1 |= np.int64(1) << c
    setm(st, HAND, h0)
    setm(st, HAND + 1, h1)
    for k in range(STOCK_SIZE - 1):
        st[STOCK + k] = deck[TRUMP_POS + 1 + k]
    st[STOCK + STOCK_SIZE - 1] = deck[TRUMP_POS]
    st[STOCK_POS] = 0
    st[TRUMP_CARD] = deck[TRUMP_POS]
    for s in range(4):
        st[MARRIAGE_BY + s] = -1
    st[TO_MOVE] = 0
    st[TABLE] = -1
    st[TRICK_NO] = 0
    st[LAST_WINNER] = -1
    st[OVER] = 0


@njit_generic
def deal_shuffled(st):
    """A new deal from the state's own generator (the batched engine's next deal)."""
    new_deal(st, shuffled_deck(st))


@njit_generic
def legal_cards(st):
    """The cards the seat to move may play (a mask; 0 once the deal is over): a lead, or
    any card while the stock lasts; once it is gone, RULES.md §6's follow-and-beat rule."""
    _check_record(st)
    if st[OVER]:
        return np.int64(0)
    hand = getm(st, HAND + st[TO_MOVE])
    led = st[TABLE]
    if led < 0 or st[STOCK_POS] < STOCK_SIZE:
        return hand
    return follow(hand, led, led, st[TRUMP_CARD] >> 3, SUIT_MASK, ABOVE_TRUMP, ABOVE_PLAIN)


@njit_generic
def legal_cards_of(st, seat):
    """:func:`legal_cards` for ``seat``: 0 unless it is to move."""
    if seat != st[TO_MOVE]:
        return np.int64(0)
    return legal_cards(st)


@njit_generic
def _draw(st, seat):
    c = st[STOCK + st[STOCK_POS]]
    st[STOCK_POS] += 1
    bit = np.int64(1) << c
    setm(st, HAND + seat, getm(st, HAND + seat) | bit)
    if c == st[TRUMP_CARD]:  # it lay face up: public
        setm(st, KNOWN + seat, getm(st, KNOWN + seat) | bit)


@njit_generic
def play_card(st, c):
    """The seat to move plays card ``c`` (legal: the caller checked it); True when that
    ended the deal.  A K or Q played while holding the other of its suit credits the
    marriage (RULES.md §7); a second card resolves the trick (§6), the winner draws first
    while the stock lasts, the 16th trick adds 10 and settles the rewards.  ValueError
    for a short record or a card outside 0..31 (numba checks no bounds)."""
    _check_record(st)
    if c < 0 or c >= NCARDS:
        raise ValueError("play_card: the card must be 0..31")
    seat = st[TO_MOVE]
    hand = getm(st, HAND + seat)
    bit = np.int64(1) << c
    trump = st[TRUMP_CARD] >> 3
    if announces_marriage(hand, c, False):
        s = c >> 3
        st[MARRIAGE_BY + s] = seat
        st[MARRIAGES + seat] += 40 if s == trump else 20
        partner = c + 1 if c & 7 == 5 else c - 1
        setm(st, KNOWN + seat, getm(st, KNOWN + seat) | (np.int64(1) << partner))
    setm(st, HAND + seat, hand & ~bit)
    setm(st, KNOWN + seat, getm(st, KNOWN + seat) & ~bit)
    setm(st, PLAYED + seat, getm(st, PLAYED + seat) | bit)
    led = st[TABLE]
    if led < 0:
        st[TABLE] = c
        st[TO_MOVE] = 1 - seat
        return False
    w = seat if beats(c, led, trump) else 1 - seat
    st[POINTS + w] += CARD_POINTS[led] + CARD_POINTS[c]
    st[TRICKS + w] += 1
    st[TRICK_NO] += 1
    st[TABLE] = -1
    st[LAST_WINNER] = w
    st[TO_MOVE] = w
    if st[STOCK_POS] < STOCK_SIZE:  # the winner draws first, then the other
        _draw(st, w)
        _draw(st, 1 - w)
    if st[TRICK_NO] == N_TRICKS:
        st[POINTS + w] += LAST_TRICK
        st[OVER] = 1
        t0 = st[POINTS] + st[MARRIAGES]
        t1 = st[POINTS + 1] + st[MARRIAGES + 1]
        # equal points (the last trick wins) cannot happen in a dealt game (t0 + t1 is an odd
        # number of tens); kept for positions set by hand (restore_states)
        win = 0 if t0 > t1 else 1 if t1 > t0 else w
        r = 2 if st[TRICKS + 1 - win] == 0 else 1
        st[REWARDS + win] = r
        st[REWARDS + 1 - win] = -r
        return True
    return False


@njit_flags
def encode(st, me, out, omniscient):
    """Seat ``me``'s observation (``OBS_LAYOUT``) into ``out[:OBS_SIZE]``; with
    ``omniscient`` the perfect-information state (``STATE_SIZE``): ``player_0``'s view
    (``me`` = 0), ``player_1``'s hand and each stock card's place ``(k + 1)/16``."""
    n = STATE_SIZE if omniscient else OBS_SIZE
    # numba checks no bounds, and every line below indexes with st, me and out
    _check_record(st)
    if me < 0 or me > 1:
        raise ValueError("encode: the observing seat must be 0 or 1")
    if out.shape[0] < n:
        raise ValueError("encode: out is shorter than the observation (OBS_SIZE, or "
                         "STATE_SIZE when omniscient)")
    st = borrow(st)  # the caller holds them: no reference counting below
    out = borrow(out)
    for start, size in _O_ZERO:
        for j in range(start, start + size):
            out[j] = 0.0
    opp = 1 - me
    over = st[OVER] != 0
    tm = st[TO_MOVE]
    led = st[TABLE]
    trump_card = st[TRUMP_CARD]
    put_bits32(out, _O_HAND, getm(st, HAND + me))  # one vector store a card set
    out[_O_TRUMP_CARD + trump_card] = 1.0
    out[_O_TRUMP_SUIT + (trump_card >> 3)] = 1.0
    put_bits32(out, _O_PLAYED_ME, getm(st, PLAYED + me))
    put_bits32(out, _O_PLAYED_OPP, getm(st, PLAYED + opp))
    if led >= 0:
        out[_O_TABLE + led] = 1.0
    put_bits32(out, _O_OPP_KNOWN, getm(st, KNOWN + opp))
    for s in range(4):
        by = st[MARRIAGE_BY + s]
        if by >= 0:
            out[_O_MARR + 2 * s + (1 if by != me else 0)] = 1.0
    left = stock_left(st)
    sc = _O_SC
    out[sc + 0] = left / STOCK_SIZE
    out[sc + 1] = 1.0 if left == 0 else 0.0
    out[sc + 2] = st[POINTS + me] / 90
    out[sc + 3] = st[POINTS + opp] / 90
    out[sc + 4] = st[MARRIAGES + me] / 100
    out[sc + 5] = st[MARRIAGES + opp] / 100
    out[sc + 6] = st[TRICKS + me] / N_TRICKS
    out[sc + 7] = st[TRICKS + opp] / N_TRICKS
    out[sc + 8] = 1.0 if not over and led < 0 and tm == me else 0.0
    out[sc + 9] = 1.0 if not over and tm == me else 0.0
    out[sc + 10] = 1.0 if led >= 0 and tm != me else 0.0
    out[sc + 11] = st[TRICK_NO] / N_TRICKS
    out[sc + 12] = me
    out[sc + 13] = 1.0 if over else 0.0
    out[sc + 14] = (st[POINTS + me] + st[MARRIAGES + me]) / 190
    out[sc + 15] = (st[POINTS + opp] + st[MARRIAGES + opp]) / 190
    out[sc + 16] = 1.0 if over and st[REWARDS + me] > 0 else 0.0
    if omniscient:
        put_bits32(out, _O_HAND1, getm(st, HAND + 1))
        for j in range(_O_ORDER, _O_ORDER + NCARDS):
            out[j] = 0.0
        pos = st[STOCK_POS]
        for k in range(pos, STOCK_SIZE):
            out[_O_ORDER + st[STOCK + k]] = (k - pos + 1) / STOCK_SIZE


@njit_generic
def observe_into(st, rules, me, out, mask):
    """The registry's observation protocol: ``me``'s observation into ``out`` and its
    legal cards into ``mask`` (int8[32], all zero unless ``me`` is to move).  Lízaný has
    no rule options: ``rules`` is not read."""
    if mask.shape[0] < NCARDS:
        raise ValueError("observe_into: mask is shorter than the 32 actions")
    encode(st, me, out, False)
    legal = legal_cards_of(st, me)
    for c in range(NCARDS):
        mask[c] = (legal >> c) & 1
