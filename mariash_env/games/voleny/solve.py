"""Volený mariáš's parts of the double-dummy solver (issue #30).

The generic alpha-beta of :mod:`mariash_env.search.solver` asks the game for its legal
cards, its end-of-deal settlement and the contract's flags of one solve; these are
volený's (R§6, §11).  Licitovaný's twins are in :mod:`..licitovany.solve`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_inline
from ...core.play import legal_cards
from ...core.state import AN_STO, AN_STO_SEDMA, ANNOUNCE, B_HUNDRED_AG, BET_EXISTS
from . import actions as A
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


def contract_flags(st: np.ndarray, laydown: bool) -> tuple[int, int, int, int]:
    """``(hundred, two_sevens, helping_suit, laydown)`` of one solve of ``st``: whether
    the bets count first marriages (a sto announced or a hundred against bet), no two
    sevens (-1: no helping suit), and lay-down searched as asked (§11)."""
    hundred = int(int(st[ANNOUNCE]) in (AN_STO, AN_STO_SEDMA)
                  or bool(st[BET_EXISTS + B_HUNDRED_AG]))
    return hundred, 0, -1, int(laydown)
