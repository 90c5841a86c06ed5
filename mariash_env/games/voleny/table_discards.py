"""The table robots' discards, compiled: the cost of a kept hand and the best pair to lay.

A suit game keeps the hand :func:`suit_keep_value` rates best; betl and durch keep the
fewest holes (:func:`~mariash_env.robots.features.betl_risk`,
:func:`~mariash_env.robots.features.durch_hole_suits`), then the most voids, then the
lowest (betl) or highest (durch) cards.  :func:`discard_cost` is that order as one number
and :func:`best_pair` the pair of cards whose laying it minimises -- the volený
:class:`~mariash_env.games.voleny.table_robot.TableRobot`'s discards and contract choice,
and the licitovaný robot's, which a search's simulations ask for thousands of times.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_generic
from ...core.state import C_BETL, C_SUIT
from ...core.tables import SHARP_MASK
from ...core.tricks import popcount
from ...robots.features import betl_holes_jit, betl_risk_jit, durch_hole_suits_jit

RT, RQ, RA = 3, 5, 7
# A kept side card's worth by rank (7 8 9 T J Q K A).
KEEP_VALUE = np.array([0, 0.2, 0.4, 5, 1, 2, 2.5, 6])


@njit_generic
def suit_keep_value(hand, trump):
    """How good a 10-card hand is for a suit game (to choose the discards)."""
    v = 0.0
    for s in range(4):
        m = hand & (0xFF << (8 * s))
        n = popcount(m)
        if s == trump:
            v += 12 * n
            continue
        if n == 0:
            v += 6  # a void: the suit can be trumped
            continue
        for c in range(8 * s, 8 * s + 8):
            if (m >> c) & 1:
                v += KEEP_VALUE[c & 7]
        if (hand >> (8 * s + RQ)) & 3 == 3:
            v += 10
        if (m >> (8 * s + RT)) & 1 and not (m >> (8 * s + RA)) & 1:
            v += 1.0 * (n - 1)  # guards of an unprotected ten
        if n == 1 and not m & SHARP_MASK:
            v -= 1.5  # a low singleton: better discarded to a void
    return v


@njit_generic
def discard_cost(rest, out, contract, trump):
    """The cost of keeping ``rest`` with ``out`` out of play (the laid cards and the
    talon): lower is better.  Suit game: ``-suit_keep_value``; betl: (betl risk, holes,
    fewest voids, rank sum) and durch: (holed suits, fewest voids, highest rank sum),
    each tuple as one number of the same order."""
    if contract == C_SUIT:
        return -suit_keep_value(rest, trump)
    voids = 0
    ranks = 0
    for s in range(4):
        if not (rest >> (8 * s)) & 0xFF:
            voids += 1
    for c in range(32):
        if (rest >> c) & 1:
            ranks += c & 7
    if contract == C_BETL:
        k1, k2, k3, k4 = betl_risk_jit(rest, out), betl_holes_jit(rest, out), -voids, ranks
    else:
        k1, k2, k3, k4 = durch_hole_suits_jit(rest, out), -voids, -ranks, 0
    return float((((k1 + 128) * 256 + k2 + 128) * 256 + k3 + 128) * 256 + k4 + 128)


@njit_generic
def best_pair(hand, allowed, contract, trump, talon):
    """The pair of ``allowed`` cards whose laying (with ``talon`` out of play) leaves the
    cheapest hand by :func:`discard_cost` (the first such pair in card order), the
    higher-ranked card first."""
    best = 0.0
    a0, b0 = -1, -1
    for a in range(32):
        if not (allowed >> a) & 1:
            continue
        for b in range(a + 1, 32):
            if not (allowed >> b) & 1:
                continue
            pm = (1 << a) | (1 << b)
            k = discard_cost(hand & ~pm, pm | talon, contract, trump)
            if a0 < 0 or k < best:
                best = k
                a0, b0 = (b, a) if (b & 7) > (a & 7) else (a, b)
    return a0, b0


def warm() -> None:
    """Compile (or load) the entries the table robots call from Python, on their types."""
    best_pair(3, 3, C_SUIT, 0, 0)
    discard_cost(0, 0, C_SUIT, 0)
    suit_keep_value(0, 0)
    betl_holes_jit(0, 0)
    betl_risk_jit(0, 0)
    durch_hole_suits_jit(0, 0)
