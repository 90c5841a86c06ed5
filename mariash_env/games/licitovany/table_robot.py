"""The table robot of licitovaný mariáš (LICITOVANY.md): deterministic, from the seat's
observation alone.

* **auction** -- it values its hand for every game of §3 (:func:`makeable`: sure trumps
  and sevens, estimated points, marriages, betl holes, durch holes) and never bids above
  the highest game it can make: the challenger bids the lowest game above the standing
  bid, the holder holds while he could still play a game at or above it, forhond alone
  bids the lowest;
* **announcement** -- the highest game it can make with the 12 cards at or above the bid,
  else the cheapest (``fold`` after a sedma bid), trumps by the program's suit score, the
  helping suit it is longest in, the discards of the volený robot's cost functions, a
  betl's low lead from its shortest suit, a durch's top card from its longest;
* **flek and card play** -- the volený :class:`~mariash_env.games.voleny.table_robot.TableRobot`'s
  rules and technique, read from the typed
  :class:`~mariash_env.robots.card_view.CardPlayView` this module builds from the
  licitovaný observation itself (:func:`card_play_view`): the game and hundred are flekked
  as volený's game bet, the seven and two sevens as its seven, and the reserved sevens
  are already held back by the action mask.

The rules are compiled, in one copy (:func:`~mariash_env.games.licitovany.table_decide.decide`),
which a search's simulations call without leaving compiled code; :meth:`LicitTableRobot.act`
checks the whole observation first, as volený's robot does (:data:`LICIT_OBS`; unless
``check`` is off: the encoder's own observations).  A float32 observation with an int8
mask is checked and decided in one compiled call (:func:`checked_decide`); only one it
refuses, or another form, goes through the numpy check, which names the fault.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.jit import compile_for, njit, njit_generic
from ...core.state import (
    B_GAME,
    B_SEVEN,
    K_GAME,
    K_HUNDRED,
    K_SEVEN,
    K_TWO_SEVENS,
)
from ...robots.base import Robot, no_legal_action, observation_arrays
from ...robots.card_view import CardPlayView
from ...robots.features import (
    ObservationError,
    ObsSpec,
    check_levels,
    check_observation,
    check_tricks,
    is_canonical,
    levels_ok,
    plain_ok,
    tricks_ok,
    warm_check,
)
from ..voleny.table_play import VIEW_SIZE, bits32
from ..voleny.table_robot import (
    TableRobot,
)
from . import actions as LA
from .observe import (
    LO_COMP_EXISTS,
    LO_COMP_LEVEL,
    LOBS_LAYOUT,
    LOBS_SIZE,
    LSTATE_OBS_SIZE,
)
from .table_decide import best_game, decide, makeable
from .table_play import decode_licit

_L = {name: (off, n) for name, off, n, _ in LOBS_LAYOUT if off < LOBS_SIZE}
_PHASE_SLOTS = ("bid", "hold", "lone_bid", "game", "trumps", "helping", "discard", "lead",
                "flek", "play", "done")
# The volený bet each component is flekked as: the game and hundred as the game bet, the
# seven and two sevens as the seven (the later component's level wins, as one bet).
_BET_OF = ((K_GAME, B_GAME), (K_HUNDRED, B_GAME), (K_SEVEN, B_SEVEN), (K_TWO_SEVENS, B_SEVEN))


def _licit_bits(bits: np.ndarray) -> None:
    """Licitovaný's own checks: a flek level exactly for each component that exists, one
    consistent history of tricks."""
    check_levels(bits, _L, "comp_exists", "comp_level", "component")
    check_tricks(bits, _L)


_COMP_EXISTS, _N_COMPS = _L["comp_exists"]
_COMP_LEVEL = _L["comp_level"][0]  # 8 slots a component
_PLAYED_BY, _PLAYED_IN = _L["played_by"][0], _L["played_in"][0]
_CUR_TRICK, _TRICK_LEADER = _L["cur_trick"][0], _L["trick_leader"][0]


@njit
def _licit_ok(v, numbers, groups, mask):
    """Licitovaný's whole check compiled, as a test (``ObsSpec.compiled``): the shared
    checks, then :func:`_licit_bits`'s."""
    return plain_ok(v, numbers, groups, mask) and levels_ok(
        v, _COMP_EXISTS, _COMP_LEVEL, _N_COMPS) and tricks_ok(
        v, _PLAYED_BY, _PLAYED_IN, _CUR_TRICK, _TRICK_LEADER)


LICIT_OBS = ObsSpec(
    what="a licitovaný observation", lengths=(LOBS_SIZE, LSTATE_OBS_SIZE),
    others=f" (or the omniscient {LSTATE_OBS_SIZE})", layout=_L,
    numbers=ObsSpec.slots(_L, "raise_turn", "points", "ntricks", "score"),
    numbers_text="the raise_turn, points, ntricks and score blocks",
    at_most_one=(("lead", 32), ("trick_leader", 3), ("cur_trick", 32), ("bid_by", 3),
                 ("hold_by", 3), ("passed", 13), ("holder", 3), ("challenger", 3),
                 ("high_seat", 3), ("game", 12), ("actor", 3), ("trump_suit", 4),
                 ("helping", 4), ("comp_level", 8), ("raised_by", 3), ("flek_turn", 8),
                 ("quiet", 3), ("marriage", 3), ("first_marriage", 4)),
    exactly_one=(("high", 13), ("forhond", 3), ("dealer", 3), ("phase", 11),
                 ("deal_no", 12)),
    n_actions=LA.N_ACTIONS, extra=_licit_bits, compiled=_licit_ok)
"""Licitovaný's canonical observation (the table robot checks it, as volený's does)."""

REFUSED = -2
"""What :func:`checked_decide` answers for an observation :data:`LICIT_OBS` refuses."""


@njit_generic
def checked_decide(obs, mask, view, numbers, groups):
    """:func:`~mariash_env.games.licitovany.table_decide.decide` after the compiled check
    of :data:`LICIT_OBS` (``numbers, groups``: its tables), in one call: the action, -1
    for a mask with no legal action, :data:`REFUSED` for an observation or mask the check
    refuses (the numpy check then names the fault)."""
    if not _licit_ok(obs, numbers, groups, mask):
        return REFUSED
    return decide(obs, mask, view)


def _block(v: np.ndarray, name: str) -> np.ndarray:
    off, n = _L[name]
    return v[off:off + n]


def _check_view(v: np.ndarray, mask: np.ndarray) -> None:
    """ObservationError unless ``v`` is a seat's licitovaný observation and ``mask`` a
    licitovaný action mask (:data:`LICIT_OBS`)."""
    if not is_canonical(v, mask, LICIT_OBS):  # the compiled check: no float32 copy made
        check_observation(v, mask, LICIT_OBS)


def card_play_view(observation: np.ndarray, mask: np.ndarray, check: bool = True,
                   flek_round: int = 0, raisable: int = 0) -> CardPlayView:
    """The seat's licitovaný observation (and action mask) as the table robot's
    :class:`~mariash_env.robots.card_view.CardPlayView`: contract kind and trumps, the
    components as volený bets (a hundred is flekked as the game bet, two sevens as the
    seven), the tricks and the legal cards.  ``flek_round`` and ``raisable`` are the flek
    turn's (:meth:`LicitTableRobot._flek`).  ObservationError for what no seat's
    observation can be; ``check=False`` skips that for the encoder's own observations."""
    try:
        v = np.asarray(observation, dtype=np.float32)
    except (ValueError, TypeError) as e:
        raise ObservationError(f"a licitovaný observation is a vector of {LOBS_SIZE} "
                               f"floats: {e}") from e
    if check:
        _check_view(v, mask)
    m = np.ascontiguousarray(mask, dtype=np.int8)
    if v.ndim != 1 or v.shape[0] < LOBS_SIZE or m.shape != (LA.N_ACTIONS,):
        raise ObservationError(f"a licitovaný observation is {LOBS_SIZE} floats and its mask "
                               f"{LA.N_ACTIONS} values, got shapes {v.shape} and {m.shape}")
    v = np.ascontiguousarray(v)
    arr = np.zeros(VIEW_SIZE, np.int64)
    decode_licit(v, m, arr)  # the compiled decoder: one copy of the reading
    exists = int(bits32(v, LO_COMP_EXISTS))
    levels = int(bits32(v, LO_COMP_LEVEL))
    bet_exists = [False] * 4
    bet_level = [0] * 4
    for k, b in _BET_OF:
        if (exists >> k) & 1:
            bet_exists[b] = True
            row = (levels >> (8 * k)) & 0xFF
            bet_level[b] = row.bit_length() - 1 if row else 0
    return CardPlayView.of_array(arr, bet_exists=tuple(bet_exists),
                                 bet_level=tuple(bet_level), raisable=raisable,
                                 flek_round=flek_round)


_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)
_MASK_SHAPE = (LA.N_ACTIONS,)


class LicitTableRobot(Robot):
    """The deterministic rule-based robot of licitovaný mariáš (module docstring)."""

    name = "table"
    games = ("licitovany",)

    def __init__(self) -> None:
        self._voleny = TableRobot()
        self._view = np.zeros(VIEW_SIZE, np.int64)  # the compiled card play's view array
        # False only where the observations come straight from the encoder (a search's
        # playouts): their canonical check is a third of a card's time there.
        self.check = True

    decision_kernel = staticmethod(decide)
    """Its compiled rules: in numba's disk cache, its warm-up only loads."""

    @staticmethod
    def warm_up() -> None:
        """Compile (or load) the kernels its decisions call, :func:`decide`, its
        observation check's and the one call of both (:func:`checked_decide`), on the
        types :meth:`act` hands them (not run: no observation needed)."""
        obs, mask = np.zeros(LOBS_SIZE, np.float32), np.zeros(LA.N_ACTIONS, np.int8)
        view = np.zeros(VIEW_SIZE, np.int64)
        compile_for(decide, obs, mask, view)
        warm_check(LICIT_OBS)  # then the one call of both reuses their compiled code
        compile_for(checked_decide, obs, mask, view, *LICIT_OBS.tables)

    def act(self, observation: dict[str, Any]) -> int:
        obs, mask = observation_arrays(observation)
        if (self.check and obs.dtype is _FLOAT32 and mask.dtype is _INT8 and obs.ndim == 1
                and obs.shape[0] in LICIT_OBS.lengths and mask.shape == _MASK_SHAPE
                and obs.flags.carray and mask.flags.carray):
            # The common case: checked and decided in one compiled call.
            a = checked_decide(obs, mask, self._view, *LICIT_OBS.tables)
            if a >= 0:
                return a
            if a == -1:  # decide's answer to a mask with no legal action
                raise no_legal_action()
            # refused: the numpy check below names the fault
        if self.check:  # the whole observation, as volený's robot checks its own
            _check_view(obs, mask)
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        if mask.dtype != np.int8 or not mask.flags.c_contiguous:
            mask = np.ascontiguousarray(mask != 0, dtype=np.int8)
        if obs.ndim != 1 or obs.shape[0] < LOBS_SIZE or mask.shape != (LA.N_ACTIONS,):
            raise ObservationError(f"a licitovaný observation is {LOBS_SIZE} floats and its "
                                   f"mask {LA.N_ACTIONS} values, got shapes {obs.shape} and "
                                   f"{mask.shape}")
        if self.check and not np.count_nonzero(mask):  # the compiled rules would answer -1
            raise no_legal_action()
        # The rules, compiled (table_decide.py): one copy for this robot and the searches.
        return int(decide(obs, mask, self._view))


__all__ = ["LicitTableRobot", "card_play_view", "makeable", "best_game"]
