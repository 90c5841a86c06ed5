"""Licitovaný's dealing pattern (LICITOVANY.md §2): 5-5-5-2-5-5-5, the two talon cards
face down between the rounds and nobody's until the auction's winner takes them; the
auction opens with zadák challenging forhond (§4)."""

from __future__ import annotations

import numpy as np

from ...core.deal import clear_deal
from ...core.jit import njit_generic
from ...core.state import (
    HAND,
    LIC_CHALLENGER,
    LIC_HOLDER,
    PH_BID,
    PHASE,
    POS,
    TALON,
    TO_MOVE,
    setm,
)

POS_SEAT_LICIT = np.array([0] * 5 + [1] * 5 + [2] * 5 + [3] * 2 + [0] * 5 + [1] * 5 + [2] * 5,
                          dtype=np.int64)
"""The receiver of deck position p: 0 forhond, 1 zadák, 2 the dealer, 3 the talon."""


@njit_generic
def deal_licit(st, deck, dealer):
    """Deal the checked ``deck`` by ``dealer`` into a cleared deal: forhond positions 0-4
    and 17-21, zadák 5-9 and 22-26, the dealer 10-14 and 27-31, the talon 15-16."""
    f = clear_deal(st, dealer)
    hands = np.zeros(4, dtype=np.int64)
    for p in range(32):
        c = deck[p]
        st[POS + c] = p
        hands[POS_SEAT_LICIT[p]] |= np.int64(1) << c
    for k in range(3):
        setm(st, HAND + (f + k) % 3, hands[k])
    setm(st, TALON, hands[3])
    st[LIC_HOLDER] = f
    st[LIC_CHALLENGER] = (f + 1) % 3
    st[PHASE] = PH_BID
    st[TO_MOVE] = (f + 1) % 3
