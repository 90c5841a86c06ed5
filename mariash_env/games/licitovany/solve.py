"""Licitovaný mariáš's parts of the double-dummy solver (issue #30).

The generic alpha-beta of :mod:`mariash_env.search.solver` asks the game for its legal
cards, its end-of-deal settlement, the contract's flags of one solve and the endings it
tells apart; these are licitovaný's (LICITOVANY.md §3, §7–§9).  Its own endings are two
sevens (§8): won while the helping 7 can still take trick 9 and the trump 7 trick 10,
or lost; the search keeps the helping 7 apart from its neighbours.  Volený's twins are
in :mod:`..voleny.solve`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_inline
from ...core.state import (
    C_SUIT,
    CONTRACT,
    HAND,
    K_HUNDRED,
    K_TWO_SEVENS,
    LEADER,
    LIC_GAME,
    LIC_HELP,
    TLEAD,
    TRICK_N,
    TRICK_NO,
    TRICKS,
    TWIN,
    getm,
)
from . import actions as LA
from .games import COMPONENTS
from .phases import licit_cards
from .settle import settle_licit

PLAY0 = LA.PLAY0
"""The first play action: ``play:<card>`` is ``PLAY0 + card``."""


@njit_inline
def legal(st, seat):
    """The seat's legal cards: R§6's less the actor's early reserved sevens (§7)."""
    return licit_cards(st, seat)


@njit_inline
def settle_end(sc, rules):
    """Settle the ending in ``sc`` (its ``PAY`` lines) with ``settle_licit`` (§8–§9)."""
    settle_licit(sc, rules)


def contract_flags(st: np.ndarray, laydown: bool) -> tuple[int, int, int, int, int]:
    """``(hundred, laydown_action, apart, two_sevens, helping_suit)`` of one solve of
    ``st``: whether the game counts first marriages (§3, §8); never a lay-down (-1,
    §7), whatever ``laydown`` asks; the helping 7 kept apart from its neighbours (a
    card bit, 0: none); and the game's own constants, two sevens (§8) and its helping
    suit in a suit game (-1: none), passed back to :func:`ending_fates`."""
    comp = int(COMPONENTS[int(st[LIC_GAME])])
    two7 = int(bool(comp & (1 << K_TWO_SEVENS)))
    help_suit = int(st[LIC_HELP]) if two7 and st[CONTRACT] == C_SUIT else -1
    apart = 1 << (8 * help_suit) if help_suit >= 0 else 0
    return int(bool(comp & (1 << K_HUNDRED))), -1, apart, two7, help_suit


@njit_inline
def ending_fates(st, actor, trump, two7, help_suit):
    """The endings of two sevens (§8) still conceivable at this trick start: none
    without the component, else lost, and won while still possible (2)."""
    if not two7:
        return 0
    return 1 + two_sevens_open(st, actor, trump, help_suit)


@njit_inline
def set_ending_fate(sc, actor, trump, two7, help_suit, i):
    """Write the ending ``i`` of :func:`ending_fates` into ``sc``: 0 two sevens lost,
    1 won."""
    set_two_sevens(sc, actor, trump, help_suit, i == 1)


@njit_inline
def two_sevens_open(st, actor, trump, help_suit):
    """Two sevens (§8): can the helping 7 still take trick 9 and the trump 7 trick 10?
    1 while the actor holds (or has just played to the open trick) the trump 7 and,
    before trick 9 is complete, the helping 7 -- after it, when it took trick 9."""
    mine = getm(st, HAND + actor)
    t = st[TRICK_NO]
    n = st[TRICK_N]
    if (actor - st[LEADER]) % 3 < n:  # the actor has played to the open trick
        mine |= np.int64(1) << st[TRICKS + 3 * t + (actor - st[LEADER]) % 3]
    if not (mine >> (trump * 8)) & 1:
        return 0
    h7 = help_suit * 8
    if t > 8:
        return 1 if (st[TWIN + 8] == actor
                     and st[TRICKS + 24 + (actor - st[TLEAD + 8]) % 3] == h7) else 0
    return (mine >> h7) & 1


@njit_inline
def set_two_sevens(sc, actor, trump, help_suit, won):
    """Write the fate of two sevens into the ending ``sc``: won (the actor's helping 7
    takes trick 9, his trump 7 trick 10) or lost; ``settle_licit`` reads only these."""
    if won:
        sc[TLEAD + 8] = actor
        sc[TWIN + 8] = actor
        sc[TRICKS + 24] = help_suit * 8
        sc[TLEAD + 9] = actor
        sc[TWIN + 9] = actor
        sc[TRICKS + 27] = trump * 8
    else:
        sc[TWIN + 8] = (actor + 1) % 3
