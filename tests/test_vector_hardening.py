"""VectorEnv under bad input (issue #9 items 3 and 10): restore_states validates every
field the compiled code indexes with, an unchecked step never crashes the process, the
next deal is a permutation even from a corrupted state, and a batch the machine cannot
hold is announced with a warning."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mariash_env import vector as V
from mariash_env.core import state as S
from mariash_env.core.deal import gathered_deck
from mariash_env.core.engine import apply_action, legal_actions
from mariash_env.core.validate import FIELDS
from mariash_env.vector import VectorEnv, VectorMemoryWarning, random_legal_actions
from tests.helpers import step_cap

ROOT = Path(__file__).resolve().parents[1]


def played_env(n: int = 8, steps: int = 40, seed: int = 4) -> tuple[VectorEnv, object]:
    venv = VectorEnv(n, seed=seed)
    step = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        step = venv.step(random_legal_actions(step.mask, rng))
    return venv, step


@pytest.mark.parametrize("name,off,n,lo,hi", FIELDS, ids=[f[0] for f in FIELDS])
def test_restore_rejects_each_field_out_of_range(name, off, n, lo, hi):
    venv, _ = played_env(4, 10)
    good = venv.copy_states()
    for k in (0, n - 1):
        for value in (lo - 1, hi + 1):
            if not -2**31 <= value < 2**31:
                continue  # the int32 slot cannot hold it: nothing to reject
            broken = good.copy()
            broken[2, off + k] = value
            slot = f"{name}[{k}]" if n > 1 else name
            with pytest.raises(ValueError) as exc:
                venv.restore_states(broken)
            msg = str(exc.value)
            assert f"field {slot} " in msg and f"[{lo}, {hi}]" in msg and "games [2]" in msg
            np.testing.assert_array_equal(venv.copy_states(), good)


def test_restore_rejects_bad_deck_positions_and_cards():
    venv, _ = played_env(4, 10)
    good = venv.copy_states()
    broken = good.copy()
    broken[1, S.POS + 3] = broken[1, S.POS + 4]  # in range, but not a permutation
    with pytest.raises(ValueError, match=r"positions .*permutation.*games \[1\]"):
        venv.restore_states(broken)
    broken = good.copy()
    h0 = int(broken[3, S.HAND]) & 0xFFFFFFFF
    h1 = int(broken[3, S.HAND + 1]) & 0xFFFFFFFF
    S.setm(broken[3], S.HAND + 1, h1 | (h0 & -h0))  # a card in two hands
    with pytest.raises(ValueError, match=r"32 cards exactly once in games \[3\]"):
        venv.restore_states(broken)
    np.testing.assert_array_equal(venv.copy_states(), good)
    venv.restore_states(good)  # the real states pass


def test_step_unchecked_leaves_games_with_disallowed_actions_unchanged():
    venv, step = played_env(8, 30, seed=9)
    ref, rstep = played_env(8, 30, seed=9)
    rng = np.random.default_rng(1)
    acts = random_legal_actions(step.mask, rng)
    before = venv.copy_states()
    bad = acts.copy()
    bad[1] = 10**9
    bad[2] = -5
    bad[3] = int(np.flatnonzero(step.mask[3] == 0)[0])  # in range, not legal
    step = venv.step_unchecked(bad)
    after = venv.copy_states()
    np.testing.assert_array_equal(after[1:4], before[1:4])
    assert not step.rewards[1:4].any() and not step.deal_done[1:4].any()
    keep = [0, 4, 5, 6, 7]
    rstep = ref.step(acts)
    np.testing.assert_array_equal(after[keep], ref.copy_states()[keep])
    np.testing.assert_array_equal(step.mask[keep], rstep.mask[keep])
    np.testing.assert_array_equal(step.obs[keep], rstep.obs[keep])


def test_gathered_deck_is_a_permutation_even_from_a_corrupted_deal():
    venv, _ = played_env(1, 0, seed=2)
    st = venv.copy_states()[0]
    rv = venv.rules_vector
    mask = np.zeros(115, np.int8)
    tick = step_cap(venv)
    while True:  # play the deal to its end with the lowest legal action
        tick()
        legal_actions(st, rv, mask)
        if apply_action(st, rv, int(np.flatnonzero(mask)[0])):
            break
    assert sorted(gathered_deck(st).tolist()) == list(range(32))
    bad = st.copy()
    bad[S.TRICKS:S.TRICKS + 30] = 5  # one card everywhere, every trick "won" by seat 0
    bad[S.TWIN:S.TWIN + 10] = 0
    S.setm(bad, S.HAND, 0xFFFFFFFF)
    assert sorted(gathered_deck(bad).tolist()) == list(range(32))


CRASHERS = """
import numpy as np
from mariash_env.core import state as S
from mariash_env.vector import random_legal_actions
from tests.test_vector_hardening import played_env

venv, step = played_env(16, 25, seed=3)
rng = np.random.default_rng(3)
good = venv.copy_states()
rejected = 0
for off, value in [(S.TRICKS + 4, 10**6), (S.TRICKS, -10**6), (S.TLEAD, 99), (S.TWIN + 2, -7),
                   (S.TRICK_NO, 10**5), (S.TRICK_N, -3), (S.POS, 10**7), (S.TO_MOVE, 50),
                   (S.ANNOUNCE, 10**6), (S.NDISC, 10**4), (S.LEADER, -9), (S.DISC, 10**6),
                   (S.MARR_SEAT, 7), (S.TRUMP_CARD, 10**6), (S.CONTRACT, -4)]:
    broken = good.copy()
    broken[:, off] = value
    try:
        venv.restore_states(broken)
    except ValueError:
        rejected += 1
venv.restore_states(good)
step = venv.current()
for extreme in (10**9, -10**9, 2**62, -1, 115):
    acts = random_legal_actions(step.mask, rng)
    acts[::2] = extreme
    step = venv.step_unchecked(acts)
for _ in range(300):  # random actions, mostly illegal, none applied
    step = venv.step_unchecked(rng.integers(-200, 300, 16))
    step = venv.step_unchecked(random_legal_actions(step.mask, rng))
try:  # the mask every step checks against cannot be scribbled on
    step.mask[:] = 1
except ValueError:
    print("mask is read-only")
print("survived", rejected)
"""


def test_old_crashes_do_not_take_the_process_down():
    """Run in a subprocess: a segfault fails this test instead of killing pytest."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(CRASHERS)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert "survived 15" in r.stdout and "mask is read-only" in r.stdout


def test_memory_warning_names_the_bytes(monkeypatch):
    assert VectorEnv.bytes_per_game(observations=False) == S.STATE_SIZE * 4 + 115 + 38
    assert VectorEnv.bytes_per_game(observations=True) == \
        VectorEnv.bytes_per_game(observations=False) + 900 * 4
    need = 64 * VectorEnv.bytes_per_game(observations=True)
    monkeypatch.setattr(V, "available_memory", lambda: need)  # needs 100 % > 50 %
    with pytest.warns(VectorMemoryWarning, match=f"needs {need:,} bytes"):
        VectorEnv(64, seed=0)
    monkeypatch.setattr(V, "available_memory", lambda: 10 * need)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorMemoryWarning)
        VectorEnv(64, seed=0)
    monkeypatch.setattr(V, "available_memory", lambda: None)  # unknown: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorMemoryWarning)
        VectorEnv(64, seed=0)


def test_random_legal_actions_bit_path_matches_byte_path():
    """The vector-compare sampler draws exactly what the byte loop draws (masks from
    play, all-zero rows, values other than 0/1 and negative ones, odd row counts,
    unaligned views, rows of 64..192 actions: 64 takes the byte loop; licitovaný's 136
    takes three words)."""
    venv, step = played_env(40, 5, seed=6)
    rng = np.random.default_rng(6)
    masks = [np.array(step.mask)]
    for _ in range(30):
        step = venv.step(random_legal_actions(step.mask, rng))
        masks.append(np.array(step.mask))
    odd = rng.integers(-2, 3, (24, 115)).astype(np.int8)
    odd[3] = 0
    odd[5] = 0
    odd[5, 114] = -1  # only the last action, negative: legal
    odd[6] = 0
    odd[6, 63:65] = 1  # the two halves' border
    masks += [odd, odd[1:], np.zeros((8, 115), np.int8)]
    for na in (64, 65, 100, 127, 128, 129, 136, 191, 192):
        m = (rng.random((17, na)) < 0.1).astype(np.int8)
        m[0] = 0
        m[1] = 1
        masks.append(m)
    for m in masks:
        u = rng.random(m.shape[0])
        u[:2] = (0.0, np.nextafter(1.0, 0.0))  # first and last legal action
        ref = np.empty(m.shape[0], np.int64)
        V._uniform_legal(m, u, ref)
        if 64 < m.shape[1] <= 192:
            got = np.empty_like(ref)
            c = np.ascontiguousarray(m)
            V._uniform_legal_bits(c.reshape(-1), c.shape[0], c.shape[1], u, got)
            np.testing.assert_array_equal(got, ref)
        # the public helper, whichever path it takes, with the same generator state
        r1, r2 = np.random.default_rng(1), np.random.default_rng(1)
        np.testing.assert_array_equal(random_legal_actions(m, r1),
                                      random_legal_actions(m.copy(order="F"), r2))
        assert ((ref == -1) == (m != 0).sum(axis=1).__eq__(0)).all()


@pytest.mark.parametrize("kwargs, needle", [
    ({"observations": "no"}, "observations must be True or False, got 'no'"),
    ({"observations": 0}, "observations must be True or False, got 0"),
    ({"parallel": "yes"}, "parallel must be True or False, got 'yes'"),
    ({"seed": 1.5}, "seed must be an int or None, got 1.5"),
    ({"seed": True}, "seed must be an int or None, got True"),
    ({"num_envs": 0}, "num_envs must be an int >= 1, got 0"),
])
def test_constructor_refuses_bad_flags_naming_them(kwargs, needle):
    """Issue #9 item 7: a truthy string is no silent ``True``."""
    args = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=re.escape(needle)):
        VectorEnv(**args)
