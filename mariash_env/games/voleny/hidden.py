"""What a seat of volený knows of a deal and which of the deal's decisions the other seats
do not see (:data:`HIDDEN`, the kind's ``hidden_info``), and the deal's bounds for
OpenSpiel's ``GameInfo`` (:func:`deal_bounds`, the kind's ``deal_bounds``).

Forehand sees the first seven cards of the deck and chooses trumps from them (RULES.md
§2, §3): they are his own bucket (3) of the deal.  The trump card (unless chosen z lidu)
and every discard are hidden from the other seats (§3, §4).
"""

from __future__ import annotations

import numpy as np

from ...cards import NCARDS
from ...core import state as S
from ...rules import TARIFFS, Rules
from ..base import HiddenInfo
from . import actions as A
from .worlds import WorldError, knowledge, sample_worlds, talon_chain


def hidden(a: int) -> bool:
    """A volený decision other seats do not see: the trump card (not z lidu), a discard."""
    return A.TRUMP0 <= a < A.TRUMP_BLIND or A.DISCARD0 <= a < A.DISCARD0 + NCARDS


def fill_hidden(actions: list[tuple[int, int]], w: np.ndarray, me: int) -> list[int]:
    """A deal's decisions with the other seats' hidden ones taken from the world ``w``:
    the trump card; the discards of each talon taken from what its taker took (``TAKEN``,
    talon by talon: with open contracts one seat may take two, RULES.md §11.1), those of
    the talon still lying in discard order; what the seat did itself is kept."""
    n_lying = int(w[S.DISC] >= 0) + int(w[S.DISC + 1] >= 0)
    discards = [i for i, (_, a) in enumerate(actions) if A.DISCARD0 <= a < A.DISCARD0 + NCARDS]
    n_taken = (len(discards) - n_lying) // 2  # each talon is two discards (RULES.md §4)
    cards: dict[int, int] = {}  # action position -> card
    for j in range(n_taken):
        taken = S.getm(w, S.TAKEN + j)
        for i, c in zip(discards[2 * j:2 * j + 2], (c for c in range(NCARDS) if taken >> c & 1)):
            cards[i] = c
    for j, i in enumerate(discards[2 * n_taken:]):
        cards[i] = int(w[S.DISC + j])
    out = []
    for i, (seat, a) in enumerate(actions):
        if seat != me and hidden(a):
            a = A.TRUMP0 + int(w[S.TRUMP_CARD]) if a < A.TRUMP_BLIND else A.DISCARD0 + cards[i]
        out.append(a)
    return out


def hidden_choice(a: int, rec: np.ndarray, me: int,
                  discards_before: int) -> tuple[int, bool, bool]:
    """Another seat's hidden decision ``a`` in the deal of ``rec`` as core seat ``me``
    replays it (``discards_before``: the deal's discards before it): its block's first
    index, whether ``me`` knows it (a trump card shown; a discard of a talon ``me`` took,
    talon ``discards_before // 2``, RULES.md §4 - not merely a card ``me`` took, which
    may have been discarded twice) and whether it is a discard."""
    lo = A.TRUMP0 if a < A.TRUMP_BLIND else A.DISCARD0
    if lo == A.TRUMP0:
        return lo, bool(rec[S.TRUMP_PUBLIC]), False
    taker = talon_chain(rec)[1]
    return lo, bool(me >= 0 and taker[discards_before // 2] == me), True


def shown_third(rec: np.ndarray, actions: list[tuple[int, int]]) -> int:
    """Forehand's trump card (chosen from his first seven, RULES.md §3) once shown; -1."""
    forehand = int(rec[S.FOREHAND])
    trump = [a - A.TRUMP0 for s, a in actions
             if s == forehand and A.TRUMP0 <= a < A.TRUMP0 + NCARDS]
    return trump[0] if trump and rec[S.TRUMP_PUBLIC] else -1


def kept_third(w: np.ndarray, actions: list[tuple[int, int]]) -> tuple[int, bool]:
    """The world's trump card (-1: none), which stays among forehand's first seven, and
    whether he chose it z lidu (then it stays at its deal position, RULES.md §3)."""
    trump = int(w[S.TRUMP_CARD]) if w[S.TRUMP_CARD] >= 0 else -1
    return trump, any(a == A.TRUMP_BLIND for _, a in actions)


HIDDEN = HiddenInfo(
    sample_worlds=sample_worlds, world_errors=(WorldError,), first_seen=7,
    third_holder=S.FOREHAND, hidden=hidden, fill_hidden=fill_hidden,
    hidden_choice=hidden_choice, shown_third=shown_third, kept_third=kept_third,
    talon_from_hands=True, knowledge=knowledge)


def deal_bounds(rules: Rules, level: int) -> tuple[int, int]:
    """``(A, L)``: the largest amount one defender pays or is paid in a deal before the
    ``payment_cap`` (``level`` the highest flek level) and a bound on the deal's player
    decisions.

    ``A`` (core/settle.py): game and hundred against <= 18 * sto * 2 (hearts; order-free
    hundreds ``sto << 15``, silent ``hra << 10``, RULES.md §11.2; open betl / durch twice
    the price, §11.1), each seven line <= max(killed_seven, sedma) * 2, the silent seven
    2 * sedma.  ``L``: bidding <= 15 (trump 1, contracts 3, discards 6, Barva? 2, betl
    answers 2, announcement 1), with open contracts 5 more per overcall (three at most:
    the contract, two discards, two answers); flek: every round but the last raises or
    announces a bet, so at most ``4L + 2`` raises/announcements and ``4L + 3`` rounds of
    at most two ``good``; play 31."""
    t = TARIFFS[rules.tariff]
    game = max(18 * t["sto"] * 2, t["durch"] * (2 if rules.open_contracts else 1))
    if rules.hundred_counting == "order_free":
        game = max(game, (t["sto"] << 15) * 2, (t["hra"] << 10) * 2)
    seven = max(rules.killed_seven, t["sedma"]) * 2
    a = (2 * game + 2 * seven) * 2 ** level + 2 * t["sedma"]
    bidding = 15 + (15 if rules.open_contracts else 0)
    return a, bidding + (4 * level + 2) + 2 * (4 * level + 3) + 31
