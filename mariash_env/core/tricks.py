"""The card vocabulary of trick play, once (RULES.md §1, §6): rank strength with and
without trumps, beating, the trick winner, the walk over the tricks played, and popcount / lowest /
highest of a card set (a 32-bit mask, bit ``c`` = card ``suit * 8 + rank``).

Compiled functions for the core, the search and the vector kernels, and their pure-Python
twins for the robots and the world sampling (``popcount_py``, ``strength_py``,
``beats_py``, ``winning_index_py``: a compiled call from Python costs more than these
functions' work).  A rule is written once (``_strength_rule``, ``_beats_rule``) and
used both compiled, on the numpy tables, and as plain Python, on the same tables as
tuples.  A second trick game shares these and adds its own phases (see
``core/engine.py``).
"""

from __future__ import annotations

import numpy as np

from ..cards import PLAIN_STRENGTH, TRUMP_STRENGTH
from .jit import njit_generic, njit_inline
from .state import C_SUIT, CONTRACT, TLEAD, TRICK_N, TRICK_NO, TRICKS, TRUMP_CARD
from .tables import ABOVE_PLAIN, ABOVE_TRUMP, SUIT_MASK

# Ranks (indices 7 8 9 T J Q K A) from the weakest to the strongest card of a suit.
TRUMP_ORDER = np.argsort(TRUMP_STRENGTH).astype(np.int64)  # 7 8 9 J Q K T A
PLAIN_ORDER = np.argsort(PLAIN_STRENGTH).astype(np.int64)  # 7 8 9 T J Q K A

__all__ = ["TRUMP_STRENGTH", "PLAIN_STRENGTH", "TRUMP_ORDER", "PLAIN_ORDER", "popcount",
           "lowest", "highest", "strength", "beats", "trump_suit", "trick_best",
           "tricks_begun", "trick_cards", "trick_card", "popcount_py", "strength_py",
           "beats_py", "winning_index_py", "follow", "follow_py", "announces_marriage",
           "announces_marriage_py"]

# The tables as tuples of Python ints, which Python indexes fastest (for the ``*_py`` twins).
_TRUMP_STRENGTH_T = tuple(int(x) for x in TRUMP_STRENGTH)
_PLAIN_STRENGTH_T = tuple(int(x) for x in PLAIN_STRENGTH)
_ABOVE_TRUMP_T = tuple(int(x) for x in ABOVE_TRUMP)
_ABOVE_PLAIN_T = tuple(int(x) for x in ABOVE_PLAIN)
_SUIT_MASK_T = tuple(int(x) for x in SUIT_MASK)


@njit_generic
def popcount(m):
    """Number of cards in the set ``m``."""
    m = np.int64(m)
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit_generic
def lowest(m):
    """Index of the lowest set bit of ``m`` (m != 0): the lowest card code, not the
    weakest card."""
    i = 0
    m = np.int64(m)
    while not (m >> i) & 1:
        i += 1
    return i


@njit_generic
def highest(m):
    """Index of the highest set bit of ``m`` (m != 0): the highest card code."""
    i = 63
    m = np.int64(m)
    while not (m >> i) & 1:
        i -= 1
    return i


def _strength_rule(c, trump, trump_strength, plain_strength):
    """§6: strength of ``c``'s rank within its suit; with trumps (``trump >= 0``) the ten
    ranks between the king and the ace, in betl and durch (no trumps) below the jack."""
    r = c & 7
    return trump_strength[r] if trump >= 0 else plain_strength[r]


_strength = njit_inline(_strength_rule)


@njit_generic
def strength(c, trump):
    """§6: strength of ``c``'s rank within its suit (``_strength_rule``)."""
    return _strength(c, trump, TRUMP_STRENGTH, PLAIN_STRENGTH)


def strength_py(c: int, trump: int) -> int:
    """:func:`strength` for pure-Python callers."""
    return _strength_rule(c, trump, _TRUMP_STRENGTH_T, _PLAIN_STRENGTH_T)


def popcount_py(m: int) -> int:
    """:func:`popcount` of a card set held as a Python int."""
    return bin(m).count("1")


@njit_generic
def trump_suit(st):
    """The trump suit in a suit game, else -1 (betl, durch, or no contract yet)."""
    if st[CONTRACT] == C_SUIT:
        return st[TRUMP_CARD] >> 3
    return -1


def _beats_rule(c, best, trump, above_trump, above_plain):
    """§6: does card ``c`` beat the card ``best`` currently winning the trick?  A higher
    card of the same suit (trump or plain rank order), or a trump on another suit."""
    if (c >> 3) == (best >> 3):
        if trump >= 0:
            return (above_trump[best] >> c) & 1 == 1
        return (above_plain[best] >> c) & 1 == 1
    return (c >> 3) == trump


_beats = njit_inline(_beats_rule)


@njit_generic
def beats(c, best, trump):
    """§6: does card ``c`` beat the card ``best`` currently winning the trick?
    (``_beats_rule``)"""
    return _beats(c, best, trump, ABOVE_TRUMP, ABOVE_PLAIN)


def beats_py(c: int, best: int, trump: int) -> bool:
    """:func:`beats` for pure-Python callers."""
    return _beats_rule(c, best, trump, _ABOVE_TRUMP_T, _ABOVE_PLAIN_T)


def _follow_rule(hand, led, best, trump, suit_mask, above_trump, above_plain):
    """§6: the cards of ``hand`` that may go to a trick led with ``led`` and won so far
    by ``best``: follow suit and, unless a trump took a plain lead, beat if you can;
    void, trump (beating a trump already there) if you can; else any card.  Three-seat
    tricks (``core/play.py``) and lízaný's strict play once its stock is gone."""
    ls = led >> 3
    above = above_trump[best] if trump >= 0 else above_plain[best]
    follow = hand & suit_mask[ls]
    if follow:
        if trump >= 0 and ls != trump and (best >> 3) == trump:
            return follow  # already trumped: follow suit, no need to beat
        beat = follow & above
        return beat if beat else follow
    if trump >= 0 and hand & suit_mask[trump]:
        tr = hand & suit_mask[trump]
        if (best >> 3) == trump:
            beat = tr & above
            return beat if beat else tr
        return tr
    return hand


follow = njit_inline(_follow_rule)
"""Compiled :func:`_follow_rule`: ``follow(hand, led, best, trump, SUIT_MASK, ABOVE_TRUMP,
ABOVE_PLAIN)``."""


def follow_py(hand: int, led: int, best: int, trump: int) -> int:
    """:func:`_follow_rule` for pure-Python callers."""
    return _follow_rule(hand, led, best, trump, _SUIT_MASK_T, _ABOVE_TRUMP_T, _ABOVE_PLAIN_T)


def _marriage_rule(hand, c, queen_first):
    """§7: does playing ``c`` from ``hand`` announce a marriage -- a queen while holding its
    king, or (unless queens must go first, §11) a king while holding its queen?"""
    r = c & 7
    return (r == 5 and (hand >> (c + 1)) & 1 == 1) or (
        r == 6 and not queen_first and (hand >> (c - 1)) & 1 == 1)


announces_marriage = njit_inline(_marriage_rule)
announces_marriage_py = _marriage_rule
"""Both are :func:`_marriage_rule` (plain Python needs no tables)."""


@njit_generic
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


def winning_index_py(trick: list[int], trump: int) -> int:
    """:func:`trick_best` of a trick given as its cards in play order (pure Python)."""
    bi = 0
    for j in range(1, len(trick)):
        if _beats_rule(trick[j], trick[bi], trump, _ABOVE_TRUMP_T, _ABOVE_PLAIN_T):
            bi = j
    return bi


# --- the walk over the cards played so far, in play order:
#     for k in range(cards_played(st)):
#         t, j, seat, c = played_card(st, k)
#     (card j of trick t; the finished tricks and the current one)

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
def cards_played(st):
    """§6: how many cards have been played in tricks so far (finished tricks and the
    current one's cards; 0 before the first lead)."""
    n = 0
    for t in range(tricks_begun(st)):
        k = trick_cards(st, t)
        if k == 0:
            break
        n += k
    return n


@njit_inline
def played_card(st, k):
    """``(trick, place in it, seat, card)`` of the ``k``-th card played in the deal."""
    t = k // 3
    j = k - 3 * t
    return t, j, (st[TLEAD + t] + j) % 3, st[TRICKS + k]


@njit_inline
def trick_card(st, t, j):
    """``(seat, card)`` of the ``j``-th card of trick ``t`` (play order from its leader)."""
    return (st[TLEAD + t] + j) % 3, st[TRICKS + 3 * t + j]
