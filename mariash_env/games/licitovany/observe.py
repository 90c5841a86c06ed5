"""Observation and state encodings of licitovaný mariáš: a fixed layout of float32
features, its own (volený's :mod:`.observe` layout does not change).

Every seat sees its perfect-recall information state: its hand, the talon cards it took
and laid, its face-down lead card, the whole auction (who bid, held and passed what), the
contract, trumps and helping suit, the fleks per component and who made them, and every
trick.  ``state()`` adds the hidden cards.  Seats are relative (0 = the observing seat,
1 = next clockwise).  Bump ``LOBS_VERSION`` whenever the layout changes.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import borrow, njit_flags, njit_generic
from ...core.state import (
    ACTOR,
    BET_EXISTS,
    BET_LEVEL,
    DEAL_NO,
    DEALER,
    FLEK_ROUND,
    FOREHAND,
    HAND,
    LIC_BID_BY,
    LIC_CHALLENGER,
    LIC_GAME,
    LIC_HELP,
    LIC_HIGH,
    LIC_HIGH_SEAT,
    LIC_HOLD_BY,
    LIC_HOLDER,
    LIC_LEAD,
    LIC_PASS_AT,
    LIC_QUIET,
    LIC_RAISE_TURN,
    MARR_SEAT,
    NDISC,
    NTRICKS,
    PH_DISCARD,
    PH_FLEK,
    PHASE,
    PHASE_NAMES,
    PTS,
    RAISED_BY,
    RAISED_RND,
    SCORE,
    TALON,
    TALON_OWNER,
    TO_MOVE,
    TOOK,
    TRUMP_CARD,
    TRUMP_PUBLIC,
    get64,
    getm,
)
from ..voleny.observe import (
    _bits,
    _layout,
    _rel_onehot,
    check_encode,
    check_layout,
    encode_tricks,
    layout_markdown,
)
from ..voleny.settle import side_marriages
from .phases import legal_licit

LOBS_VERSION = 1

LO_HAND = 0
LO_TOOK = 32
LO_TALON = 64
LO_LEAD = 96
LO_PLAYED_BY = 128
LO_PLAYED_IN = 224
LO_TRICK_LEADER = 544
LO_CUR_TRICK = 574
LO_BID_BY = 638
LO_HOLD_BY = 674
LO_PASSED = 710
LO_HOLDER = 749
LO_CHALLENGER = 752
LO_HIGH = 755
LO_HIGH_SEAT = 768
LO_FORHOND = 771
LO_DEALER = 774
LO_GAME = 777
LO_ACTOR = 789
LO_TRUMP_SUIT = 792
LO_HELPING = 796
LO_COMP_EXISTS = 800
LO_COMP_LEVEL = 804
LO_RAISED_BY = 836
LO_RAISE_TURN = 920
LO_FLEK_TURN = 948
LO_QUIET = 956
LO_RAISED_TURN = 959
LO_MARRIAGE = 963
LO_FIRST_MARRIAGE = 975
LO_PHASE = 983
LO_NDISC = 994
LO_POINTS = 995
LO_NTRICKS = 998
LO_DEAL_NO = 1001
LO_SCORE = 1013
LOBS_SIZE = 1016
LO_X_HANDS = 1016
LO_X_TALON = 1080
LO_X_LEAD = 1112
LO_X_TO_MOVE = 1144
LSTATE_OBS_SIZE = 1147

_BLOCKS: tuple[tuple[str, int, str], ...] = (
    ('hand', 32, 'own hand'),
    ('took', 32, 'the talon cards this seat took (the actor)'),
    ('talon', 32, "this seat's discards (the actor's final talon)"),
    ('lead', 32, "this seat's face-down lead card of betl / durch, until played"),
    ('played_by', 96, '[relative seat][card]: cards played by each seat'),
    ('played_in', 320, '[card][trick]: the trick in which each card was played'),
    ('trick_leader', 30, '[trick][relative seat]: who led each trick'),
    ('cur_trick', 64, '[0..1][card]: first and second card of the current trick'),
    ('bid_by', 36, '[game 1..12][relative seat]: who bid each game'),
    ('hold_by', 36, '[game 1..12][relative seat]: who held each game'),
    ('passed', 39, '[relative seat][standing bid 0..12]: who passed, over which bid'),
    ('holder', 3, "relative seat in the holder's position"),
    ('challenger', 3, "relative seat in the challenger's position"),
    ('high', 13, 'standing bid 0..12 (one-hot, 0 none)'),
    ('high_seat', 3, 'relative seat owning the standing bid'),
    ('forhond', 3, 'relative seat of forhond'),
    ('dealer', 3, 'relative seat of the dealer'),
    ('game', 12, 'announced game 1..12'),
    ('actor', 3, 'relative seat of the actor'),
    ('trump_suit', 4, 'trump suit (h b l a)'),
    ('helping', 4, 'helping suit of two sevens (h b l a)'),
    ('comp_exists', 4, 'components: game, seven, hundred, two sevens'),
    ('comp_level', 32, '[component][level 0..7]: flek level (one-hot, 7 = 7 or more)'),
    ('raised_by', 84, '[component][level 1..7][relative seat]: who raised it to each level'),
    ('raise_turn', 28, '[component][level 1..7]: (flek turn + 1) / 10 of that raise'),
    ('flek_turn', 8, 'flek turn 0..7 (one-hot, 7 = 7 or later)'),
    ('quiet', 3, 'raise-free flek turns in a row 0..2 (one-hot)'),
    ('raised_turn', 4, 'components raised in the current turn'),
    ('marriage', 12, '[suit][relative seat]: marriages announced'),
    ('first_marriage', 8, "[side: actor, defence][suit]: each side's first marriage"),
    ('phase', 11, 'phase: bid, hold, lone_bid, game, trumps, helping, discard, lead, flek, '
     'play, done'),
    ('ndisc', 1, 'one discard already made'),
    ('points', 3, '[relative seat]: card points taken / 100'),
    ('ntricks', 3, '[relative seat]: tricks taken / 10'),
    ('deal_no', 12, 'deal of the partie (one-hot, 11 = 12th or later)'),
    ('score', 3, '[relative seat]: running desetníky of the partie / 100'),
    ('x_hands', 64, 'state only: hands of the next and the previous seat'),
    ('x_talon', 32, "state only: the talon (the deal's, then the discards)"),
    ('x_lead', 32, 'state only: the face-down lead card'),
    ('x_to_move', 3, 'state only: relative seat to move'),
)

LOBS_LAYOUT: tuple[tuple[str, int, int, str], ...] = _layout(_BLOCKS)
"""``(block, offset, size, meaning)`` of every block of the licitovaný encodings."""

# PHASE value -> slot of the ``phase`` block (volený-only phases never occur here).
_PHASE_SLOT = np.array([-1, -1, 6, -1, -1, -1, 8, 9, 10, 0, 1, 2, 3, 4, 5, 7], dtype=np.int64)
LOBS_PHASES = tuple(PHASE_NAMES[int(np.flatnonzero(_PHASE_SLOT == k)[0])]
                    for k in range(int(_PHASE_SLOT.max()) + 1))
"""The names of the ``phase`` block's slots, in order (read off :data:`_PHASE_SLOT`)."""


check_layout(LOBS_LAYOUT, "LO_", "games/licitovany/observe.py",
             ("LOBS_SIZE", "LSTATE_OBS_SIZE"), globals())


def layout_table() -> str:
    """The Markdown table of the licitovaný observation (README)."""
    return layout_markdown(LOBS_LAYOUT)


@njit_flags
def encode_licit(st, me, out, omniscient):
    """Write seat ``me``'s licitovaný observation into ``out`` (float32[LOBS_SIZE]); with
    ``omniscient`` also the hidden blocks of :data:`LSTATE_OBS_SIZE`."""
    n = LSTATE_OBS_SIZE if omniscient else LOBS_SIZE
    check_encode(st, me, 3, out, n)
    st = borrow(st)  # the caller holds them: no reference counting below
    out = borrow(out)
    for i in range(n):
        out[i] = 0.0
    ph = st[PHASE]
    actor = st[ACTOR]
    _bits(out, LO_HAND, getm(st, HAND + me))
    _bits(out, LO_TOOK, getm(st, TOOK + me))
    if st[TALON_OWNER] == me:
        _bits(out, LO_TALON, getm(st, TALON))
    lead = st[LIC_LEAD]
    if lead >= 0 and me == actor and ph == PH_FLEK:
        out[LO_LEAD + lead] = 1.0  # face down until flekking ends, then in trick 1
    encode_tricks(st, me, out, LO_PLAYED_BY, LO_PLAYED_IN, LO_TRICK_LEADER, LO_CUR_TRICK)
    for g in range(12):
        _rel_onehot(out, LO_BID_BY + 3 * g, st[LIC_BID_BY + g] - 1, me)
        _rel_onehot(out, LO_HOLD_BY + 3 * g, st[LIC_HOLD_BY + g] - 1, me)
    for s in range(3):
        pa = st[LIC_PASS_AT + s]
        if pa > 0:
            out[LO_PASSED + 13 * ((s - me) % 3) + pa - 1] = 1.0
    _rel_onehot(out, LO_HOLDER, st[LIC_HOLDER], me)
    _rel_onehot(out, LO_CHALLENGER, st[LIC_CHALLENGER], me)
    out[LO_HIGH + st[LIC_HIGH]] = 1.0
    _rel_onehot(out, LO_HIGH_SEAT, st[LIC_HIGH_SEAT], me)
    _rel_onehot(out, LO_FORHOND, st[FOREHAND], me)
    _rel_onehot(out, LO_DEALER, st[DEALER], me)
    g = st[LIC_GAME]
    if g > 0:
        out[LO_GAME + g - 1] = 1.0
    _rel_onehot(out, LO_ACTOR, actor, me)
    if st[TRUMP_PUBLIC]:
        out[LO_TRUMP_SUIT + (st[TRUMP_CARD] >> 3)] = 1.0
    if st[LIC_HELP] >= 0:
        out[LO_HELPING + st[LIC_HELP]] = 1.0
    for k in range(4):
        if st[BET_EXISTS + k]:
            out[LO_COMP_EXISTS + k] = 1.0
            out[LO_COMP_LEVEL + 8 * k + min(st[BET_LEVEL + k], 7)] = 1.0
        rb = st[RAISED_BY + k]
        for lvl in range(7):
            s1 = (rb >> (2 * lvl)) & 3
            if s1:
                out[LO_RAISED_BY + 21 * k + 3 * lvl + (s1 - 1 - me) % 3] = 1.0
        if (st[RAISED_RND] >> k) & 1:
            out[LO_RAISED_TURN + k] = 1.0
        for lvl in range(7):
            out[LO_RAISE_TURN + 7 * k + lvl] = st[LIC_RAISE_TURN + 7 * k + lvl] / 10.0
    if ph == PH_FLEK:
        out[LO_FLEK_TURN + min(st[FLEK_ROUND], 7)] = 1.0
        out[LO_QUIET + min(st[LIC_QUIET], 2)] = 1.0
    for su in range(4):
        ms = st[MARR_SEAT + su]
        if ms >= 0:
            out[LO_MARRIAGE + 3 * su + (ms - me) % 3] = 1.0
    if actor >= 0:
        _, _, first_a, first_d = side_marriages(st)
        if first_a >= 0:
            out[LO_FIRST_MARRIAGE + first_a] = 1.0
        if first_d >= 0:
            out[LO_FIRST_MARRIAGE + 4 + first_d] = 1.0
    slot = _PHASE_SLOT[ph]
    if slot >= 0:
        out[LO_PHASE + slot] = 1.0
    if ph == PH_DISCARD and st[NDISC] == 1:
        out[LO_NDISC] = 1.0
    for s in range(3):
        r = (s - me) % 3
        out[LO_POINTS + r] = st[PTS + s] / 100.0
        out[LO_NTRICKS + r] = st[NTRICKS + s] / 10.0
        out[LO_SCORE + r] = get64(st, SCORE + 2 * s) / 100.0
    out[LO_DEAL_NO + min(st[DEAL_NO], 11)] = 1.0
    if omniscient:
        _bits(out, LO_X_HANDS, getm(st, HAND + (me + 1) % 3))
        _bits(out, LO_X_HANDS + 32, getm(st, HAND + (me + 2) % 3))
        _bits(out, LO_X_TALON, getm(st, TALON))
        if lead >= 0:
            out[LO_X_LEAD + lead] = 1.0
        _rel_onehot(out, LO_X_TO_MOVE, st[TO_MOVE], me)


@njit_generic
def observe_licit(st, rules, me, out, mask):
    """``encode_licit(st, me, out, False)`` and, when ``me`` is to move, its legal actions
    into ``mask`` (else all zero)."""
    encode_licit(st, me, out, False)
    if st[TO_MOVE] == me:
        legal_licit(st, rules, mask)
    else:
        for i in range(mask.shape[0]):
            mask[i] = 0
