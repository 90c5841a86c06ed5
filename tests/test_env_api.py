"""The PettingZoo AEC environment and the public contract of INTERFACE.md."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import mariash_env
from mariash_env import IllegalActionError
from mariash_env.actions import N_ACTIONS
from mariash_env.cards import CARD_CODES
from mariash_env.records import RecordError, load_records, replay_record, save_records
from mariash_env.vector import VectorEnv
from tests.helpers import random_play, step_cap


def random_episode(e, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(a)
        n += 1
    return n


@pytest.mark.parametrize("rich", [False, True])
def test_pettingzoo_parallel_api_test(rich):
    # The turn-based conversion is how parallel-API libraries take the AEC env.
    parallel_api_test(
        turn_based_aec_to_parallel(mariash_env.env(deals=2, rich_infos=rich)), num_cycles=1000
    )


def test_parallel_play_with_the_masks_pays_the_scores():
    # Every agent answers each parallel step; only the agent to move has a legal mask
    # and its action is the one applied.
    par = turn_based_aec_to_parallel(mariash_env.env(deals=2))
    obs, infos = par.reset(seed=6)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    tick = step_cap(par.unwrapped, deals=None)
    while par.agents:
        tick()
        movers = [a for a in par.agents if obs[a]["action_mask"].any()]
        assert len(movers) == 1
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if a in movers
                else 0 for a in par.agents}
        obs, rewards, terms, truncs, infos = par.step(acts)
        for a, r in rewards.items():
            totals[a] += r
    raw = par.aec_env.unwrapped
    assert list(totals.values()) == raw.game.scores and sum(totals.values()) == 0


def test_interface_names():
    raw = mariash_env.raw_env()
    assert raw.possible_agents == ["player_0", "player_1", "player_2"]
    assert raw.action_space("player_0").n == N_ACTIONS
    assert raw.observation_space("player_1") is raw.observation_space("player_1")  # cached
    assert raw.action_label(raw.action_index("play:Qh")) == "play:Qh"
    assert raw.action_index("trump:blind") == 32
    assert raw.action_label(113) == "play:Aa"
    for lab in ["contract:suit", "contract:betl", "contract:durch", "contract:open_betl",
                "contract:open_durch", "good", "bad", "announce:hra", "announce:sedma",
                "announce:sto", "announce:sto_sedma", "against:seven", "against:hundred",
                "flek:game", "flek:seven", "flek:seven_against", "flek:hundred_against",
                "lay_down", "discard:7h", "trump:Aa"]:
        assert raw.action_label(raw.action_index(lab)) == lab
    assert CARD_CODES[0] == "7h" and CARD_CODES[31] == "Aa" and CARD_CODES[5] == "Qh"


def test_reset_infos_rewards_and_state():
    e = mariash_env.env(deals=2)
    e.reset(seed=1)
    raw = e.unwrapped
    assert raw.state().shape == raw.state_space.shape
    agent = e.agent_selection
    assert raw.legal_labels(agent) and all(lab.startswith("trump:") for lab in raw.legal_labels())
    others = [a for a in raw.agents if a != agent]
    assert all(raw.legal_labels(a) == [] for a in others)
    assert mariash_env.PHASE_NAMES[e.infos[agent]["phase"]] == "trump"
    assert e.infos[agent]["deal"] == 0
    totals = dict.fromkeys(raw.possible_agents, 0.0)
    settlements = []
    for agent in random_play(e, np.random.default_rng(3)):
        if raw.infos[agent]["settlement_deal"] >= 0:
            settlements.append(raw.last_settlement)
            for a in raw.possible_agents:
                totals[a] += raw.rewards[a]
    assert len(settlements) == 2
    assert sum(totals.values()) == 0
    assert list(totals.values()) == [sum(s["payments"][i] for s in settlements) for i in range(3)]
    for s in settlements:
        for b in s["bets"]:
            assert {"bet", "won", "amount", "worth"} <= set(b)


def test_illegal_action_raises_with_labels_and_applies_nothing():
    e = mariash_env.env()
    e.reset(seed=2)
    raw = e.unwrapped
    before = raw.game.st.copy()
    with pytest.raises(IllegalActionError, match=r"illegal action 'play:Qh'.*legal are \['trump"):
        e.step(raw.action_index("play:Qh"))
    assert np.array_equal(before, raw.game.st)
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(N_ACTIONS)
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(-1)
    assert np.array_equal(before, raw.game.st)


def test_illegal_terminate_mode_gives_penalty():
    e = mariash_env.env(illegal="terminate")
    e.reset(seed=2)
    agent = e.agent_selection
    e.step(e.unwrapped.action_index("play:Qh"))
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1


def test_reset_options_deck_dealer_cuts():
    deck = list(reversed(CARD_CODES))
    e = mariash_env.env(deals=3)
    e.reset(seed=0, options={"deck": deck, "dealer": 2, "cuts": [5, 7]})
    raw = e.unwrapped
    assert raw.game.deck() == deck
    assert e.agent_selection == "player_0"  # forehand of dealer 2
    random_episode(e, 1)
    assert [r["cut"] for r in raw.records] == [None, 5, 7]
    assert [r["dealer"] for r in raw.records] == [2, 0, 1]
    with pytest.raises(mariash_env.CardError, match="exactly 32"):
        e.reset(options={"deck": deck[:31]})
    with pytest.raises(mariash_env.CardError, match="repeated"):
        e.reset(options={"deck": deck[:31] + [deck[0]]})
    with pytest.raises(mariash_env.CardError, match="unknown card code 'Xx'"):
        e.reset(options={"deck": ["Xx"] + deck[1:]})
    with pytest.raises(mariash_env.OptionError, match="dealer"):
        e.reset(options={"dealer": 3})
    with pytest.raises(mariash_env.OptionError, match="2..30"):
        e.reset(options={"cuts": [1]})
    e.reset(options={"deck": list(range(32))})
    assert raw.game.deck() == list(CARD_CODES)


def test_unknown_rules_are_refused():
    with pytest.raises(mariash_env.RulesError, match="unknown rule option 'flek_max'"):
        mariash_env.env(flek_max=3)
    with pytest.raises(mariash_env.RulesError, match="tariff"):
        mariash_env.env(tariff="cheap")
    with pytest.raises(mariash_env.RulesError, match="'players'"):
        mariash_env.env(players=5)
    # an unknown game names every game the front end takes, lízaný (own engine) too
    for make in (lambda: mariash_env.env(rules="lizanyy"),
                 lambda: VectorEnv(2, rules="lizanyy")):
        with pytest.raises(mariash_env.RulesError,
                           match=r"'lizanyy'.*\['voleny', 'licitovany'\].*\['lizany'\]"):
            make()


def test_unknown_agent_is_named_by_every_front_end():
    """``observe``, ``observation_space`` and ``action_space`` of an agent the game has not:
    a KeyError naming the agents (PettingZoo's classic envs give a bare KeyError)."""
    import pickle

    envs = [mariash_env.env(), mariash_env.env(rules="licitovany"),
            mariash_env.env(rules="lizany"), mariash_env.parallel_env(),
            mariash_env.raw_env()]
    for e in envs:
        for method in ("observation_space", "action_space"):
            with pytest.raises(KeyError, match=r"unknown agent 'player_9': expected one of "
                                               r"\['player_0', 'player_1'"):
                getattr(e, method)("player_9")
        space = e.action_space(e.possible_agents[-1])
        assert pickle.loads(pickle.dumps(space)) == space
    e = envs[0]
    e.reset(seed=1)
    with pytest.raises(KeyError, match="unknown agent 'player_9'"):
        e.observe("player_9")


def test_records_replay_and_first_bad_action(tmp_path):
    e = mariash_env.env(deals=12)
    e.reset(seed=11)
    random_episode(e, 5)
    recs = e.unwrapped.records
    assert len(recs) == 12
    path = tmp_path / "deals.jsonl"
    save_records(path, recs)
    loaded = list(load_records(path))
    assert loaded == json.loads(json.dumps(recs))
    for r in loaded:
        assert replay_record(r) == r["settlement"]
    bad = json.loads(json.dumps(recs[0]))
    seat, lab = bad["actions"][2]
    bad["actions"][2] = [seat, "play:Aa" if lab != "play:Aa" else "play:7h"]
    with pytest.raises(RecordError, match=r"action #2 .* does not replay"):
        replay_record(bad)
    wrong = json.loads(json.dumps(recs[1]))
    wrong["settlement"]["payments"] = [9, -3, -6]
    with pytest.raises(RecordError, match="settlement differs"):
        replay_record(wrong)
    save_records(tmp_path / "bad.jsonl", [recs[0], bad])
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(tmp_path / "bad.jsonl")],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "bad.jsonl:2: record 2: field 'actions': action #2" in out.stdout
    (tmp_path / "junk.jsonl").write_text("{not json\n")
    out = subprocess.run([sys.executable, "-m", "mariash_env.replay", str(tmp_path / "junk.jsonl")],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "not a JSON object" in out.stdout


def test_environment_does_not_import_torch():
    code = ("import sys, mariash_env, mariash_env.robots, mariash_env.records; "
            "import mariash_env.single_agent, mariash_env.wrappers, mariash_env.ray_pool; "
            "e = mariash_env.env(); e.reset(seed=0); "
            "mariash_env.single_agent.SingleAgentEnv(deals=1).reset(seed=0); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_render_ansi_shows_the_table():
    e = mariash_env.env(render_mode="ansi")
    e.reset(seed=4)
    text = e.render()
    assert "forhont" in text and "groše" in text and "phase trump" in text


@pytest.mark.parametrize("rules", ["voleny", "licitovany", "lizany"])
def test_actions_as_gymnasium_takes_them(rules):
    """An action Gymnasium's Discrete contains -- an int, a numpy integer, a 0-d integer
    array (what a policy's predict returns) -- and a 0-d integer tensor are taken alike;
    a float, a bool or an array of another shape is refused by name, nothing applied."""
    torch = pytest.importorskip("torch")
    e = mariash_env.env(rules=rules)
    e.reset(seed=2)
    raw = e.unwrapped
    for wrap in (np.array, torch.tensor, np.int32, int):
        obs = e.last()[0]
        a = int(np.flatnonzero(obs["action_mask"])[0])
        assert e.action_space(e.agent_selection).contains(np.array(a))
        e.step(wrap(a))
    obs = e.last()[0]
    a = int(np.flatnonzero(obs["action_mask"])[0])
    before = raw.state().copy()
    for bad in (np.array([a]), np.float64(a), float(a), torch.tensor(float(a)),
                np.array(True), torch.tensor(True), True):
        with pytest.raises(mariash_env.IllegalActionError, match="an action must be an int"):
            e.step(bad)
    assert np.array_equal(raw.state(), before)


def test_single_agent_env_takes_a_0d_array():
    from mariash_env import SingleAgentEnv

    env = SingleAgentEnv()
    env.reset(seed=1)
    _, _, _, _, info = env.step(np.array(int(np.flatnonzero(env.action_masks())[0])))
    assert "settlement_deal" in info


def test_lizany_infos_and_the_end_of_the_episode():
    """Lízaný's env keeps INTERFACE.md's infos ("phase", "deal", "settlement" on the step
    the deal ends) and, after the episode, answers last() and refuses step() by name."""
    from mariash_env.lizany import PHASE_NAMES

    e = mariash_env.env(rules="lizany")
    e.reset(seed=4)
    raw, rng, phases = e.unwrapped, np.random.default_rng(0), []
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        phases.append(PHASE_NAMES[info["phase"]])
        assert info["deal"] == 0
        if term or trunc:
            # the record's result, with the payments per seat every game's settlement names
            assert info["settlement_deal"] == 0 and info["settlement"] == {
                **raw.record["result"], "payments": raw.record["result"]["rewards"]}
            e.step(None)
            continue
        assert info["settlement_deal"] == -1 and "settlement" not in info
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert phases[0] == "stock" and "endgame" in phases and phases[-1] == "done"
    obs, reward, term, trunc, info = e.last()
    assert term and reward == 0.0 and info["settlement"]["payments"] == list(raw.game.rewards)
    with pytest.raises(RuntimeError, match="the episode is over"):
        raw.step(0)
    stacked = mariash_env.env(rules="lizany", stack_infos=True)
    stacked.reset(seed=4)
    for _agent in stacked.agent_iter():
        obs, _, term, trunc, info = stacked.last()
        assert set(info) == {"phase", "deal", "settlement_deal"}
        stacked.step(None if term or trunc else
                     int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("options", [{"dealer": 1}, {"cuts": [5]}, {"deck": list(range(32)),
                                                                    "dealer": 0}])
def test_lizany_refuses_the_other_games_deal_options(options):
    """INTERFACE.md's reset options `dealer` and `cuts` mean nothing in lízaný (one deal,
    player_0 leads): refused by name, not dropped with a warning, and nothing reset."""
    from mariash_env.game import OptionError

    e = mariash_env.env(rules="lizany")
    e.reset(seed=4)
    before = e.unwrapped.state().copy()
    with pytest.raises(OptionError, match="do not apply to lízaný"):
        e.reset(seed=5, options=options)
    assert (e.unwrapped.state() == before).all()



@pytest.mark.parametrize("rules", [{}, {"rules": "licitovany"}, {"players": 4},
                                   {"rules": "lizany"}])
def test_str_is_the_envs_name_as_pettingzoos_classic_envs(rules):
    """``str(pettingzoo.classic.connect_four_v3.env())`` is ``"connect_four_v3"`` before
    and after reset (its order-enforcing and terminate-illegal wrappers print the env
    they wrap); ours printed ``_OrderEnforcing<mariash_v0>``.  Now the name, illegal=
    "terminate" too; the wrappers that change the answers show (``FlatObs<...>``, as
    PettingZoo's BaseWrapper); the parallel env the same name; ``repr`` is Python's
    default, as PettingZoo's."""
    name = mariash_env.raw_env(**rules).metadata["name"]
    e = mariash_env.env(**rules)
    assert str(e) == name
    e.reset(seed=0)
    assert str(e) == name
    assert str(mariash_env.env(illegal="terminate", **rules)) == name
    assert str(mariash_env.env(flat_obs=True, **rules)) == f"FlatObs<{name}>"
    assert str(mariash_env.env(mask_in_info=True, illegal="terminate", **rules)) == \
        f"MaskInInfo<{name}>"
    p = mariash_env.parallel_env(**rules)
    assert str(p) == name
    p.reset(seed=0)
    assert str(p) == name
    assert repr(e).startswith("<mariash_env.env._OrderEnforcing object at 0x")
