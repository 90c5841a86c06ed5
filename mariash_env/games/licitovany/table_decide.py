"""The licitovaný table robot's decisions, compiled: one copy of its rules (issue #35).

:func:`decide` is the action the
:class:`~mariash_env.games.licitovany.table_robot.LicitTableRobot` takes from a seat's
observation and action mask, in every phase: the auction by the games it values its hand
for (:func:`makeable`, :func:`best_game`), the game, trumps, helping suit, discards and
face-down lead of the actor, the flek by the volený robot's rule
(:func:`~mariash_env.games.voleny.table_hand.flek_wanted`, the game and hundred flekked as
its game bet, the seven and two sevens as its seven) and the card play
(:func:`~mariash_env.games.voleny.table_play.choose_card`).  A search's simulations
(:func:`~mariash_env.robots.table_playout.play_out_licit`) call it without leaving compiled
code; the Python robot calls it too.
"""

from __future__ import annotations

from ...core.jit import njit_generic
from ...core.state import (
    B_GAME,
    B_SEVEN,
    C_BETL,
    C_DURCH,
    K_GAME,
    K_HUNDRED,
    K_SEVEN,
    K_TWO_SEVENS,
)
from ...core.tricks import popcount
from ...robots.features import betl_risk_jit, durch_hole_suits_jit
from ...robots.legal import first_legal
from ..voleny.table_discards import best_pair
from ..voleny.table_hand import (
    STO_MIN_ESTIMATE,
    estimate_points,
    flek_wanted,
    suit_score,
    trumps_in,
)
from ..voleny.table_play import (
    V_ACTOR,
    V_ANNOUNCE,
    V_CONTRACT,
    V_HAND,
    V_TRUMP,
    bits32,
    choose_card,
    first_set,
)
from . import actions as LA
from . import observe as LO
from .games import COMPONENTS, G_BETL, G_DURCH, G_SEDMA, HEARTS, KIND
from .phases import needs_met, trumps_ok
from .table_play import decode_licit

BETL_MAX_RISK = 2  # the volený robot's thresholds (games/voleny/table_robot.py)
DURCH_MAX_HOLED = 0
# The phase block's slots (observe.py): bid, hold, lone_bid, game, trumps, helping,
# discard, lead, flek, play, done.
P_BID, P_HOLD, P_LONE, P_GAME, P_TRUMPS, P_HELPING, P_DISCARD, P_LEAD, P_FLEK, P_PLAY = range(10)
_VOLENY_FLEK_GAME = 2  # flek_wanted's bits of volený's flek:game and flek:seven
_VOLENY_FLEK_SEVEN = 3


@njit_generic
def best_trump(hand, g):
    """The trump suit the game ``g`` would take from ``hand`` (needs met), -1 if none:
    hearts in a lepší game, else the best of b, l, a by the suit score (ties: the later)."""
    if HEARTS[g]:
        return 0 if trumps_ok(g, hand, 0) else -1
    best, best_sc = -1, 0
    for t in range(1, 4):
        if trumps_ok(g, hand, t):
            sc = suit_score(hand, t)
            if best < 0 or sc >= best_sc:
                best, best_sc = t, sc
    return best


@njit_generic
def helping_suit(hand, trump):
    """The helping suit: a non-trump 7 held, the suit it is longest in (ties: the later)."""
    best, best_n = -1, 0
    for s in range(4):
        if s != trump and (hand >> (8 * s)) & 1:
            n = popcount(hand & (0xFF << (8 * s)))
            if best < 0 or n >= best_n:
                best, best_n = s, n
    return best


@njit_generic
def _hand_12(hand, contract):
    """The betl risk or durch holed suits of a 12-card hand after its best discards."""
    a, b = best_pair(hand, hand, contract, -1, 0)
    pm = (1 << a) | (1 << b)
    if contract == C_BETL:
        return betl_risk_jit(hand & ~pm, pm)
    return durch_hole_suits_jit(hand & ~pm, pm)


@njit_generic
def makeable(hand, g):
    """Does the robot value ``hand`` (10 cards in the auction, 12 at announcing) good
    enough to play game ``g``?  Its needs must be met; then by component: a seven wants
    five trumps (four with the trump ace or ten and 40 points), a hundred an estimated 100
    (90 with the talon still to come), two sevens six trumps with ace and ten and four
    cards of the helping suit with its ace; betl and durch follow the volený robot's hole
    counts."""
    if not needs_met(g, hand):
        return False
    n = popcount(hand)
    if g == G_BETL:
        if n <= 10:
            return betl_risk_jit(hand, 0) <= BETL_MAX_RISK
        return _hand_12(hand, C_BETL) <= 2
    if g == G_DURCH:
        if n <= 10:
            return durch_hole_suits_jit(hand, 0) <= DURCH_MAX_HOLED
        return _hand_12(hand, C_DURCH) == 0
    t = best_trump(hand, g)
    if t < 0:
        return False
    comp = COMPONENTS[g]
    ntr = trumps_in(hand, t)
    est = estimate_points(hand, t)
    ace, ten = (hand >> (8 * t + 7)) & 1, (hand >> (8 * t + 3)) & 1
    if comp & (1 << K_TWO_SEVENS):
        y = helping_suit(hand, t)
        if not (ntr >= 6 and ace and ten and y >= 0
                and popcount(hand & (0xFF << (8 * y))) >= 4 and (hand >> (8 * y + 7)) & 1):
            return False
    if comp & (1 << K_SEVEN) and not (ntr >= 5 or (ntr == 4 and (ace or ten) and est >= 40)):
        return False
    if comp & (1 << K_HUNDRED) and est < STO_MIN_ESTIMATE - (10 if n <= 10 else 0):
        return False
    return True


@njit_generic
def best_game(hand, lo=1):
    """The highest game at or above ``lo`` the robot can make with ``hand``; 0 if none."""
    for g in range(12, lo - 1, -1):
        if makeable(hand, g):
            return g
    return 0


@njit_generic
def _bid(mask, hand, high):
    top = best_game(hand, 1)
    for g in range(max(high, 0) + 1, top + 1):
        if mask[LA.BID0 + g - 1]:
            return LA.BID0 + g - 1
    return LA.PASS


@njit_generic
def _game(mask, hand, high):
    g = best_game(hand, high)
    if g and mask[LA.GAME0 + g - 1]:
        return LA.GAME0 + g - 1
    if mask[LA.FOLD] and trumps_in(hand, best_trump(hand, G_SEDMA)) < 4:
        return LA.FOLD
    for g in range(high, 13):  # the cheapest game it may announce
        if mask[LA.GAME0 + g - 1]:
            return LA.GAME0 + g - 1
    return LA.FOLD


@njit_generic
def _lead(obs, hand):
    g = first_set(obs, LO.LO_GAME, 12) + 1
    best, best_n = -1, 0
    betl = KIND[g] == C_BETL
    for s in range(4):
        n = popcount(hand & (0xFF << (8 * s)))
        # betl: the shortest suit (ties: the first); durch: the longest (ties: the last)
        if n and (best < 0 or (n < best_n if betl else n >= best_n)):
            best, best_n = s, n
    for r in range(8):  # betl: its lowest card; durch: its highest
        c = 8 * best + (r if betl else 7 - r)
        if (hand >> c) & 1:
            return LA.LEAD0 + c
    return -1


@njit_generic
def _flek(obs, mask, hand, view):
    actor = first_set(obs, LO.LO_ACTOR, 3)
    turn = first_set(obs, LO.LO_FLEK_TURN, 8)
    g = first_set(obs, LO.LO_GAME, 12) + 1
    comp = COMPONENTS[g]
    raisable = 0
    if mask[LA.FLEK0 + (K_GAME if comp & (1 << K_GAME) else K_HUNDRED)]:
        raisable |= 1 << B_GAME
    if mask[LA.FLEK0 + (K_SEVEN if comp & (1 << K_SEVEN) else K_TWO_SEVENS)]:
        raisable |= 1 << B_SEVEN
    decode_licit(obs, mask, view)
    exists = bits32(obs, LO.LO_COMP_EXISTS)
    levels = bits32(obs, LO.LO_COMP_LEVEL)
    ex = 0
    lv_game = 0
    lv_seven = 0
    for k in range(4):  # the game and hundred as the game bet, the sevens as the seven
        if (exists >> k) & 1:
            b = B_GAME if k == K_GAME or k == K_HUNDRED else B_SEVEN
            ex |= 1 << b
            row = (levels >> (8 * k)) & 0xFF
            lv = 0
            while row >> (lv + 1):
                lv += 1
            if b == B_GAME:
                lv_game = lv
            else:
                lv_seven = lv
    want = flek_wanted(view[V_HAND], view[V_TRUMP], view[V_CONTRACT], view[V_ANNOUNCE],
                       view[V_ACTOR], 2 if actor == 0 else (1 if turn <= 1 else 3), ex,
                       lv_game, lv_seven, 0, 0, raisable)
    if (want >> _VOLENY_FLEK_GAME) & 1:
        for k in (K_GAME, K_HUNDRED, K_TWO_SEVENS):
            if mask[LA.FLEK0 + k]:
                return LA.FLEK0 + k
    if (want >> _VOLENY_FLEK_SEVEN) & 1:
        for k in (K_SEVEN, K_TWO_SEVENS):
            if mask[LA.FLEK0 + k]:
                return LA.FLEK0 + k
    return LA.GOOD


@njit_generic
def decide(obs, mask, view):
    """The table robot's action from a licitovaný observation (float32) and action mask
    (int8); ``view`` is a view-array buffer (games/voleny/table_play.py).  An action the
    rules picked that is not legal falls back to the first legal one."""
    first, n = first_legal(mask, LA.N_ACTIONS)
    if n == 1:
        return first
    phase = first_set(obs, LO.LO_PHASE, 11)
    hand = bits32(obs, LO.LO_HAND)
    high = first_set(obs, LO.LO_HIGH, 13)
    a = first
    if phase == P_BID or phase == P_LONE:
        a = _bid(mask, hand, high)
    elif phase == P_HOLD:
        a = LA.HOLD if mask[LA.HOLD] and best_game(hand, 1) >= high else LA.PASS
    elif phase == P_GAME:
        a = _game(mask, hand, high)
    elif phase == P_TRUMPS:
        best, best_sc = -1, 0
        for t in range(1, 4):
            if mask[LA.TRUMP0 + t - 1]:
                sc = suit_score(hand, t)
                if best < 0 or sc >= best_sc:
                    best, best_sc = t, sc
        a = LA.TRUMP0 + best - 1
    elif phase == P_HELPING:
        best, best_n = -1, 0
        for s in range(4):
            if mask[LA.HELP0 + s]:
                m = popcount(hand & (0xFF << (8 * s)))
                if best < 0 or m >= best_n:
                    best, best_n = s, m
        a = LA.HELP0 + best
    elif phase == P_DISCARD:
        allowed = 0
        for c in range(32):
            if mask[LA.DISCARD0 + c]:
                allowed |= 1 << c
        g = first_set(obs, LO.LO_GAME, 12) + 1
        if popcount(allowed) < 2:
            for c in range(32):
                if (allowed >> c) & 1:
                    a = LA.DISCARD0 + c
                    break
        else:
            a = LA.DISCARD0 + best_pair(hand, allowed, KIND[g],
                                        first_set(obs, LO.LO_TRUMP_SUIT, 4),
                                        bits32(obs, LO.LO_TALON))[0]
    elif phase == P_LEAD:
        a = _lead(obs, hand)
    elif phase == P_FLEK:
        a = _flek(obs, mask, hand, view)
    elif phase == P_PLAY:
        decode_licit(obs, mask, view)
        c = choose_card(view)
        if c >= 0:
            a = LA.PLAY0 + c
    if a < 0 or a >= LA.N_ACTIONS or not mask[a]:  # a safety net: never illegal
        a = first
    return a
