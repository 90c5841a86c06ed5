"""The table robot's hand valuation and flek rules, compiled (issue #35).

The volený :class:`~mariash_env.games.voleny.table_robot.TableRobot` and the licitovaný
robot (:mod:`mariash_env.games.licitovany.table_decide`) value a hand with these: the
program's suit score for the trump choice (:func:`suit_score`), a sto estimate
(:func:`estimate_points`), trumps and aces-and-tens held; and they flek by the online
table's one fixed rule (:func:`flek_wanted`, the Czech sentences quoted at
:meth:`~mariash_env.games.voleny.table_robot.TableRobot.flek_actions`).  Compiled, so
that a search's simulations decide without leaving compiled code; the Python robots call
the same functions.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_generic
from ...core.state import (
    AN_HRA,
    AN_SEDMA,
    AN_STO,
    AN_STO_SEDMA,
    B_GAME,
    B_HUNDRED_AG,
    B_SEVEN,
    B_SEVEN_AG,
    C_BETL,
    C_DURCH,
    C_SUIT,
)
from ...core.tables import SHARP_MASK
from ...core.tricks import popcount
from .actions import AGAINST_SEVEN, FLEK0

# --- tunable thresholds (documented where used) ------------------------------------------
# Trump choice: per-card value by rank (7 8 9 T J Q K A) plus a length bonus per card.
TRUMP_CARD_VALUE = (2, 1, 1, 4, 2, 3, 3, 5)
TRUMP_LENGTH_BONUS = 2
TRUMP_MARRIAGE_BONUS = 2
STO_MIN_ESTIMATE = 100

_CARD_VALUE = np.array(TRUMP_CARD_VALUE, dtype=np.int64)
RT, RQ, RA = 3, 5, 7
ACES = sum(1 << (8 * s + RA) for s in range(4))
SEVENS = sum(1 << (8 * s) for s in range(4))
NINES_AND_BELOW = sum(0x7 << (8 * s) for s in range(4))
_FLEK0 = FLEK0 - AGAINST_SEVEN  # flek:<bet> is bit _FLEK0 + bet of flek_wanted


@njit_generic
def married(hand, s):
    """Does ``hand`` hold the king and queen of suit ``s``?"""
    return (hand >> (8 * s + RQ)) & 3 == 3


@njit_generic
def trumps_in(hand, trump):
    """Trumps held (0 with no trump suit)."""
    return popcount(hand & (0xFF << (8 * trump))) if trump >= 0 else 0


@njit_generic
def sharps_in(hand):
    """Aces and tens held."""
    return popcount(hand & SHARP_MASK)


@njit_generic
def suit_score(hand, s):
    """The program's point score of a suit for the trump choice."""
    sc = 0
    for c in range(8 * s, 8 * s + 8):
        if (hand >> c) & 1:
            sc += _CARD_VALUE[c & 7] + TRUMP_LENGTH_BONUS
    if married(hand, s):
        sc += TRUMP_MARRIAGE_BONUS
    return sc


@njit_generic
def estimate_points(hand, trump):
    """A rough count of the points a 10-card suit hand takes as actor (for sto).

    Aces 10 each; tens 10 when their ace is held too, or in trumps with four trumps;
    the first marriage (40 in trumps, else 20); the last trick with five trumps; and
    10 for every trump beyond four (long trumps catch the defence's aces and tens).
    """
    ntr = trumps_in(hand, trump)
    est = 10 * popcount(hand & ACES)
    any_marriage = False
    for s in range(4):
        if (hand >> (8 * s + RT)) & 1 and ((hand >> (8 * s + RA)) & 1 or (s == trump and ntr >= 4)):
            est += 10
        any_marriage = any_marriage or married(hand, s)
    if trump >= 0 and married(hand, trump):
        est += 40
    elif any_marriage:
        est += 20
    if ntr >= 5:
        est += 10
    est += 10 * max(0, ntr - 4)
    return est


@njit_generic
def flek_wanted(hand, trump, contract, announce, actor, flek_round, bet_exists, lv_game,
                lv_seven, lv_seven_ag, lv_hundred_ag, raisable):
    """The raises and announcements the robot wants in this flek turn, as bits over the
    volený actions from ``AGAINST_SEVEN`` (bit ``a - AGAINST_SEVEN``; the Python lists
    were in that order): the actor's answers, the defence's first answer, or its later
    ones (the rules at :class:`~mariash_env.games.voleny.table_robot.TableRobot`).
    ``bet_exists`` is a bit per bet, ``lv_*`` the bets' levels."""
    h = hand
    out = 0
    if actor == 0:  # actor_raises
        t = trump
        ntr = trumps_in(h, t)
        sharp = sharps_in(h)
        if lv_game == 1:
            if contract == C_SUIT and (announce == AN_HRA or announce == AN_SEDMA):
                if ntr >= 6 or (ntr == 5 and (h >> (8 * t + RA)) & 1 and (h >> (8 * t + RT)) & 1
                                and sharp >= 4):
                    out |= 1 << (_FLEK0 + B_GAME)
            elif contract == C_BETL:
                if popcount(h & SEVENS) >= 3 and not h & ~NINES_AND_BELOW:
                    out |= 1 << (_FLEK0 + B_GAME)
        if (bet_exists >> B_SEVEN) & 1 and lv_seven == 1 and ntr >= 6 and (h >> (8 * t)) & 1:
            out |= 1 << (_FLEK0 + B_SEVEN)
        if (bet_exists >> B_SEVEN_AG) & 1 and lv_seven_ag == 0 and ntr >= 4:
            out |= 1 << (_FLEK0 + B_SEVEN_AG)
        if (bet_exists >> B_HUNDRED_AG) & 1 and lv_hundred_ag == 0 and sharp >= 3:
            out |= 1 << (_FLEK0 + B_HUNDRED_AG)
        return out
    if flek_round == 1:  # defence_first_round
        if contract == C_SUIT:
            t = trump
            ntr = trumps_in(h, t)
            sharp = sharps_in(h)
            any_marriage = married(h, 0) or married(h, 1) or married(h, 2) or married(h, 3)
            if (h >> (8 * t)) & 1 and ntr >= 5:
                out |= 1  # against_seven
            if t >= 0 and married(h, t) and sharp >= 5:
                out |= 2  # against_hundred
            if announce == AN_STO or announce == AN_STO_SEDMA:
                if ntr >= 4 or sharp >= 4:
                    out |= 1 << (_FLEK0 + B_GAME)
            elif any_marriage or ntr >= 3 or sharp >= 3:
                out |= 1 << (_FLEK0 + B_GAME)
            if (bet_exists >> B_SEVEN) & 1 and ntr >= 3:
                out |= 1 << (_FLEK0 + B_SEVEN)
        elif contract == C_BETL:
            if popcount(h & SEVENS) >= 2:
                out |= 1 << (_FLEK0 + B_GAME)
        elif contract == C_DURCH:
            if popcount(h & ACES) >= 2:
                out |= 1 << (_FLEK0 + B_GAME)
        return out
    # defence_later_round
    if (contract == C_SUIT and (announce == AN_HRA or announce == AN_SEDMA)
            and lv_game == 2 and (raisable >> B_GAME) & 1):
        n = 0
        for s in range(4):
            n += 1 if married(h, s) else 0
        if (trump >= 0 and married(h, trump)) or n >= 2:
            out |= 1 << (_FLEK0 + B_GAME)
    return out


def warm() -> None:
    """Compile (or load) the entries the table robots call from Python, on their types."""
    trumps_in(0, 0)
    sharps_in(0)
    suit_score(0, 0)
    estimate_points(0, 0)
    flek_wanted(0, 0, C_SUIT, AN_HRA, 0, 1, 0, 0, 0, 0, 0, 0)
