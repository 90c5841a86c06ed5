"""The table robots' observation check (``robots.features.check_observation``): compiled
for the common case, and exactly the check it was.

It was two thirds of a table robot's decision, in numpy (volený 270 of 540 µs, licitovaný
300 of 310 µs: its rules are compiled); now a float32 observation with an int8 mask is
checked by one compiled kernel a game (``ObsSpec.compiled``: ``plain_ok``, the game's
``tricks_ok`` / ``levels_ok``), and anything it does not pass goes to the numpy check
(``_check_in_full``), which names the fault.  :func:`_reference` below is the check as it
was before; every tampering of real observations gets the same answer from both: the same
ObservationError message, or the same float32 array.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import mariash_env
from mariash_env.games.licitovany.table_robot import LICIT_OBS
from mariash_env.games.lizany.table_robot import LIZANY_OBS
from mariash_env.robots import ObservationError, make_robot
from mariash_env.robots import features as F

SPECS = {"voleny": F.VOLENY_OBS, "licitovany": LICIT_OBS, "lizany": LIZANY_OBS}
GAMES = tuple(SPECS)


def _reference(v: Any, mask: Any, spec: F.ObsSpec) -> np.ndarray:
    """``check_observation`` as it was before it was compiled (numpy, every check in
    turn), kept verbatim as the reference."""
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
        m = np.asarray(mask)
        if m.shape != (spec.n_actions,) or m.dtype.kind not in "biuf" or (
                (m != 0) & (m != 1)).any():
            raise ObservationError(f"{spec.what.replace('observation', 'action mask')} is "
                                   f"{spec.n_actions} values 0 or 1, got "
                                   f"{m.dtype}{list(m.shape)}")
    return v.astype(np.float32)


def _outcome(check, v: Any, mask: Any, spec: F.ObsSpec) -> tuple:
    """What ``check`` answers: its ObservationError's message, another exception's type
    and message, or the array's dtype and bytes."""
    try:
        out = check(v, mask, spec)
    except ObservationError as e:
        return ("ObservationError", str(e))
    except Exception as e:  # noqa: BLE001 -- compared as they are
        return (type(e).__name__, str(e))
    return ("ok", out.dtype.str, out.shape, out.tobytes())


def _agree(v: Any, mask: Any, spec: F.ObsSpec) -> bool:
    """The new check answers as the reference does; the compiled test says canonical
    only where the reference does, and -- for what it takes (a float32 vector, an int8
    mask or none) -- wherever it does (so the common case stays compiled)."""
    ref = _outcome(_reference, v, mask, spec)
    assert _outcome(F.check_observation, v, mask, spec) == ref
    fast = F.is_canonical(v, mask, spec)
    if fast:
        assert ref[0] == "ok"
    takes = (type(v) is np.ndarray and v.dtype == np.float32 and v.ndim == 1
             and (mask is None or (type(mask) is np.ndarray and mask.dtype == np.int8)))
    if takes:
        assert fast == (ref[0] == "ok")
    return ref[0] == "ok"


@cache
def _observations(rules: str) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Every seat's observation and mask at every decision of a few deals (random legal
    moves): the seats not to move have masks of zeros."""
    rng = np.random.default_rng(7)
    out = []
    for seed in range(3):
        e = mariash_env.env(rules=rules)
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            for seat in e.agents:
                seen = e.observe(seat)
                out.append((seen["observation"].copy(), seen["action_mask"].copy()))
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return tuple(out)


@pytest.mark.parametrize("rules", GAMES)
def test_every_single_slot_flipped_gets_the_reference_answer(rules):
    """Each slot of observations of the card play (where the tricks' checks matter) set
    to the other of 0 and 1, and to 0.5: the same message, or the same array."""
    spec = SPECS[rules]
    obs = _observations(rules)
    picked = [obs[i] for i in np.linspace(0, len(obs) - 1, 4).astype(int)]
    size = spec.lengths[0]
    for v, m in picked:
        assert _agree(v, m, spec)
        for i in range(size):
            for x in (1.0 - round(float(v[i])), 0.5):
                w = v.copy()
                w[i] = x
                _agree(w, m, spec)


_VALUES = (0.0, 1.0, -0.0, 0.5, 2.0, -1.0, 1e-7, 0.9999999, 1.0000001, 1e30, np.nan,
           np.inf, -np.inf)


@hs.composite
def _tampered(draw, rules: str):
    """A real observation and mask of ``rules`` with a few tamperings: slots set or
    flipped (in a block, most often the card play's), blocks taken from another
    observation, another length, dtype or memory layout, a mask tampered likewise."""
    spec = SPECS[rules]
    obs = _observations(rules)
    v, m = (a.copy() for a in obs[draw(hs.integers(0, len(obs) - 1))])
    blocks = list(spec.layout.items())
    trick_blocks = [b for b in ("played_by", "played_in", "cur_trick", "trick_leader",
                                "trump_card", "trump_suit", "raised_by", "bet_level",
                                "comp_level") if b in spec.layout]
    group = dict(spec.at_most_one + spec.exactly_one)
    for _ in range(draw(hs.integers(0, 4))):
        op = draw(hs.sampled_from(("flip", "flip", "flip", "set", "block", "pair", "move",
                                   "open")))
        name = draw(hs.sampled_from(trick_blocks + [b for b, _ in blocks]))
        off, n = spec.layout[name]
        i = off + draw(hs.integers(0, n - 1))
        if op == "flip":
            v[i] = 1.0 - round(float(v[i])) if abs(v[i]) < 2 else 0.0
        elif op == "set":
            v[i] = draw(hs.sampled_from(_VALUES))
        elif op == "block":  # the block of another observation of the game
            w = obs[draw(hs.integers(0, len(obs) - 1))][0]
            v[off:off + n] = w[off:off + n]
        elif op == "pair":  # two slots of one group (a raise by two seats, ...)
            size = min(group.get(name, 3), n)
            start = i - (i - off) % size
            for _ in range(2):
                v[min(start + draw(hs.integers(0, size - 1)), off + n - 1)] = 1.0
        elif op == "move":  # a set slot moved in its block (a card to another trick, ...)
            set_ = np.flatnonzero(v[off:off + n] > 0.5)
            if set_.size:
                v[off + set_[draw(hs.integers(0, set_.size - 1))]] = 0.0
                v[i] = 1.0
        elif rules == "voleny":  # the open contract's flag, in block 'raised_by'
            v[F.O.O_OPEN] = 1.0 - v[F.O.O_OPEN]
    if len(spec.lengths) > 1 and draw(hs.booleans()):  # the longer observation it accepts
        v = np.concatenate([v, np.zeros(spec.lengths[1] - v.size, np.float32)])
    form = draw(hs.sampled_from(("float32",) * 6 + (
        "float64", "float16", "int8", "int64", "bool", ">f4", "readonly", "strided",
        "list", "2-D", "short", "str", "complex")))
    if form in ("float64", "float16", "int8", "int64", "bool", ">f4"):
        with np.errstate(invalid="ignore", over="ignore"):  # nan, inf, 1e30 cast
            v = v.astype(form)
        if form == "float64" and draw(hs.booleans()):
            v[draw(hs.integers(0, spec.lengths[0] - 1))] = 1 + 1e-12  # no float32 holds it
    elif form == "readonly":
        v.setflags(write=False)
    elif form == "strided":
        v = np.repeat(v, 2)[::2]
    elif form == "list":
        v = v.tolist()
    elif form == "2-D":
        v = v[None]
    elif form == "short":
        v = v[:-1]
    elif form in ("str", "complex"):
        v = v.astype(form if form == "complex" else str)
    mform = draw(hs.sampled_from(("int8",) * 6 + (
        "none", "set", "bool", "int64", "float32", "readonly", "short", "zeros", "list")))
    if mform == "none":
        m = None
    elif mform == "set":
        m = m.astype(np.float32)
        m[draw(hs.integers(0, m.size - 1))] = draw(hs.sampled_from(_VALUES))
        if draw(hs.booleans()):
            with np.errstate(invalid="ignore", over="ignore"):
                m = m.astype(np.int8)  # 2, -1: an int8 mask with a bad value
    elif mform in ("bool", "int64", "float32"):
        m = m.astype(mform)
    elif mform == "readonly":
        m.setflags(write=False)
    elif mform == "short":
        m = m[:-1]
    elif mform == "zeros":
        m = np.zeros_like(m)
    elif mform == "list":
        m = m.tolist()
    return v, m


@pytest.mark.parametrize("rules", GAMES)
def test_tampered_observations_get_the_reference_answer(rules):
    """Random tamperings of real observations: the compiled check and the numpy one
    answer as the check did before (the same message, or the same array), and the
    compiled test never passes what the reference refuses."""
    spec = SPECS[rules]
    seen = {"ok": 0, "refused": 0}

    @settings(max_examples=500, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_tampered(rules))
    def check(case):
        v, m = case
        seen["ok" if _agree(v, m, spec) else "refused"] += 1

    check()
    assert seen["ok"] > 20 and seen["refused"] > 100, seen


@pytest.mark.parametrize("rules", GAMES)
def test_the_table_robots_check_canonical_observations_compiled(rules, monkeypatch):
    """A table robot's canonical observations never reach the numpy check (its calls
    counted over whole deals): they take the compiled test, measured at about 1/60 of
    the numpy check's time (no timing is asserted)."""
    calls = []
    full = F._check_in_full
    monkeypatch.setattr(F, "_check_in_full", lambda *a: calls.append(1) or full(*a))
    n = 3 if rules != "lizany" else 2
    robots = [make_robot("table", rules=rules) for _ in range(n)]
    decisions = 0
    for seed in range(2):
        e = mariash_env.env(rules=rules)
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            decisions += 1
            e.step(robots[e.agents.index(agent)].act(obs))
    assert decisions > 20 and not calls


def test_a_one_hot_block_over_a_number_slot_is_a_spec_error():
    """The compiled groups sum the slots' values: a spec whose one-hot block holds a
    number slot is refused when its tables are made."""
    spec = F.ObsSpec(what="an observation", lengths=(4,), others="", layout={"a": (0, 4)},
                     numbers=(1,), numbers_text="slot 1", at_most_one=(("a", 2),),
                     exactly_one=(), n_actions=1)
    with pytest.raises(ValueError, match="block 'a'"):
        F.is_canonical(np.zeros(4, np.float32), None, spec)


def test_a_spec_without_a_compiled_kernel_runs_its_own_checks_in_python():
    """A game's spec with no ``compiled`` kernel: the shared checks compiled, its
    ``extra`` in numpy, with the same answers (each card-play slot flipped)."""
    spec = dataclasses.replace(F.VOLENY_OBS, compiled=None)
    obs = _observations("voleny")
    v, m = obs[len(obs) // 2]
    assert _agree(v, m, spec) and F.is_canonical(v, m, spec)
    off = spec.layout["played_by"][0]
    end = sum(spec.layout["cur_trick"])
    for i in range(off, end):
        w = v.copy()
        w[i] = 1.0 - w[i]
        _agree(w, m, spec)
