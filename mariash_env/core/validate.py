"""Whether a state record can be handed to the compiled engine: the one check of records
that come from outside it (``VectorEnv.restore_states``, ``search.solve``, OpenSpiel's
``state_from_record``).

The compiled code checks no bounds, so a record it did not make itself is checked first,
in this order, and the first fault is named:

1. every field the compiled code reads as an index, a seat, a card, a counter or a flag
   lies in its range (the state schema's, :data:`FIELDS`);
2. the deck positions are a permutation of 0..31;
3. the hands, talon, played and claimed cards hold each of the 32 cards exactly once;
4. what the rules' game needs in the record's phase (:mod:`.semantic`'s codes: a seat to
   move with a legal action, the card counts of the phase, ...).

Step 4 reads fields as indices only after steps 1-3 passed for that record.  One
compiled pass per record, so a single record (a search's root) costs microseconds.
"""

from __future__ import annotations

import numpy as np

from ..rules import R_MAX_FLEK, R_NDEALS, R_PLAYERS, is_int
from . import engine as E
from . import state as S
from .engine import legal_actions
from .jit import njit_generic, popcount64
from .semantic import (
    SEMANTIC,
    V_BET_LEVEL,
    V_DEAL_NO,
    V_DEALER,
    V_FLEK_ROUND,
    V_FOREHAND,
    V_HAND,
    V_LEADER,
    V_NO_LEGAL,
    V_PARTIE_DONE,
    V_PHASE,
    V_TALON,
    V_TO_MOVE,
    V_TRICK_NO,
    V_TRICKS,
    V_TRUMP_PUBLIC,
    popc,
)

__all__ = ["FIELDS", "MAX_WORLDS", "check_record", "check_seat_view", "check_states",
           "check_world_count"]

# Every field the compiled code reads as an index, a seat, a card, a counter or a flag, with
# its accepted range, from the state schema: (name, first slot, slots, lowest, highest).
FIELDS = tuple((f.name.lower(), S.OFFSETS[f.name], f.slots, f.range[0], f.range[1])
               for f in S.STATE_SCHEMA if f.range is not None)
_TABLE = np.array([row[1:] for row in FIELDS], dtype=np.int64)  # off, slots, lo, hi
_NF = len(FIELDS)
# Fault kinds after the field ranges (1.._NF): the deck positions, the card places, the
# phase's needs (its semantic code in the second column).
_POS, _PLACES, _PHASE = _NF + 1, _NF + 2, _NF + 3
_ALL32 = np.int64(0xFFFFFFFF)
_PLACE_SLOTS = np.array([S.HAND, S.HAND + 1, S.HAND + 2, S.TALON, S.PLAYED,
                         S.CLAIM_HANDS, S.CLAIM_HANDS + 1, S.CLAIM_HANDS + 2], dtype=np.int64)


@njit_generic
def _record_fault(st, rules, table, places, mask, out):
    """``out[:] = (kind, detail)`` of the first fault of record ``st`` (module docstring;
    kind 0: none).  A field out of range: kind ``1 + i`` (``FIELDS[i]``), detail its slot."""
    out[0] = 0
    out[1] = 0
    for i in range(table.shape[0]):
        off, n, lo, hi = table[i, 0], table[i, 1], table[i, 2], table[i, 3]
        for k in range(n):
            v = st[off + k]
            if v < lo or v > hi:
                out[0] = 1 + i
                out[1] = k
                return
    seen = np.int64(0)
    for c in range(32):
        p = st[S.POS + c]
        if p < 0 or p > 31:
            out[0] = _POS
            return
        seen |= np.int64(1) << p
    if seen != _ALL32:
        out[0] = _POS
        return
    union = np.int64(0)
    count = 0
    for j in range(places.shape[0]):
        m = np.int64(st[places[j]]) & _ALL32
        union |= m
        count += popcount64(m)
    if union != _ALL32 or count != 32:
        out[0] = _PLACES
        return
    code = _semantic_row(st, rules, mask)
    if code:
        out[0] = _PHASE
        out[1] = code


@njit_generic
def _faults(states, rules, table, places, out):
    mask = np.zeros(E.n_actions_of(rules), dtype=np.int8)
    for i in range(states.shape[0]):
        _record_fault(states[i], rules, table, places, mask, out[i])


@njit_generic
def _semantic_row(st, rules, mask):
    """0, or the code (:data:`.semantic.SEMANTIC`) of the first thing ``st`` lacks for its
    phase; the fields are in range already, so nothing here indexes outside a table.
    What the phases of the rules' game need is the game's (``engine.phase_check``)."""
    mf = rules[R_MAX_FLEK]
    ph = st[S.PHASE]
    tm = st[S.TO_MOVE]
    if st[S.DEAL_NO] >= rules[R_NDEALS]:
        return V_DEAL_NO
    if st[S.PARTIE_DONE] and ph != S.PH_DONE:
        return V_PARTIE_DONE
    if not E.phase_of_game(rules, ph):
        return V_PHASE
    if st[S.FOREHAND] != (st[S.DEALER] + 1) % 3:
        return V_FOREHAND
    if (st[S.DEALER] != 2 if rules[R_PLAYERS] == 4 else st[S.P4_DEALER] != 0):
        return V_DEALER
    for b in range(4):
        lvl = st[S.BET_LEVEL + b]
        if lvl > mf or (st[S.BET_EXISTS + b] == 0 and lvl != 0):
            return V_BET_LEVEL
    if st[S.FLEK_ROUND] > E.flek_rounds_of(rules):
        return V_FLEK_ROUND
    if st[S.TRUMP_PUBLIC] and st[S.TRUMP_CARD] < 0:
        return V_TRUMP_PUBLIC
    if ph == S.PH_DONE or tm < 0:
        return 0 if ph == S.PH_DONE and tm < 0 else V_TO_MOVE
    if ph == S.PH_PLAY:
        t = st[S.TRICK_NO]
        n = st[S.TRICK_N]
        lead = st[S.LEADER]
        if t > 9:
            return V_TRICK_NO
        if lead < 0:
            return V_LEADER
        if tm != (lead + n) % 3:
            return V_TO_MOVE
        for j in range(n):
            if st[S.TRICKS + 3 * t + j] < 0:
                return V_TRICKS
        for s in range(3):
            if popc(st, S.HAND + s) != 10 - t - ((s - lead) % 3 < n):
                return V_HAND
        if popc(st, S.TALON) != 2:
            return V_TALON
    code = E.phase_check(st, rules)
    if code:
        return code
    legal_actions(st, rules, mask)
    for a in range(mask.shape[0]):
        if mask[a]:
            return 0
    return V_NO_LEGAL


def _fault_text(kind: int, detail: int, st: np.ndarray) -> str:
    """What fault ``(kind, detail)`` of record ``st`` is, in words."""
    if kind <= _NF:
        name, off, n, lo, hi = FIELDS[kind - 1]
        slot = f"{name}[{detail}]" if n > 1 else name
        return (f"field {slot} (slot {off + detail}) = {int(st[off + detail])} is out of "
                f"range [{lo}, {hi}]")
    if kind == _POS:
        return "deck positions (slots POS..POS+31) are not a permutation of 0..31"
    if kind == _PLACES:
        return ("the hands, talon, played and claimed cards do not hold each of the 32 cards "
                "exactly once")
    field, what = SEMANTIC[detail - 1]
    value = (f" = {int(st[S.OFFSETS[field.upper()]])}" if field.upper() in S.OFFSETS
             and S.STATE_SCHEMA[list(S.OFFSETS).index(field.upper())].slots == 1 else "")
    return f"field {field}{value} in phase {S.PHASE_NAMES[int(st[S.PHASE])]}: expected {what}"


def check_states(states: np.ndarray, rules: np.ndarray) -> None:
    """ValueError naming the first fault (module docstring) and the rows of ``states``
    (``int32[N, STATE_SIZE]``) that have it; ``rules``: the rules vector."""
    if states.ndim != 2 or states.shape[1] != S.STATE_SIZE:
        raise ValueError(f"states must be int32[N, {S.STATE_SIZE}], got shape {states.shape}")
    out = np.zeros((states.shape[0], 2), dtype=np.int64)
    _faults(np.ascontiguousarray(states, dtype=np.int32), rules, _TABLE, _PLACE_SLOTS, out)
    bad = out[:, 0] > 0
    if not bad.any():
        return
    kind = out[bad, 0].min()
    rows = np.flatnonzero(out[:, 0] == kind)
    if kind == _PHASE:  # the rows with the first row's phase fault
        rows = rows[out[rows, 1] == out[rows[0], 1]]
    raise ValueError(f"states: {_fault_text(int(kind), int(out[rows[0], 1]), states[rows[0]])}"
                     f" in games {rows[:10].tolist()}{' and more' if rows.size > 10 else ''}; "
                     "nothing was restored")


def check_record(st: np.ndarray, rules: np.ndarray, who: str = "the state record") -> None:
    """ValueError naming the first fault of the single record ``st`` (module docstring),
    ``who`` what the message calls it; ``rules``: the rules vector."""
    if st.shape != (S.STATE_SIZE,):
        raise ValueError(f"{who}: expected int32[{S.STATE_SIZE}], got shape {st.shape}")
    out = np.zeros((1, 2), dtype=np.int64)
    _faults(np.ascontiguousarray(st, dtype=np.int32)[None], rules, _TABLE, _PLACE_SLOTS, out)
    if out[0, 0]:
        raise ValueError(f"{who}: {_fault_text(int(out[0, 0]), int(out[0, 1]), st)}")


def check_seat_view(st: np.ndarray, seat: object, rules: np.ndarray, who: str) -> int:
    """``seat`` as an int after :func:`check_record` of ``st`` and a check that ``seat`` is
    one of its three seats: what a sampler of a seat's worlds reads first (ValueError
    naming ``who``, the caller)."""
    check_record(st, rules, f"{who}: the state record")
    if not is_int(seat) or not 0 <= seat <= 2:
        raise ValueError(f"{who}: seat {seat!r}: expected a seat of the deal 0..2")
    return int(seat)


MAX_WORLDS = 100_000  # worlds a sampler draws in one call (115 MB of records)


def check_world_count(n: object, restrict: object) -> int:
    """A sampler's ``n`` as an int 0..:data:`MAX_WORLDS`, and ``restrict`` None or 32
    location masks (ValueError naming the one that is not)."""
    if not is_int(n) or not 0 <= n <= MAX_WORLDS:
        raise ValueError(f"n={n!r}: expected a number of worlds 0..{MAX_WORLDS}")
    if restrict is not None and np.shape(restrict) != (32,):
        raise ValueError(f"restrict of shape {np.shape(restrict)}: expected 32 location "
                         "masks, one per card")
    return int(n)
