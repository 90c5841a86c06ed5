"""``mariash_env.parallel_env(**rules)``: PettingZoo's parallel API over the turn-based
game, for every game (issue #31 item 2, "there is no ``parallel_env()``"; cited with the
hardening list of issue #29).  PettingZoo's parallel_api_test of every game is in
tests/test_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env.game import IllegalActionError
from mariash_env.games.registry import games
from mariash_env.rules import RulesError
from tests.helpers import step_cap

# Every registered game that has an AEC env, and volený at four.
CASES = [{"rules": k.name} for k in games("aec")] + [{"players": 4}]


def _ids(kw: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in kw.items())


def test_every_aec_game_is_covered() -> None:
    """Issue #31 item 2 (#29): the three games of the registry are all here."""
    assert {c.get("rules") for c in CASES} >= {"voleny", "licitovany", "lizany"}


@pytest.mark.parametrize("kw", CASES, ids=_ids)
def test_parallel_episode_carries_masks_and_rewards(kw: dict) -> None:
    """Issue #31 item 2 (#29): a whole episode through the parallel API: only the agent to
    move has legal actions in its mask, its action is applied, the others' are ignored,
    and every agent's payments add up to what the AEC env pays on the same deals."""
    extra = {} if kw.get("rules") == "lizany" else {"deals": 2}
    p = mariash_env.parallel_env(**kw, **extra)
    obs, infos = p.reset(seed=7)
    assert set(obs) == set(p.agents) == set(infos)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(p.possible_agents, 0.0)
    chosen = []
    tick = step_cap(p.aec_env.unwrapped if kw.get("rules") != "lizany" else "lizany",
                    deals=None)
    while p.agents:
        tick()
        movers = [a for a in p.agents if obs[a]["action_mask"].any()]
        assert len(movers) == 1, movers
        # every info names the agent to move, from reset on, never in the AEC env's dicts
        assert all(infos[a]["active_agent"] == movers[0] for a in p.agents)
        assert all("active_agent" not in i for i in p.aec_env.unwrapped.infos.values())
        legal = np.flatnonzero(obs[movers[0]]["action_mask"])
        a = int(rng.choice(legal))
        chosen.append(a)
        # every other agent submits an illegal action: it must be ignored
        acts = {ag: (a if ag == movers[0] else 10**6) for ag in p.agents}
        obs, rew, term, trunc, infos = p.step(acts)
        for ag, r in rew.items():
            totals[ag] += r
    assert abs(sum(totals.values())) < 1e-9
    with pytest.raises(RuntimeError, match="the episode is over"):
        p.step({a: 0 for a in p.possible_agents})
    # the same actions through the AEC env
    e = mariash_env.env(**kw, **extra)
    e.reset(seed=7)
    aec = dict.fromkeys(e.possible_agents, 0.0)
    it = iter(chosen)
    for _agent in e.agent_iter():
        _, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else next(it))
        for ag, r in e.rewards.items():
            aec[ag] += r
    assert totals == pytest.approx(aec)
    assert any(totals.values())


@pytest.mark.parametrize("kw", CASES, ids=_ids)
def test_stacked_infos_are_ints_on_every_step(kw: dict) -> None:
    """``stack_infos=True`` promises one key set of ints on every step (libraries stack
    them into arrays and tensors): the parallel env's ``active_agent`` is the mover's
    index in ``possible_agents`` there; it was its name, a str, and TorchRL's
    ``PettingZooWrapper(parallel_env(stack_infos=True))`` failed building its specs
    (``TypeError: new(): invalid data type 'str'``)."""
    extra = {} if kw.get("rules") == "lizany" else {"deals": 2}
    p = mariash_env.parallel_env(stack_infos=True, **kw, **extra)
    obs, infos = p.reset(seed=5)
    keys = None
    rng = np.random.default_rng(5)
    tick = step_cap(p.aec_env.unwrapped if kw.get("rules") != "lizany" else "lizany",
                    deals=None)
    while p.agents:
        tick()
        mover = p.aec_env.agent_selection
        for a in p.agents:
            assert all(type(v) is int for v in infos[a].values()), infos[a]
            assert keys in (None, set(infos[a])) and "active_agent" in infos[a]
            keys = set(infos[a])
            assert p.possible_agents[infos[a]["active_agent"]] == mover
        act = int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))
        obs, _, _, _, infos = p.step(dict.fromkeys(p.agents, act))
    named = mariash_env.parallel_env(**kw)
    _, infos = named.reset(seed=5)
    assert {i["active_agent"] for i in infos.values()} == {named.aec_env.agent_selection}


def test_parallel_env_takes_the_env_options() -> None:
    """Issue #31 item 2 (#29): env()'s keywords (mask_in_info, flat_obs) and rule options
    pass through; an option that does not apply to a game is a RulesError naming it."""
    p = mariash_env.parallel_env(flat_obs=True, deals=1)
    obs, infos = p.reset(seed=1)
    mover = next(a for a in p.agents if infos[a]["action_mask"].any())
    assert obs[mover].shape == p.observation_space(mover).shape
    with pytest.raises(RulesError, match="deals"):
        mariash_env.parallel_env(rules="lizany", deals=2)
    assert "parallel_env" in mariash_env.__all__


@pytest.mark.parametrize("kw", CASES, ids=_ids)
def test_actions_without_the_movers_action_are_refused(kw: dict) -> None:
    """PettingZoo's conversion read ``actions[mover]``: an empty dict was a bare KeyError,
    None or a list a TypeError; each is an IllegalActionError naming the agent to move, and
    nothing is applied."""
    p = mariash_env.parallel_env(**kw)
    p.reset(seed=3)
    mover = p.aec_env.agent_selection
    before = p.aec_env.unwrapped.state().copy()
    for actions, words in (({}, f"no action for {mover}"), (None, "must be a dict"),
                           ([0], "must be a dict"), ({"player_9": 0}, "unknown agent")):
        with pytest.raises(IllegalActionError, match=words):
            p.step(actions)
    assert np.array_equal(p.aec_env.unwrapped.state(), before)


@pytest.mark.parametrize("kw", CASES, ids=_ids)
def test_before_reset_the_parallel_env_says_so(kw: dict) -> None:
    """Before the first reset ``agents``, ``num_agents`` and ``step`` failed with Python's
    "'_TurnBasedParallel' object has no attribute 'agents'"; now the AEC env's words
    (``agents cannot be accessed before reset``) and, for ``step``, the RuntimeError of the
    single-agent env (``call reset() before step()``), also after a reset that was refused.
    What needs no game answers (spaces, ``possible_agents``, ``render_mode``, ``metadata``,
    ``close`` twice), copies work, and an unknown attribute is Python's usual error."""
    import copy
    import pickle

    from mariash_env.game import OptionError

    p = mariash_env.parallel_env(render_mode="ansi", **kw)
    for read in (lambda: p.agents, lambda: p.num_agents):
        with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
            read()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        p.step({"player_0": 0})
    with pytest.raises(OptionError):
        p.reset(seed=-1)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        p.step({"player_0": 0})
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        p.nothing  # noqa: B018
    assert p.render_mode == "ansi" and p.max_num_agents == len(p.possible_agents)
    assert p.observation_space(p.possible_agents[0]) is not None
    for twin in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        twin.reset(seed=1)
        assert twin.num_agents == len(twin.possible_agents)
    p.reset(seed=1)
    assert p.agents == p.possible_agents and p.num_agents == len(p.agents)
    assert p.render()
    p.close()
    p.close()
