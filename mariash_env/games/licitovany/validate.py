"""What a restored licitovaný state must hold in its phase (issue #30), for
``VectorEnv.restore_states``: the auction's fields, the announced game and its helping suit,
the flek turns (LICITOVANY.md §2–§6).  Same entries as :mod:`..voleny.validate`, read by
the dispatch of :mod:`mariash_env.core.engine` and returning codes of
:mod:`mariash_env.core.semantic`.
"""

from __future__ import annotations

from ...core import state as S
from ...core.jit import njit_generic
from ...core.semantic import (
    V_ACTOR,
    V_HAND,
    V_LIC_DROPS,
    V_LIC_GAME,
    V_LIC_HELP,
    V_LIC_HIGH,
    V_LIC_HOLDER,
    V_LIC_LEAD,
    V_LIC_QUIET,
    V_NDISC,
    V_TO_MOVE,
    V_TRUMP_CARD,
    hands_are,
)
from ...core.state import K_TWO_SEVENS
from .games import COMPONENTS, HEARTS, KIND
from .phases import needs_met


@njit_generic
def phase_known(ph):
    """Is ``ph`` a phase of licitovaný (``PH_DISCARD``, ``PH_FLEK`` and on)?"""
    return not (ph < S.PH_BID and ph != S.PH_DISCARD and ph < S.PH_FLEK)


@njit_generic
def flek_rounds_max(mf):
    """The most flek turns ``max_flek = mf`` allows (§6): 3 * (4 * mf + 1)."""
    return 3 * (4 * mf + 1)


@njit_generic
def phase_code(st, rules):
    """0, or the code of the first thing the licitovaný phase of ``st`` lacks (the
    generic checks, the card play's included, passed; the deal is not over)."""
    ph = st[S.PHASE]
    tm = st[S.TO_MOVE]
    f = st[S.FOREHAND]
    actor = st[S.ACTOR]
    con = st[S.CONTRACT]
    if ph == S.PH_BID or ph == S.PH_HOLD or ph == S.PH_LONE:
        h, c = st[S.LIC_HOLDER], st[S.LIC_CHALLENGER]
        high = st[S.LIC_HIGH]
        hs = st[S.LIC_HIGH_SEAT]
        if ph != S.PH_LONE and (h < 0 or c < 0 or h == c):
            return V_LIC_HOLDER
        if tm != (c if ph == S.PH_BID else h if ph == S.PH_HOLD else f):
            return V_TO_MOVE
        if ph != S.PH_LONE and (high > 0 or ph == S.PH_HOLD) and (
                high == 0 or hs < 0 or not needs_met(high, S.getm(st, S.HAND + hs))):
            return V_LIC_HIGH
        if ph != S.PH_LONE and st[S.LIC_DROPS] > 1:
            return V_LIC_DROPS
        if not hands_are(st, -1, 10, 2):
            return V_HAND
        return 0
    if actor < 0:
        return V_ACTOR
    g = st[S.LIC_GAME]
    if ph != S.PH_FLEK and ph != S.PH_PLAY and tm != actor:
        return V_TO_MOVE
    if ph == S.PH_GAME:
        if st[S.LIC_HIGH] == 0:
            return V_LIC_HIGH
        if not hands_are(st, actor, 12, 0):
            return V_HAND
        return 0
    betl_durch = con == S.C_BETL or con == S.C_DURCH
    two = (COMPONENTS[g] >> K_TWO_SEVENS) & 1
    if (g == 0 or con != KIND[g] or ph == S.PH_TRUMPS and (KIND[g] != S.C_SUIT or HEARTS[g])
            or ph == S.PH_HELPING and not two or ph == S.PH_LEAD and not betl_durch):
        return V_LIC_GAME
    if (ph == S.PH_TRUMPS or ph == S.PH_HELPING) and st[S.NDISC] != 0:
        return V_NDISC
    if ph == S.PH_TRUMPS:
        return 0 if hands_are(st, actor, 12, 0) else V_HAND
    if con == S.C_SUIT and st[S.TRUMP_CARD] < 0:
        return V_TRUMP_CARD
    if ph == S.PH_HELPING:
        return 0 if hands_are(st, actor, 12, 0) else V_HAND
    if two and (st[S.LIC_HELP] < 0 or st[S.LIC_HELP] == st[S.TRUMP_CARD] >> 3):
        return V_LIC_HELP
    if ph == S.PH_DISCARD:
        if st[S.NDISC] > 1:
            return V_NDISC
        if not hands_are(st, actor, 12 - st[S.NDISC], st[S.NDISC]):
            return V_HAND
    elif ph == S.PH_LEAD or ph == S.PH_FLEK:
        if ph == S.PH_FLEK and st[S.LIC_QUIET] > 2:
            return V_LIC_QUIET
        if ph == S.PH_FLEK and betl_durch and (
                st[S.LIC_LEAD] < 0 or not (S.getm(st, S.HAND + actor) >> st[S.LIC_LEAD]) & 1):
            return V_LIC_LEAD
        if not hands_are(st, -1, 10, 2):
            return V_HAND
    return 0
