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
from ...core.tables import CARD_POINTS
from ...core.tricks import announces_marriage_py, beats_py, follow_py, strength_py
from ...robots.base import ObservationError, Robot, legal_of, observation_arrays
from .actions import N_ACTIONS, OBS_SIZE
from .game import OBS, SC_EMPTY, mask_from

_PTS = tuple(int(x) for x in CARD_POINTS)
_BITS = 1 << np.arange(NCARDS, dtype=np.int64)


class LizanyRuleRobot(Robot):
    """Deterministic rule robot of lízaný (module documentation)."""

    name = "lizany_table"
    games = ("lizany",)

    def act(self, observation: dict[str, Any]) -> int:
        o, mask = observation_arrays(observation)
        if o.shape != (OBS_SIZE,) or mask.shape != (N_ACTIONS,):
            raise ObservationError(f"a lízaný observation is {OBS_SIZE} floats and its mask "
                                   f"{N_ACTIONS} values, got shapes {o.shape} and {mask.shape}")
        if not np.isfinite(o).all():
            raise ObservationError("a lízaný observation holds a value that is not finite")
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

