"""Licitovaný mariáš's parts of the double-dummy solver (issue #30).

The generic alpha-beta of :mod:`mariash_env.search.solver` asks the game for its legal
cards, its end-of-deal settlement and the contract's flags of one solve; these are
licitovaný's (LICITOVANY.md §3, §7–§9).  Volený's twins are in :mod:`..voleny.solve`.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_inline
from ...core.state import C_SUIT, CONTRACT, K_HUNDRED, K_TWO_SEVENS, LIC_GAME, LIC_HELP
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


def contract_flags(st: np.ndarray, laydown: bool) -> tuple[int, int, int, int]:
    """``(hundred, two_sevens, helping_suit, laydown)`` of one solve of ``st``: the
    game's components (§3, §8), the helping suit of two sevens in a suit game (-1:
    none); never a lay-down (§7), whatever ``laydown`` asks."""
    comp = int(COMPONENTS[int(st[LIC_GAME])])
    two7 = int(bool(comp & (1 << K_TWO_SEVENS)))
    help_suit = int(st[LIC_HELP]) if two7 and st[CONTRACT] == C_SUIT else -1
    return int(bool(comp & (1 << K_HUNDRED))), two7, help_suit, 0
