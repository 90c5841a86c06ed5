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

The rules are compiled (:func:`decide`) and checked in the same call
(:func:`checked_decide`: a float32 observation with an int8 mask); another form, or an
observation the check refuses, goes through the numpy check, which names the fault.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...cards import NCARDS
from ...core.jit import compile_for, njit, njit_generic
from ...core.tables import ABOVE_PLAIN, ABOVE_TRUMP, CARD_POINTS, SUIT_MASK
from ...core.tricks import announces_marriage, beats, follow, strength
from ...robots.base import ObservationError, Robot, no_legal_action, observation_arrays
from ...robots.features import ObsSpec, check_observation, plain_ok, warm_check
from ..voleny.table_play import bits32  # the card set of 32 slots (> 0.5: set)
from .actions import N_ACTIONS, OBS_SIZE, SC_EMPTY
from .game import OBS


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


NO_LEGAL = -1
"""What :func:`decide` answers for a mask with no legal action."""
REFUSED = -2
"""What :func:`checked_decide` answers for an observation the check refuses."""
_HAND, _TABLE = OBS["hand"][0], OBS["table"][0]
_PLAYED_ME, _PLAYED_OPP = OBS["played_me"][0], OBS["played_opp"][0]
_EMPTY = _SC + SC_EMPTY


@njit_generic
def _cheapest(cards, trump):
    """The card that gives away least: fewest points, no trump, the lowest rank (ties:
    the lowest card)."""
    best, best_k = -1, 0
    for c in range(NCARDS):
        if (cards >> c) & 1:
            k = (CARD_POINTS[c] * 2 + ((c >> 3) == trump)) * 8 + strength(c, trump)
            if best < 0 or k < best_k:
                best, best_k = c, k
    return best


@njit_generic
def _richest(cards, trump):
    """The card that banks most: most points, then the lowest rank (ties: the lowest
    card)."""
    best, best_k = -1, 0
    for c in range(NCARDS):
        if (cards >> c) & 1:
            k = CARD_POINTS[c] * 8 - strength(c, trump)
            if best < 0 or k > best_k:
                best, best_k = c, k
    return best


@njit_generic
def decide(obs, mask):
    """The rule robot's card (module docstring) from a lízaný observation (float32) and
    action mask (int8); :data:`NO_LEGAL` for a mask with no legal card."""
    legal = 0
    for c in range(NCARDS):
        if mask[c]:
            legal |= 1 << c
    if not legal:
        return NO_LEGAL
    trump = 0  # the first largest slot of the trump suit's block (numpy's argmax)
    for s in range(1, 4):
        if obs[_TRUMP_SUIT + s] > obs[_TRUMP_SUIT + trump]:
            trump = s
    hand = bits32(obs, _HAND)
    table = bits32(obs, _TABLE)
    empty = obs[_EMPTY] > 0.5
    # A marriage first, the trump marriage before the others, a queen before a king.
    best, best_k = -1, 0
    for c in range(NCARDS):
        if (legal >> c) & 1 and announces_marriage(hand, c, False):
            k = 2 * ((c >> 3) != trump) + ((c & 7) == 6)
            if best < 0 or k < best_k:
                best, best_k = c, k
    if best >= 0:
        return best
    if not table:  # on lead: the table's card would be the opponent's
        if empty:
            opp = ((1 << NCARDS) - 1) & ~(hand | bits32(obs, _PLAYED_ME)
                                          | bits32(obs, _PLAYED_OPP))
            safe = 0
            for c in range(NCARDS):
                if (legal >> c) & 1:
                    f = follow(opp, c, c, trump, SUIT_MASK, ABOVE_TRUMP, ABOVE_PLAIN)
                    beaten = False
                    for r in range(NCARDS):
                        if (f >> r) & 1 and beats(r, c, trump):
                            beaten = True
                            break
                    if not beaten:
                        safe |= 1 << c
            if safe:
                return _richest(safe, trump)
        return _cheapest(legal, trump)
    x = 0
    while table >> (x + 1):
        x += 1
    wins = 0
    for c in range(NCARDS):
        if (legal >> c) & 1 and beats(c, x, trump):
            wins |= 1 << c
    if empty:
        return _richest(wins, trump) if wins else _cheapest(legal, trump)
    if CARD_POINTS[x]:  # an ace or ten led: the cheapest winner, never a trump ace or ten
        best, best_k = -1, 0
        for c in range(NCARDS):
            if (wins >> c) & 1 and ((c >> 3) != trump or not CARD_POINTS[c]):
                k = (((c >> 3) == trump) * 1000 + CARD_POINTS[c] * 10) + strength(c, trump)
                if best < 0 or k < best_k:
                    best, best_k = c, k
        if best >= 0:
            return best
    best = -1  # a plain card taken with its suit's ace or ten: the lowest of them
    for c in range(NCARDS):
        if (wins >> c) & 1 and (c >> 3) != trump and CARD_POINTS[c]:
            if best < 0 or strength(c, trump) < strength(best, trump):
                best = c
    if best >= 0:
        return best
    return _cheapest(legal, trump)


@njit_generic
def checked_decide(obs, mask, numbers, groups):
    """:func:`decide` after the compiled check of :data:`LIZANY_OBS` (``numbers, groups``:
    its tables), in one call: :data:`REFUSED` for an observation or mask it refuses."""
    if not _lizany_ok(obs, numbers, groups, mask):
        return REFUSED
    return decide(obs, mask)


_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)
_OBS_SHAPE, _MASK_SHAPE = (OBS_SIZE,), (N_ACTIONS,)


class LizanyRuleRobot(Robot):
    """Deterministic rule robot of lízaný (module documentation)."""

    name = "lizany_table"
    games = ("lizany",)

    decision_kernel = staticmethod(checked_decide)
    """Its compiled rules: in numba's disk cache, its warm-up only loads."""

    @staticmethod
    def warm_up() -> None:
        """Compile (or load) the kernels its decisions call, on the types :meth:`act` hands
        them (not run): the check, the rules and the one call of both, which then reuses
        their compiled code.  ``make_robot`` runs it first, announced as the other table
        robots' warm-ups are."""
        warm_check(LIZANY_OBS)
        obs, mask = np.zeros(OBS_SIZE, np.float32), np.zeros(N_ACTIONS, np.int8)
        compile_for(decide, obs, mask)
        compile_for(checked_decide, obs, mask, *LIZANY_OBS.tables)

    def __init__(self) -> None:
        self.warm_up()  # compiled (or loaded) now, not in the first decision

    def act(self, observation: dict[str, Any]) -> int:
        o, mask = observation_arrays(observation)
        if (o.dtype is _FLOAT32 and mask.dtype is _INT8 and o.shape == _OBS_SHAPE
                and mask.shape == _MASK_SHAPE and o.flags.carray and mask.flags.carray):
            # The common case: checked and decided in one compiled call.
            a = checked_decide(o, mask, *LIZANY_OBS.tables)
            if a >= 0:
                return a
            if a == NO_LEGAL:
                raise no_legal_action()
            # refused: the numpy check below names the fault
        o = check_observation(o, mask, LIZANY_OBS)  # as volený's robot checks its own
        if not np.count_nonzero(mask):
            raise no_legal_action()
        return int(decide(o, np.ascontiguousarray(mask != 0, dtype=np.int8)))
