"""Issue #9 (hardening) for the environment, rules, records and robots: every returned info
is fresh, one action parser in both illegal modes, strict option types, bounded records,
clear errors before reset and after the episode."""

from __future__ import annotations

import collections
import functools
import json

import numpy as np
import pytest
from pettingzoo.test import api_test

import mariash_env
from mariash_env import IllegalActionError, OptionError, RulesError, make_rules
from mariash_env.actions import N_ACTIONS, ActionError
from mariash_env.records import replay_record
from mariash_env.robots import make_robot
from mariash_env.rules import MAX_DEALS
from tests.helpers import random_play, step_cap


def play_random(e, seed: int = 0, keep_infos: list | None = None) -> int:
    rng = np.random.default_rng(seed)
    n = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if keep_infos is not None:
            keep_infos.append((info, json.dumps(info, sort_keys=True)))
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    return n


# --- item 4: infos are fresh objects ---------------------------------------------------------


@pytest.mark.parametrize("rich", [False, True])
def test_returned_infos_never_change_on_later_steps(rich):
    e = mariash_env.env(deals=3, rich_infos=rich)
    e.reset(seed=5)
    kept: list = []
    stored_all = []
    rng = np.random.default_rng(1)
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        kept.append((info, json.dumps(info, sort_keys=True)))
        stored_all.append((e.infos, json.dumps(e.infos, sort_keys=True)))
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(kept) > 30
    for info, snapshot in kept:
        assert json.dumps(info, sort_keys=True) == snapshot
    for infos, snapshot in stored_all:
        assert json.dumps(infos, sort_keys=True) == snapshot
    # the phases really moved on: the test would see an in-place update
    assert len({json.loads(s)["phase"] for _, s in kept}) > 3


@pytest.mark.parametrize("rules", [{}, {"rich_infos": True}, {"players": 4},
                                   {"rules": "licitovany"}])
def test_each_agent_has_an_info_of_its_own(rules):
    # last() builds the mover's info and env.infos the others' (from the same step): each
    # agent's is a dict of its own and the same object both ways, so that a caller who
    # changes one agent's info changes no other agent's, nor a later step's.
    e = mariash_env.env(deals=2, **rules)
    e.reset(seed=2)
    rng = np.random.default_rng(3)
    for n, agent in enumerate(e.agent_iter()):
        if n % 2:  # every agent's infos first, then the mover's through last()
            infos = e.infos
            infos[agent]["mine"] = agent
            obs, _, term, trunc, info = e.last()
            assert info is infos[agent] and info["mine"] == agent
        else:
            obs, _, term, trunc, info = e.last()
            info["mine"] = agent
            infos = e.infos
            assert infos[agent] is info
        others = [i for a, i in infos.items() if a != agent]
        assert all("mine" not in i for i in others)
        assert len({id(i) for i in infos.values()}) == len(infos)
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert all("mine" not in i for i in e.infos.values())


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"}])
def test_rewards_are_the_payments_on_the_step_a_deal_ends_and_zero_otherwise(rules):
    # (the step resets the rewards only after a deal ended: check every step)
    e = mariash_env.env(deals=3, **rules)
    e.reset(seed=4)
    raw = e.unwrapped
    rng = np.random.default_rng(4)
    ended = 0
    tick = step_cap(raw, deals=None)
    while raw.agents and not any(raw.terminations.values()):
        tick()
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        info = raw.infos[raw.agents[0]]
        if info["settlement_deal"] >= 0:
            ended += 1
            payments = raw.records[-1]["settlement"]["payments"]
            assert list(raw.rewards.values()) == [float(p) for p in payments]
        else:
            assert all(r == 0.0 for r in raw.rewards.values())
    assert ended == 3


def test_infos_keep_the_interface_keys():
    # INTERFACE.md's names: "phase", "deal" and "settlement" with rich_infos=True.
    e = mariash_env.env(deals=1, rich_infos=True)
    e.reset(seed=3)
    assert set(e.infos["player_0"]) == {"phase", "deal"}
    assert e.infos["player_0"]["phase"] == "trump"
    rng = np.random.default_rng(0)
    tick = step_cap(e.unwrapped, deals=None)
    while not any(e.terminations.values()):
        tick()
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    info = e.infos["player_0"]
    assert {"phase", "deal", "settlement", "settlement_deal"} <= set(info)
    assert info["settlement"]["payments"] == e.unwrapped.records[-1]["settlement"]["payments"]
    assert info["settlement"] == e.unwrapped.last_settlement


def test_default_infos_carry_the_settlement_when_a_deal_ends():
    # INTERFACE.md: "phase", "deal" and, on the step a deal ends, "settlement" (the bets
    # with their level, outcome and amount, and the payments per seat): by default.
    for rules in ({}, {"rules": "licitovany"}, {"players": 4}):
        e = mariash_env.env(deals=2, **rules)
        e.reset(seed=5)
        raw, ended = e.unwrapped, 0
        for agent in random_play(e, np.random.default_rng(1)):
            infos = raw.infos
            assert {"phase", "deal", "settlement_deal"} <= set(infos[agent])
            if infos[agent]["settlement_deal"] < 0:
                assert all("settlement" not in i for i in infos.values())
                continue
            ended += 1
            s = raw.records[-1]["settlement"]
            assert all(i["settlement"] == s for i in infos.values())
            assert s["payments"] and "components" in s or "bets" in s
        assert ended == 2, rules
    with pytest.raises(mariash_env.OptionError, match="contradict"):
        mariash_env.env(rich_infos=True, stack_infos=True)


def test_stacked_infos_are_the_same_ints_on_every_step():
    # Libraries stack infos into tensors/buffers: one key set, ints only, on every step.
    e = mariash_env.env(deals=3, stack_infos=True)
    e.reset(seed=3)
    raw = e.unwrapped
    assert raw.last_settlement is None
    rng = np.random.default_rng(0)
    ended, phases = [], set()
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert set(info) == {"phase", "deal", "settlement_deal"}
        assert all(type(v) is int for v in info.values()), info
        phases.add(mariash_env.PHASE_NAMES[info["phase"]])
        if term or trunc:
            e.step(None)
            continue
        deal = raw.game.deal_no
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done = raw.infos[agent]["settlement_deal"]
        assert all(i["settlement_deal"] == done for i in raw.infos.values())
        if done >= 0:
            assert done == deal and raw.last_settlement == raw.records[-1]["settlement"]
            assert [raw.rewards[a] for a in raw.possible_agents] == (
                raw.last_settlement["payments"])
            ended.append(done)
        else:
            assert all(r == 0.0 for r in raw.rewards.values())
    assert ended == [0, 1, 2]
    assert {"trump", "play"} <= phases
    e.reset(seed=4)
    assert raw.last_settlement is None  # a new episode forgets the old settlement


def test_demo_reports_each_settlement_from_last_settlement(capsys):
    from mariash_env import demo

    demo.main(["--deals", "2", "--seed", "1"])
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("--- deal ")]
    assert [ln.split(":")[0] for ln in lines] == ["--- deal 1", "--- deal 2"]
    assert "=== deal 1 ===" in out and "=== deal 2 ===" in out  # the play phase was seen


def test_demo_heads_each_deal_before_its_first_action(capsys):
    """Each deal's ``=== deal N ===`` comes before its first action, the trump choice
    (R§3): it came at the first card played, so a deal's bidding was printed under the
    previous deal's settlement (the first deal's above any heading)."""
    from mariash_env import demo

    demo.main(["--deals", "2", "--seed", "1"])
    out = capsys.readouterr().out.split("\nfinal table:")[0]
    lines = [ln for ln in out.splitlines() if ln]
    heads = [i for i, ln in enumerate(lines) if ln.startswith("=== deal ")]
    assert [lines[i] for i in heads] == ["=== deal 1 ===", "=== deal 2 ==="], lines
    assert heads[0] == 0 and lines[heads[1] - 1].startswith("    running groše: "), lines
    assert all(":trump:" in lines[i + 1].replace(": ", ":") for i in heads), lines


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_rich_infos_must_be_a_bool(bad):
    with pytest.raises(mariash_env.OptionError, match="rich_infos"):
        mariash_env.env(rich_infos=bad)


# --- item 6: one action parser in both modes ---------------------------------------------------


def _fresh(illegal: str):
    e = mariash_env.env(illegal=illegal)
    e.reset(seed=2)
    return e


@pytest.mark.parametrize("action", ["trump:7h", "TRUMP:7h", "trump:7H", np.int64(0), np.int32(0),
                                    0])
def test_terminate_mode_accepts_what_the_default_accepts(action):
    # forehand of seed 2 may choose any of its first seven cards; find a legal one
    e0 = _fresh("raise")
    legal = e0.unwrapped.legal_labels()
    card = legal[0]
    act = card if isinstance(action, str) and action.lower().startswith("trump") else action
    if not isinstance(act, str):
        act = type(action)(mariash_env.action_index(card))
    e0.step(act)
    e1 = _fresh("terminate")
    e1.step(act)
    assert not any(e1.terminations.values())
    assert np.array_equal(e0.unwrapped.game.st, e1.unwrapped.game.st)


@pytest.mark.parametrize("action", [200, N_ACTIONS, -1, None, np.int64(10**9), "play:Qh", 1.5,
                                    True])
def test_terminate_mode_punishes_exactly_what_the_default_rejects(action):
    e0 = _fresh("raise")
    before = e0.unwrapped.game.st.copy()
    with pytest.raises(IllegalActionError):
        e0.step(action)
    assert np.array_equal(before, e0.unwrapped.game.st)
    assert e0.rewards == dict.fromkeys(e0.agents, 0.0)
    e1 = _fresh("terminate")
    agent = e1.agent_selection
    e1.step(action)
    assert all(e1.terminations.values())
    assert e1.rewards[agent] == -1
    assert np.array_equal(before, e1.unwrapped.game.st)
    play_random(e1)  # the dead steps run out cleanly
    assert e1.agents == []


def test_unknown_label_raises_in_both_modes():
    for mode in ("raise", "terminate"):
        e = _fresh(mode)
        with pytest.raises(ActionError, match="unknown action label 'play:Xx'"):
            e.step("play:Xx")
        assert not any(e.terminations.values())


def test_terminate_mode_passes_the_api_test():
    api_test(mariash_env.env(illegal="terminate"), num_cycles=300)


# --- item 9: before reset, after the episode -----------------------------------------------------


def test_observe_before_reset_raises_like_last():
    raw = mariash_env.raw_env()
    for call in (lambda: raw.observe("player_0"), raw.last, raw.state, raw.legal_labels):
        with pytest.raises(AttributeError, match="must be reset"):
            call()
    for illegal in ("raise", "terminate"):
        e = mariash_env.env(illegal=illegal)
        for call in (functools.partial(e.observe, "player_0"), e.last, e.state):
            with pytest.raises(AttributeError, match="must be reset"):
                call()


@pytest.mark.parametrize("illegal", ["raise", "terminate"])
def test_last_after_the_episode_answers_terminated(illegal):
    e = mariash_env.env(deals=1, illegal=illegal)
    e.reset(seed=9)
    kept: list = []
    play_random(e, 2, kept)
    assert e.agents == []
    obs, reward, term, trunc, info = e.last()
    assert term and not trunc and reward == 0.0
    assert info["settlement_deal"] == 0 and not obs["action_mask"].any()
    raw = e.unwrapped
    obs, reward, term, _, info = raw.last()
    assert term and info["settlement_deal"] == 0
    with pytest.raises(RuntimeError, match="episode is over"):
        raw.step(None)
    for info, snapshot in kept:  # the dead steps did not change earlier infos either
        assert json.dumps(info, sort_keys=True) == snapshot


# --- item 7: strict option types ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"killed_seven": 2.0}, r"2.0 for rule option 'killed_seven': expected an int"),
        ({"killed_seven": True}, "killed_seven"),
        ({"killed_seven": np.int64(4)}, "killed_seven"),
        ({"open_contracts": 0}, r"0 for rule option 'open_contracts': expected a bool"),
        ({"deals": 10**12}, rf"1000000000000 .*'deals': expected an int 1..{MAX_DEALS}"),
        ({"deals": 2.0}, "deals"),
        ({"deals": True}, "deals"),
        ({"deals": 0}, "deals"),
        ({"players": True}, "players"),
        ({"players": 3.0}, "players"),
        ({"tariff": ["home"]}, "tariff"),
        ({"rules": None}, "rules"),
        ({"max_flek": 2.0}, "max_flek"),
        ({"payment_cap": 10**30}, "payment_cap"),
        ({"payment_cap": 0}, "payment_cap"),
        ({"marriage_order": 1}, "marriage_order"),
    ],
)
def test_rule_options_are_type_checked(options, match):
    with pytest.raises(RulesError, match=match):
        make_rules(**options)
    with pytest.raises(RulesError):
        mariash_env.env(**options)


def test_numpy_rule_values_become_python_values_and_records_stay_json():
    r = make_rules(deals=np.int64(1), killed_seven=np.int32(3), max_flek=np.int8(2),
                   payment_cap=np.int64(50), open_contracts=np.bool_(False))
    d = r.to_dict()
    assert type(d["deals"]) is int and type(d["killed_seven"]) is int
    assert type(d["open_contracts"]) is bool
    e = mariash_env.env(deals=np.int64(1))
    e.reset(seed=0)
    play_random(e)
    rec = e.unwrapped.records[0]
    assert replay_record(json.loads(json.dumps(rec))) == rec["settlement"]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"cuts": "5"}, "invalid cuts '5'"),
        ({"cuts": [2.7]}, r"2.7 is not an int"),
        ({"cuts": [True]}, "not an int"),
        ({"cuts": 5}, "invalid cuts 5"),
        ({"cuts": [31]}, "2..30"),
        ({"dealer": 1.0}, "dealer"),
        ({"dealer": True}, "dealer"),
    ],
)
def test_reset_options_are_type_checked(options, match):
    e = mariash_env.env()
    e.reset(seed=0)
    st = e.unwrapped.game.st.copy()
    with pytest.raises(OptionError, match=match):
        e.reset(seed=1, options=options)
    assert np.array_equal(st, e.unwrapped.game.st)  # nothing half-applied


@pytest.mark.parametrize("seed", [1.5, "3", True, [1]])
def test_bad_seeds_are_refused(seed):
    e = mariash_env.env()
    with pytest.raises(OptionError, match="invalid seed"):
        e.reset(seed=seed)


def test_numpy_cuts_and_seeds_work():
    e = mariash_env.env(deals=3)
    e.reset(seed=np.int64(4), options={"cuts": np.array([5, 7])})
    play_random(e)
    assert [r["cut"] for r in e.unwrapped.records] == [None, 5, 7]


@pytest.mark.parametrize(
    ("spec", "kw", "match"),
    [
        ("pimc(time_limit=-1)", {}, r"time_limit=-1 .*expected a finite number > 0"),
        # inf is > 0 but no limit: the message says finite
        ("pimc", {"time_limit": float("inf")}, r"time_limit=inf .*expected a finite number > 0"),
        ("pimc", {"time_limit": 0}, "time_limit"),
        ("pimc", {"time_limit": "1"}, "time_limit"),
        ("pimc(worlds=0)", {}, "worlds"),
        ("pimc(worlds=2.5)", {}, "worlds"),
        ("pimc(worlds=True)", {}, "worlds"),
        # the samplers' bound, refused when the robot is built, not at its first decision
        ("pimc(worlds=1000000000)", {}, r"invalid worlds=1000000000 .*expected an int 1\.\.100000"),
        ("pimc(seed=-3)", {}, r"invalid seed=-3 for robot 'pimc': expected an int >= 0"),
        ("random(seed=-1)", {}, r"invalid seed=-1 for robot 'random'"),
        ("pimc(wordls=3)", {}, r"unknown argument 'wordls' for robot 'pimc'"),
        ("pimc(seed=1.5)", {}, "seed"),
        ("pimc(use_solver=1)", {}, "use_solver"),
        ("pimc(bidding='x')", {}, "bidding"),
        ("random(seed='a')", {}, "seed"),
        ("random(x=1)", {}, "unknown argument 'x'"),
        ("table(seed=1)", {}, "unknown argument 'seed' for robot 'table'"),
        ("pimc(worlds=)", {}, "bad robot spec"),
        ("pimc(1)", {}, "bad robot spec"),
        ("pimc(worlds=8", {}, "bad robot spec"),
        # Python's parser keeps both; the last used to win silently
        ("pimc(worlds=8, worlds=9)", {}, "argument 'worlds' is given twice"),
        ("nosuch", {}, "unknown robot 'nosuch'"),
        ("onnx:", {}, "needs the path"),
        ("onnx:/nonexistent.onnx", {}, "no ONNX model"),
        ("", {}, "unknown robot ''"),
    ],
)
def test_bad_robot_arguments_are_refused(spec, kw, match):
    with pytest.raises(ValueError, match=match):
        make_robot(spec, **kw)


def test_good_robot_arguments_still_work():
    assert make_robot("pimc(worlds=3, time_limit=0.5, seed=np.int64(1))".replace(
        "np.int64(1)", "1")).worlds == 3
    assert make_robot("pimc", time_limit=np.float64(0.2), worlds=np.int64(2)).worlds == 2
    assert make_robot("random(seed=3)") is not None
    assert make_robot(" table ") is not None


# --- item 10: bounded records --------------------------------------------------------------------


def test_records_false_keeps_none_and_rewards_are_unchanged():
    full = mariash_env.env(deals=5)
    none = mariash_env.env(deals=5, records=False)
    totals = []
    for e in (full, none):
        e.reset(seed=8)
        rng = np.random.default_rng(4)
        tot = dict.fromkeys(e.possible_agents, 0.0)
        settlements = []
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc
                   else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if agent in e.infos and e.infos[agent]["settlement_deal"] >= 0:
                settlements.append(e.unwrapped.last_settlement)
            for a, r in e.rewards.items():
                tot[a] += r
        totals.append((tot, settlements))
    assert totals[0] == totals[1]
    assert len(full.unwrapped.records) == 5 and len(none.unwrapped.records) == 0
    assert [r["settlement"] for r in full.unwrapped.records] == totals[0][1]


def test_records_n_keeps_the_last_n():
    e = mariash_env.env(deals=7, records=3)
    e.reset(seed=6)
    play_random(e, 1)
    recs = e.unwrapped.records
    assert isinstance(recs, collections.deque) and len(recs) == 3
    assert [r["deal"] for r in recs] == [4, 5, 6]
    for r in recs:
        assert replay_record(json.loads(json.dumps(r))) == r["settlement"]
    e.reset(seed=7)
    assert len(e.unwrapped.records) == 0


@pytest.mark.parametrize("records", [0, -2, 2.0, "all", None])
def test_bad_records_option(records):
    with pytest.raises(OptionError, match="records="):
        mariash_env.env(records=records)
