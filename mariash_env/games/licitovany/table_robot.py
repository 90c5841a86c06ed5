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
  are already held back by the action mask.  With ``check`` off (a search's playouts) the
  card play reads the observation compiled (:func:`~mariash_env.games.licitovany.table_play.decode_licit`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.state import (
    B_GAME,
    B_SEVEN,
    C_BETL,
    K_GAME,
    K_HUNDRED,
    K_SEVEN,
    K_TWO_SEVENS,
)
from ...robots.base import Robot
from ...robots.card_view import CardPlayView
from ...robots.features import (
    ObservationError,
    cards,
    check_tricks,
    in_suit,
    popcount,
)
from ..voleny import actions as A
from ..voleny.table_play import VIEW_SIZE, bits32, choose_card, first_set
from ..voleny.table_robot import (
    STO_MIN_ESTIMATE,
    TableRobot,
    _best_pair,
    estimate_points,
    suit_score,
    trumps_in,
)
from . import actions as LA
from .games import (
    COMPONENTS,
    G_BETL,
    G_DURCH,
    G_SEDMA,
    HEARTS,
    KIND,
)
from .observe import (
    LO_COMP_EXISTS,
    LO_COMP_LEVEL,
    LO_HAND,
    LO_TALON,
    LOBS_LAYOUT,
    LOBS_SIZE,
    LSTATE_OBS_SIZE,
)
from .phases import needs_met, trumps_ok
from .table_play import decode_licit

_L = {name: (off, n) for name, off, n, _ in LOBS_LAYOUT if off < LOBS_SIZE}
_PHASE_SLOTS = ("bid", "hold", "lone_bid", "game", "trumps", "helping", "discard", "lead",
                "flek", "play", "done")
# The blocks the card-play view reads: 0/1 slots, at most one set per group of the size.
_VIEW_ONE_HOT = (("trump_suit", 4), ("trick_leader", 3), ("cur_trick", 32), ("actor", 3),
                 ("game", 12), ("first_marriage", 4), ("comp_level", 8), ("phase", 11))
_VIEW_SETS = ("hand", "talon", "played_by", "played_in", "comp_exists")
# The volený bet each component is flekked as: the game and hundred as the game bet, the
# seven and two sevens as the seven (the later component's level wins, as one bet).
_BET_OF = ((K_GAME, B_GAME), (K_HUNDRED, B_GAME), (K_SEVEN, B_SEVEN), (K_TWO_SEVENS, B_SEVEN))


def _block(v: np.ndarray, name: str) -> np.ndarray:
    off, n = _L[name]
    return v[off:off + n]


def _one(v: np.ndarray, name: str) -> int:
    """Index of the set entry of a one-hot block, -1 if none (``v``: float32, contiguous)."""
    off, n = _L[name]
    return int(first_set(v, off, n))


def _check_view(v: np.ndarray, mask: np.ndarray) -> None:
    """ObservationError unless the blocks the view reads are a seat's licitovaný
    observation's and ``mask`` a licitovaný action mask."""
    if v.ndim != 1 or v.shape[0] not in (LOBS_SIZE, LSTATE_OBS_SIZE):
        raise ObservationError(f"a licitovaný observation is a vector of {LOBS_SIZE} floats "
                               f"(or the omniscient {LSTATE_OBS_SIZE}), got shape {v.shape}")
    for name in (*_VIEW_SETS, *(n for n, _ in _VIEW_ONE_HOT)):
        b = _block(v, name)
        bad = np.flatnonzero((b != 0) & (b != 1))
        if bad.size:
            raise ObservationError(f"observation block {name!r}[{int(bad[0])}] = "
                                   f"{b[bad[0]]!r}: expected 0 or 1")
    bits = v > 0.5
    for name, size in _VIEW_ONE_HOT:
        g = _block(bits, name).reshape(-1, size).sum(axis=1)
        if (g > 1).any():
            raise ObservationError(f"block {name!r} group {int(np.flatnonzero(g > 1)[0])} "
                                   f"has {int(g.max())} slots set: expected a one-hot group "
                                   f"of {size} (at most one set)")
    check_tricks(bits, _L)
    m = np.asarray(mask)
    if m.shape != (LA.N_ACTIONS,) or m.dtype.kind not in "biuf" or ((m != 0) & (m != 1)).any():
        raise ObservationError(f"a licitovaný action mask is {LA.N_ACTIONS} values 0 or 1, "
                               f"got {m.dtype}{list(m.shape)}")


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


def _best_trump(hand: int, g: int) -> int:
    """The trump suit the game ``g`` would take from ``hand`` (needs met), -1 if none."""
    if HEARTS[g]:
        return 0 if trumps_ok(g, hand, 0) else -1
    ok = [t for t in (1, 2, 3) if trumps_ok(g, hand, t)]
    return max(ok, key=lambda t: (suit_score(hand, t), t)) if ok else -1


def _helping(hand: int, trump: int) -> int:
    """The helping suit: a non-trump 7 held, the suit it is longest in."""
    ok = [s for s in range(4) if s != trump and (hand >> (8 * s)) & 1]
    return max(ok, key=lambda s: (popcount(in_suit(hand, s)), s)) if ok else -1


def makeable(hand: int, g: int) -> bool:
    """Does the robot value ``hand`` (10 cards in the auction, 12 at announcing) good
    enough to play game ``g``?  Its needs must be met; then by component: a seven wants
    five trumps (four with the trump ace or ten and 40 points), a hundred an estimated 100
    (90 with the talon still to come), two sevens six trumps with ace and ten and four
    cards of the helping suit with its ace; betl and durch follow the volený robot's hole
    counts."""
    if not needs_met(g, hand):
        return False
    n = popcount(hand)
    if g == G_BETL:
        return TableRobot.betl_hand_10(hand) if n <= 10 else TableRobot.betl_hand(hand)[0] <= 2
    if g == G_DURCH:
        return (TableRobot.durch_hand(hand) if n <= 10
                else TableRobot.durch_hand_12(hand)[0] == 0)
    t = _best_trump(hand, g)
    if t < 0:
        return False
    comp = int(COMPONENTS[g])
    ntr = trumps_in(hand, t)
    est = estimate_points(hand, t)
    top = (hand >> (8 * t + 7)) & 1, (hand >> (8 * t + 3)) & 1
    if comp & (1 << K_TWO_SEVENS):
        y = _helping(hand, t)
        if not (ntr >= 6 and all(top) and y >= 0 and popcount(in_suit(hand, y)) >= 4
                and (hand >> (8 * y + 7)) & 1):
            return False
    if comp & (1 << K_SEVEN) and not (ntr >= 5 or (ntr == 4 and any(top) and est >= 40)):
        return False
    if comp & (1 << K_HUNDRED) and est < STO_MIN_ESTIMATE - (10 if n <= 10 else 0):
        return False
    return True


def best_game(hand: int, lo: int = 1) -> int:
    """The highest game at or above ``lo`` the robot can make with ``hand``; 0 if none."""
    for g in range(12, lo - 1, -1):
        if makeable(hand, g):
            return g
    return 0


class LicitTableRobot(Robot):
    """The deterministic rule-based robot of licitovaný mariáš (module docstring)."""

    name = "table"
    games = ("licitovany",)

    def __init__(self) -> None:
        self._voleny = TableRobot()
        self._view = np.zeros(VIEW_SIZE, np.int64)  # the compiled card play's view array
        # False only where the observations come straight from the encoder (a search's
        # playouts): their canonical check is most of a card's time there.
        self.check = True

    def act(self, observation: dict[str, Any]) -> int:
        obs = np.ascontiguousarray(observation["observation"], dtype=np.float32)
        mask = np.asarray(observation["action_mask"])
        legal = [int(a) for a in np.flatnonzero(mask)]
        if len(legal) == 1:
            return legal[0]
        phase = _PHASE_SLOTS[_one(obs, "phase")]
        hand = int(bits32(obs, LO_HAND))
        high = _one(obs, "high")
        a = getattr(self, f"_{phase}")(obs, mask, hand, high)
        return a if mask[a] else legal[0]

    # --- auction (§4) -------------------------------------------------------------------
    def _bid(self, obs, mask, hand, high):
        top = best_game(hand)
        for g in range(max(high, 0) + 1, top + 1):
            if mask[LA.BID0 + g - 1]:
                return LA.BID0 + g - 1
        return LA.PASS

    _lone_bid = _bid

    def _hold(self, obs, mask, hand, high):
        return LA.HOLD if mask[LA.HOLD] and best_game(hand) >= high else LA.PASS

    # --- the actor's choices (§5) ---------------------------------------------------------
    def _game(self, obs, mask, hand, high):
        g = best_game(hand, high)
        if g and mask[LA.GAME0 + g - 1]:
            return LA.GAME0 + g - 1
        if mask[LA.FOLD] and trumps_in(hand, _best_trump(hand, G_SEDMA)) < 4:
            return LA.FOLD
        for g in range(high, 13):  # the cheapest game it may announce
            if mask[LA.GAME0 + g - 1]:
                return LA.GAME0 + g - 1
        return LA.FOLD

    def _trumps(self, obs, mask, hand, high):
        ok = [t for t in (1, 2, 3) if mask[LA.TRUMP0 + t - 1]]
        return LA.TRUMP0 + max(ok, key=lambda t: (suit_score(hand, t), t)) - 1

    def _helping(self, obs, mask, hand, high):
        ok = [s for s in range(4) if mask[LA.HELP0 + s]]
        return LA.HELP0 + max(ok, key=lambda s: (popcount(in_suit(hand, s)), s))

    def _discard(self, obs, mask, hand, high):
        allowed = 0
        for c in range(32):
            if mask[LA.DISCARD0 + c]:
                allowed |= 1 << c
        g = _one(obs, "game") + 1
        trump = _one(obs, "trump_suit")
        kind = int(KIND[g])
        talon = int(bits32(obs, LO_TALON))
        if popcount(allowed) < 2:
            return LA.DISCARD0 + cards(allowed)[0]
        a, b = _best_pair(hand, allowed, kind, trump, talon)
        return LA.DISCARD0 + a

    def _lead(self, obs, mask, hand, high):
        g = _one(obs, "game") + 1
        suits = [s for s in range(4) if in_suit(hand, s)]
        if KIND[g] == C_BETL:  # the lowest card of the shortest suit
            s = min(suits, key=lambda s: (popcount(in_suit(hand, s)), s))
            return LA.LEAD0 + cards(in_suit(hand, s))[0]
        s = max(suits, key=lambda s: (popcount(in_suit(hand, s)), s))  # durch
        return LA.LEAD0 + cards(in_suit(hand, s))[-1]

    # --- flek (§6) and play (§7): the volený robot's rules on a volený view -------------------
    def _flek(self, obs, mask, hand, high):
        actor = _one(obs, "actor")
        turn = _one(obs, "flek_turn")
        g = _one(obs, "game") + 1
        comp = int(COMPONENTS[g])
        raisable = 0
        for b, k in ((B_GAME, K_GAME if comp & (1 << K_GAME) else K_HUNDRED),
                     (B_SEVEN, K_SEVEN if comp & (1 << K_SEVEN) else K_TWO_SEVENS)):
            if mask[LA.FLEK0 + k]:
                raisable |= 1 << b
        o = card_play_view(obs, mask, self.check,
                           flek_round=2 if actor == 0 else (1 if turn <= 1 else 3),
                           raisable=raisable)
        for va in self._voleny.flek_actions(o):
            if A.FLEK0 <= va < A.FLEK0 + 2:
                b = va - A.FLEK0
                ks = (K_GAME, K_HUNDRED, K_TWO_SEVENS) if b == B_GAME else (K_SEVEN,
                                                                            K_TWO_SEVENS)
                for k in ks:
                    if mask[LA.FLEK0 + k]:
                        return LA.FLEK0 + k
        return LA.GOOD

    def _play(self, obs, mask, hand, high):
        if self.check:
            return LA.PLAY0 + self._voleny.play_card(card_play_view(obs, mask, True))
        # The encoder's own observation (a search's playouts): the compiled view and card.
        decode_licit(obs, mask, self._view)
        c = int(choose_card(self._view))
        return LA.PLAY0 + c if c >= 0 else int(np.flatnonzero(mask)[0])

    def _done(self, obs, mask, hand, high):  # pragma: no cover - never asked
        return int(np.flatnonzero(mask)[0])


__all__ = ["LicitTableRobot", "card_play_view", "makeable", "best_game"]
