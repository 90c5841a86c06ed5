"""The action mask in ``info`` and the flat observation (issue #31 item 4, "AgileRL wants
the mask in ``info``", "SuperSuit's flatten/dtype/normalize/frame_stack refuse the Dict
observation"; cited with the hardening list of issue #29): ``env(mask_in_info=True)``
and ``env(flat_obs=True)`` for every game."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test

import mariash_env
from mariash_env.game import OptionError
from mariash_env.games.lizany import game as lizany
from mariash_env.rules import RulesError
from mariash_env.wrappers import FlatObs

CASES = [{}, {"rules": "licitovany"}, {"players": 4}, {"rules": "lizany"}]


def _ids(kw: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in kw.items()) or "voleny"


def _play(e, seed: int = 3, steps: int = 10**9):
    """Yield (agent, obs, info) along a random legal game, read from the info's mask."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    for n, agent in enumerate(e.agent_iter()):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if n >= steps:
            return
        yield agent, obs, info
        e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


@pytest.mark.parametrize("kw", CASES, ids=_ids)
def test_mask_in_info(kw: dict) -> None:
    """Issue #31 item 4 (#29): infos[agent]["action_mask"] is the legal mask of the agent
    to move (the observation's, which stays), all zero for the others; last() and infos
    answer the same info within a step and fresh ones after it; api_test passes."""
    e = mariash_env.env(mask_in_info=True, **kw)
    raw = e.unwrapped
    before = None
    for agent, obs, info in _play(e):
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()
        assert info is e.infos[agent]
        for other, oi in e.infos.items():
            if other != agent:
                assert not oi["action_mask"].any()
        assert set(info) - {"action_mask"} == set(raw.infos[agent])
        if before is not None:
            assert before[0] is not info
            assert np.array_equal(before[0]["action_mask"], before[1])  # never changed
        before = (info, info["action_mask"].copy())
    api_test(mariash_env.env(mask_in_info=True, **kw), num_cycles=300)


@pytest.mark.parametrize("kw", CASES, ids=_ids)
def test_flat_obs(kw: dict) -> None:
    """Issue #31 item 4 (#29): a Box observation (the observation vector), the mask in
    info, legal sample() without a mask; api_test passes."""
    e = mariash_env.env(flat_obs=True, **kw)
    space = e.observation_space(e.possible_agents[0])
    inner = mariash_env.env(**kw).observation_space(e.possible_agents[0])["observation"]
    assert isinstance(space, spaces.Box) and space == inner
    raw = e.unwrapped
    for agent, obs, info in _play(e, steps=60):
        assert isinstance(obs, np.ndarray) and obs in space
        assert np.array_equal(obs, raw.observe(agent)["observation"])
        assert np.array_equal(info["action_mask"], raw.observe(agent)["action_mask"])
        a = e.action_space(agent).sample()
        assert info["action_mask"][a] == 1
    api_test(mariash_env.env(flat_obs=True, **kw), num_cycles=300)


def test_obs_clip_bounds_and_clips() -> None:
    """Issue #31 item 4 (#29): obs_clip=c declares [-c, c] and clips the running totals."""
    e = mariash_env.env(flat_obs=True, obs_clip=0.05, deals=3)
    space = e.observation_space("player_0")
    assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
    assert space.high.max() == pytest.approx(0.05)
    raw = e.unwrapped
    clipped = False
    for agent, obs, _ in _play(e):
        assert obs in space
        full = raw.observe(agent)["observation"]
        clipped |= bool(np.any(np.abs(full) > 0.05))
        assert np.array_equal(obs, np.clip(full, -0.05, 0.05))
    assert clipped


def test_supersuit_observation_wrappers() -> None:
    """Issue #31 item 4 (#29): SuperSuit's flatten_v0, dtype_v0, normalize_obs_v0 (finite
    bounds: obs_clip) and frame_stack_v1 take the flat observation, for every game."""
    ss = pytest.importorskip("supersuit")
    for kw in CASES:
        with pytest.raises(AssertionError):  # the Dict: what users met (issue #31)
            ss.frame_stack_v1(mariash_env.env(**kw), 2)
        for wrap, shape in ((ss.flatten_v0, 1), (lambda x: ss.dtype_v0(x, np.float64), 1),
                            (lambda x: ss.normalize_obs_v0(x, 0.0, 1.0), 1),
                            (lambda x: ss.frame_stack_v1(x, 3), 3)):
            e = wrap(mariash_env.env(flat_obs=True, obs_clip=100.0, **kw))
            n = e.observation_space(e.possible_agents[0]).shape[0]
            for _, obs, info in _play(e, steps=40):
                assert obs.shape == (n,) and "action_mask" in info
            assert n == shape * mariash_env.env(**kw).observation_space(
                e.possible_agents[0])["observation"].shape[0]
    with pytest.raises(AssertionError, match="infinite bounds"):
        ss.normalize_obs_v0(mariash_env.env(flat_obs=True), 0.0, 1.0)


def test_lizany_through_env_and_raw_env() -> None:
    """Issue #31 item 2 (#29): env()/raw_env() take rules="lizany" (lízaný's own env)."""
    raw = mariash_env.raw_env(rules="lizany")
    assert isinstance(raw, lizany.raw_env)
    e = mariash_env.env(rules="lizany")
    e.reset(seed=4)
    z = lizany.env()
    z.reset(seed=4)
    assert np.array_equal(e.state(), z.state())
    with pytest.raises(RulesError, match="deals"):
        mariash_env.env(rules="lizany", deals=2)
    with pytest.raises(RulesError, match="records"):
        mariash_env.raw_env(rules="lizany", records=False)


def test_option_errors() -> None:
    """Issue #31 item 4 (#29): malformed options name what was expected."""
    with pytest.raises(OptionError, match="mask_in_info"):
        mariash_env.env(mask_in_info="yes")
    with pytest.raises(OptionError, match="flat_obs=True"):
        mariash_env.env(obs_clip=5.0)
    for bad in (0, -1.0, float("inf"), True, "5"):
        with pytest.raises(OptionError, match="obs_clip"):
            mariash_env.env(flat_obs=True, obs_clip=bad)
    assert isinstance(mariash_env.env(flat_obs=True).env, FlatObs)
