"""Decoding an observation vector into what a rule-based robot reasons about.

:func:`decode` turns ``float32[OBS_SIZE]`` (layout
:data:`mariash_env.games.voleny.observe.OBS_LAYOUT`)
plus its action mask into an :class:`ObsInfo`: card sets as 32-bit ``int`` masks
(bit ``c`` = card index ``c``, see :mod:`mariash_env.cards`), seats *relative* to the
observer (0 = me, 1 = the next seat clockwise, 2 = the one after; -1 = none), the
phase, the contract, the bets and the card play so far (tricks in playing order,
voids inferred from it).  It only ever reads the observation, never the state, so a
robot built on it sees exactly what its seat sees.

The module also holds the small card helpers the robots share (suit masks, rank
orders, trick winners, hole counting for betl and durch after the computer program's notes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..cards import cards_of as cards  # the robots' name for it
from ..core.jit import compile_for, njit, njit_generic
from ..core.state import C_BETL, C_DURCH, C_SUIT, PH_PLAY
from ..core.tables import SHARP_MASK

# the core's card vocabulary in its pure-Python form (re-exported for the robots)
from ..core.tricks import beats_py as beats  # noqa: F401
from ..core.tricks import popcount as _popcount
from ..core.tricks import popcount_py as popcount
from ..core.tricks import strength_py as strength
from ..core.tricks import winning_index_py as winning_index  # noqa: F401
from ..games.voleny import observe as O
from ..games.voleny.actions import N_ACTIONS
from ..games.voleny.observe4 import OBS4_SIZE
from .base import ObservationError, observation_arrays

# --- card helpers ------------------------------------------------------------------------

SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))
ALL_CARDS = 0xFFFFFFFF
R7, R8, R9, RT, RJ, RQ, RK, RA = range(8)
SHARP = SHARP_MASK  # aces and tens: the cards with points (RULES.md §1)
ACES = sum(1 << (8 * s + RA) for s in range(4))
SEVENS = sum(1 << (8 * s) for s in range(4))


def suit(c: int) -> int:
    return c >> 3


def rank(c: int) -> int:
    return c & 7


def in_suit(m: int, s: int) -> int:
    return m & SUIT_MASKS[s]


def points(c: int) -> int:
    return 10 if (SHARP >> c) & 1 else 0


def higher_in_suit(c: int, m: int, trump: int) -> int:
    """The cards of ``m`` of ``c``'s suit that rank above ``c``."""
    s = c >> 3
    out = 0
    sc = strength(c, trump)
    for d in cards(in_suit(m, s)):
        if strength(d, trump) > sc:
            out |= 1 << d
    return out


def strongest(m: int, trump: int) -> int:
    """The strongest card of a (non-empty) set by (is trump, rank strength); not
    :func:`mariash_env.core.tricks.highest`, the highest card code."""
    return max(cards(m), key=lambda c: (c >> 3 == trump, strength(c, trump), -c))


def weakest(m: int, trump: int) -> int:
    """The weakest card of a (non-empty) set by (is trump, rank strength); not
    :func:`mariash_env.core.tricks.lowest`, the lowest card code."""
    return min(cards(m), key=lambda c: (c >> 3 == trump, strength(c, trump), c))


def marriages(hand: int) -> list[int]:
    """Suits in which the hand holds both king and queen."""
    return [s for s in range(4) if (hand >> (8 * s + RQ)) & 3 == 3]


@njit_generic
def _top_bit(h):
    """Index of the highest set bit of ``h`` (> 0): ``h.bit_length() - 1``."""
    r = 0
    while h >> (r + 1):
        r += 1
    return r


@njit_generic
def betl_holes_jit(hand, known_out):
    """The program's holes of a betl hand: cards missing from the run upward from the seven.

    Per suit held: every card below the hand's highest card of that suit that is neither
    in the hand nor in ``known_out`` (cards known to be out of play for the opponents,
    e.g. one's own talon) is a hole, i.e. a card the defence can lead to force the
    actor above it.  A hand with no hole is a *ložený betl*.  Compiled: the table
    robots' discards ask it for every pair (games/voleny/table_discards.py).
    """
    holes = 0
    for s in range(4):
        h = (hand >> (8 * s)) & 0xFF
        if not h:
            continue
        top = _top_bit(h)
        gone = (known_out >> (8 * s)) & 0xFF
        below = (1 << top) - 1
        holes += _popcount(below & ~h & ~gone)
    return holes


@njit_generic
def durch_hole_suits_jit(hand, known_out):
    """The program's holed suits of a durch hand (the number of them).

    A suit is holed when the hand holds a card lower than some card the opponents may
    hold in it, *and* the run of the hand's cards downward from the ace is shorter than
    the number of that suit's cards in the opponents' hands (all cards of the suit that
    are neither in the hand nor in ``known_out``).  With a run at least that long the
    opponents are out of the suit before its low cards are led.
    """
    n = 0
    for s in range(4):
        h = (hand >> (8 * s)) & 0xFF
        if not h:
            continue
        opp = 0xFF & ~h & ~((known_out >> (8 * s)) & 0xFF)
        if not opp:
            continue
        if _top_bit(opp) < _top_bit(h & -h):
            continue  # every opponents' card is below the hand's lowest: no hole
        run = 0
        r = 7
        while r >= 0 and (h >> r) & 1:
            run += 1
            r -= 1
        if run < _popcount(opp):
            n += 1
    return n


# --- the decoded observation ----------------------------------------------------------------


@dataclass
class Trick:
    leader: int  # relative seat
    cards: list[int]  # in playing order
    by: list[int] = field(default_factory=list)  # relative seat of each card


@dataclass
class ObsInfo:
    """Everything a seat knows, decoded.  Seats are relative: 0 me, 1 next, 2 after."""

    hand: int
    laid: int
    took: int
    talon: int  # the talon, when this seat laid it and it is still the talon
    trump_card: int  # -1 when unknown to me
    trump_public: int  # public trump suit, -1 before it is shown
    blind: bool
    played_by: tuple[int, int, int]
    played: int
    tricks: list[Trick]  # completed tricks in order
    cur: Trick | None  # the current trick (possibly with no card yet), in the play phase
    trick_no: int
    contract: int  # C_NONE, C_SUIT, C_BETL, C_DURCH
    announce: int  # 0 none, 1 hra, 2 sedma, 3 sto, 4 sto a sedma
    actor: int
    forehand: int
    dealer: int
    chooser: int
    bad: int
    durch: int
    good: int  # bits of relative seats
    bet_exists: tuple[bool, bool, bool, bool]
    bet_level: tuple[int, int, int, int]
    bet_seat: tuple[int, int]  # who announced seven against / hundred against
    raised_by: list[list[int]]  # [bet][level-1] -> relative seat, -1 none
    flek_round: int
    raisable: int
    raised_rnd: int
    announced_rnd: int
    marriage: tuple[int, int, int, int]  # [suit] -> relative seat that announced it
    first_marriage: tuple[int, int]  # [actor side, defence side] -> suit, -1
    phase: int
    ndisc: int
    points: tuple[int, int, int]
    ntricks: tuple[int, int, int]
    deal_no: int
    score: tuple[int, int, int]
    mask: np.ndarray
    voids: list[int] = field(default_factory=lambda: [0, 0, 0])  # [rel seat] suit bits
    open: bool = False  # open betl / open durch (RULES.md §11.1)
    open_hand: int = 0  # the actor's face-up cards, once the first trick is complete

    @property
    def legal(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.mask)]

    @property
    def trump(self) -> int:
        """Trump suit as known to me: public, or my own trump card as forehand; else -1."""
        if self.contract not in (0, C_SUIT):
            return -1
        if self.trump_public >= 0:
            return self.trump_public
        if self.trump_card >= 0:
            return self.trump_card >> 3
        return -1

    @property
    def suit_game(self) -> bool:
        return self.contract == C_SUIT

    @property
    def no_trumps(self) -> bool:
        return self.contract in (C_BETL, C_DURCH)

    def partner(self) -> int:
        """Relative seat of my partner when I defend, else -1."""
        if self.actor < 0 or self.actor == 0:
            return -1
        return 3 - self.actor

    def known_out(self) -> int:
        """Cards I know are in no other hand: my hand, the played cards, my talon."""
        return self.hand | self.played | self.talon

    def unknown(self) -> int:
        """Cards whose holder I do not know (the other hands and a talon I did not lay)."""
        return ALL_CARDS & ~self.known_out()


_LAYOUT = {name: (off, n) for name, off, n, _doc in O.OBS_LAYOUT if off < O.OBS_SIZE}


# The compiled checks below stay plain ``njit``, unlike the table robots' rules
# (``njit_generic``): their callers pass the observation's offsets as constants, each
# check is compiled for one caller's (two games at most), and their loops run faster
# with the offsets known (the table robots' decisions 3-6 % faster than generic).
@njit
def plain_ok(v, numbers, groups, mask):
    """The checks of :func:`check_observation` that every game shares, compiled, as a
    test: True when ``v`` (float32, at least the spec's length) is finite, 0 or 1 outside
    the number slots (``numbers[i]`` 1), each one-hot group has at most one slot set
    (exactly one where its block's row says so; ``groups``: rows ``offset, groups, group
    size, exactly one`` a block) and every value of ``mask`` (int8; empty: no mask) is 0
    or 1.  Branch-free, so that the slots' pass is vectorised."""
    bad = False
    for i in range(numbers.size):
        x = v[i]
        bad |= (not abs(x) < np.inf) | ((numbers[i] == 0) & (x != 0.0) & (x != 1.0))
    for b in range(groups.shape[0]):
        off, n, size, exact = groups[b, 0], groups[b, 1], groups[b, 2], groups[b, 3]
        for g in range(off, off + n * size, size):
            set_ = np.float32(0.0)  # the slots are 0 or 1 here (else ``bad`` already)
            for i in range(g, g + size):
                set_ += v[i]
            bad |= (set_ > 1.5) | ((exact != 0) & (set_ < 0.5))
    for i in range(mask.size):
        bad |= (mask[i] != 0) & (mask[i] != 1)
    return not bad


@dataclass(frozen=True)
class ObsSpec:
    """What a canonical observation of one game holds, for :func:`check_observation`
    (one check for every game's rule robot, each game declaring its blocks here)."""

    what: str  # how the messages name it: "an observation", "a licitovaný observation"
    lengths: tuple[int, ...]  # accepted lengths: the observation's own, then longer ones
    others: str  # those longer ones, for the message: " (or the four-player 924)"
    layout: dict[str, tuple[int, int]]  # block -> (offset, size), within lengths[0]
    numbers: tuple[int, ...]  # the slots holding numbers; every other slot is 0 or 1
    numbers_text: str  # where the numbers are, for the message
    at_most_one: tuple[tuple[str, int], ...]  # (block, group size): at most one set each
    exactly_one: tuple[tuple[str, int], ...]  # (block, group size): exactly one set each
    n_actions: int  # the action mask's length
    extra: Callable[[np.ndarray], None] | None = None  # the game's own checks of the bits
    # The whole check compiled, as a test: ``compiled(v, *tables, mask)`` is True exactly
    # when check_observation passes on a float32 ``v`` and an int8 ``mask``: the game's
    # kernel is ``plain_ok(v, numbers, groups, mask) and`` its own checks of ``extra``.
    # None: plain_ok, then ``extra`` in Python.
    compiled: Callable[..., bool] | None = None

    @staticmethod
    def slots(layout: dict[str, tuple[int, int]], *blocks: str) -> tuple[int, ...]:
        """The slots of ``blocks`` (for :attr:`numbers`)."""
        return tuple(i for b in blocks for i in range(layout[b][0], sum(layout[b])))

    @cached_property
    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The spec as :func:`plain_ok` reads it (made once): ``numbers``, a flag a slot
        (1: a number slot), and ``groups``, a row ``offset, groups, group size, exactly
        one`` a one-hot block."""
        numbers = np.zeros(self.lengths[0], np.uint8)
        numbers[list(self.numbers)] = 1
        rows = []
        for blocks, exact in ((self.at_most_one, 0), (self.exactly_one, 1)):
            for name, size in blocks:
                off, n = self.layout[name]
                if n % size or numbers[off:off + n].any():
                    raise ValueError(f"block {name!r} ({n} slots from {off}) is no one-hot "
                                     f"groups of {size}: a number slot, or a rest")
                rows.append((off, n // size, size, exact))
        return numbers, np.array(rows, np.int64).reshape(-1, 4)


# The dtypes whose every value float32 holds exactly (float64's do not): the compiled
# check sees in them the values the full check's float64 copy holds.
_FLOAT32 = np.dtype(np.float32)
_EXACT_IN_FLOAT32 = frozenset(np.dtype(t) for t in (np.float32, np.float16, np.bool_, np.int8,
                                                   np.uint8, np.int16, np.uint16))
_INT8 = np.dtype(np.int8)
_NO_MASK = np.zeros(0, _INT8)


def is_canonical(v: Any, mask: Any, spec: ObsSpec) -> bool:
    """True when the compiled check (:attr:`ObsSpec.compiled`) finds ``v`` a canonical
    observation of ``spec``'s game (and ``mask``, unless None, a 0/1 action mask of it):
    the common case, a float32 vector and an int8 mask, in 2-3 microseconds.  False when
    it is not, or the compiled check cannot tell (a list, another dtype): then
    :func:`check_observation` names the fault.  Never True for an observation that
    :func:`check_observation` refuses, nor False for a float32 one it takes with an int8
    mask or none (``tests/test_obs_check.py``)."""
    if type(v) is not np.ndarray or v.ndim != 1 or v.shape[0] not in spec.lengths:
        return False
    if v.dtype is not _FLOAT32 or not v.flags.carray:  # not float32, or not a plain array
        if v.dtype not in _EXACT_IN_FLOAT32:
            return False
        v = v.astype(np.float32)
    m = _NO_MASK
    if mask is not None:
        if type(mask) is not np.ndarray:
            return False
        if mask.dtype is _INT8 and mask.shape == (spec.n_actions,):
            m = mask if mask.flags.carray else mask.copy()
    numbers, groups = spec.tables
    if spec.compiled is not None:
        if not spec.compiled(v, numbers, groups, m):
            return False
    elif not plain_ok(v, numbers, groups, m):
        return False
    elif spec.extra is not None:
        try:
            spec.extra(v[:spec.lengths[0]] > 0.5)
        except ObservationError:
            return False
    # a mask of another dtype or shape: tested in numpy
    return mask is None or m is not _NO_MASK or _mask_ok(mask, spec)


def warm_check(spec: ObsSpec) -> None:
    """Compile (or load) the kernel :func:`is_canonical` calls for ``spec``, on the types
    it calls it with (not run): a table robot's warm-up, so that no decision compiles."""
    compile_for(plain_ok if spec.compiled is None else spec.compiled,
                np.zeros(spec.lengths[0], np.float32), *spec.tables, _NO_MASK)


def check_observation(v: Any, mask: Any, spec: ObsSpec) -> np.ndarray:
    """``v`` as float32[spec.lengths[0]] when it is a canonical observation of ``spec``'s
    game (and ``mask``, unless None, a 0/1 action mask of it), else ObservationError naming
    what is wrong and what was expected: numbers, of an accepted length, finite, 0 or 1
    outside the number slots, the one-hot groups one-hot, then the game's own checks.

    The common case is compiled (:func:`is_canonical`); what it does not pass, the full
    check in numpy takes, naming the first fault (:func:`_check_in_full`)."""
    if is_canonical(v, mask, spec):
        return v[:spec.lengths[0]].astype(np.float32)
    return _check_in_full(v, mask, spec)


def _mask_ok(mask: Any, spec: ObsSpec) -> bool:
    """Whether ``mask`` is ``spec.n_actions`` values 0 or 1."""
    m = np.asarray(mask)
    return not (m.shape != (spec.n_actions,) or m.dtype.kind not in "biuf" or (
        (m != 0) & (m != 1)).any())


def _check_mask(mask: Any, spec: ObsSpec) -> None:
    """ObservationError unless ``mask`` is ``spec.n_actions`` values 0 or 1."""
    if not _mask_ok(mask, spec):
        m = np.asarray(mask)
        raise ObservationError(f"{spec.what.replace('observation', 'action mask')} is "
                               f"{spec.n_actions} values 0 or 1, got "
                               f"{m.dtype}{list(m.shape)}")


def _check_in_full(v: Any, mask: Any, spec: ObsSpec) -> np.ndarray:
    """:func:`check_observation` in numpy, every check in turn: ObservationError naming
    the first fault."""
    try:
        v = np.asarray(v)
    except (ValueError, TypeError) as e:  # ragged or odd sequences
        raise ObservationError(f"{spec.what} is a vector of {spec.lengths[0]} floats: "
                               f"{e}") from e
    size = spec.lengths[0]
    if v.dtype == object or v.dtype.kind not in "biuf":
        raise ObservationError(f"{spec.what} is numbers, got dtype {v.dtype}")
    if v.ndim != 1 or v.shape[0] not in spec.lengths:
        raise ObservationError(f"{spec.what} is a vector of {size} floats{spec.others}, got "
                               f"shape {v.shape}")
    v = v[:size].astype(np.float64)
    if not np.isfinite(v).all():
        raise ObservationError(f"observation[{int(np.flatnonzero(~np.isfinite(v))[0])}] is "
                               "not finite: expected finite floats")
    binary = np.ones(size, dtype=bool)
    binary[list(spec.numbers)] = False
    bad = np.flatnonzero(binary & (v != 0) & (v != 1))
    if bad.size:
        i = int(bad[0])
        block = next(name for name, (off, n) in spec.layout.items() if off <= i < off + n)
        raise ObservationError(f"observation[{i}] = {v[i]!r} (block {block!r}): expected 0 "
                               f"or 1 outside {spec.numbers_text}")
    bits = v > 0.5
    for groups, exact in ((spec.at_most_one, False), (spec.exactly_one, True)):
        for name, gsize in groups:
            off, n = spec.layout[name]
            g = bits[off:off + n].reshape(-1, gsize).sum(axis=1)
            if exact and (g != 1).any():
                raise ObservationError(f"block {name!r} has {int(g[g != 1][0])} slots set: "
                                       f"expected exactly one of {gsize}")
            if not exact and (g > 1).any():
                raise ObservationError(f"block {name!r} group {int(np.flatnonzero(g > 1)[0])} "
                                       f"has {int(g.max())} slots set: expected a one-hot "
                                       f"group of {gsize} (at most one set)")
    if spec.extra is not None:
        spec.extra(bits)
    if mask is not None:
        _check_mask(mask, spec)
    return v.astype(np.float32)


def check_levels(bits: np.ndarray, layout: dict[str, tuple[int, int]], exists: str,
                 levels: str, thing: str) -> None:
    """A flek level (one of 8 slots of block ``levels``) exactly for each ``thing`` that
    block ``exists`` marks (volený's bets, licitovaný's components); ObservationError
    naming the first that differs."""
    off, n = layout[exists]
    ex = bits[off:off + n]
    off, n = layout[levels]
    lv = bits[off:off + n].reshape(-1, 8).sum(axis=1)
    if ((lv == 1) != ex).any():
        k = int(np.flatnonzero((lv == 1) != ex)[0])
        raise ObservationError(f"{thing} {k}: '{levels}' has {int(lv[k])} slots set but "
                               f"'{exists}' says {int(ex[k])}: expected a level exactly for "
                               f"each {thing} that exists")


def check_tricks(bits: np.ndarray, layout: dict[str, tuple[int, int]]) -> None:
    """ObservationError unless the card-play blocks of an observation's set ``bits``
    (``played_by``, ``played_in``, ``trick_leader``, ``cur_trick``, at the offsets of
    ``layout``: block -> (offset, size)) tell one consistent history of tricks.  Both
    games' observations share these blocks' shapes."""
    off, _ = layout["played_by"]
    by = bits[off:off + 96].reshape(3, 32)
    off, _ = layout["played_in"]
    inn = bits[off:off + 320].reshape(32, 10)
    if (by.sum(axis=0) > 1).any():
        raise ObservationError("block 'played_by' gives a card two players: expected each "
                               "played card once")
    if (inn.sum(axis=1) > 1).any() or (inn.any(axis=1) != by.any(axis=0)).any():
        raise ObservationError("blocks 'played_in' and 'played_by' disagree: expected the "
                               "same played cards, each in one trick")
    off, _ = layout["cur_trick"]
    cur = bits[off:off + 64].reshape(2, 32)
    ncur = int(cur[0].any()) + int(cur[1].any())
    nplayed = int(by.sum())
    per_trick = inn.sum(axis=0)
    t = (nplayed - ncur) // 3
    off, _ = layout["trick_leader"]
    lead = bits[off:off + 30].reshape(10, 3)
    owner = by.argmax(axis=0)
    if (cur[1].any() and not cur[0].any()) or (nplayed - ncur) % 3 or t > 10 or (
            ncur and (t >= 10 or per_trick[t] != ncur or not inn[cur.any(axis=0), t].all())):
        raise ObservationError("block 'cur_trick' does not continue the played tricks: "
                               "expected its cards, first then second, to be the cards "
                               "played in the trick after the complete ones")
    for k in range(10):
        n = per_trick[k]
        full = 3 if k < t else ncur if k == t else 0
        seats = {int(owner[c]) for c in np.flatnonzero(inn[:, k])}
        if n != full or len(seats) != n or lead[k].any() != (n > 0):
            raise ObservationError(f"trick {k} has {int(n)} cards by {len(seats)} seats and "
                                   f"{int(lead[k].sum())} leaders: expected {full} cards by "
                                   "different seats, with its leader once begun")


@njit_generic
def levels_ok(v, exists, levels, n):
    """:func:`check_levels` compiled, as a test of ``v`` (its slots 0 or 1): True when
    each of the ``n`` slots at offset ``exists`` is set exactly where its row of 8 slots at
    offset ``levels`` has one set."""
    for k in range(n):
        set_ = 0
        for j in range(levels + 8 * k, levels + 8 * k + 8):
            if v[j] > 0.5:
                set_ += 1
        if (set_ == 1) != (v[exists + k] > 0.5):
            return False
    return True


@njit_generic
def tricks_ok(v, played_by, played_in, cur_trick, trick_leader):
    """:func:`check_tricks` compiled, as a test of ``v`` (its slots 0 or 1): True when the
    card-play blocks at those offsets tell one consistent history of tricks."""
    per_trick = np.zeros(10, np.int64)  # cards in each trick
    seats = np.zeros(10, np.int64)  # the bits of the seats that played to each trick
    nplayed = 0
    for c in range(32):
        owner = -1
        for r in range(3):
            if v[played_by + 32 * r + c] > 0.5:
                if owner >= 0:
                    return False  # a card of two players
                owner = r
        trick = -1
        for k in range(10):
            if v[played_in + 10 * c + k] > 0.5:
                if trick >= 0:
                    return False  # a card in two tricks
                trick = k
        if (trick >= 0) != (owner >= 0):
            return False  # played_in and played_by disagree
        if owner >= 0:
            nplayed += 1
            per_trick[trick] += 1
            seats[trick] |= 1 << owner
    first = second = False
    for c in range(32):
        first |= v[cur_trick + c] > 0.5
        second |= v[cur_trick + 32 + c] > 0.5
    ncur = int(first) + int(second)
    if (second and not first) or nplayed < ncur or (nplayed - ncur) % 3:
        return False
    t = (nplayed - ncur) // 3
    if t > 10:
        return False
    if ncur:
        if t >= 10 or per_trick[t] != ncur:
            return False
        for c in range(32):
            if (v[cur_trick + c] > 0.5 or v[cur_trick + 32 + c] > 0.5) and not (
                    v[played_in + 10 * c + t] > 0.5):
                return False  # a card on the table not played in trick t
    for k in range(10):
        n = per_trick[k]
        full = 3 if k < t else ncur if k == t else 0
        led = False
        for j in range(3):
            led |= v[trick_leader + 3 * k + j] > 0.5
        if n != full or _popcount(seats[k]) != n or led != (n > 0):
            return False
    return True


def _voleny_bits(bits: np.ndarray) -> None:
    """Volený's own checks: a raise names one seat, a flek level exactly for each bet
    that exists, one consistent history of tricks."""
    # raised_by: [bet][level] groups of 3, less the open contract's slots (core/observe.py).
    off, n = _LAYOUT["raised_by"]
    rb = bits[off:off + n].reshape(-1, 3).sum(axis=1)
    if bits[O.O_OPEN]:
        rb = rb[:7]
    if (rb > 1).any():
        raise ObservationError("block 'raised_by' names two seats for one raise: expected at "
                               "most one per bet and level")
    check_levels(bits, _LAYOUT, "bet_exists", "bet_level", "bet")
    check_tricks(bits, _LAYOUT)


_RAISED_BY, _N_RAISED_BY = _LAYOUT["raised_by"]
_BET_EXISTS, _N_BETS = _LAYOUT["bet_exists"]
_BET_LEVEL = _LAYOUT["bet_level"][0]  # 8 slots a bet
_O_OPEN = O.O_OPEN
_PLAYED_BY, _PLAYED_IN = _LAYOUT["played_by"][0], _LAYOUT["played_in"][0]
_CUR_TRICK, _TRICK_LEADER = _LAYOUT["cur_trick"][0], _LAYOUT["trick_leader"][0]


@njit
def _voleny_ok(v, numbers, groups, mask):
    """Volený's whole check compiled, as a test (:attr:`ObsSpec.compiled`): the shared
    checks, then :func:`_voleny_bits`'s."""
    if not plain_ok(v, numbers, groups, mask):
        return False
    rows = _N_RAISED_BY // 3
    if v[_O_OPEN] > 0.5:
        rows = min(rows, 7)
    for r in range(rows):
        n = 0
        for j in range(_RAISED_BY + 3 * r, _RAISED_BY + 3 * r + 3):
            if v[j] > 0.5:
                n += 1
        if n > 1:
            return False
    return levels_ok(v, _BET_EXISTS, _BET_LEVEL, _N_BETS) and tricks_ok(
        v, _PLAYED_BY, _PLAYED_IN, _CUR_TRICK, _TRICK_LEADER)


VOLENY_OBS = ObsSpec(
    what="an observation", lengths=(O.OBS_SIZE, OBS4_SIZE),  # and the four-player one,
    others=f" (or the four-player {OBS4_SIZE})",               # whose first block it is
    layout=_LAYOUT, numbers=ObsSpec.slots(_LAYOUT, "points", "ntricks", "score"),
    numbers_text="the points, ntricks and score blocks",
    at_most_one=(("trump_card", 32), ("trump_suit", 4), ("trick_leader", 3),
                 ("cur_trick", 32), ("contract", 3), ("announce", 4), ("actor", 3),
                 ("chooser", 3), ("bad", 3), ("durch", 3), ("bet_level", 8),
                 ("bet_seat", 3), ("flek_round", 8), ("marriage", 3),
                 ("first_marriage", 4)),
    exactly_one=(("forehand", 3), ("dealer", 3), ("phase", 9), ("deal_no", 12)),
    n_actions=N_ACTIONS, extra=_voleny_bits, compiled=_voleny_ok)
"""Volený's canonical observation (the table robot's :func:`decode` checks it)."""


def _check_canonical(v: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """``v`` as float32[OBS_SIZE] when it is a canonical volený observation (and ``mask``
    a 0/1 action mask), else ObservationError (:func:`check_observation`)."""
    return check_observation(v, mask, VOLENY_OBS)


def _mask_of(idx: list[int]) -> int:
    m = 0
    for i in idx:
        m |= 1 << i
    return m


def decode(observation: np.ndarray, mask: np.ndarray | None = None, *,
           check: bool = True) -> ObsInfo:
    """Decode one observation vector (and optionally its action mask); ObservationError
    for anything that is not a canonical observation (see :func:`_check_canonical`).
    ``check=False`` skips that check (compiled: a few microseconds), for an observation
    the caller's own encoder has just written, as in a search's playouts."""
    try:
        v = np.asarray(observation)
    except (ValueError, TypeError) as e:  # ragged or odd sequences
        raise ObservationError(f"an observation is a vector of {O.OBS_SIZE} floats: {e}") from e
    v = _check_canonical(v, mask) if check else v[:O.OBS_SIZE].astype(np.float32, copy=False)
    big = int.from_bytes(np.packbits(v[: O.OBS_SIZE] > 0.5, bitorder="little").tobytes(),
                         "little")

    def field_(off: int, n: int) -> int:
        return (big >> off) & ((1 << n) - 1)

    def one_(off: int, n: int) -> int:
        m = (big >> off) & ((1 << n) - 1)
        return (m & -m).bit_length() - 1

    def F(name: str) -> int:  # the block as a bit mask
        return field_(*_LAYOUT[name])

    def idx(name: str) -> list[int]:  # the set positions of a block
        return cards(field_(*_LAYOUT[name]))

    def one(name: str) -> int:
        return one_(*_LAYOUT[name])

    hand = F("hand")
    tc = one("trump_card")
    ts = one("trump_suit")
    pbm = F("played_by")
    pb = [(pbm >> (32 * r)) & ALL_CARDS for r in range(3)]
    played = pb[0] | pb[1] | pb[2]
    phase = one("phase")
    con = one("contract") + 1
    trump = -1
    if con == C_SUIT or con == 0:
        trump = ts if ts >= 0 else (tc >> 3 if tc >= 0 else -1)
    # Tricks.
    tricks, cur, trick_no, voids = play_history(pb, F("played_in"), F("trick_leader"),
                                                F("cur_trick"), phase == PH_PLAY, trump)
    good = F("good")
    ex = F("bet_exists")
    levels = [0, 0, 0, 0]
    for k in idx("bet_level"):
        levels[k >> 3] = k & 7
    is_open = bool((big >> O.O_OPEN) & 1)
    open_hand = field_(O.O_OPEN_HAND, 32) if is_open else 0
    raised_by = [[-1] * 7 for _ in range(4)]
    for k in idx("raised_by"):
        if is_open and k >= 21:  # the open contract's slots (core/observe.py)
            break
        raised_by[k // 21][(k % 21) // 3] = k % 3
    bet_seat = [-1, -1]
    for k in idx("bet_seat"):
        bet_seat[k // 3] = k % 3
    marriage = [-1, -1, -1, -1]
    for k in idx("marriage"):
        marriage[k // 3] = k % 3
    first_m = [-1, -1]
    for k in idx("first_marriage"):
        first_m[k >> 2] = k & 3
    mask_arr = (np.zeros(N_ACTIONS, dtype=np.int8) if mask is None
                else np.asarray(mask, dtype=np.int8))
    pts = v[O.O_POINTS:O.O_POINTS + 3].tolist()
    ntr = v[O.O_NTRICKS:O.O_NTRICKS + 3].tolist()
    score = v[O.O_SCORE:O.O_SCORE + 3].tolist()
    return ObsInfo(
        hand=hand,
        laid=F("laid"),
        took=F("took"),
        talon=F("talon"),
        trump_card=tc,
        trump_public=ts,
        blind=bool(idx("blind")),
        played_by=(pb[0], pb[1], pb[2]),
        played=played,
        tricks=tricks,
        cur=cur,
        trick_no=trick_no,
        contract=con,
        announce=one("announce") + 1,
        actor=one("actor"),
        forehand=one("forehand"),
        dealer=one("dealer"),
        chooser=one("chooser"),
        bad=one("bad"),
        durch=one("durch"),
        good=good,
        bet_exists=tuple(bool((ex >> b) & 1) for b in range(4)),  # type: ignore[arg-type]
        bet_level=tuple(levels),  # type: ignore[arg-type]
        bet_seat=(bet_seat[0], bet_seat[1]),
        raised_by=raised_by,
        flek_round=one("flek_round") + 1,
        raisable=F("raisable"),
        raised_rnd=F("raised_rnd"),
        announced_rnd=F("announced_rnd"),
        marriage=tuple(marriage),  # type: ignore[arg-type]
        first_marriage=(first_m[0], first_m[1]),
        phase=phase,
        ndisc=int(bool(idx("ndisc"))),
        points=tuple(int(round(x * 100)) for x in pts),  # type: ignore[arg-type]
        ntricks=tuple(int(round(x * 10)) for x in ntr),  # type: ignore[arg-type]
        deal_no=max(one("deal_no"), 0),
        score=tuple(int(round(x * 100)) for x in score),  # type: ignore[arg-type]
        mask=mask_arr,
        voids=voids,
        open=is_open,
        open_hand=open_hand,
    )


def play_history(played_by: list[int], played_in: int, trick_leader: int, cur_trick: int,
                 in_play: bool, trump: int) -> tuple[list[Trick], Trick | None, int, list[int]]:
    """The card play so far from an observation's card-play blocks, as bit masks:
    ``played_by`` (one card set per relative seat), ``played_in`` (bit ``10 * card +
    trick``), ``trick_leader`` (bit ``3 * trick + seat``), ``cur_trick`` (first card, then
    second, 32 bits each).  Returns the complete tricks in order, the trick being played
    (``None`` unless ``in_play``), the trick number and the voids each seat has shown
    (``trump`` -1 in no-trump games).  Both games' observations share these blocks."""
    played = played_by[0] | played_by[1] | played_by[2]
    nplayed = popcount(played)
    cur_cards = [(m & -m).bit_length() - 1 for m in (cur_trick & ALL_CARDS, cur_trick >> 32)
                 if m]
    trick_no = (nplayed - len(cur_cards)) // 3
    leaders = [-1] * 10
    for k in cards(trick_leader):
        leaders[k // 3] = k % 3
    tricks: list[Trick] = []
    voids = [0, 0, 0]
    if nplayed:
        owner = {}
        for r in range(3):
            for c in cards(played_by[r]):
                owner[c] = r
        per_trick: list[list[int]] = [[] for _ in range(10)]
        for k in cards(played_in):
            per_trick[k % 10].append(k // 10)
        for t in range(trick_no):
            lead = leaders[t]
            cs = sorted(per_trick[t], key=lambda c, lead=lead: (owner[c] - lead) % 3)
            tricks.append(Trick(lead, cs, [owner[c] for c in cs]))
    cur = None
    if in_play and trick_no < 10:
        lead = leaders[trick_no]
        if lead < 0:
            lead = 0  # no card yet: the seat to move (me) leads
        cur = Trick(lead, cur_cards, [(lead + j) % 3 for j in range(len(cur_cards))])
    for tr in [*tricks, cur]:
        if tr is None or not tr.cards:
            continue
        led = tr.cards[0] >> 3
        for j in range(1, len(tr.cards)):
            c = tr.cards[j]
            if c >> 3 != led:
                voids[tr.by[j]] |= 1 << led
                if trump >= 0 and c >> 3 != trump:
                    voids[tr.by[j]] |= 1 << trump
    return tricks, cur, trick_no, voids


def decode_dict(observation: dict) -> ObsInfo:
    """Decode the AEC observation dict ``{"observation", "action_mask"}``
    (ObservationError when it is not one)."""
    return decode(*observation_arrays(observation))


@njit_generic
def betl_risk_jit(hand, known_out):
    """Betl holes left after the actor's one free lead (its only sure lead in a betl).

    The actor leads the first trick and, as long as it wins none, never leads again; so it
    can shed exactly one card by leading.  This is :func:`betl_holes` less the largest
    drop that removing one suit's top card gives.
    """
    total = betl_holes_jit(hand, known_out)
    best = 0
    for s in range(4):
        h = (hand >> (8 * s)) & 0xFF
        if not h:
            continue
        top = 1 << _top_bit(h)
        sub = hand & ~(top << (8 * s))
        best = max(best, total - betl_holes_jit(sub, known_out))
    return total - best


# The Python callers' entries: one compiled signature (two int64), ints back.
def betl_holes(hand: int, known_out: int = 0) -> int:
    """:func:`betl_holes_jit`: the program's holes of a betl hand."""
    return int(betl_holes_jit(hand, known_out))


def durch_hole_suits(hand: int, known_out: int = 0) -> int:
    """:func:`durch_hole_suits_jit`: the program's holed suits of a durch hand."""
    return int(durch_hole_suits_jit(hand, known_out))


def betl_risk(hand: int, known_out: int = 0) -> int:
    """:func:`betl_risk_jit`: betl holes left after the actor's one free lead."""
    return int(betl_risk_jit(hand, known_out))
