"""Volený mariáš's parts of the double-dummy solver (issue #30).

The generic alpha-beta of :mod:`mariash_env.search.solver` asks the game for its legal
cards, its end-of-deal settlement, the contract's flags of one solve and the endings it
tells apart; these are volený's (R§6, §8, §11): no endings beyond the trump seven's and
the marriages', which the search knows.  Licitovaný's twins are in
:mod:`..licitovany.solve`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_inline
from ...core.play import legal_cards
from ...core.state import AN_STO, AN_STO_SEDMA, ANNOUNCE, B_HUNDRED_AG, BET_EXISTS
from . import actions as A
from .laydown import can_lay_down as can_claim  # noqa: F401 - the solver reads it here
from .settle import settle

PLAY0 = A.PLAY0
"""The first play action: ``play:<card>`` is ``PLAY0 + card``."""


@njit_inline
def legal(st, seat):
    """The seat's legal cards (R§6)."""
    return legal_cards(st, seat)


@njit_inline
def settle_end(sc, rules):
    """Settle the ending in ``sc`` (its ``PAY`` lines) with the core's ``settle``."""
    settle(sc, rules)


def contract_flags(st: np.ndarray, laydown: bool) -> tuple[int, int, int, int, int]:
    """``(hundred, laydown_action, apart, 0, 0)`` of one solve of ``st``: whether the
    bets count first marriages (a sto announced or a hundred against bet, §11), the
    lay-down action when ``laydown`` asks for it (§8; -1: none), no card kept apart
    beyond the trump seven, no constants of the game's own."""
    hundred = int(int(st[ANNOUNCE]) in (AN_STO, AN_STO_SEDMA)
                  or bool(st[BET_EXISTS + B_HUNDRED_AG]))
    return hundred, A.LAY_DOWN if laydown else -1, 0, 0, 0


@njit_inline
def ending_fates(st, actor, trump, g0, g1):
    """No endings of volený's own beyond the trump seven's and the marriages' (0)."""
    return 0


@njit_inline
def set_ending_fate(sc, actor, trump, g0, g1, i):
    """Never called: volený has no endings of its own (:func:`ending_fates`)."""
