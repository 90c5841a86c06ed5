"""Lízaný's batched engine: ``N`` two-player deals stepped by one compiled loop.

``mariash_env.vector.VectorEnv(num_envs, rules="lizany")`` returns a
:class:`LizanyVectorEnv` (the registry names it: ``KIND.vector``), with the API of the
other games' engine (:mod:`mariash_env.vector`: ``reset``, ``reset_rows``,
``step(actions, out=...)``, ``step_unchecked``, ``current``, ``state``, ``copy_states`` /
``restore_states``, ``Step``, seeding).  Each row is one deal as lízaný's compact record
(``int32[LZ_STATE_SIZE]``, :mod:`mariash_env.games.lizany.core`), advanced by the same
compiled functions the Python game and the AEC environment call: a deal in the batch is
card for card the deal ``mariash_env.lizany.env()`` plays.

What differs from the three-seat games:

* two seats: ``Step.player`` is 0 or 1, ``rewards`` is ``float64[N, 2]`` (the deal's ±1 /
  ±2, zero-sum), ``mask`` ``int8[N, 32]`` (``play:<card>``), ``obs`` ``float32[N, 221]``
  (``OBS_LAYOUT``), ``state()`` ``float32[N, 285]``;
* an episode is one deal: ``deal_done`` and ``partie_done`` are the same flags, and the
  row is dealt anew at once (``deal_no`` stays 0); there are no rule options
  (``deals`` may only be None or 1; any other option raises
  :class:`~mariash_env.rules.RulesError`), and ``rules_vector`` is None.

Seeding: ``reset(seed=s)`` deals game ``i`` the deck of ``mariash_env.lizany.env().
reset(seed=s + i)`` (``LizanyGame(seed=s + i)``), and seeds the game's own generator
(xorshift128 in its record) with ``seed_words(s + i)``: every later deal of that row is
shuffled from it (:func:`mariash_env.core.deal.shuffled_deck`), so the same seed and the
same actions give the same run.  ``reset()`` without a seed continues with
``previous seed + num_envs``, as the main engine does, and ``reset_rows(rows, seed)``
deals each restarted game ``i`` what ``reset(seed)`` would (by position: ``s + i``).
The decks and words of a reset's games are made in one compiled call, bit for bit
numpy's (:mod:`mariash_env.core.seeding`): 4,096 games reset in about 2 ms (80-107 ms
when each deck was a numpy ``Generator`` made in Python).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from ...cards import NCARDS
from ...core.jit import borrow_row, njit, njit_generic, store_bits32
from ...core.seeding import seed_batch
from ...core.state import setm
from ...rules import RulesError, check_game_options
from ...vector import Step, VectorEnv, _check
from ..registry import game_kind
from . import core as C
from .actions import N_ACTIONS, OBS_SIZE, RULES, STATE_SIZE
from .game import LizanyGame
from .kind import KIND

__all__ = ["LizanyVectorEnv"]

# Per-game buffers besides state, mask and observation: player, rewards[2], deal_done,
# partie_done, deal_no, bad.
_SMALL_BYTES = 8 + 2 * 8 + 1 + 1 + 8 + 8

if numba.config.DISABLE_JIT:  # the intrinsics need the compiler: plain views and stores
    def borrow_row(a: np.ndarray, i: int) -> np.ndarray:  # noqa: F811
        return a[i]

    def store_bits32(out: np.ndarray, off: int, bits: int) -> None:  # noqa: F811
        out[off:off + NCARDS] = (int(bits) >> np.arange(NCARDS)) & 1


@njit_generic
def _refresh_row(st, i, mrow, obs, player, deal_no, observations, mask_out, copy_mask):
    """The row's mask, player, deal number and (when on) observation after its state
    changed; a copy of the mask into ``mask_out`` with ``copy_mask``."""
    legal = C.legal_cards(st)
    store_bits32(mrow, 0, legal)
    if copy_mask:
        store_bits32(mask_out[i], 0, legal)
    p = st[C.TO_MOVE]
    player[i] = p
    deal_no[i] = 0
    if observations:
        C.encode(st, np.int64(p), borrow_row(obs, i), False)  # no reference counting of the row


def _step_body(states, rules, actions, check, bad, masks, obs, player, rewards, deal_done,
               partie_done, deal_no, observations, mask_out, copy_mask):
    """One card per game; a deal that ends pays its rewards and is dealt anew from the
    row's generator.  An action its mask does not allow (out of range included) applies
    nothing (that row's outputs are its unchanged state's).  ``rules`` is not read: the
    signature is the main engine's, whose ``step`` calls it."""
    if check:
        nbad = _check(masks, actions, bad)
        if nbad:
            return nbad
    for i in numba.prange(states.shape[0]):
        st = borrow_row(states, i)
        mrow = borrow_row(masks, i)
        a = actions[i]
        done = False
        if 0 <= a < NCARDS and mrow[a] == 1 and C.play_card(st, a):
            rewards[i, 0] = st[C.REWARDS]
            rewards[i, 1] = st[C.REWARDS + 1]
            done = True
            C.deal_shuffled(st)
        else:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
        deal_done[i] = done
        partie_done[i] = done
        _refresh_row(st, i, mrow, obs, player, deal_no, observations, mask_out, copy_mask)
    return 0


# One source, two compilations (prange is a plain range without parallel=True).
_step_serial = njit(_step_body)
_step_parallel = numba.njit(cache=True, nogil=True, parallel=True)(_step_body)


@njit_generic
def _reset_kernel(states, rows, words, decks, masks, obs, player, rewards, deal_done,
                  partie_done, deal_no, observations):
    """A new deal in games ``rows`` (game ``rows[j]`` dealt ``decks[j]``, its generator
    ``words[j]``) and their outputs; the other rows are not touched."""
    for j in range(rows.shape[0]):
        i = rows[j]
        st = states[i]
        st[:] = 0
        for k in range(4):
            setm(st, C.RNG + k, words[j, k])
        C.new_deal(st, decks[j])
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        deal_done[i] = False
        partie_done[i] = False
        _refresh_row(st, i, masks[i], obs, player, deal_no, observations, masks, False)


@njit_generic
def _refresh_kernel(states, masks, obs, player, rewards, deal_done, partie_done, deal_no,
                    observations):
    for i in range(states.shape[0]):
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        deal_done[i] = False
        partie_done[i] = False
        _refresh_row(states[i], i, masks[i], obs, player, deal_no, observations, masks,
                     False)


@njit_generic
def _state_kernel(states, out):
    for i in range(states.shape[0]):
        C.encode(states[i], 0, out[i], True)


class LizanyVectorEnv(VectorEnv):
    """``num_envs`` deals of lízaný stepped together (see the module documentation)."""

    obs_size = OBS_SIZE
    state_obs_size = STATE_SIZE
    num_actions = N_ACTIONS
    state_size = C.LZ_STATE_SIZE
    _STEP_KERNELS = (_step_serial, _step_parallel)

    def __init__(self, num_envs: int, seed: int | None = None, observations: bool = True,
                 deals: int | None = None, parallel: bool = False, rules: str = "lizany",
                 **options: Any) -> None:
        n, seed = self._check_arguments(num_envs, seed, observations, parallel)
        if rules != RULES["rules"]:
            raise RulesError(f"LizanyVectorEnv plays rules='lizany', got rules={rules!r}")
        if deals is not None and deals != 1:
            raise RulesError(f"deals={deals!r}: a lízaný episode is one deal (deals=None or 1)")
        check_game_options(KIND, options)
        self.rules = dict(RULES)
        self.kind = game_kind(self.rules, front_end="vector")
        self.players = 2
        self.rules_vector = None  # lízaný has no rule options
        self._step_kernel = self._STEP_KERNELS[bool(parallel)]
        self._allocate(n, seed, observations, parallel, C.LZ_STATE_SIZE)

    @staticmethod
    def bytes_per_game(observations: bool = True, rules: str = "lizany",
                       players: int = 2) -> int:
        """Bytes one deal holds: state, mask, observation (when on) and the small buffers."""
        b = C.LZ_STATE_SIZE * 4 + N_ACTIONS + _SMALL_BYTES
        return b + OBS_SIZE * 4 if observations else b

    def _game_bytes(self, observations: bool) -> int:
        return self.bytes_per_game(observations)

    def _start(self, rows: np.ndarray, seeds: Sequence[int]) -> None:
        """A new deal in games ``rows``: game ``rows[j]`` gets the deck of
        ``LizanyGame(seed=seeds[j])`` and its generator ``seed_words(seeds[j])`` (module
        documentation).  The deck
        (:func:`~mariash_env.games.lizany.game.seeded_deck`: numpy's
        ``default_rng(seed).permutation(32)``) and the words of every seed are made in one
        compiled call, bit for bit numpy's (:func:`~mariash_env.core.seeding.seed_batch`)."""
        words, decks = seed_batch(seeds, NCARDS)
        _reset_kernel(self._states, rows, words, decks, self._mask, self._obs, self._player,
                      self._rewards, self._deal_done, self._partie_done, self._deal_no,
                      self.observations)

    def current(self) -> Step:
        """The current player/mask/obs (recomputed), with zero rewards and flags."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        _refresh_kernel(self._states, self._mask, self._obs, self._player, self._rewards,
                        self._deal_done, self._partie_done, self._deal_no, self.observations)
        return self._result

    def state(self) -> np.ndarray:
        """Perfect-information encodings ``float32[N, 285]`` (a fresh array)."""
        if not self._ready:  # the states are all zeros: no deal to encode
            raise RuntimeError("call reset() first")
        out = np.empty((self.num_envs, STATE_SIZE), dtype=np.float32)
        _state_kernel(self._states, out)
        return out

    def render_tables(self) -> list[str]:
        """Every deal's table as text, one string a game, as ``env(rules="lizany",
        render_mode="ansi")`` writes it; a deal that ended in the last step shows the
        deal dealt anew in its place."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        tables = []
        for row in self._states:
            deal = LizanyGame.__new__(LizanyGame)  # a view of the row (render reads st only)
            deal.st, deal.history = row.copy(), []
            tables.append(deal.render())
        return tables

    def _validate_states(self, states: np.ndarray) -> None:
        check_states(states)  # restore_states: each row checked, nothing restored if one is bad


def _fields(states: np.ndarray, name: str) -> np.ndarray:
    off = C.LZ_OFFSETS[name]
    return states[:, off:off + C.LZ_SLOTS[name]].astype(np.int64)


# Accepted ranges of the fields the compiled code reads as an index, a seat or a card, in a
# deal still to be played (a finished deal is dealt anew at once and never restored).
_RANGES = (("to_move", 0, 1), ("table", -1, 31), ("points", 0, 90), ("marriages", 0, 100),
           ("tricks", 0, 15), ("marriage_by", -1, 1), ("trump_card", 0, 31),
           ("trick_no", 0, 15), ("last_winner", -1, 1), ("over", 0, 0), ("rewards", 0, 0),
           ("stock_pos", 0, 16), ("stock", 0, 31), ("deck", 0, 31))


def check_states(states: np.ndarray) -> None:
    """ValueError naming the first field at fault and the games, unless every row of
    ``states`` (``int32[N, LZ_STATE_SIZE]``) is a deal in progress the rules can reach in
    its counts: fields in range, the deck a permutation, each card in exactly one place
    (a hand, played, the stock), the stock's size and the hands' sizes those of its trick,
    the trump card last in the stock, the card on the table the leader's."""
    def fail(what: str, bad: np.ndarray) -> None:
        rows = np.flatnonzero(bad)
        if rows.size:
            raise ValueError(f"states: {what} in games {rows[:10].tolist()}"
                             f"{' and more' if rows.size > 10 else ''}; nothing was restored")

    for name, lo, hi in _RANGES:
        block = _fields(states, name)
        fail(f"field {name} is out of range [{lo}, {hi}]",
             ((block < lo) | (block > hi)).any(axis=1))
    deck = _fields(states, "deck")
    fail("field deck is not a permutation of the 32 cards",
         (np.sort(deck, axis=1) != np.arange(NCARDS)).any(axis=1))
    # C order: the bit counts view the masks as bytes (a Fortran-ordered copy cannot).
    masks = np.ascontiguousarray(states, dtype=np.int64) & 0xFFFFFFFF
    pos = _fields(states, "stock_pos")[:, 0]
    stock = _fields(states, "stock")
    left = (np.arange(C.STOCK_SIZE) >= pos[:, None])
    stock_set = np.bitwise_or.reduce(np.where(left, np.int64(1) << stock, 0), axis=1)
    places = np.concatenate([masks[:, C.HAND:C.HAND + 2], masks[:, C.PLAYED:C.PLAYED + 2],
                             stock_set[:, None]], axis=1)
    count = np.unpackbits(places.astype("<u4").view(np.uint8), axis=1).sum(axis=1)
    fail("the hands, played cards and stock do not hold each of the 32 cards exactly once",
         (np.bitwise_or.reduce(places, axis=1) != 0xFFFFFFFF) | (count != NCARDS)
         | (left.sum(axis=1) != _popcounts(stock_set)))
    t = _fields(states, "trick_no")[:, 0]
    fail("field stock_pos: the stock must hold 16 - 2 * min(trick_no, 8) cards",
         C.STOCK_SIZE - pos != C.STOCK_SIZE - 2 * np.minimum(t, 8))
    fail("field stock: the trump card is the last card of a stock not yet gone",
         (pos < C.STOCK_SIZE) & (stock[:, -1] != _fields(states, "trump_card")[:, 0]))
    table = _fields(states, "table")[:, 0]
    tm = _fields(states, "to_move")[:, 0]
    base = np.where(t < 8, C.HAND_SIZE, C.N_TRICKS - t)
    for s in range(2):
        laid = (table >= 0) & (tm != s)
        fail(f"field hand: player_{s}'s cards are not those of its trick",
             _popcounts(masks[:, C.HAND + s]) != base - laid)
        fail(f"field known: player_{s}'s known cards are not in its hand",
             (masks[:, C.KNOWN + s] & ~masks[:, C.HAND + s]) != 0)
    leader_played = np.where(tm == 0, masks[:, C.PLAYED + 1], masks[:, C.PLAYED])
    fail("field table: the card led is not one the leader played",
         (table >= 0) & ((leader_played >> np.maximum(table, 0)) & 1 == 0))
    tricks = _fields(states, "tricks")
    fail("field tricks: the two counts must add up to trick_no", tricks.sum(axis=1) != t)
    fail("field last_winner: -1 exactly before the first trick",
         (_fields(states, "last_winner")[:, 0] < 0) != (t == 0))


def _popcounts(m: np.ndarray) -> np.ndarray:
    return np.unpackbits(m.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1).sum(axis=1)
