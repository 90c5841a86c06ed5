"""The table robots decide a canonical observation in one compiled call, with the actions
and the errors they had.

Licitovaný's float32 observation with an int8 mask is checked and decided by one compiled
kernel (:func:`~mariash_env.games.licitovany.table_robot.checked_decide`), with no second
call for the check; anything else, and what the check refuses, goes the numpy way, which
names the fault: every tampered observation gets the same ObservationError message as the
numpy check gives, and any other form the action of the float32 observation it holds.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import mariash_env
from mariash_env.games.licitovany import table_robot as licit_robot
from mariash_env.robots import ObservationError, make_robot
from mariash_env.robots import features as F

SPECS = {"licitovany": licit_robot.LICIT_OBS}
VARIANTS = {"licitovany": {"rules": "licitovany"}}


@cache
def _positions(variant: str, deals: int = 40) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The observation and mask of the seat to move at every decision of ``deals`` deals
    (seeds 0..), half the moves the table robot's and half random, so that the robots'
    rare branches (betl and durch discards, the flek's later rounds) are reached."""
    kw = VARIANTS[variant]
    rules = kw.get("rules", "voleny")
    robot = make_robot("table", rules=rules)
    rng = np.random.default_rng(5)
    out = []
    for seed in range(deals):
        e = mariash_env.env(**kw)
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            o, m = obs["observation"].copy(), obs["action_mask"].copy()
            out.append((o, m))
            a = robot.act(obs) if rng.random() < 0.5 else int(
                rng.choice(np.flatnonzero(m)))
            e.step(int(a))
    return tuple(out)


# --- the tests ---------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", ["licitovany"])
def test_a_canonical_observation_is_one_compiled_call(rules, monkeypatch):
    """No numpy check, no separate compiled check and no Python decoding for the
    environment's own observations: the robot's ``act`` calls its game's one kernel."""

    robot = make_robot("table", rules=rules)
    pos = _positions(rules)[:300]

    def refused(*_a, **_k):
        raise AssertionError("a canonical observation left the compiled call")

    for name in ("check_observation", "is_canonical", "decode", "_check_in_full"):
        monkeypatch.setattr(F, name, refused)
    for module in (licit_robot,):
        for name in ("check_observation", "is_canonical", "decode", "_check_view"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, refused)
    for o, m in pos:
        robot.act({"observation": o, "action_mask": m})


def _forms(v: np.ndarray, m: np.ndarray, rng: np.random.Generator) -> tuple:
    """``v`` and ``m`` tampered: a few slots set to odd values, then another dtype,
    length, memory layout or container (or none), and a mask likewise."""
    v, m = v.copy(), m.copy()
    for _ in range(int(rng.integers(0, 4))):
        i = int(rng.integers(v.size))
        v[i] = rng.choice([0.0, 1.0, 0.5, 2.0, -1.0, np.nan, np.inf,
                           1.0 - round(float(v[i])) if abs(v[i]) < 2 else 0.0])
    form = int(rng.integers(12))
    if form == 0:
        v = v.astype(np.float64)
    elif form == 1:
        v = v.tolist()
    elif form == 2:
        v = v[:-1]
    elif form == 3:
        v = np.repeat(v, 2)[::2]
    elif form == 4:
        v = v.astype(">f4")
    elif form == 5:
        v.setflags(write=False)
    mform = int(rng.integers(10))
    if mform == 0:
        m = np.zeros_like(m)
    elif mform == 1:
        m = m.astype(np.float32)
        m[int(rng.integers(m.size))] = 2.0
    elif mform == 2:
        m = m.astype(bool)
    elif mform == 3:
        m = m[:-1]
    elif mform == 4:
        m = m.tolist()
    return v, m


@pytest.mark.parametrize("rules", ["licitovany"])
def test_tampered_observations_get_the_checks_message_or_the_same_action(rules):
    """What the numpy check refuses, ``act`` refuses with its message; a mask with no
    legal action gets the robots' message; any other form is decided as the float32
    observation and int8 mask it holds."""
    spec = SPECS[rules]
    robot = make_robot("table", rules=rules)
    rng = np.random.default_rng(11)
    pos = _positions(rules)
    seen = {"refused": 0, "decided": 0}
    for _ in range(1500):
        v, m = _forms(*pos[int(rng.integers(len(pos)))], rng)
        try:
            want = F.check_observation(v, m, spec)
        except ObservationError as e:
            with pytest.raises(ObservationError) as got:
                robot.act({"observation": v, "action_mask": m})
            assert str(got.value) == str(e)
            seen["refused"] += 1
            continue
        mask = np.asarray(m, dtype=np.int8)
        if not mask.any():
            with pytest.raises(ObservationError, match="no legal action"):
                robot.act({"observation": v, "action_mask": m})
            continue
        a = robot.act({"observation": v, "action_mask": m})
        assert a == robot.act({"observation": want, "action_mask": mask})
        seen["decided"] += 1
    assert seen["refused"] > 300 and seen["decided"] > 100, seen
