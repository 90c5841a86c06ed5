"""The phase machine of licitovaný mariáš (LICITOVANY.md §4–§7): legal actions and
their effects, one small function per phase, on the same state record and trick
code as volený (:mod:`.engine`, :mod:`.play`).

``legal_licit(st, rules, mask)`` fills an ``int8[N_ACTIONS]`` mask of the licitovaný
action table (:mod:`mariash_env.licit_actions`); ``apply_licit(st, rules, a)`` applies a
legal action and returns 1 when it ended the deal.  The core's dispatch
(``engine.legal_actions``, ``engine.apply_action``) calls them for licitovaný.
"""

from __future__ import annotations

import numpy as np

from ...core.flow import book_deal, check_state, discard_card, end_deal, play_turn, take_talon
from ...core.jit import njit_generic, njit_inline
from ...core.play import follow_cards, held_marriages, play_card
from ...core.state import (
    ACTOR,
    BET_EXISTS,
    BET_LEVEL,
    C_DURCH,
    C_SUIT,
    CONTRACT,
    DEALER,
    END_BARE_FLEK,
    END_FOLD,
    END_NO_BID,
    END_NONE,
    END_SHOW,
    FLEK_ROUND,
    FOREHAND,
    HAND,
    K_GAME,
    K_HUNDRED,
    K_SEVEN,
    K_TWO_SEVENS,
    LEADER,
    LIC_BID_BY,
    LIC_CHALLENGER,
    LIC_DROPS,
    LIC_GAME,
    LIC_HELP,
    LIC_HIGH,
    LIC_HIGH_SEAT,
    LIC_HOLD_BY,
    LIC_HOLDER,
    LIC_LAID,
    LIC_LAID_PAYER,
    LIC_LEAD,
    LIC_PASS_AT,
    LIC_QUIET,
    LIC_RAISE_TURN,
    LIC_SHOW_SEAT,
    NDISC,
    PH_BID,
    PH_DISCARD,
    PH_DONE,
    PH_FLEK,
    PH_GAME,
    PH_HELPING,
    PH_HOLD,
    PH_LEAD,
    PH_LONE,
    PH_PLAY,
    PH_TRUMPS,
    PHASE,
    RAISED_BY,
    RAISED_RND,
    TO_MOVE,
    TRICK_N,
    TRICK_NO,
    TRUMP_CARD,
    TRUMP_PUBLIC,
    getm,
)
from ...core.tables import ABOVE_PLAIN, ABOVE_TRUMP, BELOW_PLAIN, SHARP_MASK, SUIT_MASK
from ...core.tricks import popcount
from ...rules import R_MAX_FLEK
from . import actions as LA
from .actions import N_ACTIONS
from .games import (
    COMPONENTS,
    G_DVE,
    G_LEPSI_DVE,
    G_LEPSI_SEDMA,
    G_SEDMA,
    HEARTS,
    KIND,
)
from .settle import settle_licit

SEVENS = np.int64(0x01010101)  # 7h 7b 7l 7a
_HAS_SEVEN = (1 << K_SEVEN) | (1 << K_TWO_SEVENS)


@njit_generic
def deal_decisions(level):
    """A bound on one deal's player decisions, ``level`` the highest flek level: the
    auction at most 28 (12 bids, 12 holds, 3 passes, a lone bid; LICITOVANY.md §4), the
    announcement 6 (game, trumps, helping, two discards, lead; §5); flek (§6) ``4L``
    raises in at most ``4L`` raising turns, each after at most two raise-free turns and
    three at the end, one ``good`` or ``show`` a turn: ``16L + 3``; play 30 (§7).
    ``hidden.deal_bounds``' and the loops that play a deal forward."""
    return 28 + 6 + 16 * level + 3 + 30


@njit_inline
def _has(m, c):
    return (m >> c) & 1 == 1


@njit_generic
def trumps_ok(g, hand, t):
    """§3 needs, §5 T2: may game ``g`` be played with trumps ``t`` from ``hand``?  A seven
    needs the 7 of the trumps, two sevens also a 7 of another suit."""
    comp = COMPONENTS[g]
    if not comp & _HAS_SEVEN:
        return True
    if not _has(hand, t * 8):
        return False
    if comp & (1 << K_TWO_SEVENS):
        return (hand & SEVENS & ~(np.int64(1) << (t * 8))) != 0
    return True


@njit_generic
def needs_met(g, hand):
    """§3 Needs: ``hand`` can play game ``g`` (lepší games: hearts trumps, else b, l or a;
    hundreds, betl and durch need nothing)."""
    if KIND[g] != C_SUIT or HEARTS[g]:
        return trumps_ok(g, hand, 0)
    for t in range(1, 4):
        if trumps_ok(g, hand, t):
            return True
    return False


@njit_generic
def reserved_sevens(st):
    """§7: the actor's reserved sevens (a card mask): the trump 7 in a game with a seven or
    two sevens, the helping 7 in two sevens."""
    if st[CONTRACT] != C_SUIT or st[TRUMP_CARD] < 0:
        return np.int64(0)
    comp = COMPONENTS[st[LIC_GAME]]
    out = np.int64(0)
    if comp & _HAS_SEVEN:
        out |= np.int64(1) << st[TRUMP_CARD]
    if comp & (1 << K_TWO_SEVENS) and st[LIC_HELP] >= 0:
        out |= np.int64(1) << (st[LIC_HELP] * 8)
    return out


@njit_generic
def licit_cards(st, seat):
    """§7: R§6's legal cards, less the actor's early reserved sevens unless nothing else
    is legal.  A reserved seven is early before its target trick (trump 7: 10, helping
    7: 9) or while he holds another card of its suit."""
    legal = follow_cards(st, seat)
    if seat != st[ACTOR]:
        return legal
    res = reserved_sevens(st) & legal
    if res == 0:
        return legal
    hand = getm(st, HAND + seat)
    t = st[TRICK_NO] + 1
    early = np.int64(0)
    for s in range(4):
        c = s * 8
        if _has(res, c):
            target = 10 if c == st[TRUMP_CARD] else 9
            if t < target or hand & SUIT_MASK[s] & ~(np.int64(1) << c):
                early |= np.int64(1) << c
    if legal & ~early:
        return legal & ~early
    return legal


@njit_inline
def _show_due(st, seat):
    """§6 showing: ``L`` on his first turn; ``R`` on his first if ``L``'s had no flek."""
    if st[LIC_SHOW_SEAT] != seat:
        return False
    turn = st[FLEK_ROUND]
    return turn == 0 or (turn == 1 and st[LIC_QUIET] == 1)


# --- legality, one function per phase (each fills only its own slots of a zeroed mask) ---


@njit_inline
def _legal_bid(st, rules, seat, mask, lo):
    """§4 A1 / A3: any game above ``lo`` whose needs the 10 cards meet, or pass."""
    hand = getm(st, HAND + seat)
    for g in range(lo + 1, 13):
        if needs_met(g, hand):
            mask[LA.BID0 + g - 1] = 1
    mask[LA.PASS] = 1


@njit_inline
def _legal_hold(st, rules, seat, mask):
    """§4 A2: hold the standing bid (its needs met) or pass."""
    if needs_met(st[LIC_HIGH], getm(st, HAND + seat)):
        mask[LA.HOLD] = 1
    mask[LA.PASS] = 1


@njit_inline
def _legal_game(st, rules, seat, mask):
    """§5 T1: any game at or above the won bid that the 12 cards can play; fold after a
    won bid of exactly sedma."""
    hand = getm(st, HAND + seat)
    high = st[LIC_HIGH]
    for g in range(high, 13):
        if needs_met(g, hand):
            mask[LA.GAME0 + g - 1] = 1
    if high == G_SEDMA:
        mask[LA.FOLD] = 1


@njit_inline
def _legal_trumps(st, rules, seat, mask):
    """§5 T2: trumps b, l or a for a plain suit game, with the game's sevens held."""
    hand = getm(st, HAND + seat)
    for t in range(1, 4):
        if trumps_ok(st[LIC_GAME], hand, t):
            mask[LA.TRUMP0 + t - 1] = 1


@njit_inline
def _legal_helping(st, rules, seat, mask):
    """§5 T3: the helping suit of two sevens: not trumps, its 7 held."""
    hand = getm(st, HAND + seat)
    trump = st[TRUMP_CARD] >> 3
    for s in range(4):
        if s != trump and _has(hand, s * 8):
            mask[LA.HELP0 + s] = 1


@njit_inline
def _legal_discard(st, rules, seat, mask):
    """§5 T4: suit games no ten, ace or reserved seven; betl and durch anything."""
    allowed = getm(st, HAND + seat)
    if st[CONTRACT] == C_SUIT:
        allowed &= ~SHARP_MASK & ~reserved_sevens(st)
    for c in range(32):
        mask[LA.DISCARD0 + c] = (allowed >> c) & 1


@njit_inline
def _legal_lead(st, rules, seat, mask):
    """§5 T5: betl and durch: any card held, face down, as trick 1's lead."""
    hand = getm(st, HAND + seat)
    for c in range(32):
        mask[LA.LEAD0 + c] = (hand >> c) & 1


@njit_inline
def _legal_flek(st, rules, seat, mask):
    """§6: ``show`` when due (alone); else raise each component whose next level is this
    side's (defenders odd, the actor even) up to ``max_flek``, and ``good``."""
    if _show_due(st, seat):
        mask[LA.SHOW] = 1
        return
    parity = 1 if seat == st[ACTOR] else 0
    for k in range(4):
        lvl = st[BET_LEVEL + k]
        if st[BET_EXISTS + k] and lvl % 2 == parity and lvl < rules[R_MAX_FLEK]:
            mask[LA.FLEK0 + k] = 1
    mask[LA.GOOD] = 1


@njit_inline
def _legal_play(st, rules, seat, mask):
    """§7: R§6's legal cards, the reserved sevens held back."""
    legal = licit_cards(st, seat)
    for c in range(32):
        mask[LA.PLAY0 + c] = (legal >> c) & 1


_MASK_MSG = (f"mask must have the game's action count of slots ({N_ACTIONS} licitovaný: "
             "game_kind(rules).n_actions)")
_ACTION_MSG = "apply_licit: the action is outside licitovaný's action table"


@njit_inline
def check_licit(st, rules, n, a):
    """Raise ValueError unless ``st`` and ``rules`` are the engine's sizes, ``n`` (a mask's
    length) holds the action table and ``0 <= a < N_ACTIONS`` (numba checks no bounds;
    ``VectorEnv``'s step, whose buffers are the game's own, compiles it out)."""
    check_state(st, rules)
    if n < N_ACTIONS:
        raise ValueError(_MASK_MSG)
    if a < 0 or a >= N_ACTIONS:
        raise ValueError(_ACTION_MSG)


@njit_generic
def legal_licit(st, rules, mask):
    """Fill ``mask`` (int8[N_ACTIONS] of the licitovaný table) with the legal actions of
    the seat to move: the dispatch to the phase's ``_legal_*`` function (ValueError for
    a buffer too small)."""
    check_licit(st, rules, mask.shape[0], 0)
    for i in range(N_ACTIONS):
        mask[i] = 0
    ph = st[PHASE]
    seat = st[TO_MOVE]
    if ph == PH_DONE or seat < 0:
        return
    if ph == PH_PLAY:
        _legal_play(st, rules, seat, mask)
    elif ph == PH_FLEK:
        _legal_flek(st, rules, seat, mask)
    elif ph == PH_BID:
        _legal_bid(st, rules, seat, mask, st[LIC_HIGH])
    elif ph == PH_HOLD:
        _legal_hold(st, rules, seat, mask)
    elif ph == PH_LONE:
        _legal_bid(st, rules, seat, mask, 0)
    elif ph == PH_GAME:
        _legal_game(st, rules, seat, mask)
    elif ph == PH_TRUMPS:
        _legal_trumps(st, rules, seat, mask)
    elif ph == PH_HELPING:
        _legal_helping(st, rules, seat, mask)
    elif ph == PH_DISCARD:
        _legal_discard(st, rules, seat, mask)
    elif ph == PH_LEAD:
        _legal_lead(st, rules, seat, mask)


# --- effects ---


@njit_generic
def finish(st, rules, end):
    """End a licitovaný deal: settle it (LICITOVANY.md §8–§9) and book it into the
    partie."""
    end_deal(st, end)
    settle_licit(st, rules)
    book_deal(st, rules)


@njit_generic
def _win_auction(st, seat):
    """§4–§5: the auction's winner is the actor; the talon joins his hand (12 cards)."""
    st[ACTOR] = seat
    take_talon(st, seat)
    st[PHASE] = PH_GAME
    st[TO_MOVE] = seat


@njit_generic
def _drop(st, rules, seat, challenger):
    """§4 drop(x): the first drop-out's position goes to the dealer; the second ends the
    auction (A3 for forhond when nobody bid)."""
    st[LIC_PASS_AT + seat] = st[LIC_HIGH] + 1
    st[LIC_DROPS] += 1
    if st[LIC_DROPS] == 1:
        d = st[DEALER]
        if challenger:
            st[LIC_CHALLENGER] = d
            st[PHASE] = PH_BID
        else:
            st[LIC_HOLDER] = d
            st[PHASE] = PH_HOLD
        st[TO_MOVE] = d
        return
    if st[LIC_HIGH] == 0:
        st[PHASE] = PH_LONE
        st[TO_MOVE] = st[FOREHAND]
        return
    _win_auction(st, st[LIC_HIGH_SEAT])


@njit_inline
def _bid(st, seat, g):
    st[LIC_HIGH] = g
    st[LIC_HIGH_SEAT] = seat
    st[LIC_BID_BY + g - 1] = seat + 1


@njit_inline
def _apply_bid(st, rules, seat, a):
    """§4 A1: a bid makes it the holder's turn; a pass drops the challenger."""
    if a == LA.PASS:
        _drop(st, rules, seat, True)
        return
    _bid(st, seat, a - LA.BID0 + 1)
    st[PHASE] = PH_HOLD
    st[TO_MOVE] = st[LIC_HOLDER]


@njit_inline
def _apply_hold(st, rules, seat, a):
    """§4 A2: holding takes the standing bid; the challenger must outbid it."""
    if a == LA.PASS:
        _drop(st, rules, seat, False)
        return
    st[LIC_HIGH_SEAT] = seat
    st[LIC_HOLD_BY + st[LIC_HIGH] - 1] = seat + 1
    st[PHASE] = PH_BID
    st[TO_MOVE] = st[LIC_CHALLENGER]


@njit_inline
def _apply_lone(st, rules, seat, a):
    """§4 A3: forhond's lone bid makes him the actor; his pass folds the cards unpaid."""
    if a == LA.PASS:
        st[LIC_PASS_AT + seat] = 1
        finish(st, rules, END_NO_BID)
        return
    _bid(st, seat, a - LA.BID0 + 1)
    _win_auction(st, seat)


@njit_inline
def _set_trumps(st, t):
    st[TRUMP_CARD] = t * 8  # the trump 7 stands for the suit (trick code reads its suit)
    st[TRUMP_PUBLIC] = 1


@njit_inline
def _apply_game(st, rules, seat, a):
    """§5 T1: the game is public; lepší means hearts.  ``fold`` ends the deal."""
    if a == LA.FOLD:
        finish(st, rules, END_FOLD)
        return
    g = a - LA.GAME0 + 1
    st[LIC_GAME] = g
    st[CONTRACT] = KIND[g]
    comp = COMPONENTS[g]
    for k in range(4):
        st[BET_EXISTS + k] = (comp >> k) & 1
    st[NDISC] = 0
    if KIND[g] != C_SUIT:
        st[PHASE] = PH_DISCARD
    elif not HEARTS[g]:
        st[PHASE] = PH_TRUMPS
    else:
        _set_trumps(st, 0)
        st[PHASE] = PH_HELPING if comp & (1 << K_TWO_SEVENS) else PH_DISCARD


@njit_inline
def _apply_trumps(st, rules, seat, a):
    """§5 T2: trumps b, l or a; two sevens go on to the helping suit."""
    _set_trumps(st, a - LA.TRUMP0 + 1)
    two = COMPONENTS[st[LIC_GAME]] & (1 << K_TWO_SEVENS)
    st[PHASE] = PH_HELPING if two else PH_DISCARD


@njit_inline
def _apply_helping(st, rules, seat, a):
    """§5 T3: the helping suit is public."""
    st[LIC_HELP] = a - LA.HELP0
    st[PHASE] = PH_DISCARD


@njit_inline
def must_show(game, helping, hand):
    """§6: a defender of dvě sedmy or lepší dvě sedmy holding ``hand`` (his 10 cards) with
    4 or more of the helping suit must show."""
    return ((game == G_DVE or game == G_LEPSI_DVE) and helping >= 0
            and popcount(hand & SUIT_MASK[helping]) >= 4)


@njit_generic
def _start_flek(st, rules):
    """§6: flek turns from ``L``; a defender with 4 cards of the helping suit of a plain
    or lepší two sevens (never with sto) must show."""
    actor = st[ACTOR]
    st[PHASE] = PH_FLEK
    st[FLEK_ROUND] = 0
    st[LIC_QUIET] = 0
    st[RAISED_RND] = 0
    for k in (1, 2):
        d = (actor + k) % 3
        if must_show(st[LIC_GAME], st[LIC_HELP], getm(st, HAND + d)):
            st[LIC_SHOW_SEAT] = d
    st[TO_MOVE] = (actor + 1) % 3


@njit_inline
def _apply_discard(st, rules, seat, a):
    """§5 T4: two discards; then betl and durch lay the lead card, suit games flek."""
    if discard_card(st, seat, a - LA.DISCARD0) == 2:
        if st[CONTRACT] == C_SUIT:
            _start_flek(st, rules)
        else:
            st[PHASE] = PH_LEAD


@njit_inline
def _apply_lead(st, rules, seat, a):
    """§5 T5: the face-down lead card, known only to the actor until played."""
    st[LIC_LEAD] = a - LA.LEAD0
    _start_flek(st, rules)


@njit_generic
def is_laid(st):
    """§9 Laid (a), judged when flekking ends on the 10-card hands (the lead card still
    held): the deal's outcome is certain from the cards."""
    actor = st[ACTOR]
    hand = getm(st, HAND + actor)
    d = getm(st, HAND + (actor + 1) % 3) | getm(st, HAND + (actor + 2) % 3)
    con = st[CONTRACT]
    if con == C_SUIT:
        if d & SUIT_MASK[st[TRUMP_CARD] >> 3]:
            return False
        for c in range(32):
            if _has(hand, c) and d & ABOVE_TRUMP[c]:
                return False
        if COMPONENTS[st[LIC_GAME]] & (1 << K_HUNDRED) and held_marriages(hand) == 0:
            return False
        return True
    if con == C_DURCH:
        for c in range(32):
            if _has(hand, c) and d & ABOVE_PLAIN[c]:
                return False
        return True
    for c in range(32):  # betl
        if _has(hand, c) and d & BELOW_PLAIN[c]:
            return False
    return (d & SUIT_MASK[st[LIC_LEAD] >> 3]) != 0


OTHER_HIGH_ODD = 1 << 30
"""``RAISED_BY``'s bit 30: an odd level above 15 was raised by another seat than level 1
(``max_flek`` above 15), so no one defender made every odd flek (§9 Laid (b))."""


@njit_generic
def laid_payer(st):
    """§9 Laid (b): the defender who made every odd flek of the deal, with some component
    at tutti (3) or above; -1 if none."""
    payer = -1
    top = 0
    actor = st[ACTOR]
    for k in range(4):
        lvl = st[BET_LEVEL + k]
        top = max(top, lvl)
        if st[RAISED_BY + k] & OTHER_HIGH_ODD:
            return -1
        for v in range(1, min(lvl, 15) + 1, 2):
            s = ((st[RAISED_BY + k] >> (2 * (v - 1))) & 3) - 1
            if s < 0 or s == actor:
                return -1
            if payer < 0:
                payer = s
            elif payer != s:
                return -1
    return payer if top >= 3 else -1


@njit_generic
def _end_flek(st, rules):
    """§6–§7: the bare game flek leaves (lepší) sedma unplayed; otherwise play starts,
    forhond leading a suit game, the actor's face-down card opening betl and durch."""
    st[LIC_LAID] = 1 if is_laid(st) else 0
    st[LIC_LAID_PAYER] = laid_payer(st)
    g = st[LIC_GAME]
    if ((g == G_SEDMA or g == G_LEPSI_SEDMA) and st[BET_LEVEL + K_GAME] == 1
            and st[BET_LEVEL + K_SEVEN] == 0):
        finish(st, rules, END_BARE_FLEK)
        return
    st[PHASE] = PH_PLAY
    st[TRICK_NO] = 0
    st[TRICK_N] = 0
    actor = st[ACTOR]
    if st[CONTRACT] == C_SUIT:
        st[LEADER] = st[FOREHAND]
        st[TO_MOVE] = st[FOREHAND]
    else:
        st[LEADER] = actor
        play_card(st, rules, actor, np.int64(st[LIC_LEAD]))  # the type flow.play_turn passes
        st[TO_MOVE] = (actor + 1) % 3


@njit_inline
def _apply_flek(st, rules, seat, a):
    """§6: ``flek:<c>`` raises one level; ``good`` closes the turn, and three raise-free
    turns in a row end flekking; ``show`` ends the deal unplayed."""
    if a == LA.SHOW:
        finish(st, rules, END_SHOW)
        return
    if a != LA.GOOD:
        k = a - LA.FLEK0
        lvl = st[BET_LEVEL + k] + 1
        st[BET_LEVEL + k] = lvl
        st[RAISED_RND] |= 1 << k
        if lvl <= 15:
            st[RAISED_BY + k] |= (seat + 1) << (2 * (lvl - 1))
        elif lvl % 2 == 1 and seat != (st[RAISED_BY + k] & 3) - 1:
            # the word holds levels 1..15; bit 30 (level 16's, an even raise and never
            # recorded) marks an odd raise above 15 by another seat than level 1's
            st[RAISED_BY + k] |= OTHER_HIGH_ODD
        if lvl <= 7:
            st[LIC_RAISE_TURN + 7 * k + lvl - 1] = st[FLEK_ROUND] + 1
        return
    st[LIC_QUIET] = 0 if st[RAISED_RND] else st[LIC_QUIET] + 1
    st[RAISED_RND] = 0
    st[FLEK_ROUND] += 1
    if st[LIC_QUIET] == 3:
        _end_flek(st, rules)
    else:
        st[TO_MOVE] = (st[ACTOR] + 1 + st[FLEK_ROUND]) % 3


@njit_inline
def _apply_play(st, rules, seat, a):
    """§7: one card to the trick; betl ends at the actor's first trick, durch at his
    first lost one, suit games after ten."""
    end = play_turn(st, rules, seat, a - LA.PLAY0)
    if end != END_NONE:
        finish(st, rules, end)


@njit_generic
def apply_licit(st, rules, a):
    """Apply the legal licitovaný action ``a`` of the seat to move: the dispatch to the
    phase's ``_apply_*`` function.  Returns 1 when the action ended the deal (ValueError
    for a buffer too small or an action outside the table)."""
    check_licit(st, rules, N_ACTIONS, a)
    ph = st[PHASE]
    seat = st[TO_MOVE]
    if ph == PH_PLAY:
        _apply_play(st, rules, seat, a)
    elif ph == PH_FLEK:
        _apply_flek(st, rules, seat, a)
    elif ph == PH_BID:
        _apply_bid(st, rules, seat, a)
    elif ph == PH_HOLD:
        _apply_hold(st, rules, seat, a)
    elif ph == PH_LONE:
        _apply_lone(st, rules, seat, a)
    elif ph == PH_GAME:
        _apply_game(st, rules, seat, a)
    elif ph == PH_TRUMPS:
        _apply_trumps(st, rules, seat, a)
    elif ph == PH_HELPING:
        _apply_helping(st, rules, seat, a)
    elif ph == PH_DISCARD:
        _apply_discard(st, rules, seat, a)
    elif ph == PH_LEAD:
        _apply_lead(st, rules, seat, a)
    return 1 if st[PHASE] == PH_DONE else 0
