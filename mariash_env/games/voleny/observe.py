"""Observation and state encodings: a fixed layout of float32 features.

Every seat sees its own perfect-recall information state (but for the talons of a seat
that has been in more than one: ``laid`` and ``took`` are unions, docs/layouts.md);
``state()`` adds the hidden cards.  Seats are relative: 0 = the observing seat, 1 =
next (clockwise), 2 = the one after.  ``OBS_LAYOUT`` documents each block; bump ``OBS_VERSION``
whenever the layout changes (exported robots check it).
"""

from __future__ import annotations

import numpy as np

from ...core.jit import (
    borrow,
    lowest_bit,
    njit_flags,
    njit_generic,
    njit_inline,
    put_bits32,
)
from ...core.state import (
    ACTOR,
    ANNOUNCE,
    ANNOUNCED_RND,
    BAD_SEAT,
    BET_EXISTS,
    BET_LEVEL,
    BET_SEAT,
    BLIND,
    CHOOSER,
    CONTRACT,
    DEAL_NO,
    DEALER,
    DURCH_SEAT,
    FLEK_ROUND,
    FOREHAND,
    GOOD_SEATS,
    HAND,
    LAID,
    MARR_SEAT,
    NDISC,
    NTRICKS,
    OVERCALLS,
    PH_DISCARD,
    PH_PLAY,
    PH_TRUMP,
    PHASE,
    POS,
    PTS,
    RAISABLE,
    RAISED_BY,
    RAISED_RND,
    SCORE,
    STATE_SIZE,
    TALON,
    TALON_OWNER,
    TLEAD,
    TO_MOVE,
    TOOK,
    TRICK_NO,
    TRICKS,
    TRUMP_CARD,
    TRUMP_PUBLIC,
    get64,
    getm,
)
from ...core.tricks import trick_cards, tricks_begun
from .phases import legal_voleny
from .settle import side_marriages

OBS_VERSION = 1

# Offsets of the observation blocks as plain constants (what numba compiles against),
# checked against OBS_LAYOUT at import.
O_HAND = 0
O_LAID = 32
O_TOOK = 64
O_TALON = 96
O_TRUMP_CARD = 128
O_TRUMP_SUIT = 160
O_BLIND = 164
O_PLAYED_BY = 165
O_PLAYED_IN = 261
O_TRICK_LEADER = 581
O_CUR_TRICK = 611
O_CONTRACT = 675
O_ANNOUNCE = 678
O_ACTOR = 682
O_FOREHAND = 685
O_DEALER = 688
O_CHOOSER = 691
O_BAD = 694
O_DURCH = 697
O_GOOD = 700
O_BET_EXISTS = 703
O_BET_LEVEL = 707
O_BET_SEAT = 739
O_RAISED_BY = 745
O_FLEK_ROUND = 829
O_RAISABLE = 837
O_RAISED_RND = 841
O_ANNOUNCED_RND = 845
O_MARRIAGE = 849
O_FIRST_MARRIAGE = 861
O_PHASE = 869
O_NDISC = 878
O_POINTS = 879
O_NTRICKS = 882
O_DEAL_NO = 885
O_SCORE = 897
OBS_SIZE = 900
# Open betl / durch (RULES.md §11.1) reuse slots that are always zero in a betl or durch,
# where only the game bet exists: those of the other bets in ``raised_by``.  The layout
# (size 900, OBS_VERSION 1) and every observation without the open contracts stay as
# they were, so robots exported for it keep working.
O_OPEN_HAND = O_RAISED_BY + 21  # 32 slots: the actor's face-up cards after trick 1
O_OPEN = O_RAISED_BY + 53  # the contract is open betl / open durch
O_X_HANDS = 900
O_X_TALON = 964
O_X_TRUMP_CARD = 996
O_X_TO_MOVE = 1028
STATE_OBS_SIZE = 1031

# The observation declared once: (block, size, meaning) in order.  OBS_LAYOUT, the
# offsets, OBS_SIZE / STATE_OBS_SIZE and the README table derive from it; the blocks
# from "x_hands" on are in the perfect-information encoding only.
_OBS_BLOCKS: tuple[tuple[str, int, str], ...] = (
    ('hand', 32, 'own hand (forehand sees only its first 7 cards until the trump is chosen)'),
    ('laid', 32, 'cards this seat has put into a talon'),
    ('took', 32, 'cards this seat has taken from a talon'),
    ('talon', 32, 'the talon, when this seat laid it'),
    ('trump_card', 32, 'the trump card, once this seat knows it'),
    ('trump_suit', 4, 'trump suit, once public (h b l a)'),
    ('blind', 1, 'trumps were chosen z lidu'),
    ('played_by', 96, '[relative seat][card]: cards played by each seat'),
    ('played_in', 320, '[card][trick]: the trick in which each card was played'),
    ('trick_leader', 30, '[trick][relative seat]: who led each trick'),
    ('cur_trick', 64, '[0..1][card]: first and second card of the current trick'),
    ('contract', 3, 'contract: suit, betl, durch'),
    ('announce', 4, 'hra, sedma, sto, sto a sedma'),
    ('actor', 3, 'relative seat of the actor'),
    ('forehand', 3, 'relative seat of forehand'),
    ('dealer', 3, 'relative seat of the dealer'),
    ('chooser', 3, 'relative seat naming a contract / discarding'),
    ('bad', 3, 'relative seat that said bad to Barva?'),
    ('durch', 3, 'relative seat that answered a betl with durch'),
    ('good', 3, 'relative seats that said good to Barva?'),
    ('bet_exists', 4, 'bets: game, seven, seven against, hundred against'),
    ('bet_level', 32, '[bet][level 0..7]: flek level of each bet (one-hot, 7 = 7 or more)'),
    ('bet_seat', 6, '[seven against, hundred against][relative seat]: who announced it'),
    ('raised_by', 84, '[bet][level 1..7][relative seat]: who raised each bet to each level; '
     'in open betl / durch (§11.1) slots 21..52 are the actor\'s face-up cards once the first '
     'trick is complete, slot 53 marks the open contract'),
    ('flek_round', 8, 'flek round 1..8 (one-hot, 8 = 8 or more)'),
    ('raisable', 4, 'bets the side to speak may raise this round'),
    ('raised_rnd', 4, 'bets raised in the current round'),
    ('announced_rnd', 4, 'bets announced in the current round'),
    ('marriage', 12, '[suit][relative seat]: marriages announced'),
    ('first_marriage', 8, "[side: actor, defence][suit]: each side's first marriage"),
    ('phase', 9, 'phase: trump, contract, discard, barva, betl_answer, announce, flek, play, done'),
    ('ndisc', 1, 'one discard already made'),
    ('points', 3, '[relative seat]: card points taken / 100'),
    ('ntricks', 3, '[relative seat]: tricks taken / 10'),
    ('deal_no', 12, 'deal of the partie (one-hot, 11 = 12th or later)'),
    ('score', 3, '[relative seat]: running groše of the partie / 100'),
    ('x_hands', 64, 'state only: hands of the next and the previous seat'),
    ('x_talon', 32, 'state only: the talon'),
    ('x_trump_card', 32, 'state only: the trump card'),
    ('x_to_move', 3, 'state only: relative seat to move'),
)


def _layout(blocks: tuple[tuple[str, int, str], ...]) -> tuple[tuple[str, int, int, str], ...]:
    out, off = [], 0
    for name, size, meaning in blocks:
        out.append((name, off, size, meaning))
        off += size
    return tuple(out)


OBS_LAYOUT: tuple[tuple[str, int, int, str], ...] = _layout(_OBS_BLOCKS)
"""``(block, offset, size, meaning)`` of every block of the encodings."""


def check_layout(layout: tuple[tuple[str, int, int, str], ...], prefix: str, where: str,
                 sizes: tuple[str, str], namespace: dict) -> None:
    """Import-time check that a module's plain offset constants (``<prefix><BLOCK>``, what
    numba compiles against) and its two sizes (observation, state encoding) are those of
    its declared ``layout``."""
    wrong = [f"{prefix}{n.upper()} = {namespace.get(prefix + n.upper())}, layout {o}"
             for n, o, _, _ in layout if namespace.get(prefix + n.upper()) != o]
    first_x = next(o for n, o, _, _ in layout if n.startswith("x_"))
    end = layout[-1][1] + layout[-1][2]
    got = tuple(namespace.get(k) for k in sizes)
    if got != (first_x, end):
        wrong.append(f"{', '.join(sizes)} = {got}; layout {first_x}, {end}")
    if wrong:
        raise ImportError(f"{where}: offsets disagree with the layout: " + "; ".join(wrong))


check_layout(OBS_LAYOUT, "O_", "games/voleny/observe.py", ("OBS_SIZE", "STATE_OBS_SIZE"),
             globals())


def layout_markdown(layout: tuple[tuple[str, int, int, str], ...]) -> str:
    """A declared layout as a Markdown table (the README's observation tables)."""
    rows = ["| block | offset | size | content |", "| --- | ---: | ---: | --- |"]
    rows += [f"| `{n}` | {o} | {k} | {m} |" for n, o, k, m in layout]
    return "\n".join(rows)


def layout_table() -> str:
    """The Markdown table of the observation (README "Observation layout")."""
    return layout_markdown(OBS_LAYOUT)


@njit_inline
def _bits(out, off, m):
    put_bits32(out, off, m)  # one vector store (the encoders' costliest lines before)


@njit_inline
def _rel(seat, me):
    """``(seat - me) % 3`` for seats 0..2: without the division and sign fix-up."""
    d = seat - me
    return d + 3 if d < 0 else d


@njit_inline
def _rel_onehot(out, off, seat, me):
    if seat >= 0:
        out[off + _rel(seat, me)] = 1.0


@njit_inline
def encode_tricks(st, me, out, o_played_by, o_played_in, o_trick_leader, o_cur_trick):
    """Card play, in order: who led each trick and who played what (both games' blocks
    ``played_by``, ``played_in``, ``trick_leader`` and ``cur_trick``): the cards of
    ``played_card``'s walk, trick by trick (no division per card)."""
    ntr = st[TRICK_NO]
    for t in range(tricks_begun(st)):
        n = trick_cards(st, t)
        if n == 0:
            break
        lead = _rel(st[TLEAD + t], me)
        out[o_trick_leader + 3 * t + lead] = 1.0
        for j in range(n):
            c = st[TRICKS + 3 * t + j]
            r = lead + j
            out[o_played_by + 32 * (r - 3 if r >= 3 else r) + c] = 1.0
            out[o_played_in + 10 * c + t] = 1.0
            if t == ntr and j < 2:
                out[o_cur_trick + 32 * j + c] = 1.0


_ENC_ST_MSG = f"encode: the state must be an int32[{STATE_SIZE}] record"
_ENC_SEAT_MSG = "encode: the observing seat must be 0..2 (0..3 players at four)"
_ENC_OUT_MSG = ("encode: out is shorter than the observation (kind_of(rules).obs_size, "
                "or state_obs_size when omniscient)")


@njit_inline
def check_encode(st, me, seats, out, n):
    """Raise ValueError unless ``st`` is a whole record, ``0 <= me < seats`` and ``out``
    holds ``n`` values: numba checks no bounds, and the encoders index with all three."""
    if st.shape[0] < STATE_SIZE:
        raise ValueError(_ENC_ST_MSG)
    if me < 0 or me >= seats:
        raise ValueError(_ENC_SEAT_MSG)
    if out.shape[0] < n:
        raise ValueError(_ENC_OUT_MSG)


@njit_flags
def encode(st, me, out, omniscient):
    """Write the observation of seat ``me`` into ``out`` (float32[OBS_SIZE]).

    With ``omniscient`` the hidden blocks of :data:`STATE_OBS_SIZE` are filled too
    and forehand's whole hand is shown during the trump choice.  ValueError when ``st``
    or ``out`` is too small or ``me`` not a seat.
    """
    n = STATE_OBS_SIZE if omniscient else OBS_SIZE
    check_encode(st, me, 3, out, n)
    st = borrow(st)  # the caller holds them: no reference counting below
    out = borrow(out)
    for i in range(O_TALON, n):  # hand, laid and took are written whole below
        out[i] = 0.0
    ph = st[PHASE]
    f = st[FOREHAND]
    hand = getm(st, HAND + me)
    if ph == PH_TRUMP and me == f and not omniscient:
        first7 = 0
        for c in range(32):
            if st[POS + c] < 7:
                first7 |= np.int64(1) << c
        hand &= first7
    _bits(out, O_HAND, hand)
    _bits(out, O_LAID, getm(st, LAID + me))
    _bits(out, O_TOOK, getm(st, TOOK + me))
    if st[TALON_OWNER] == me:
        _bits(out, O_TALON, getm(st, TALON))
    tc = st[TRUMP_CARD]
    if tc >= 0 and (st[TRUMP_PUBLIC] or me == f):
        out[O_TRUMP_CARD + tc] = 1.0
    if st[TRUMP_PUBLIC]:
        out[O_TRUMP_SUIT + (tc >> 3)] = 1.0
    if st[BLIND]:
        out[O_BLIND] = 1.0
    encode_tricks(st, me, out, O_PLAYED_BY, O_PLAYED_IN, O_TRICK_LEADER, O_CUR_TRICK)
    con = st[CONTRACT]
    if con > 0:
        out[O_CONTRACT + con - 1] = 1.0
    an = st[ANNOUNCE]
    if an > 0:
        out[O_ANNOUNCE + an - 1] = 1.0
    actor = st[ACTOR]
    _rel_onehot(out, O_ACTOR, actor, me)
    _rel_onehot(out, O_FOREHAND, f, me)
    _rel_onehot(out, O_DEALER, st[DEALER], me)
    _rel_onehot(out, O_CHOOSER, st[CHOOSER], me)
    _rel_onehot(out, O_BAD, st[BAD_SEAT], me)
    _rel_onehot(out, O_DURCH, st[DURCH_SEAT], me)
    for s in range(3):
        if (st[GOOD_SEATS] >> s) & 1:
            out[O_GOOD + _rel(s, me)] = 1.0
    for b in range(4):
        if st[BET_EXISTS + b]:
            out[O_BET_EXISTS + b] = 1.0
            out[O_BET_LEVEL + 8 * b + min(st[BET_LEVEL + b], 7)] = 1.0
        rb = st[RAISED_BY + b] & 0x3FFF  # levels 1..7; most bets are never raised
        while rb:
            lvl = lowest_bit(rb) >> 1
            out[O_RAISED_BY + 21 * b + 3 * lvl + _rel(((rb >> (2 * lvl)) & 3) - 1, me)] = 1.0
            rb &= ~(3 << (2 * lvl))
    if st[OVERCALLS] & 1:  # §11.1: the open contract; its hand face up after trick 1
        out[O_OPEN] = 1.0
        if st[PHASE] >= PH_PLAY and st[TRICK_NO] >= 1:
            _bits(out, O_OPEN_HAND, getm(st, HAND + actor))
    for k in range(2):
        _rel_onehot(out, O_BET_SEAT + 3 * k, st[BET_SEAT + 2 + k], me)
    fr = st[FLEK_ROUND]
    if fr > 0:
        out[O_FLEK_ROUND + min(fr, 8) - 1] = 1.0
    raisable, raised, announced = st[RAISABLE], st[RAISED_RND], st[ANNOUNCED_RND]
    for b in range(4):  # branch-free: 0.0 or 1.0 into slots zeroed above
        out[O_RAISABLE + b] = (raisable >> b) & 1
        out[O_RAISED_RND + b] = (raised >> b) & 1
        out[O_ANNOUNCED_RND + b] = (announced >> b) & 1
    for su in range(4):
        ms = st[MARR_SEAT + su]
        if ms >= 0:
            out[O_MARRIAGE + 3 * su + _rel(ms, me)] = 1.0
    _, _, first_a, first_d = side_marriages(st)
    if first_a >= 0:
        out[O_FIRST_MARRIAGE + first_a] = 1.0
    if first_d >= 0:
        out[O_FIRST_MARRIAGE + 4 + first_d] = 1.0
    out[O_PHASE + ph] = 1.0
    if ph == PH_DISCARD and st[NDISC] == 1:
        out[O_NDISC] = 1.0
    for s in range(3):
        r = _rel(s, me)
        out[O_POINTS + r] = st[PTS + s] / 100.0
        out[O_NTRICKS + r] = st[NTRICKS + s] / 10.0
        out[O_SCORE + r] = get64(st, SCORE + 2 * s) / 100.0  # exact int64 (state.py)
    out[O_DEAL_NO + min(st[DEAL_NO], 11)] = 1.0
    if omniscient:
        _bits(out, O_X_HANDS, getm(st, HAND + (me + 1) % 3))
        _bits(out, O_X_HANDS + 32, getm(st, HAND + (me + 2) % 3))
        _bits(out, O_X_TALON, getm(st, TALON))
        if tc >= 0:
            out[O_X_TRUMP_CARD + tc] = 1.0
        _rel_onehot(out, O_X_TO_MOVE, st[TO_MOVE], me)


@njit_generic
def observe_into(st, rules, me, out, mask):
    """``encode(st, me, out, False)`` and, when ``me`` is to move, its legal actions into
    ``mask`` (else all zero): what an agent sees, in one compiled call."""
    encode(st, me, out, False)
    if st[TO_MOVE] == me:
        legal_voleny(st, rules, mask)
    else:
        for i in range(mask.shape[0]):
            mask[i] = 0
