"""Constant card tables for the core (numba freezes module-level arrays)."""

from __future__ import annotations

import numpy as np

from ..cards import PLAIN_STRENGTH, RANK_A, RANK_K, RANK_Q, RANK_T, TRUMP_STRENGTH

ALL = 0xFFFFFFFF
SUIT_MASK = np.array([0xFF << (8 * s) for s in range(4)], dtype=np.int64)
# Card points: aces and tens are "ostré", 10 each (RULES.md §1).
CARD_POINTS = np.array([10 if (c & 7) in (RANK_T, RANK_A) else 0 for c in range(32)],
                       dtype=np.int64)
SHARP_MASK = int(sum(1 << c for c in range(32) if CARD_POINTS[c]))
KING_QUEEN = RANK_Q, RANK_K


def _rel_mask(strength: np.ndarray, higher: bool) -> np.ndarray:
    out = np.zeros(32, dtype=np.int64)
    for c in range(32):
        s = c >> 3
        for r in range(8):
            o = s * 8 + r
            if (strength[r] > strength[c & 7]) if higher else (strength[r] < strength[c & 7]):
                out[c] |= 1 << o
    return out


# Same-suit cards that beat / lose to a card, with trump ranking (suit games: 7 8 9 J Q K T A)
# and with the natural ranking (betl and durch: 7 8 9 T J Q K A).
ABOVE_TRUMP = _rel_mask(TRUMP_STRENGTH, True)
ABOVE_PLAIN = _rel_mask(PLAIN_STRENGTH, True)
BELOW_PLAIN = _rel_mask(PLAIN_STRENGTH, False)

# Dealing in blocks (RULES.md §2): the seat offset from forehand (0 f, 1 m, 2 d) of deck position p.
POS_SEAT = np.array([0] * 7 + [1] * 5 + [2] * 5 + [0] * 5 + [1] * 5 + [2] * 5, dtype=np.int64)
BLIND_POS = 17
