"""The phase machine of volený mariáš (RULES.md §3–§8): legal actions and their effects,
one small function per phase (``_legal_trump`` ... ``_apply_play``, each citing its
RULES.md section), compiled inline into ``legal_voleny`` / ``apply_voleny``.  Pure
functions of the compact state; the trick functions are shared with licitovaný
(:mod:`mariash_env.core.play`, :mod:`mariash_env.core.flow`).  The core's dispatch
(``engine.legal_actions``, ``engine.apply_action``) calls them for volený.
"""

from __future__ import annotations

import numpy as np

from ...core.flow import (
    book_deal,
    check_state,
    count_deal,
    discard_card,
    end_deal,
    play_turn,
    take_talon,
)
from ...core.jit import njit_generic, njit_inline, store_bits32
from ...core.play import held_marriages, lay_down, legal_cards
from ...core.state import (
    ACTOR,
    AN_HRA,
    AN_SEDMA,
    AN_STO,
    AN_STO_SEDMA,
    ANNOUNCE,
    ANNOUNCED_RND,
    ANSWERS,
    B_GAME,
    B_HUNDRED_AG,
    B_SEVEN,
    B_SEVEN_AG,
    BAD_SEAT,
    BET_EXISTS,
    BET_LEVEL,
    BET_SEAT,
    BETL_SEAT,
    BLIND,
    C_BETL,
    C_DURCH,
    C_NONE,
    C_SUIT,
    CHOOSER,
    CONTRACT,
    DURCH_SEAT,
    END_CONCEDED,
    END_LAID,
    END_NONE,
    END_SEDMA_VOID,
    FLEK_ROUND,
    FLEK_TURN,
    FOREHAND,
    GOOD_SEATS,
    HAND,
    LEADER,
    NDISC,
    OVERCALLS,
    PH_ANNOUNCE,
    PH_BARVA,
    PH_BETL_ANSWER,
    PH_CONTRACT,
    PH_DISCARD,
    PH_DONE,
    PH_FLEK,
    PH_PLAY,
    PH_TRUMP,
    PHASE,
    POS,
    RAISABLE,
    RAISED_BY,
    RAISED_RND,
    TAKEN,
    TALON,
    TO_MOVE,
    TRICK_NO,
    TRUMP_CARD,
    TRUMP_PUBLIC,
    getm,
    nt_rank,
    setm,
)
from ...core.tables import BLIND_POS, SHARP_MASK
from ...rules import R_MAX_FLEK, R_OPEN, R_PLAYERS
from . import actions as A
from .actions import N_ACTIONS
from .four import book4
from .laydown import can_lay_down
from .settle import settle


@njit_generic
def deal_decisions(level, open_contracts):
    """A bound on one deal's player decisions, ``level`` the highest flek level (RULES.md
    §12: 24 unlimited): bidding at most 15 (trump 1, contracts 3, discards 6, Barva? 2,
    betl answers 2, announcement 1, §3-§5.1), with open contracts 15 more (§11.1: at
    most three overcalls of five); flek (§5.3): every round but the last raises or
    announces a bet, so at most ``4L + 2`` raises/announcements and ``4L + 3`` rounds of
    at most two ``good``; play 31 (30 cards and a lay-down, §6, §8).  The same at four (the
    dealer sits out).  ``hidden.deal_bounds``' and the loops that play a deal forward."""
    return (15 + (15 if open_contracts else 0) + (4 * level + 2) + 2 * (4 * level + 3)
            + 31)


@njit_generic
def _has(hand, c):
    return (hand >> c) & 1 == 1


@njit_generic
def _against_options(st, seat):
    """Bits 0/1: may ``seat`` announce seven against / hundred against now (RULES.md §12)?"""
    if st[CONTRACT] != C_SUIT or st[FLEK_ROUND] != 1:
        return 0
    hand = getm(st, HAND + seat)
    trump = st[TRUMP_CARD] >> 3
    out = 0
    if (not st[BET_EXISTS + B_SEVEN] and not st[BET_EXISTS + B_SEVEN_AG]
            and _has(hand, trump * 8)):
        out |= 1
    an = st[ANNOUNCE]
    if (an != AN_STO and an != AN_STO_SEDMA and not st[BET_EXISTS + B_HUNDRED_AG]
            and held_marriages(hand) != 0):
        out |= 2
    return out


# --- legality, one function per phase (each fills only its own slots of a zeroed mask) ---


@njit_inline
def _legal_trump(st, rules, seat, mask):
    """§3: forehand picks a trump card among its first 7 cards, or z lidu (blind)."""
    for c in range(32):
        if st[POS + c] < 7:
            mask[A.TRUMP0 + c] = 1
    mask[A.TRUMP_BLIND] = 1


@njit_inline
def _legal_contract(st, rules, seat, mask):
    """§4.1–4.2: suit, betl or durch; after a "bad" only betl or durch; §11.1: open
    betl and open durch too."""
    if st[BAD_SEAT] < 0:
        mask[A.CONTRACT_SUIT] = 1
    mask[A.CONTRACT_BETL] = 1
    mask[A.CONTRACT_DURCH] = 1
    if rules[R_OPEN]:
        mask[A.CONTRACT_OPEN_BETL] = 1
        mask[A.CONTRACT_OPEN_DURCH] = 1


@njit_inline
def _legal_discard(st, rules, seat, mask):
    """§4.1: two discards, one at a time; no ten, ace or the trump card to a suit talon."""
    allowed = getm(st, HAND + seat)
    if st[CONTRACT] == C_SUIT:
        allowed &= ~SHARP_MASK & ~(np.int64(1) << st[TRUMP_CARD])
    store_bits32(mask, A.DISCARD0, allowed)  # the 32 slots in one vector store


@njit_inline
def _legal_barva(st, rules, seat, mask):
    """§4.2: a defender answers "Barva?" good or bad."""
    mask[A.GOOD] = 1
    mask[A.BAD] = 1


@njit_inline
def _legal_betl_answer(st, rules, seat, mask):
    """§4.3: the other two answer a betl good or durch; §11.1: good or any higher
    no-trump contract (actions CONTRACT_BETL.. in rank order)."""
    mask[A.GOOD] = 1
    for r in range(nt_rank(st) + 1, 4 if rules[R_OPEN] else 2):
        mask[A.CONTRACT_BETL + r] = 1


@njit_inline
def _legal_announce(st, rules, seat, mask):
    """§5.1: hra always; sedma holding the trump seven; sto holding a marriage."""
    hand = getm(st, HAND + seat)
    s7 = _has(hand, (st[TRUMP_CARD] >> 3) * 8)
    mar = held_marriages(hand) != 0
    mask[A.ANNOUNCE_HRA] = 1
    if s7:
        mask[A.ANNOUNCE_SEDMA] = 1
    if mar:
        mask[A.ANNOUNCE_STO] = 1
    if s7 and mar:
        mask[A.ANNOUNCE_STO_SEDMA] = 1


@njit_inline
def _legal_flek(st, rules, seat, mask):
    """§5.3: raise a raisable bet not yet raised this round, announce against, or good."""
    avail = st[RAISABLE] & ~st[RAISED_RND]
    for b in range(4):
        if (avail >> b) & 1:
            mask[A.FLEK0 + b] = 1
    ag = _against_options(st, seat)
    if ag & 1:
        mask[A.AGAINST_SEVEN] = 1
    if ag & 2:
        mask[A.AGAINST_HUNDRED] = 1
    mask[A.GOOD] = 1


@njit_inline
def _legal_play(st, rules, seat, mask):
    """§6: the legal cards of the trick; §8: laying down when nothing can change."""
    legal = legal_cards(st, seat)
    store_bits32(mask, A.PLAY0, legal)  # the 32 slots in one vector store
    if can_lay_down(st, rules, seat):
        mask[A.LAY_DOWN] = 1


# Numba does not check bounds: the entries taking caller-provided arrays check their sizes
# first (constant messages: numba raises only those).
_MASK_MSG = (f"mask must have the game's action count of slots ({N_ACTIONS} volený: "
             "game_kind(rules).n_actions)")
_ACTION_MSG = "apply_action: the action is outside volený's action table"


@njit_inline
def check_voleny(st, rules, n, a):
    """Raise ValueError unless ``st`` and ``rules`` are the engine's sizes, ``n`` (a mask's
    length) holds the action table and ``0 <= a < N_ACTIONS`` (numba checks no bounds;
    ``VectorEnv``'s step, whose buffers are the game's own, compiles it out)."""
    check_state(st, rules)
    if n < N_ACTIONS:
        raise ValueError(_MASK_MSG)
    if a < 0 or a >= N_ACTIONS:
        raise ValueError(_ACTION_MSG)


@njit_inline
def legal_voleny(st, rules, mask):
    """Fill ``mask`` (int8[N_ACTIONS] of the volený table) with the legal actions of the
    seat to move: the dispatch to the phase's ``_legal_*`` function (ValueError for a
    buffer too small)."""
    check_voleny(st, rules, mask.shape[0], 0)
    for i in range(N_ACTIONS):
        mask[i] = 0
    ph = st[PHASE]
    seat = st[TO_MOVE]
    if ph == PH_DONE or seat < 0:
        return
    if ph == PH_PLAY:  # the most frequent phase first
        _legal_play(st, rules, seat, mask)
    elif ph == PH_FLEK:
        _legal_flek(st, rules, seat, mask)
    elif ph == PH_TRUMP:
        _legal_trump(st, rules, seat, mask)
    elif ph == PH_CONTRACT:
        _legal_contract(st, rules, seat, mask)
    elif ph == PH_DISCARD:
        _legal_discard(st, rules, seat, mask)
    elif ph == PH_BARVA:
        _legal_barva(st, rules, seat, mask)
    elif ph == PH_BETL_ANSWER:
        _legal_betl_answer(st, rules, seat, mask)
    elif ph == PH_ANNOUNCE:
        _legal_announce(st, rules, seat, mask)


@njit_generic
def _start_flek(st, rules):
    actor = st[ACTOR]
    st[BET_EXISTS + B_GAME] = 1
    st[PHASE] = PH_FLEK
    st[FLEK_ROUND] = 1
    st[FLEK_TURN] = 0
    raisable = 0
    for b in range(2):
        if st[BET_EXISTS + b] and st[BET_LEVEL + b] < rules[R_MAX_FLEK]:
            raisable |= 1 << b
    st[RAISABLE] = raisable
    st[RAISED_RND] = 0
    st[ANNOUNCED_RND] = 0
    st[TO_MOVE] = (actor + 1) % 3


@njit_generic
def _end_flek(st, rules):
    """After the last flek round: a deal that is not played (§5.4), or the first trick."""
    st[RAISABLE] = 0
    if st[CONTRACT] == C_SUIT:
        against = st[BET_EXISTS + B_SEVEN_AG] or st[BET_EXISTS + B_HUNDRED_AG]
        an = st[ANNOUNCE]
        if an == AN_HRA and st[BET_LEVEL + B_GAME] == 0 and not against:
            finish(st, rules, END_CONCEDED)
            return
        if (an == AN_SEDMA and st[BET_LEVEL + B_GAME] == 1 and st[BET_LEVEL + B_SEVEN] == 0
                and not against):
            finish(st, rules, END_SEDMA_VOID)
            return
        leader = st[FOREHAND]
    else:
        leader = st[ACTOR]
    st[PHASE] = PH_PLAY
    st[TRICK_NO] = 0
    st[LEADER] = leader
    st[TO_MOVE] = leader


@njit_generic
def _flek_good(st, rules):
    """``good`` ends a flek turn; the round ends after the side's last turn."""
    actor = st[ACTOR]
    defence_round = st[FLEK_ROUND] % 2 == 1
    if defence_round and st[FLEK_TURN] == 0:
        st[FLEK_TURN] = 1
        st[TO_MOVE] = (actor + 2) % 3
        return
    moved = st[RAISED_RND] | st[ANNOUNCED_RND]
    nxt = 0
    for b in range(4):
        if (moved >> b) & 1 and st[BET_LEVEL + b] < rules[R_MAX_FLEK]:
            nxt |= 1 << b
    if nxt == 0:
        _end_flek(st, rules)
        return
    st[FLEK_ROUND] += 1
    st[RAISABLE] = nxt
    st[RAISED_RND] = 0
    st[ANNOUNCED_RND] = 0
    st[FLEK_TURN] = 0
    st[TO_MOVE] = (actor + 1) % 3 if st[FLEK_ROUND] % 2 == 1 else actor


# --- effects, one function per phase (the caller has checked the action is legal) ---


@njit_generic
def finish(st, rules, end):
    """End a volený deal: settle it (RULES.md §9–§10) and book it into the partie."""
    end_deal(st, end)
    settle(st, rules)
    if rules[R_PLAYERS] == 4:  # §11.3: the sitting-out dealer pays with the defence
        book4(st)
        count_deal(st, rules)
    else:
        book_deal(st, rules)


@njit_inline
def _take_talon_kept(st, seat):
    """The talon to ``seat`` (§4.2, §4.3, §11.1), its cards kept in the first free TAKEN
    slot: the world sampler needs each talon, and under open contracts one seat can take
    two (TOOK holds only their union)."""
    for k in range(4):
        if getm(st, TAKEN + k) == 0:
            setm(st, TAKEN + k, getm(st, TALON))
            break
    take_talon(st, seat)


@njit_inline
def _apply_trump(st, rules, seat, a):
    """§3: the trump card (or z lidu: deck position 17); then forehand names a contract."""
    if a == A.TRUMP_BLIND:
        for c in range(32):
            if st[POS + c] == BLIND_POS:
                st[TRUMP_CARD] = c
        st[BLIND] = 1
    else:
        st[TRUMP_CARD] = a - A.TRUMP0
    st[PHASE] = PH_CONTRACT
    st[CHOOSER] = st[FOREHAND]


@njit_inline
def _name_contract(st, seat, con):
    """§4.4: the last contract named makes its player the actor, who discards next."""
    st[CONTRACT] = con
    st[ACTOR] = seat
    st[PHASE] = PH_DISCARD
    st[NDISC] = 0


@njit_inline
def _apply_contract(st, rules, seat, a):
    """§4.1–4.2: the named contract makes its player the actor, who discards next."""
    if a == A.CONTRACT_SUIT:
        _name_contract(st, seat, C_SUIT)
    elif a == A.CONTRACT_BETL:
        st[BETL_SEAT] = seat
        _name_contract(st, seat, C_BETL)
    elif a == A.CONTRACT_DURCH:
        _name_contract(st, seat, C_DURCH)
    else:
        _name_open(st, seat, a)


@njit_inline
def _name_open(st, seat, a):
    """§11.1: open betl / open durch are betl / durch with the open bit set."""
    if a == A.CONTRACT_OPEN_BETL:
        st[BETL_SEAT] = seat
        _name_contract(st, seat, C_BETL)
    else:
        _name_contract(st, seat, C_DURCH)
    st[OVERCALLS] |= 1


@njit_inline
def _apply_discard(st, rules, seat, a):
    """§4.1: one card to the talon; after the second, the answers (§4.2, §4.3) or flek."""
    if discard_card(st, seat, a - A.DISCARD0) == 2:
        st[ANSWERS] = 0
        con = st[CONTRACT]
        if con == C_SUIT:
            st[PHASE] = PH_BARVA
            st[TO_MOVE] = (st[FOREHAND] + 1) % 3
        elif con == C_BETL or (rules[R_OPEN] and nt_rank(st) < 3):
            # §4.3 / §11.1: the other two answer, from the contract's player on.
            st[PHASE] = PH_BETL_ANSWER
            st[TO_MOVE] = (seat + 1) % 3
        else:
            _start_flek(st, rules)


@njit_inline
def _apply_barva(st, rules, seat, a):
    """§4.2: two goods let the suit game stand; the first bad takes the talon."""
    f = st[FOREHAND]
    if a == A.GOOD:
        st[GOOD_SEATS] |= 1 << seat
        st[ANSWERS] += 1
        if st[ANSWERS] == 2:
            st[PHASE] = PH_ANNOUNCE
            st[TO_MOVE] = f
        else:
            st[TO_MOVE] = (f + 2) % 3
    else:
        # The first "bad": the trump card goes back unshown, the talon to the bad-sayer.
        st[BAD_SEAT] = seat
        _take_talon_kept(st, seat)
        st[CONTRACT] = C_NONE
        st[ACTOR] = -1
        st[CHOOSER] = seat
        st[PHASE] = PH_CONTRACT


@njit_inline
def _apply_betl_answer(st, rules, seat, a):
    """§4.3: two goods let the betl stand; the first durch takes the talon and discards.
    §11.1: any higher no-trump contract overcalls the same way, and the answering starts
    again from its player (the first overcaller is DURCH_SEAT, later ones OVERCALLS)."""
    if a == A.GOOD:
        st[ANSWERS] += 1
        if st[ANSWERS] == 2:
            _start_flek(st, rules)
        else:
            st[TO_MOVE] = (st[ACTOR] + 2) % 3
    else:
        if st[DURCH_SEAT] < 0:
            st[DURCH_SEAT] = seat
        else:
            ov = st[OVERCALLS] >> 1
            k = 0
            while (ov >> (2 * k)) & 3:
                k += 1
            st[OVERCALLS] |= (seat + 1) << (2 * k + 1)
        _take_talon_kept(st, seat)
        st[CHOOSER] = seat
        st[OVERCALLS] &= ~1
        if a == A.CONTRACT_DURCH:
            _name_contract(st, seat, C_DURCH)
        else:
            _name_open(st, seat, a)


@njit_inline
def _apply_announce(st, rules, seat, a):
    """§5.1: the announcement makes the trump suit public; sedma adds the seven bet."""
    an = a - A.ANNOUNCE_HRA + AN_HRA
    st[ANNOUNCE] = an
    st[TRUMP_PUBLIC] = 1
    if an == AN_SEDMA or an == AN_STO_SEDMA:
        st[BET_EXISTS + B_SEVEN] = 1
    _start_flek(st, rules)


@njit_inline
def _apply_flek(st, rules, seat, a):
    """§5.3: good ends the turn; an announcement against opens a bet; a flek raises one."""
    if a == A.GOOD:
        _flek_good(st, rules)
    elif a == A.AGAINST_SEVEN or a == A.AGAINST_HUNDRED:
        b = B_SEVEN_AG if a == A.AGAINST_SEVEN else B_HUNDRED_AG
        st[BET_EXISTS + b] = 1
        st[BET_LEVEL + b] = 0
        st[BET_SEAT + b] = seat
        st[ANNOUNCED_RND] |= 1 << b
    else:
        b = a - A.FLEK0
        lvl = st[BET_LEVEL + b] + 1
        st[BET_LEVEL + b] = lvl
        st[RAISED_RND] |= 1 << b
        if lvl <= 15:
            st[RAISED_BY + b] |= (seat + 1) << (2 * (lvl - 1))


@njit_inline
def _apply_play(st, rules, seat, a):
    """§6: one card to the trick; a closed trick may decide a betl or durch early or end
    the deal; §8: laying down ends it at once."""
    if a == A.LAY_DOWN:
        lay_down(st, seat)
        finish(st, rules, END_LAID)
        return
    end = play_turn(st, rules, seat, a - A.PLAY0)
    if end != END_NONE:
        finish(st, rules, end)


@njit_inline
def apply_voleny(st, rules, a):
    """Apply the legal volený action ``a`` of the seat to move: the dispatch to the
    phase's ``_apply_*`` function.  Returns 1 when the action ended the deal (ValueError
    for a buffer too small or an action outside the table; legality is the caller's to
    check)."""
    check_voleny(st, rules, N_ACTIONS, a)
    ph = st[PHASE]
    seat = st[TO_MOVE]
    if ph == PH_PLAY:  # the most frequent phase first
        _apply_play(st, rules, seat, a)
    elif ph == PH_FLEK:
        _apply_flek(st, rules, seat, a)
    elif ph == PH_TRUMP:
        _apply_trump(st, rules, seat, a)
    elif ph == PH_CONTRACT:
        _apply_contract(st, rules, seat, a)
    elif ph == PH_DISCARD:
        _apply_discard(st, rules, seat, a)
    elif ph == PH_BARVA:
        _apply_barva(st, rules, seat, a)
    elif ph == PH_BETL_ANSWER:
        _apply_betl_answer(st, rules, seat, a)
    elif ph == PH_ANNOUNCE:
        _apply_announce(st, rules, seat, a)
    return 1 if st[PHASE] == PH_DONE else 0
