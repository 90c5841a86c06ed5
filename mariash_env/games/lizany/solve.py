"""Lízaný's exact solver: the value of a deal whose every card is placed (both hands and
the stock in drawing order), by alpha-beta over the game's own compiled rules.

Once the stock is gone (tricks 9–16) a lízaný deal is a perfect-information game — each
seat's hand is the 32 cards less its own, the played ones and the trick's — so a robot can
play it perfectly: :func:`solve_values` gives each legal card its exact reward for the seat
to move (±1, ±2: the game's rewards), both seats playing best from there, and
:func:`solve_best` the best card.  While the stock lasts the same search reads a *world*
(a guess at the stock's order and the opponent's hand, as the PIMC robot draws them).

The search calls only the core (:func:`~mariash_env.games.lizany.core.legal_cards`,
:func:`~mariash_env.games.lizany.core.play_card`; the values are the rewards ``play_card``
settles): no rule is written here.  What makes it fast, none of which changes a value:

* iterative alpha-beta (numba's cache cannot hold self-recursive functions) on a
  preallocated stack of records; with four possible values the window closes fast;
* a transposition table probed at the start of each trick, keyed on what the rest of the
  deal depends on: both hands, the seat to lead, the stock's position, the trump suit,
  the difference of the two seats' points (card points and marriages) and whether each
  has taken a trick (a loser without a trick pays double).  It holds bounds, so a
  null-window search reuses a full one's results and the other way round.  An open
  position's entry (the stock gone) holds for good, so the worlds of one decision and
  the decisions after it share their endings; one with a stock to draw holds for its
  solve only (a stamp: the stock's order is not in the key);
* equivalent cards: of two cards of one suit and one hand that are neighbours in the rank
  order among the cards still in play (the trick's card counts as in play), with the same
  card points, and neither a K or Q whose partner is in the hand (unless the two are that
  pair), only the higher is tried -- the two deals that follow are the same up to the
  names of the cards;
* move ordering: the follower first tries its cheapest card that takes the trick when the
  trick is worth points, else its cheapest card; the leader its marriages and its aces
  and tens first.

With an empty table an eight-trick ending (the stock just gone) takes about 2,500
positions and 0.8 ms for the best card, 5,800 positions and 1.8 ms for every card's value;
a world with one stock trick left about six times that (``python -m
scripts.lizany_solve_stats``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...cards import NCARDS, TRUMP_STRENGTH
from ...core.jit import njit, njit_generic, wrapping_mul
from ...core.state import getm
from ...core.tables import CARD_POINTS
from ...core.tricks import announces_marriage, beats, lowest, popcount
from .core import (
    HAND,
    HAND_SIZE,
    LZ_STATE_SIZE,
    MARRIAGES,
    N_TRICKS,
    OVER,
    PLAYED,
    POINTS,
    REWARDS,
    STOCK,
    STOCK_POS,
    STOCK_SIZE,
    TABLE,
    TO_MOVE,
    TRICK_NO,
    TRICKS,
    TRUMP_CARD,
    legal_cards,
    play_card,
)

__all__ = ["Solver", "warm_up", "solve_values", "solve_best", "solve_value", "new_table", "NO_CARD",
           "ABORTED", "TT_BITS", "NO_LIMIT"]

NO_CARD = -9
"""``solve_values``' entry for a card that is not legal."""

ABORTED = -100
"""The value of a search stopped by its node budget (``max_nodes``)."""

NO_LIMIT = 1 << 62
"""A node budget that never stops a search."""

TT_BITS = 16
"""The transposition table holds ``2**TT_BITS`` entries (3 int64 each: 1.5 MiB)."""

_WIN = 3  # above every reward: the search's open window is (-_WIN, _WIN)
_DEPTH = 2 * N_TRICKS + 1
_MAX_MOVES = NCARDS  # a checked record's hands hold 8 cards at most; no bound is trusted
# Rank strength with trumps (lízaný always has trumps): 7 8 9 J Q K T A.
_STRENGTH = np.array([TRUMP_STRENGTH[c & 7] for c in range(NCARDS)], dtype=np.int64)


def new_table(bits: int = TT_BITS) -> np.ndarray:
    """An empty transposition table for :func:`solve_values` / :func:`solve_best`, to reuse
    across solves: row 0 holds the stamp of the current solve (a solve takes the next), rows
    1.. the entries, each ``(hands, rest of the key, stamp << 8 | (lo + 4) << 4 | (hi + 4))``
    -- an entry of a position with a stock to draw and another stamp is no entry (a world's
    stock is not in the key); an open position's has stamp 0 and holds in every solve."""
    return np.zeros(((1 << bits) + 1, 3), dtype=np.int64)


@njit
def _bound_kq(c, hand):
    """Whether ``c`` is a K or Q whose partner is in ``hand`` (playing it announces)."""
    return announces_marriage(hand | (np.int64(1) << c), c, False)


@njit
def _next_in_play(c, live):
    """The weakest card of ``c``'s suit in ``live`` that ranks above ``c``, or -1."""
    s8 = c & ~7
    best = -1
    for r in range(8):
        n = s8 + r
        if (live >> n) & 1 and _STRENGTH[n] > _STRENGTH[c]:
            if best < 0 or _STRENGTH[n] < _STRENGTH[best]:
                best = n
    return best


@njit
def _representatives(st, moves):
    """``moves`` less the cards equivalent to a higher one of them (module docstring)."""
    seat = st[TO_MOVE]
    hand = getm(st, HAND + seat)
    live = ~(getm(st, PLAYED) | getm(st, PLAYED + 1)) & np.int64(0xFFFFFFFF)
    if st[TABLE] >= 0:
        live |= np.int64(1) << st[TABLE]
    out = moves
    m = moves
    while m:
        c = lowest(m)
        m &= ~(np.int64(1) << c)
        n = _next_in_play(c, live)
        if n < 0 or not (moves >> n) & 1 or CARD_POINTS[n] != CARD_POINTS[c]:
            continue
        pair = (c >> 3) == (n >> 3) and (c & 7) + (n & 7) == 11  # its own K and Q
        if not pair and (_bound_kq(c, hand) or _bound_kq(n, hand)):
            continue
        out &= ~(np.int64(1) << c)
    return out


@njit
def _order(st, moves, out):
    """``moves`` into ``out`` best-first (module docstring); returns how many."""
    n = 0
    keys = np.empty(_MAX_MOVES, np.int64)
    seat = st[TO_MOVE]
    hand = getm(st, HAND + seat)
    led = st[TABLE]
    trump = st[TRUMP_CARD] >> 3
    m = moves
    while m:
        c = lowest(m)
        m &= ~(np.int64(1) << c)
        if led >= 0:
            worth = CARD_POINTS[led] + CARD_POINTS[c]
            if beats(c, led, trump):
                k = (200 if worth else 0) - 10 * _STRENGTH[c] - (8 if (c >> 3) == trump else 0)
            else:
                k = 100 - 10 * CARD_POINTS[c] - _STRENGTH[c]
        else:
            k = 10 * _STRENGTH[c] + 5 * CARD_POINTS[c]
            if _bound_kq(c, hand):
                k += 200
        # insertion, best first
        j = n
        while j > 0 and keys[j - 1] < k:
            keys[j] = keys[j - 1]
            out[j] = out[j - 1]
            j -= 1
        keys[j] = k
        out[j] = c
        n += 1
    return n


@njit
def _key(st):
    k1 = (getm(st, HAND) & np.int64(0xFFFFFFFF)) | (getm(st, HAND + 1) << 32)
    diff = st[POINTS] + st[MARRIAGES] - st[POINTS + 1] - st[MARRIAGES + 1]
    k2 = (st[TO_MOVE] | ((diff + 512) << 1) | (min(st[TRICKS], 1) << 12)
          | (min(st[TRICKS + 1], 1) << 13) | (st[STOCK_POS] << 14)
          | ((st[TRUMP_CARD] >> 3) << 19))
    return k1, np.int64(k2)


@njit
def _stamp_of(st, stamp):
    """An open position's entry holds for good (stamp 0): its key names everything its
    value depends on; a position with a stock to draw holds for this solve's world only."""
    return 0 if st[STOCK_POS] >= STOCK_SIZE else stamp


_H1 = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as an int64
_H2 = np.int64(-4658895280553007687)  # 0xBF58476D1CE4E5B9 as an int64


@njit
def _slot(k1, k2, size):
    """The entry's row: 1 + a hash of the key over the ``size - 1`` rows (a power of 2)."""
    h = wrapping_mul(k1, _H1) ^ wrapping_mul(k2, _H2)  # the same bits as plain Python
    return 1 + ((h >> 17) & (size - 2))


@njit
def _probe(tt, st, root, stamp):
    """The stored bounds ``(lo, hi)`` of ``st`` for seat ``root`` (``-_WIN, _WIN`` if none)."""
    k1, k2 = _key(st)
    i = _slot(k1, k2, tt.shape[0])
    w = tt[i, 2]
    if tt[i, 0] != k1 or tt[i, 1] != k2 or (w >> 8) != _stamp_of(st, stamp):
        return -_WIN, _WIN
    lo = ((w >> 4) & 15) - 4
    hi = (w & 15) - 4
    if st[TO_MOVE] != root:  # stored for the seat to move
        return -hi, -lo
    return lo, hi


@njit
def _store(tt, st, root, stamp, lo, hi):
    if st[TO_MOVE] != root:
        lo, hi = -hi, -lo
    k1, k2 = _key(st)
    i = _slot(k1, k2, tt.shape[0])
    w = tt[i, 2]
    stamp = _stamp_of(st, stamp)
    if tt[i, 0] == k1 and tt[i, 1] == k2 and (w >> 8) == stamp:  # tighten what is known
        lo = max(lo, ((w >> 4) & 15) - 4)
        hi = min(hi, (w & 15) - 4)
    tt[i, 0] = k1
    tt[i, 1] = k2
    tt[i, 2] = (stamp << 8) | ((lo + 4) << 4) | (hi + 4)


@njit
def _search(st, root, alpha0, beta0, tt, stamp, stats, max_nodes):
    """The value of ``st`` for seat ``root`` (its reward at the end, both seats playing
    best), exact when it lies inside ``(alpha0, beta0)``, else a bound on the side it fell
    (fail-soft); ``ABORTED`` once ``stats[0]`` (the positions visited) passes
    ``max_nodes``.  What the table holds stays true: only finished positions are stored."""
    if st[OVER]:
        return st[REWARDS + root]
    states = np.empty((_DEPTH, LZ_STATE_SIZE), np.int32)
    moves = np.empty((_DEPTH, _MAX_MOVES), np.int64)
    count = np.zeros(_DEPTH, np.int64)
    at = np.zeros(_DEPTH, np.int64)
    lo = np.empty(_DEPTH, np.int64)
    hi = np.empty(_DEPTH, np.int64)
    lo0 = np.empty(_DEPTH, np.int64)
    hi0 = np.empty(_DEPTH, np.int64)
    best = np.empty(_DEPTH, np.int64)
    probed = np.zeros(_DEPTH, np.bool_)
    states[0, :] = st[:LZ_STATE_SIZE]
    d = 0
    lo[0] = alpha0
    hi[0] = beta0
    entering = True
    v = 0
    while True:
        if entering:  # position d is new: its window is set
            entering = False
            s = states[d]
            probed[d] = False
            if s[TABLE] < 0:
                a, b = _probe(tt, s, root, stamp)
                if a == b or a >= hi[d] or b <= lo[d]:
                    v = a if a >= hi[d] or a == b else b
                    if d == 0:
                        return v
                    d -= 1
                    _fold(states[d], root, v, best, lo, hi, d)
                    continue
                lo[d] = max(lo[d], a)
                hi[d] = min(hi[d], b)
                probed[d] = True
            lo0[d] = lo[d]
            hi0[d] = hi[d]
            count[d] = _order(s, _representatives(s, legal_cards(s)), moves[d])
            at[d] = 0
            best[d] = -_WIN if s[TO_MOVE] == root else _WIN
        if at[d] < count[d] and lo[d] < hi[d]:
            c = moves[d, at[d]]
            at[d] += 1
            states[d + 1, :] = states[d, :]
            play_card(states[d + 1], c)
            stats[0] += 1
            if stats[0] > max_nodes:
                return ABORTED
            if states[d + 1, OVER]:
                _fold(states[d], root, states[d + 1, REWARDS + root], best, lo, hi, d)
            else:
                d += 1  # < _DEPTH: a checked record holds at most 32 cards to play
                lo[d] = lo[d - 1]
                hi[d] = hi[d - 1]
                entering = True
            continue
        v = best[d]
        if probed[d]:
            _store(tt, states[d], root, stamp, v if v > lo0[d] else -_WIN,
                   v if v < hi0[d] else _WIN)
        if d == 0:
            return v
        d -= 1
        _fold(states[d], root, v, best, lo, hi, d)


@njit_generic
def _fold(s, root, v, best, lo, hi, d):
    """A child's value ``v`` into position ``d`` (``s``)."""
    if s[TO_MOVE] == root:
        if v > best[d]:
            best[d] = v
        if v > lo[d]:
            lo[d] = v
    else:
        if v < best[d]:
            best[d] = v
        if v < hi[d]:
            hi[d] = v


@njit
def _check(st, tt, stats):
    """ValueError unless ``st`` is a record the core and the search may index: numba
    checks no bounds, and a record is a public array anyone can write."""
    if st.shape[0] < LZ_STATE_SIZE:
        raise ValueError("the state must be a whole lízaný record (int32[LZ_STATE_SIZE])")
    if st[OVER]:
        raise ValueError("the deal is over: nothing to solve")
    if (st[TO_MOVE] < 0 or st[TO_MOVE] > 1 or st[TABLE] < -1 or st[TABLE] >= NCARDS
            or st[TRUMP_CARD] < 0 or st[TRUMP_CARD] >= NCARDS or st[STOCK_POS] < 0
            or st[STOCK_POS] > STOCK_SIZE):
        raise ValueError("a malformed record: the seat to move must be 0 or 1, the table "
                         "card -1..31, the trump card 0..31 and the stock position 0..16")
    h0 = getm(st, HAND) & np.int64(0xFFFFFFFF)
    h1 = getm(st, HAND + 1) & np.int64(0xFFFFFFFF)
    left = STOCK_SIZE - st[STOCK_POS]
    stock = np.int64(0)
    for k in range(st[STOCK_POS], STOCK_SIZE):
        c = st[STOCK + k]
        if c < 0 or c >= NCARDS or (stock >> c) & 1 or ((h0 | h1) >> c) & 1:
            raise ValueError("a malformed record: a stock card is not a card 0..31, or is "
                             "twice in the stock or in a hand too")
        stock |= np.int64(1) << c
    n0 = popcount(h0)
    n1 = popcount(h1)
    if n0 > HAND_SIZE or n1 > HAND_SIZE:
        raise ValueError("a malformed record: a hand holds more than 8 cards")
    led = 1 if st[TABLE] >= 0 else 0
    mover = n0 if st[TO_MOVE] == 0 else n1
    played = (getm(st, PLAYED) | getm(st, PLAYED + 1)) & np.int64(0xFFFFFFFF)
    if led:
        played &= ~(np.int64(1) << st[TABLE])  # the trick's card is played and in play
    if (h0 & h1 or (led and ((h0 | h1 | stock) >> st[TABLE]) & 1) or left % 2
            or played & (h0 | h1 | stock)
            or st[TRICK_NO] < 0 or st[TRICK_NO] >= N_TRICKS
            or n0 + n1 + left != 2 * (N_TRICKS - st[TRICK_NO]) - led
            or n0 + n1 - mover != mover - led):
        raise ValueError("a malformed record: the hands share a card, a card is both played "
                         "and held or in the stock, the trick's card is still held, the "
                         "stock is odd, or the hands and the stock do not hold the cards of "
                         "the tricks left (each seat one a trick)")
    if tt.ndim != 2 or tt.shape[1] != 3 or tt.shape[0] < 3 or (tt.shape[0] - 1) & (
            tt.shape[0] - 2):
        raise ValueError("the table must be new_table()'s: int64[2**k + 1, 3]")
    if stats.shape[0] < 1:
        raise ValueError("stats holds at least one counter")


@njit
def _child_value(st, c, root, alpha, beta, tt, stamp, stats, max_nodes):
    child = st[:LZ_STATE_SIZE].copy()
    play_card(child, c)
    stats[0] += 1
    return _search(child, root, alpha, beta, tt, stamp, stats, max_nodes)


@njit
def _begin(tt):
    tt[0, 2] += 1 << 8  # a new stamp: older entries no longer match
    return tt[0, 2] >> 8


@njit
def solve_values(st, out, tt, stats, max_nodes):
    """Each legal card's exact value for the seat to move into ``out`` (int64[32]): its
    reward at the end when it plays that card and both seats play best after; ``NO_CARD``
    for the other cards.  Returns the legal cards (a mask), or -1 when the search passed
    ``max_nodes`` positions (``NO_LIMIT``: none; ``out`` then holds no answer).  ``tt`` is
    a :func:`new_table`, ``stats[0]`` counts the positions searched; ``st`` is not
    changed.  ValueError for a short record, a finished deal, a malformed table or a short
    ``out``.  ``max_nodes`` is compared with the running count ``stats[0]``."""
    _check(st, tt, stats)
    if out.shape[0] < NCARDS:
        raise ValueError("out holds 32 values")
    stamp = _begin(tt)
    root = st[TO_MOVE]
    legal = legal_cards(st)
    for c in range(NCARDS):
        out[c] = NO_CARD
        if (legal >> c) & 1:
            out[c] = _child_value(st, c, root, -_WIN, _WIN, tt, stamp, stats, max_nodes)
            if out[c] == ABORTED:
                return np.int64(-1)
    return legal


@njit
def solve_best(st, first, tt, stats, max_nodes):
    """The best card for the seat to move and its exact value, as ``(card, value)``: the
    first card of the best value, trying ``first`` (a legal card, or -1) before the others,
    so a caller's preferred card wins every tie; ``(-1, ABORTED)`` when the search passed
    ``max_nodes`` positions.  Arguments as :func:`solve_values`."""
    _check(st, tt, stats)
    stamp = _begin(tt)
    root = st[TO_MOVE]
    legal = legal_cards(st)
    if first >= 0 and not (legal >> first) & 1:
        raise ValueError("solve_best: the card to try first is not legal")
    best_c = -1
    best_v = -_WIN
    for k in range(-1, NCARDS):
        c = first if k < 0 else k
        if c < 0 or not (legal >> c) & 1 or (k >= 0 and c == first):
            continue
        v = _child_value(st, c, root, best_v, _WIN, tt, stamp, stats, max_nodes)
        if v == ABORTED:
            return -1, ABORTED
        if best_c < 0 or v > best_v:
            best_c = c
            best_v = v
        if best_v >= 2:  # nothing is better than a double win
            break
    return best_c, best_v


@njit
def solve_value(st, tt, stats, max_nodes):
    """The exact value of ``st`` for the seat to move (both seats playing best), or
    ``ABORTED``; arguments as :func:`solve_values`."""
    _check(st, tt, stats)
    return _search(st, st[TO_MOVE], -_WIN, _WIN, tt, _begin(tt), stats, max_nodes)


class Solver:
    """The solver as a robot holds it: one table reused across solves, and a time budget
    per call turned into a node budget at the speed its own solves have shown (at first
    :attr:`RATE` positions a second, below what a loaded 2-core machine does), so that a
    call given ``seconds`` returns within about that time; None when the budget ran out
    (``seconds`` None: no budget)."""

    RATE = 1.5e6

    def __init__(self) -> None:
        self.table = new_table()
        self.count = np.zeros(1, np.int64)
        self.values = np.zeros(NCARDS, np.int64)
        self.rate = self.RATE
        self.stats = {"solves": 0, "aborted": 0, "nodes": 0}

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its table (1.5 MiB, :data:`TT_BITS`): a cache of exact values that
        an empty one gives again, so a robot sent to a worker process or a Ray actor is a
        few hundred bytes, not the table; the copy starts with an empty one."""
        state = self.__dict__.copy()
        state["table"] = len(self.table) - 1  # its entries: the copy's table is as large
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.table = new_table(int(state["table"]).bit_length() - 1)

    def _limit(self, seconds: float | None) -> int:
        if seconds is None:
            return NO_LIMIT
        return int(self.count[0]) + max(1, int(seconds * self.rate))

    def _done(self, start: float, nodes: int, aborted: bool) -> None:
        spent = time.perf_counter() - start
        self.stats["solves"] += 1
        self.stats["aborted"] += aborted
        self.stats["nodes"] += nodes
        if nodes > 10_000 and spent > 0:  # long enough to time: follow the machine's speed
            self.rate = min(self.RATE, 0.5 * self.rate + 0.5 * nodes / spent)

    def card_values(self, st: np.ndarray, seconds: float | None) -> np.ndarray | None:
        """:func:`solve_values`' values (int64[32], ``NO_CARD`` for an illegal card; a
        view that the next call overwrites), or None."""
        start, n0 = time.perf_counter(), int(self.count[0])
        legal = solve_values(st, self.values, self.table, self.count, self._limit(seconds))
        self._done(start, int(self.count[0]) - n0, legal < 0)
        return None if legal < 0 else self.values

    def value(self, st: np.ndarray, seconds: float | None) -> int | None:
        """:func:`solve_value` (for the seat to move), or None."""
        start, n0 = time.perf_counter(), int(self.count[0])
        v = solve_value(st, self.table, self.count, self._limit(seconds))
        self._done(start, int(self.count[0]) - n0, v == ABORTED)
        return None if v == ABORTED else int(v)


_WARM: list[bool] = []


def warm_up() -> float:
    """Compile (or load from numba's disk cache) the solver's kernels on a small open deal,
    once per process; the seconds it took.  The robots that search call it when they are
    built, so that no decision compiles (``python -m mariash_env.compile`` calls it too:
    about ten seconds on an empty cache, a tenth of a second from it)."""
    if _WARM:
        return 0.0
    from ...compile import compiling_notice
    from ..base import step_bound
    from .core import DEAL_DECISIONS
    from .game import LizanyGame

    start = time.perf_counter()
    with compiling_notice("lízaný", about="about ten seconds", kernels=(solve_best,)):
        g = LizanyGame(seed=0)
        tick = step_bound("lízaný's solver warm-up deal", DEAL_DECISIONS)
        while g.stock_left:
            tick()
            g.play(int(np.flatnonzero(g.legal_mask())[0]))
        s = Solver()
        s.card_values(g.st, 1.0)
        s.value(g.st, None)
        solve_best(g.st, -1, s.table, s.count, NO_LIMIT)
    _WARM.append(True)
    return time.perf_counter() - start
