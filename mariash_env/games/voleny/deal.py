"""Volený's dealing pattern (RULES.md §2): 7-5-5-5-5-5 from forehand, no talon until the
chooser lays one; the deal opens with forehand choosing trumps (§3).  Four players deal the
same three hands (§11.3, :mod:`.four`)."""

from __future__ import annotations

import numpy as np

from ...core.deal import clear_deal
from ...core.jit import njit_generic
from ...core.state import HAND, PH_TRUMP, PHASE, POS, TO_MOVE, setm
from ...core.tables import POS_SEAT


@njit_generic
def deal_voleny(st, deck, dealer):
    """Deal the checked ``deck`` by ``dealer`` into a cleared deal."""
    f = clear_deal(st, dealer)
    h0 = np.int64(0)  # three scalars rather than an array: no allocation per deal
    h1 = np.int64(0)
    h2 = np.int64(0)
    for p in range(32):
        c = deck[p]
        st[POS + c] = p
        s = (f + POS_SEAT[p]) % 3
        bit = np.int64(1) << c
        if s == 0:
            h0 |= bit
        elif s == 1:
            h1 |= bit
        else:
            h2 |= bit
    setm(st, HAND, h0)
    setm(st, HAND + 1, h1)
    setm(st, HAND + 2, h2)
    st[PHASE] = PH_TRUMP
    st[TO_MOVE] = f
