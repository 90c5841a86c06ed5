"""The card vocabulary of trick play, once (RULES.md §1, §6): rank strength with and
without trumps, beating, the trick winner, the walk over the tricks played, and popcount / lowest / highest of a card
set (a 32-bit mask, bit ``c`` = card ``suit * 8 + rank``).

Compiled functions for the core, the search and the vector kernels; the tables
(``TRUMP_STRENGTH``, ``TRUMP_ORDER``, ...) serve the pure-Python robots as well.  A
second trick game shares these and adds its own phases (see ``core/engine.py``).
"""

from __future__ import annotations

import numpy as np

from ..cards import PLAIN_STRENGTH, TRUMP_STRENGTH
from .jit import njit, njit_inline
from .state import C_SUIT, CONTRACT, TLEAD, TRICK_N, TRICK_NO, TRICKS, TRUMP_CARD
from .tables import ABOVE_PLAIN, ABOVE_TRUMP

# Ranks (indices 7 8 9 T J Q K A) from the weakest to the strongest card of a suit.
TRUMP_ORDER = np.argsort(TRUMP_STRENGTH).astype(np.int64)  # 7 8 9 J Q K T A
PLAIN_ORDER = np.argsort(PLAIN_STRENGTH).astype(np.int64)  # 7 8 9 T J Q K A

__all__ = ["TRUMP_STRENGTH", "PLAIN_STRENGTH", "TRUMP_ORDER", "PLAIN_ORDER", "popcount",
           "lowest", "highest", "strength", "beats", "trump_suit", "trick_best",
           "tricks_begun", "trick_cards", "trick_card"]


@njit
def popcount(m):
    """Number of cards in the set ``m``."""
    m = np.int64(m)
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit
def lowest(m):
    """Index of the lowest set bit of ``m`` (m != 0): the lowest card code, not the
    weakest card."""
    i = 0
    m = np.int64(m)
    while not (m >> i) & 1:
        i += 1
    return i


@njit
def highest(m):
    """Index of the highest set bit of ``m`` (m != 0): the highest card code."""
    i = 63
    m = np.int64(m)
    while not (m >> i) & 1:
        i -= 1
    return i


@njit
def strength(c, trump):
    """§6: strength of ``c``'s rank within its suit; with trumps (``trump >= 0``) the ten
    ranks between the king and the ace, in betl and durch (no trumps) below the jack."""
    r = c & 7
    return TRUMP_STRENGTH[r] if trump >= 0 else PLAIN_STRENGTH[r]


@njit
def trump_suit(st):
    """The trump suit in a suit game, else -1 (betl, durch, or no contract yet)."""
    if st[CONTRACT] == C_SUIT:
        return st[TRUMP_CARD] >> 3
    return -1


@njit
def beats(c, best, trump):
    """§6: does card ``c`` beat the card ``best`` currently winning the trick?"""
    if (c >> 3) == (best >> 3):
        if trump >= 0:
            return (ABOVE_TRUMP[best] >> c) & 1 == 1
        return (ABOVE_PLAIN[best] >> c) & 1 == 1
    return (c >> 3) == trump


@njit
def trick_best(st, n):
    """§6: index (0..n-1 in play order) of the card winning the current trick so far."""
    t = st[TRICK_NO]
    trump = trump_suit(st)
    bi = 0
    best = st[TRICKS + 3 * t]
    for j in range(1, n):
        c = st[TRICKS + 3 * t + j]
        if beats(c, best, trump):
            best = c
            bi = j
    return bi


# --- the walk over the tricks played so far, in play order:
#     for t in range(tricks_begun(st)):
#         n = trick_cards(st, t)
#         if n == 0:
#             break
#         for j in range(n):
#             seat, c = trick_card(st, t, j)


@njit_inline
def tricks_begun(st):
    """How many tricks to walk: the finished ones and the current one (at most 10)."""
    return min(st[TRICK_NO] + 1, 10)


@njit_inline
def trick_cards(st, t):
    """§6: cards of trick ``t`` played so far: 3 once it is complete, the current
    trick's count, 0 before it is led (its leader still -1)."""
    if st[TLEAD + t] < 0:
        return 0
    return 3 if t < st[TRICK_NO] else st[TRICK_N]


@njit_inline
def trick_card(st, t, j):
    """``(seat, card)`` of the ``j``-th card of trick ``t`` (play order from its leader)."""
    return (st[TLEAD + t] + j) % 3, st[TRICKS + 3 * t + j]
