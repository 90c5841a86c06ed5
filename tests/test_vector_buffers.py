"""Issue #31 item 3 (speed inside the libraries): ``VectorEnv.step(actions, out=...)`` writes a
step's outputs straight into the caller's arrays (what ``torchrl_env`` hands on as its
tensors, no copy); issue #29's rule: a buffer the kernels cannot write is refused before any
kernel runs, and nothing is applied."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.vector import OutBufferError, VectorEnv, random_legal_actions

GAMES = [pytest.param({}, id="voleny"), pytest.param({"rules": "licitovany"}, id="licitovany"),
         pytest.param({"players": 4}, id="four")]
FIELDS = ("obs", "mask", "player", "rewards", "deal_done", "partie_done", "deal_no")


def _out(venv: VectorEnv, mask_dtype=np.bool_) -> dict[str, np.ndarray]:
    """Fresh buffers for every field, filled with garbage the step must overwrite."""
    n = venv.num_envs
    out = {"obs": np.full((n, venv.obs_size), np.nan, np.float32),
           "mask": np.ones((n, venv.num_actions), mask_dtype),
           "player": np.full(n, -7, np.int64),
           "rewards": np.full((n, venv.players), np.nan),
           "deal_done": np.ones(n, np.bool_), "partie_done": np.ones(n, np.bool_),
           "deal_no": np.full(n, -7, np.int64)}
    return out


def _assert_same(got, want) -> None:
    for f in FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(got, f)).astype(np.float64),
                                      np.asarray(getattr(want, f)).astype(np.float64), f)


@pytest.mark.parametrize("rules", GAMES)
def test_out_equals_default(rules):
    """Issue #31 item 3: with every field given (the mask as bool, then int8), and with only
    some given, each step's outputs equal the default path's under the same actions, deals
    ending and parties restarting included; the unchecked step's skipped games (action -1)
    get the outputs of their unchanged state; the engine's own buffers of the fields not
    given are the ones returned."""
    n = 16
    a_env = VectorEnv(n, seed=5, deals=2, **rules)
    b_env = VectorEnv(n, seed=5, deals=2, **rules)
    ref = a_env.reset()
    own = b_env.reset()  # the engine's own buffers
    rng = np.random.default_rng(1)
    ended = 0
    for t in range(400):
        act = random_legal_actions(ref.mask, rng)
        if t % 3 == 0:
            out = _out(b_env, np.bool_ if t % 2 else np.int8)
            got = b_env.step(act, out=out)
            for f in FIELDS:
                assert getattr(got, f) is out[f]
        elif t % 3 == 1:
            out = {"obs": np.empty((n, b_env.obs_size), np.float32)}
            got = b_env.step(act, out=out)
            assert got.obs is out["obs"] and got.player is own.player
        else:
            act = act.copy()
            act[::4] = -1  # not stepped
            out = _out(b_env)
            got = b_env.step_unchecked(act, out=out)
        ref = a_env.step_unchecked(act) if t % 3 == 2 else a_env.step(act)
        _assert_same(got, ref)
        ended += int(ref.partie_done.sum())
    assert ended > 0
    np.testing.assert_array_equal(a_env.copy_states(), b_env.copy_states())


def _bad_outs(venv: VectorEnv):
    n = venv.num_envs
    good = _out(venv)
    ro = np.zeros(n, np.int64)
    ro.flags.writeable = False
    yield "unknown field", {"observation": good["obs"]}
    yield "not a mapping", [good["obs"]]
    yield "not an array", {"player": list(range(n))}
    yield "obs dtype", {"obs": good["obs"].astype(np.float64)}
    yield "obs too small", {"obs": good["obs"][:-1]}
    yield "obs too narrow", {"obs": good["obs"][:, :-1].copy()}
    yield "mask dtype", {"mask": good["mask"].astype(np.int16)}
    yield "mask shape", {"mask": np.zeros((n, venv.num_actions + 1), np.int8)}
    yield "rewards seats", {"rewards": np.zeros((n, venv.players - 1))}
    yield "player int32", {"player": np.zeros(n, np.int32)}
    yield "player 2-D", {"player": np.zeros((n, 1), np.int64)}
    yield "deal_done dtype", {"deal_done": np.zeros(n, np.int8)}
    yield "non-contiguous", {"player": np.zeros(2 * n, np.int64)[::2]}
    yield "fortran obs", {"obs": np.asfortranarray(good["obs"])}
    yield "read-only", {"deal_no": ro}
    yield "aliased", {"player": good["player"], "deal_no": good["player"]}
    yield "engine mask", {"mask": venv._mask}  # the mask every step checks against


@pytest.mark.parametrize("unchecked", [False, True], ids=["step", "step_unchecked"])
def test_bad_out_refused(unchecked):
    """Issue #31 item 3 / issue #29's rule: an out buffer of the wrong type, dtype, shape or
    layout, read-only, aliased with another or with the engine's mask, or an unknown
    field, raises OutBufferError (a ValueError) before any kernel runs: no game changes,
    no buffer is written, the decision count stands."""
    venv = VectorEnv(8, seed=3)
    step = venv.reset()
    act = random_legal_actions(step.mask, np.random.default_rng(0))
    for what, out in _bad_outs(venv):
        states = venv.copy_states()
        before = {f: np.array(getattr(venv.current(), f)) for f in FIELDS}
        sentinel = _out(venv)
        with pytest.raises(OutBufferError) as err:
            (venv.step_unchecked if unchecked else venv.step)(act, out=out)
        assert isinstance(err.value, ValueError), what
        if isinstance(out, dict):
            for name, arr in out.items():
                if isinstance(arr, np.ndarray) and name in sentinel and arr.dtype == bool:
                    assert arr.all(), what  # untouched
        np.testing.assert_array_equal(venv.copy_states(), states, what)
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(venv.current(), f), before[f], what)
        assert venv.decisions == 0, what


def test_obs_out_without_observations():
    """Issue #31 item 3: ``out["obs"]`` for a VectorEnv that encodes no observations is
    refused (OutBufferError), nothing applied; the other fields are taken."""
    venv = VectorEnv(4, seed=1, observations=False)
    step = venv.reset()
    act = random_legal_actions(step.mask, np.random.default_rng(0))
    states = venv.copy_states()
    with pytest.raises(OutBufferError, match="observations=False"):
        venv.step(act, out={"obs": np.zeros((4, venv.obs_size), np.float32)})
    np.testing.assert_array_equal(venv.copy_states(), states)
    player = np.full(4, -1, np.int64)
    assert venv.step(act, out={"player": player}).player is player
    assert (player >= 0).all()


def test_out_mask_never_decides_legality():
    """Issue #31 item 3 / issue #29: the engine keeps its own mask; writing into a returned
    ``out["mask"]`` cannot make an illegal action legal (the step refuses it, nothing is
    applied and the caller's buffers of that call stay unwritten), and an illegal action
    with out buffers writes none of them."""
    venv = VectorEnv(4, seed=2)
    step = venv.reset()
    rng = np.random.default_rng(0)
    out = _out(venv)
    got = venv.step(random_legal_actions(step.mask, rng), out=out)
    illegal = np.flatnonzero(~got.mask[0])[0]
    got.mask[0, illegal] = True  # the caller's array, not the engine's mask
    act = random_legal_actions(got.mask.view(np.int8), rng)
    act[0] = illegal
    states = venv.copy_states()
    fresh = _out(venv)
    with pytest.raises(ValueError, match="illegal action"):
        venv.step(act, out=fresh)
    np.testing.assert_array_equal(venv.copy_states(), states)
    assert np.isnan(fresh["obs"]).all() and (fresh["player"] == -7).all()
    unchecked = venv.step_unchecked(act, out=_out(venv))
    np.testing.assert_array_equal(venv.copy_states()[0], states[0])  # game 0 unchanged
    assert not unchecked.deal_done[0] and (unchecked.rewards[0] == 0).all()


def test_aec_order_enforcing_kept(caplog):
    """Issue #31 item 5 (the AEC env's speed): the faster order-enforcing step, last and
    agent_iter keep PettingZoo's rules: nothing before reset (AttributeError / an error
    naming reset), two agent_iter turns without a step refused, a step after the end only
    warned about; a whole random partie through agent_iter/last gives the same rewards as
    the unwrapped env under the same seed and actions."""
    import random

    import mariash_env

    e = mariash_env.env(deals=2)
    with pytest.raises(AttributeError):
        e.last()
    with pytest.raises(Exception, match="reset"):
        e.step(0)
    with pytest.raises(Exception, match="reset"):
        e.agent_iter()
    e.reset(seed=4)
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="step"):
        next(it)
    raw = mariash_env.env(deals=2).unwrapped
    e.reset(seed=4)
    raw.reset(seed=4)
    rng = random.Random(0)
    got, want = {}, {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        robs, rrew, rterm, rtrunc, rinfo = raw.last()
        assert agent == raw.agent_selection and (rew, term, trunc, info) == (
            rrew, rterm, rtrunc, rinfo)
        np.testing.assert_array_equal(obs["observation"], robs["observation"])
        np.testing.assert_array_equal(obs["action_mask"], robs["action_mask"])
        got[agent] = got.get(agent, 0.0) + rew
        want[agent] = want.get(agent, 0.0) + rrew
        action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]))
        e.step(action)
        raw.step(action)
    assert got == want and any(got.values())
    assert not e.agents
    e.step(None)  # after the end: PettingZoo's logged warning, nothing raised
    assert "step() called after all agents are terminated" in caplog.text


@pytest.mark.parametrize("width", [20, 115, 136])
def test_random_legal_actions_checks_its_out_and_mask(width):
    """``random_legal_actions(mask, rng, out=...)`` wrote one action per mask row into
    ``out`` unchecked: a short ``out`` had the kernel write past its end (a segfault with
    115/136 actions, a hang with 20).  ``out`` must be a writeable C-contiguous int64[N]
    and the mask 2-D bool/integer/0-1 float, else an error before the kernel runs.  (The
    short ``out`` here is a view of a longer array, so the old code's overrun lands in
    memory the test owns.)"""
    rng = np.random.default_rng(0)
    mask = np.ones((4, width), np.int8)
    backing = np.full(8, -7, np.int64)
    for out, what in ((backing[:1], r"shape \(4,\)"), (backing[:4].astype(np.int32), "int64"),
                      (backing[::2], "C-contiguous"), ([0, 0, 0, 0], "numpy array")):
        with pytest.raises(OutBufferError, match=what):
            random_legal_actions(mask, rng, out=out)
    assert (backing == -7).all()  # nothing written
    ro = np.empty(4, np.int64)
    ro.flags.writeable = False
    with pytest.raises(OutBufferError, match="writeable"):
        random_legal_actions(mask, rng, out=ro)
    with pytest.raises(ValueError, match=r"mask must have shape \[N, A\] \(2-D\), got shape"):
        random_legal_actions(mask[0], rng)
    with pytest.raises(ValueError, match=r"mask\[0, 1\] = 0.5: a float action mask"):
        random_legal_actions(np.where(np.arange(width) == 1, 0.5, 1.0)[None], rng)
    with pytest.raises(ValueError, match="bool, integer or 0/1 float, got dtype <U1"):
        random_legal_actions(np.full((1, width), "1"), rng)
    with pytest.raises(TypeError, match="numpy Generator"):
        random_legal_actions(mask, np.random.RandomState(0))
    # what is accepted: bool, integer and 0/1 float masks read by value, a right out
    legal = np.zeros((4, width), np.int8)
    legal[np.arange(4), [0, 5, width - 1, 7]] = 1
    out = np.empty(4, np.int64)
    for m in (legal, legal.astype(bool), legal.astype(np.int64) * 3, legal.astype(np.float32)):
        assert random_legal_actions(m, rng, out=out) is out
        np.testing.assert_array_equal(out, [0, 5, width - 1, 7])
