"""Volený mariáš's part of the check of restored states (``VectorEnv.restore_states``,
issue #30): which phases the game has, how many flek rounds ``max_flek`` allows, and
what each of its phases needs of a state (RULES.md §3–§5).  The generic part is
:func:`mariash_env.vector._semantic_row`, the dispatch :mod:`mariash_env.core.engine`;
the codes are :mod:`mariash_env.core.semantic`'s.  Licitovaný's twin is
:mod:`..licitovany.validate`.
"""

from __future__ import annotations

from ...core import state as S
from ...core.jit import njit_generic
from ...core.semantic import (
    V_ACTOR,
    V_ANSWERS,
    V_BET_EXISTS,
    V_CONTRACT,
    V_FLEK_ROUND,
    V_HAND,
    V_NDISC,
    V_RAISABLE,
    V_TO_MOVE,
    V_TRUMP_CARD,
    hands_are,
)
from ...rules import R_MAX_FLEK


@njit_generic
def phase_known(ph):
    """Is ``ph`` a phase of volený (``PH_TRUMP`` .. ``PH_DONE``)?"""
    return ph <= S.PH_DONE


@njit_generic
def flek_rounds_max(mf):
    """The most flek rounds ``max_flek = mf`` allows (§5): 1 + 4 * mf + 2."""
    return 4 * mf + 3


@njit_generic
def phase_code(st, rules):
    """0, or the code of the first thing the volený phase of ``st`` lacks (the generic
    checks, the card play's included, passed; the deal is not over)."""
    ph = st[S.PHASE]
    tm = st[S.TO_MOVE]
    f = st[S.FOREHAND]
    actor = st[S.ACTOR]
    con = st[S.CONTRACT]
    mf = rules[R_MAX_FLEK]
    if ph == S.PH_TRUMP:
        if tm != f:
            return V_TO_MOVE
        if not hands_are(st, f, 12, 0):
            return V_HAND
    elif ph == S.PH_CONTRACT:
        if tm != st[S.CHOOSER]:
            return V_TO_MOVE
        if st[S.TRUMP_CARD] < 0:
            return V_TRUMP_CARD
        if not hands_are(st, tm, 12, 0):
            return V_HAND
    else:
        if actor < 0:
            return V_ACTOR
        if st[S.TRUMP_CARD] < 0:
            return V_TRUMP_CARD
        betl_durch = con == S.C_BETL or con == S.C_DURCH
        if ((ph == S.PH_BARVA or ph == S.PH_ANNOUNCE) and con != S.C_SUIT
                or ph == S.PH_BETL_ANSWER and not betl_durch or con == S.C_NONE):
            return V_CONTRACT
        if ph == S.PH_DISCARD:
            if tm != actor:
                return V_TO_MOVE
            if st[S.NDISC] > 1:
                return V_NDISC
            if not hands_are(st, actor, 12 - st[S.NDISC], st[S.NDISC]):
                return V_HAND
        elif ph == S.PH_BARVA or ph == S.PH_BETL_ANSWER:
            if st[S.ANSWERS] > 1:
                return V_ANSWERS
        elif ph == S.PH_ANNOUNCE:
            if tm != f:
                return V_TO_MOVE
        elif ph == S.PH_FLEK:
            if st[S.BET_EXISTS] != 1:
                return V_BET_EXISTS
            if st[S.FLEK_ROUND] < 1:
                return V_FLEK_ROUND
            avail = st[S.RAISABLE] & ~st[S.RAISED_RND]  # what _legal_flek offers
            for b in range(4):
                if (avail >> b) & 1 and (st[S.BET_EXISTS + b] == 0
                                         or st[S.BET_LEVEL + b] >= mf):
                    return V_RAISABLE
        if ph != S.PH_DISCARD and ph != S.PH_PLAY and not hands_are(st, -1, 10, 2):
            return V_HAND
    return 0
