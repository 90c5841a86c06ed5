"""The rule robot of lízaný (``mariash_env.lizany``), from the observation alone.

``make_robot("table", rules="lizany")`` or ``make_robot("lizany_table")``.  Its rules, in
order (points: aces and tens 10, marriages 20 / 40 credited when a K or Q of a held pair
is played, RULES.md §7):

* **A marriage first**: a K or Q of a pair it holds is played whenever it is legal (the
  marriage counts whoever takes the trick), the trump marriage before the others.
* **While the stock lasts** (free play): on lead, the cheapest card — no ace or ten, no
  trump, the lowest rank; following, take an ace or ten led (or a ten led under its ace)
  with the cheapest winner (same suit before a low trump, never a trump ace or ten), take
  a plain card with its suit's ace or ten (banking 10), otherwise throw the cheapest card.
* **Once the stock is empty** every card outstanding is in the opponent's hand: on lead, a
  card the opponent cannot beat under the follow-and-beat rule (the richest first), else
  the cheapest card; following, the winner that banks most (lowest rank among equals),
  else the cheapest legal card.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import NCARDS, cards_of
from ...core.jit import njit
from ...core.tables import CARD_POINTS
from ...core.tricks import announces_marriage_py, beats_py, follow_py, strength_py
from ...robots.base import ObservationError, Robot, legal_of, observation_arrays
from ...robots.features import ObsSpec, check_observation, plain_ok, warm_check
from .actions import N_ACTIONS, OBS_SIZE
from .game import OBS, SC_EMPTY, mask_from

_PTS = tuple(int(x) for x in CARD_POINTS)
_BITS = 1 << np.arange(NCARDS, dtype=np.int64)


def _lizany_bits(bits: np.ndarray) -> None:
    """Lízaný's own check: the trump suit is the turned-up card's."""
    card = int(np.flatnonzero(bits[OBS["trump_card"][0]:][:NCARDS])[0])
    suit = int(np.flatnonzero(bits[OBS["trump_suit"][0]:][:4])[0])
    if card >> 3 != suit:
        raise ObservationError(f"block 'trump_suit' says suit {suit} but the turned-up card "
                               f"{card} is of suit {card >> 3}: expected the same suit")


_TRUMP_CARD, _TRUMP_SUIT = OBS["trump_card"][0], OBS["trump_suit"][0]


@njit
def _lizany_ok(v, numbers, groups, mask):
    """Lízaný's whole check compiled, as a test (``ObsSpec.compiled``): the shared checks,
    then :func:`_lizany_bits`'s."""
    if not plain_ok(v, numbers, groups, mask):
        return False
    card = suit = -1
    for c in range(NCARDS):
        if v[_TRUMP_CARD + c] > 0.5:
            card = c
            break
    for s in range(4):
        if v[_TRUMP_SUIT + s] > 0.5:
            suit = s
            break
    return card >= 0 and card >> 3 == suit


_SC = OBS["scalars"][0]
LIZANY_OBS = ObsSpec(
    what="a lízaný observation", lengths=(OBS_SIZE,), others="", layout=dict(OBS),
    # the scalars that count (stock, points, marriages, tricks, trick, totals); the
    # others are flags
    numbers=tuple(_SC + i for i in (0, 2, 3, 4, 5, 6, 7, 11, 14, 15)),
    numbers_text="the scalars block's counts",
    at_most_one=(("table", 32), ("marriages", 2)),
    exactly_one=(("trump_card", 32), ("trump_suit", 4)),
    n_actions=N_ACTIONS, extra=_lizany_bits, compiled=_lizany_ok)
"""Lízaný's canonical observation (its rule robot checks it, as volený's does)."""


class LizanyRuleRobot(Robot):
    """Deterministic rule robot of lízaný (module documentation)."""

    name = "lizany_table"
    games = ("lizany",)

    def __init__(self) -> None:
        warm_check(LIZANY_OBS)  # compiled (or loaded) now, not in the first decision

    def act(self, observation: dict[str, Any]) -> int:
        o, mask = observation_arrays(observation)
        o = check_observation(o, mask, LIZANY_OBS)  # as volený's robot checks its own
        legal = int(_BITS[legal_of(observation)].sum())
        trump = int(np.argmax(o[OBS["trump_suit"][0]:OBS["trump_suit"][0] + 4]))
        hand = mask_from(o[OBS["hand"][0]:])
        table = mask_from(o[OBS["table"][0]:])
        lead = not table  # the robot is to move: a card on the table is the opponent's
        empty = o[OBS["scalars"][0] + SC_EMPTY] > 0.5
        cards = cards_of(legal)

        def cost(c: int) -> tuple[int, int, int]:
            # what a card gives away: points, being a trump, its rank
            return (_PTS[c], (c >> 3) == trump, strength_py(c, trump))

        pairs = [c for c in cards if announces_marriage_py(hand, c, False)]
        if pairs:
            return min(pairs, key=lambda c: ((c >> 3) != trump, c & 7 == 6))
        if lead:
            if empty:
                seen = hand | mask_from(o[OBS["played_me"][0]:]) | mask_from(
                    o[OBS["played_opp"][0]:])
                opp = ((1 << NCARDS) - 1) & ~seen
                safe = [c for c in cards
                        if not any(beats_py(r, c, trump) for r in cards_of(
                            follow_py(opp, c, c, trump)))]
                if safe:
                    return max(safe, key=lambda c: (_PTS[c], -strength_py(c, trump)))
            return min(cards, key=cost)
        x = int(table).bit_length() - 1
        wins = [c for c in cards if beats_py(c, x, trump)]
        if empty:
            if wins:
                return max(wins, key=lambda c: (_PTS[c], -strength_py(c, trump)))
            return min(cards, key=cost)
        if _PTS[x]:
            cheap = [c for c in wins if (c >> 3) != trump or not _PTS[c]]
            if cheap:
                return min(cheap, key=lambda c: ((c >> 3) == trump, _PTS[c],
                                                 strength_py(c, trump)))
        banks = [c for c in wins if (c >> 3) != trump and _PTS[c]]
        if banks:
            return min(banks, key=lambda c: strength_py(c, trump))
        return min(cards, key=cost)

