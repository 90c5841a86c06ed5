"""The four-player table (``players=4``, RULES.md §11.3) over the three-seat deal.

A deal at four is a three-seat deal of the core, untouched: its seats 0, 1, 2 are
forehand, middlehand and the dealer's role (the core's DEALER is always seat 2), held by
the players ``d+1``, ``d+2``, ``d+3`` (mod 4) when player ``d`` deals and sits out.  This
module is that mapping and the settlement transform: the sitting-out dealer pays or
collects with the defence, so the actor gets ``3A`` and each of the other three ``-A``
(``A`` the core's amount per defender, capped as the core caps it; integral and zero-sum).
The partie totals of the four players are ``P4_SCORE``; ``SCORE`` (what the three-seat
observation shows) mirrors the totals of the players in the deal's seats.
"""

from __future__ import annotations

import numpy as np

from ...core.jit import njit_generic
from ...core.state import ACTOR, P4_DEALER, P4_SCORE, PAY, SCORE, get64, set64

CORE_DEALER = 2
"""The core seat of the dealer's role at four: forehand is core seat 0."""


@njit_generic
def player_of(st, c):
    """The player (0..3) in core seat ``c`` (0 forehand, 1 middlehand, 2 the dealer's role)."""
    return (st[P4_DEALER] + 1 + c) % 4


@njit_generic
def seat_of(st, p):
    """The core seat of player ``p`` this deal, -1 for the dealer who sits out."""
    r = (p - st[P4_DEALER] - 1) % 4
    return r if r < 3 else -1


@njit_generic
def dealer_pays(st):
    """``A``: what the sitting-out dealer pays the actor of the settled deal (0 without
    an actor)."""
    actor = st[ACTOR]
    return get64(st, PAY + 2 * actor) // 2 if actor >= 0 else np.int64(0)  # PAY[actor] = 2A


@njit_generic
def seat_payment4(st, c):
    """Groše paid at four to the player in core seat ``c`` by the settled deal: its core
    payment, the actor's raised by ``A`` for the sitting-out dealer."""
    pay = get64(st, PAY + 2 * c)
    return pay + dealer_pays(st) if c == st[ACTOR] else pay


@njit_generic
def payment4(st, p):
    """Groše paid to player ``p`` by the settled deal (the dealer who sits out pays
    ``-A`` with the defence)."""
    c = seat_of(st, p)
    return -dealer_pays(st) if c < 0 else seat_payment4(st, c)


@njit_generic
def mirror_scores(st):
    """``SCORE`` of each core seat := the partie total of the player holding it."""
    for c in range(3):
        set64(st, SCORE + 2 * c, get64(st, P4_SCORE + 2 * player_of(st, c)))


@njit_generic
def book4(st):
    """Book the settled deal's payments into the four players' totals."""
    for p in range(4):
        set64(st, P4_SCORE + 2 * p, get64(st, P4_SCORE + 2 * p) + payment4(st, p))
    mirror_scores(st)


@njit_generic
def start4(st, dealer):
    """A new partie at four: totals zero, ``dealer`` (0..3) deals first."""
    st[P4_DEALER] = dealer
    for i in range(8):
        st[P4_SCORE + i] = 0


__all__ = ["CORE_DEALER", "player_of", "seat_of", "dealer_pays", "seat_payment4", "payment4",
           "mirror_scores", "book4", "start4"]
