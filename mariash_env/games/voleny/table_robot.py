"""The table robot: the online table's fixed rule-based player (its rules, a program's notes).

:class:`TableRobot` decides from the observation alone (decoded by
:mod:`mariash_env.robots.features`), deterministically: the same observation always
gives the same action, on every seat.  Its parts:

* **flek, re, tutti, hry proti** -- exactly the online table's rule (its last paragraph), one
  method per sentence (:meth:`TableRobot.flek_actions`, the docstrings quote the Czech);
* **trump choice** -- the program's notes: compare the suits' strength by a point score
  and take the lowest card of the strongest suit when it stands out enough, else *z lidu*;
* **contract, discards, Barva?, betl answers** -- the program's hole counting
  (:func:`~mariash_env.robots.features.betl_holes`,
  :func:`~mariash_env.robots.features.durch_hole_suits`);
* **announcement** -- sedma with the trump seven and four trumps, sto with a marriage
  and an estimated hundred, both, or hra;
* **card play** -- plain suit-game technique (cash aces, catch tens with aces, draw
  trumps with the boss trump, keep the trump seven for the last trick, smear points
  to a winning partner, play high behind the actor), betl and durch attack, and the
  defence priorities of the program's notes: compiled, in
  :mod:`mariash_env.games.voleny.table_play` (its one copy), read from the
  :class:`CardPlayView` packed as an array;
* it lays the cards down whenever that is offered.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ...core.jit import compile_for
from ...core.state import (
    C_BETL,
    C_DURCH,
    PH_ANNOUNCE,
    PH_BARVA,
    PH_BETL_ANSWER,
    PH_CONTRACT,
    PH_DISCARD,
    PH_FLEK,
    PH_PLAY,
    PH_TRUMP,
)
from ...robots.base import Robot, no_legal_action
from ...robots.card_view import CardPlayView
from ...robots.features import (
    VOLENY_OBS,
    ObsInfo,
    betl_risk,
    cards,
    decode,
    decode_dict,
    durch_hole_suits,
    in_suit,
    popcount,
    strength,
    warm_check,
    winning_index,  # noqa: F401 (its old name here, for callers)
)
from . import actions as A
from .table_discards import best_pair, discard_cost, suit_keep_value  # noqa: F401
from .table_discards import warm as warm_discards
from .table_hand import (  # noqa: F401 (the robots' names for them)
    STO_MIN_ESTIMATE,
    TRUMP_CARD_VALUE,
    TRUMP_LENGTH_BONUS,
    TRUMP_MARRIAGE_BONUS,
    estimate_points,
    flek_wanted,
    sharps_in,
    suit_score,
    trumps_in,
)
from .table_hand import warm as warm_hand
from .table_play import VIEW_SIZE, choose_card, view_array

# --- tunable thresholds (documented where used) ------------------------------------------
TRUMP_MIN_GAP = 10  # strongest minus weakest suit score needed to choose a suit
BETL_MAX_RISK = 2  # a betl is played with at most this many holes after the first lead
DURCH_MAX_HOLED = 0  # a durch only with no holed suit


def _discard_cost(contract: int, trump: int, talon: int):
    """The cost (lower is better) of keeping ``rest`` after laying the pair ``pm``
    (:func:`~mariash_env.games.voleny.table_discards.discard_cost`)."""
    return lambda rest, pm: discard_cost(rest, pm | talon, contract, trump)


@lru_cache(maxsize=4096)
def _best_pair(hand: int, allowed: int, contract: int, trump: int, talon: int) -> tuple[int, int]:
    """The two cards of ``allowed`` to lay
    (:func:`~mariash_env.games.voleny.table_discards.best_pair`)."""
    a, b = best_pair(hand, allowed, contract, trump, talon)
    return int(a), int(b)


class TableRobot(Robot):
    """The deterministic rule-based robot of the online table (module docstring)."""

    name = "table"
    games = ("voleny",)  # at four players from the deal's three-seat observation

    def __init__(self) -> None:
        self.fallbacks = 0  # decisions where the rules above picked an illegal action
        # False only where the observations come straight from the encoder (a search's
        # playouts): they need no canonical check.
        self.check = True
        self._view = np.zeros(VIEW_SIZE, np.int64)  # the card play's view array, reused

    decision_kernel = staticmethod(choose_card)
    """Its largest compiled kernel: in numba's disk cache, its warm-up only loads."""

    @staticmethod
    def warm_up() -> None:
        """Compile (or load) the kernels its decisions call from Python, on their types:
        the hand's and the discards' values, the card play, the observation's check (not
        run: no view needed)."""
        warm_discards()
        warm_hand()
        compile_for(choose_card, np.zeros(VIEW_SIZE, np.int64))
        warm_check(VOLENY_OBS)

    # --- entry points ---------------------------------------------------------------
    def act(self, observation: dict[str, Any]) -> int:
        if not self.check:
            return self.decide(decode(observation["observation"], observation["action_mask"],
                                      check=False))
        return self.decide(decode_dict(observation))

    def decide(self, o: ObsInfo) -> int:
        legal = o.legal
        if not legal:
            raise no_legal_action()
        if o.mask[A.LAY_DOWN]:
            return A.LAY_DOWN
        if len(legal) == 1:
            return legal[0]
        ph = o.phase
        if ph == PH_TRUMP:
            a = self.choose_trump(o)
        elif ph == PH_CONTRACT:
            a = self.choose_contract(o)
        elif ph == PH_DISCARD:
            a = self.choose_discard(o)
        elif ph == PH_BARVA:
            a = A.BAD if self.wants_bad(o) else A.GOOD
        elif ph == PH_BETL_ANSWER:
            # Under open contracts a durch is answered too (RULES.md §11.1): only good.
            durch = o.mask[A.CONTRACT_DURCH] and self.durch_hand(o.hand)
            a = A.CONTRACT_DURCH if durch else A.GOOD
        elif ph == PH_ANNOUNCE:
            a = self.choose_announcement(o)
        elif ph == PH_FLEK:
            a = self.choose_flek(o)
        elif ph == PH_PLAY:
            a = self.choose_card(o)
        else:
            a = legal[0]
        if not o.mask[a]:  # a safety net: never return an illegal action (tests count them)
            self.fallbacks += 1
            a = legal[0]
        return int(a)

    # --- trumps, contract, discards ----------------------------------------------------
    def choose_trump(self, o: ObsInfo) -> int:
        """The program's notes: *Počítač vybírá trumf tak, že porovná sílu všech barev a pokud
        je rozdíl v bodovém hodnocení nejsilnější a nejslabší barvy dost velký, zvolí za trumf
        nejslabší kartu z této barvy, jinak volí z lidu.*

        Each suit of the first seven cards scores ``TRUMP_CARD_VALUE`` per card plus a length
        bonus (and a bonus for a marriage); when the strongest suit beats the weakest by at
        least ``TRUMP_MIN_GAP`` its lowest card (trump order) is the trump card, otherwise
        ``trump:blind``.  Ties go to the suit with more cards, then to hearts first.
        """
        scores = [suit_score(o.hand, s) for s in range(4)]
        best = max(range(4), key=lambda s: (scores[s], popcount(in_suit(o.hand, s)), -s))
        if scores[best] - min(scores) < TRUMP_MIN_GAP:
            return A.TRUMP_BLIND
        m = in_suit(o.hand, best)
        low = min(cards(m), key=lambda c: strength(c, best))
        return A.TRUMP0 + low

    @staticmethod
    @lru_cache(maxsize=4096)
    def betl_hand(hand12: int, out: int = 0) -> tuple[int, tuple[int, int]]:
        """Least betl risk (:func:`~mariash_env.robots.features.betl_risk`) over the 66
        discard pairs of a 12-card hand, and that pair."""
        pair = _best_pair(hand12, hand12, C_BETL, -1, out)
        pm = (1 << pair[0]) | (1 << pair[1])
        return int(betl_risk(hand12 & ~pm, out | pm)), pair

    @staticmethod
    @lru_cache(maxsize=4096)
    def durch_hand_12(hand12: int, out: int = 0) -> tuple[int, tuple[int, int]]:
        pair = _best_pair(hand12, hand12, C_DURCH, -1, out)
        pm = (1 << pair[0]) | (1 << pair[1])
        return int(durch_hole_suits(hand12 & ~pm, out | pm)), pair

    @staticmethod
    def durch_hand(hand10: int) -> bool:
        """A durch-worthy 10-card hand: no holed suit (the program's notes).  Taking a talon and
        discarding two can only keep or improve it."""
        return durch_hole_suits(hand10) <= DURCH_MAX_HOLED

    @staticmethod
    def betl_hand_10(hand10: int) -> bool:
        """A betl-worthy 10-card hand: at most ``BETL_MAX_RISK`` holes after the first lead."""
        return betl_risk(hand10) <= BETL_MAX_RISK

    def choose_contract(self, o: ObsInfo) -> int:
        """Durch with no holed suit, else betl with at most ``BETL_MAX_RISK`` holes (best
        discards of the 12 cards), else the suit game; a bad-sayer, who has no suit game,
        takes whichever of betl and durch is closer to safe."""
        dh, _ = self.durch_hand_12(o.hand, o.talon)
        if dh <= DURCH_MAX_HOLED and o.mask[A.CONTRACT_DURCH]:
            return A.CONTRACT_DURCH
        bh, _ = self.betl_hand(o.hand, o.talon)
        if bh <= BETL_MAX_RISK and o.mask[A.CONTRACT_BETL]:
            return A.CONTRACT_BETL
        if o.mask[A.CONTRACT_SUIT]:
            return A.CONTRACT_SUIT
        return A.CONTRACT_DURCH if dh == 0 or 2 * dh < bh else A.CONTRACT_BETL

    def choose_discard(self, o: ObsInfo) -> int:
        """Suit game: drop cards that keep the hand strongest (short low side suits into
        voids; never aces, tens or the trump card, which the rules bar anyway; trumps and
        marriage cards last).  Betl / durch: drop the cards that leave the fewest holes."""
        allowed = 0
        for a in o.legal:
            if A.DISCARD0 <= a < A.DISCARD0 + 32:
                allowed |= 1 << (a - A.DISCARD0)
        if o.ndisc == 0:
            return A.DISCARD0 + _best_pair(o.hand, allowed, o.contract, o.trump, o.talon)[0]
        # The second card: the best partner of the first (the observation shows the first
        # discard in ``talon``), which is the second card of the best pair.
        cost = _discard_cost(o.contract, o.trump, o.talon)
        best = min(cards(allowed), key=lambda c: (cost(o.hand & ~(1 << c), 1 << c), -(c & 7)))
        return A.DISCARD0 + best

    def wants_bad(self, o: ObsInfo) -> bool:
        """Barva? -- *špatná* only with a betl or durch already in the own ten cards (the
        talon taken after *špatná* can only improve them)."""
        return self.durch_hand(o.hand) or self.betl_hand_10(o.hand)

    def choose_announcement(self, o: ObsInfo) -> int:
        """Sedma with the trump seven and at least four trumps; sto with a marriage and an
        estimated hundred (:func:`estimate_points`); sto a sedma with both; else hra."""
        t = o.trump
        sedma = bool(o.mask[A.ANNOUNCE_SEDMA]) and trumps_in(o.hand, t) >= 4
        sto = bool(o.mask[A.ANNOUNCE_STO]) and estimate_points(o.hand, t) >= STO_MIN_ESTIMATE
        if sedma and sto and o.mask[A.ANNOUNCE_STO_SEDMA]:
            return A.ANNOUNCE_STO_SEDMA
        if sto:
            return A.ANNOUNCE_STO
        if sedma:
            return A.ANNOUNCE_SEDMA
        return A.ANNOUNCE_HRA

    # --- flek (the online table's rules, last paragraph) ------------------------------------
    def choose_flek(self, o: ObsInfo) -> int:
        for a in self.flek_actions(CardPlayView.of_info(o)):
            if o.mask[a]:
                return a
        return A.GOOD

    def flek_actions(self, o: CardPlayView | ObsInfo) -> list[int]:
        """The raises and announcements the robot wants in this flek turn (it then says
        *dobrá*).  *Roboti flekují podle jednoho pevného pravidla — na každém sedadle stejně
        a nikdy náhodně.*  Read from the game's :class:`CardPlayView` (a decoded volený
        observation is viewed first); the rule is compiled
        (:func:`~mariash_env.games.voleny.table_hand.flek_wanted`):

        * the defence's first answer -- *Hru (i hru v sedmě) flekují s hláškou (král a filek
          jedné barvy), se třemi trumfy nebo se třemi esy a desítkami v ruce* (the game bet
          of hra or sedma: a marriage, or three trumps, or three aces and tens); *sto se
          čtyřmi trumfy nebo čtyřmi esy a desítkami*; *sedmu se třemi trumfy*; *betl se
          dvěma sedmami, durch se dvěma esy*; *Sedmu proti ohlásí s trumfovou sedmou a pěti
          trumfy, sto proti jen s hláškou v trumfech a pěti esy a desítkami — tedy
          výjimečně.*
        * after the actor's *re* -- *Flekují jen jednou; tutti řeknou jen výjimečně — na hru,
          na kterou forhont dal re, když drží hlášku v trumfech nebo dvě hlášky.*  *Boty
          nehrají.*
        * the actor -- *Když robot hraje sám, odpoví na flek re jen s velmi silnou kartou: na
          hru se šesti trumfy (nebo pěti s trumfovým esem a desítkou a čtyřmi esy a desítkami
          celkem), na sedmu se šesti trumfy včetně sedmy, na betl se třemi sedmami a ničím nad
          devítku.*  (No re on sto or durch.)  *Hru proti mu ohlášenou zaflekuje — sedmu proti
          se čtyřmi trumfy, sto proti se třemi esy a desítkami*; *flekují jen jednou*.
        """
        if isinstance(o, ObsInfo):
            o = CardPlayView.of_info(o)
        ex = sum(1 << b for b in range(4) if o.bet_exists[b])
        lv = o.bet_level
        bits = int(flek_wanted(o.hand, o.trump, o.contract, o.announce, o.actor, o.flek_round,
                               ex, lv[0], lv[1], lv[2], lv[3], o.raisable))
        return [A.AGAINST_SEVEN + i for i in range(6) if (bits >> i) & 1]

    # --- card play ---------------------------------------------------------------------------
    def choose_card(self, o: CardPlayView | ObsInfo) -> int:
        """The ``play:`` action of :meth:`play_card` (a decoded volený observation is
        viewed first)."""
        if isinstance(o, ObsInfo):
            o = CardPlayView.of_info(o)
        return A.PLAY0 + self.play_card(o)

    def play_card(self, o: CardPlayView) -> int:
        """The card to play, from the game's :class:`CardPlayView` alone (any game whose
        card play is volený's: suit games, betl and durch): the compiled card play of
        :func:`~mariash_env.games.voleny.table_play.choose_card` on the view packed as its
        array."""
        c = int(choose_card(view_array(o, self._view)))
        if c < 0:
            raise ValueError("the card-play view has no legal card (legal is 0): is this "
                             "seat to play a card?")
        return c
