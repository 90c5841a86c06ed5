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

Every rule is compiled, in one copy (:mod:`mariash_env.games.voleny.table_decide`):
:meth:`TableRobot.act` checks and decides a canonical observation (float32, an int8 mask)
in one compiled call (:func:`~mariash_env.games.voleny.table_decide.checked_decide`);
another form, or one the check refuses, is decoded in Python
(:func:`~mariash_env.robots.features.decode`, which names the fault) and decided by
:meth:`TableRobot.decide`, whose per-phase methods call the same compiled functions.
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
from ...robots.base import Robot, no_legal_action, observation_arrays
from ...robots.card_view import CardPlayView
from ...robots.features import (
    VOLENY_OBS,
    ObsInfo,
    betl_risk,
    decode,
    durch_hole_suits,
    warm_check,
    winning_index,  # noqa: F401 (its old name here, for callers)
)
from . import actions as A

# the tunable thresholds (documented where used) and the compiled rules
from .table_decide import (  # noqa: F401 (the thresholds' names here, for callers)
    BETL_MAX_RISK,
    DURCH_MAX_HOLED,
    FELL_BACK,
    NO_LEGAL,
    REFUSED,
    TRUMP_MIN_GAP,
    announcement,
    checked_decide,
    contract_choice,
    discard_choice,
    trump_choice,
    wants_bad,
)
from .table_decide import betl_hand_10 as _betl_hand_10
from .table_decide import durch_hand as _durch_hand
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

_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)
_MASK_SHAPE = (A.N_ACTIONS,)
_NO_CARD = ("the card-play view has no legal card (legal is 0): is this seat to play a "
            "card?")


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

    decision_kernel = staticmethod(checked_decide)
    """Its compiled rules: in numba's disk cache, its warm-up only loads."""

    @staticmethod
    def warm_up() -> None:
        """Compile (or load) the kernels its decisions call from Python, on their types:
        the whole decision with its check, and for :meth:`decide` the hand's and the
        discards' values, the card play, the observation's check (not run: no view
        needed)."""
        warm_discards()
        warm_hand()
        view = np.zeros(VIEW_SIZE, np.int64)
        compile_for(choose_card, view)
        warm_check(VOLENY_OBS)  # then the one call of both reuses their compiled code
        compile_for(checked_decide, np.zeros(VOLENY_OBS.lengths[0], np.float32),
                    np.zeros(A.N_ACTIONS, np.int8), view, True, *VOLENY_OBS.tables)
        flags = (False,) * 3  # :meth:`decide`'s own calls, on their types
        for f, args in ((trump_choice, (0,)), (wants_bad, (0,)), (_durch_hand, (0,)),
                        (_betl_hand_10, (0,)), (contract_choice, (0, 0, *flags)),
                        (announcement, (0, 0, *flags)), (discard_choice, (0,) * 6)):
            compile_for(f, *args)

    # --- entry points ---------------------------------------------------------------
    def act(self, observation: dict[str, Any]) -> int:
        obs, mask = observation_arrays(observation)
        if (obs.dtype is _FLOAT32 and mask.dtype is _INT8 and obs.ndim == 1
                and obs.shape[0] in VOLENY_OBS.lengths and mask.shape == _MASK_SHAPE
                and obs.flags.carray and mask.flags.carray):
            # The common case: checked and decided in one compiled call.
            a = checked_decide(obs, mask, self._view, self.check, *VOLENY_OBS.tables)
            if a >= FELL_BACK:
                self.fallbacks += 1
                return a - FELL_BACK
            if a >= 0:
                return a
            if a == NO_LEGAL:
                raise no_legal_action()
            if a != REFUSED:
                raise ValueError(_NO_CARD)
            # refused: decode's numpy check below names the fault
        return self.decide(decode(obs, mask, check=self.check))

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
        if a < 0 or not o.mask[a]:  # a safety net: never an illegal action (tests count them)
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
        ``trump:blind``.  Ties go to the suit with more cards, then to hearts first
        (compiled: :func:`~mariash_env.games.voleny.table_decide.trump_choice`).
        """
        return int(trump_choice(o.hand))

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
        return bool(_durch_hand(hand10))

    @staticmethod
    def betl_hand_10(hand10: int) -> bool:
        """A betl-worthy 10-card hand: at most ``BETL_MAX_RISK`` holes after the first lead."""
        return bool(_betl_hand_10(hand10))

    def choose_contract(self, o: ObsInfo) -> int:
        """Durch with no holed suit, else betl with at most ``BETL_MAX_RISK`` holes (best
        discards of the 12 cards), else the suit game; a bad-sayer, who has no suit game,
        takes whichever of betl and durch is closer to safe (compiled:
        :func:`~mariash_env.games.voleny.table_decide.contract_choice`; the values are
        :meth:`durch_hand_12`'s and :meth:`betl_hand`'s)."""
        m = o.mask
        return int(contract_choice(o.hand, o.talon, bool(m[A.CONTRACT_DURCH]),
                                   bool(m[A.CONTRACT_BETL]), bool(m[A.CONTRACT_SUIT])))

    def choose_discard(self, o: ObsInfo) -> int:
        """Suit game: drop cards that keep the hand strongest (short low side suits into
        voids; never aces, tens or the trump card, which the rules bar anyway; trumps and
        marriage cards last).  Betl / durch: drop the cards that leave the fewest holes.
        -1 when the mask allows no discard (:meth:`decide` then falls back)."""
        allowed = 0
        for a in o.legal:
            if A.DISCARD0 <= a < A.DISCARD0 + 32:
                allowed |= 1 << (a - A.DISCARD0)
        # The first card of the best pair; the second: the best partner of the first (the
        # observation shows the first discard in ``talon``), which is the second card of
        # the best pair (compiled: :func:`~mariash_env.games.voleny.table_decide.discard_choice`).
        return int(discard_choice(o.hand, allowed, o.ndisc, o.contract, o.trump, o.talon))

    def wants_bad(self, o: ObsInfo) -> bool:
        """Barva? -- *špatná* only with a betl or durch already in the own ten cards (the
        talon taken after *špatná* can only improve them)."""
        return bool(wants_bad(o.hand))

    def choose_announcement(self, o: ObsInfo) -> int:
        """Sedma with the trump seven and at least four trumps; sto with a marriage and an
        estimated hundred (:func:`estimate_points`); sto a sedma with both; else hra
        (compiled: :func:`~mariash_env.games.voleny.table_decide.announcement`)."""
        m = o.mask
        return int(announcement(o.hand, o.trump, bool(m[A.ANNOUNCE_SEDMA]),
                                bool(m[A.ANNOUNCE_STO]), bool(m[A.ANNOUNCE_STO_SEDMA])))

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
            raise ValueError(_NO_CARD)
        return c
