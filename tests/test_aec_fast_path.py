"""The AEC env's decision in one compiled call (``core.engine.step_observe``): step checks,
applies and observes the player to move next at once, and the next last() hands that
observation out.  What the agents see must be exactly what the separate calls give."""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env.game import IllegalActionError
from tests.helpers import step_cap

RULE_SETS = [{}, {"players": 4}, {"rules": "licitovany"}, {"open_contracts": True},
             {"max_flek": None, "tariff": "csm"}, {"rich_infos": True}]


def _fresh(raw, agent):
    seat = raw.agent_name_mapping[agent]
    game = raw.game
    return game.observation(seat), game.legal_mask(seat)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: ",".join(map(str, r)) or "default")
def test_last_answers_what_observe_and_legal_mask_give(rules):
    e = mariash_env.env(deals=3, **rules)
    raw = e.unwrapped
    rng = np.random.default_rng(7)
    decisions = 0
    for seed in range(3):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _, term, trunc, info = e.last()
            if not (term or trunc):
                want_obs, want_mask = _fresh(raw, agent)
                np.testing.assert_array_equal(obs["observation"], want_obs)
                np.testing.assert_array_equal(obs["action_mask"], want_mask)
                again = e.last()  # fresh arrays every call, the same info
                assert again[0]["observation"] is not obs["observation"]
                assert again[0]["action_mask"] is not obs["action_mask"]
                np.testing.assert_array_equal(again[0]["observation"], want_obs)
                assert again[4] is info
                decisions += 1
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(
                obs["action_mask"]))))
    assert decisions > 50


def _count(monkeypatch, calls: list[str], names: tuple[str, ...]) -> None:
    """Each compiled entry ``names`` the game and the env call appends its name to calls."""
    import importlib

    import mariash_env.game as G

    V = importlib.import_module("mariash_env.env")  # the module (the package's env is env())

    for name in names:
        # the game's import and the env's (its hot path calls some directly)
        places = [(m, n) for m, n in ((G, name), (V, "_" + name)) if hasattr(m, n)]
        real = getattr(*places[0])

        def counted(*a, _r=real, _n=name):
            calls.append(_n)
            return _r(*a)

        for module, attr in places:
            monkeypatch.setattr(module, attr, counted)


def _count_observe(game, calls: list[str]) -> None:
    """The game's compiled observe appends "observe" to calls."""
    real = game._observe_into
    game._observe_into = lambda *a: (calls.append("observe"), real(*a))[1]


def test_one_compiled_call_per_decision(monkeypatch):
    calls: list[str] = []
    _count(monkeypatch, calls, ("step_observe", "apply_action", "legal_actions"))
    e = mariash_env.env(deals=1)
    e.reset(seed=5)
    raw = e.unwrapped
    _count_observe(raw.game, calls)
    obs, *_ = e.last()  # after reset: observed
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    calls.clear()
    for _ in range(5):
        obs, *_ = e.last()
        e.step(np.int64(np.flatnonzero(obs["action_mask"])[-1]))
    assert calls == ["step_observe"] * 5  # no separate observe, apply or mask


def _mid_deal(seed: int, steps: int, **rules):
    e = mariash_env.env(**rules)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, *_ = e.last()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return e


@pytest.mark.parametrize("how", ["in_place", "replaced", "rules_vector"])
def test_a_state_changed_after_step_is_observed_afresh(how):
    # step() keeps the next observation for last(); a change of the state in between (any
    # path) drops it: last() answers the state's own observation
    e = _mid_deal(3, 12)
    other = _mid_deal(8, 25)
    raw = e.unwrapped
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    agent = raw.agent_selection
    if how == "in_place":
        raw.game.st[:] = other.unwrapped.game.st
    elif how == "replaced":
        raw.game.st = other.unwrapped.game.st.copy()
    else:
        raw.game.rv = raw.game.rv.copy()
    got, *_ = e.last()
    want_obs, want_mask = _fresh(raw, agent)
    np.testing.assert_array_equal(got["observation"], want_obs)
    np.testing.assert_array_equal(got["action_mask"], want_mask)


def test_illegal_index_applies_nothing_and_names_the_legal_actions():
    e = _mid_deal(4, 10)
    raw = e.unwrapped
    obs, *_ = e.last()
    st, history = raw.game.st.copy(), list(raw.game.history)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for action in (bad, np.int64(bad), np.uint8(bad)):
        with pytest.raises(IllegalActionError, match="legal are"):
            e.step(action)
    np.testing.assert_array_equal(raw.game.st, st)
    assert raw.game.history == history
    again, *_ = e.last()  # still the same decision, observed alike
    np.testing.assert_array_equal(again["observation"], obs["observation"])
    np.testing.assert_array_equal(again["action_mask"], obs["action_mask"])


def test_last_without_observation_keeps_it_for_the_next_call():
    e = _mid_deal(6, 8)
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    agent = e.agent_selection
    none, *_ = e.last(observe=False)
    assert none is None
    got, *_ = e.last()
    want_obs, want_mask = _fresh(e.unwrapped, agent)
    np.testing.assert_array_equal(got["observation"], want_obs)
    np.testing.assert_array_equal(got["action_mask"], want_mask)


@pytest.mark.parametrize("extra", [{}, {"mask_in_info": True}, {"illegal": "terminate"}],
                         ids=["direct", "mask_in_info", "terminate"])
def test_order_enforcing_is_kept_with_the_raw_step_bound(extra, caplog):
    # Around raw_env itself the wrapper's step and last are the raw env's own once reset
    # (one Python call less a decision); PettingZoo's order rules stay those of the wrapper
    e = mariash_env.env(deals=1, **extra)
    raw = e.unwrapped
    with pytest.raises(AttributeError, match="reset"):
        e.last()
    with pytest.raises(AssertionError, match="reset"):
        e.step(0)
    e.reset(seed=2)
    direct = not extra
    assert (e.step == raw._step_in_order) is direct and (e.last == raw.last) is direct
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="step"):
        next(it)
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    if extra.get("illegal") != "terminate":
        with pytest.raises(IllegalActionError):
            e.step(bad)  # a refused step is a step for the iterator (PettingZoo's wrapper)
    else:
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    for _agent in it:
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert not e.agents
    e.step(None)  # after the end: PettingZoo's logged warning, nothing raised
    assert "step() called after all agents are terminated" in caplog.text
    with pytest.raises(RuntimeError, match="the episode is over"):
        raw.step(None)  # the raw env itself still refuses it
    e.reset(seed=3)  # and a new episode plays through the same loop
    steps = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        steps += 1
    assert steps > 3 and not e.agents


def test_seeded_resets_make_no_generator(monkeypatch):
    # reset(seed=s) plays seed s and seeds the generator later unseeded resets continue;
    # that generator is made only when an unseeded reset first draws from it (making one
    # cost as much as the rest of a reset).  The parties are those of test_seeding.
    made: list[tuple] = []
    real = np.random.default_rng
    monkeypatch.setattr(np.random, "default_rng",
                        lambda *a, **k: (made.append(a), real(*a, **k))[1])
    e = mariash_env.env(deals=1)
    for seed in range(5):
        e.reset(seed=seed)
    assert made == []
    e.reset()
    e.reset()
    assert made == [(4,)]
    want = mariash_env.env(deals=1)
    want.reset(seed=4)
    want.unwrapped._seeds.np_random  # noqa: B018 - made at once, drawn from alike
    want.reset()
    want.reset()
    np.testing.assert_array_equal(e.unwrapped.state(), want.unwrapped.state())


def test_a_deals_end_is_one_compiled_call_with_the_next_observation(monkeypatch):
    calls: list[str] = []
    _count(monkeypatch, calls, ("step_observe", "advance_observe", "advance_partie"))
    e = mariash_env.env(deals=3)
    e.reset(seed=1)
    raw = e.unwrapped
    _count_observe(raw.game, calls)
    rng = np.random.default_rng(1)
    ends = 0
    for agent in e.agent_iter():
        calls.clear()
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        want_obs, want_mask = _fresh(raw, agent)  # (observes: after the check)
        np.testing.assert_array_equal(obs["observation"], want_obs)
        np.testing.assert_array_equal(obs["action_mask"], want_mask)
        calls.clear()
        deals = len(raw.records)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if len(raw.records) > deals and e.agents and not any(raw.terminations.values()):
            assert calls == ["step_observe", "advance_observe"]
            ends += 1
        else:
            assert calls in (["step_observe"], ["step_observe", "advance_observe"])
    assert ends == 2


def test_deck_is_the_deal_as_dealt():
    from mariash_env.cards import CARD_CODES
    from mariash_env.core.deal import deck_of

    e = _mid_deal(9, 3)
    game = e.unwrapped.game
    assert game.deck() == [CARD_CODES[c] for c in deck_of(game.st)]
    assert game.deck() == game.deck() and game.deck() is not game.deck()


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"},
                                   {"rich_infos": True}, {"stack_infos": True},
                                   {"rules": "licitovany", "stack_infos": True}],
                         ids=lambda r: ",".join(map(str, r.values())) or "default")
def test_hot_step_infos_are_set_infos(rules):
    # raw_env.step's hot path builds the infos' template inline (_set_infos(None) is a
    # Python call more a decision): the copy must stay what _set_infos(None) builds
    e = mariash_env.env(deals=2, **rules)
    raw = e.unwrapped
    rng = np.random.default_rng(11)
    checked = 0
    e.reset(seed=11)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        deals = len(raw.records)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if len(raw.records) > deals or not e.agents:
            continue  # a deal's end: the general path, its settlement in the infos
        got = {a: dict(raw.infos[a]) for a in raw.agents}
        raw._set_infos(None)
        want = raw.infos
        assert got == want
        assert all(type(got[a][k]) is type(want[a][k]) for a in got for k in got[a])
        checked += 1
    assert checked > 20


def _to_deal_end(e, seed: int) -> None:
    """Random legal play until the step that ends the first deal (its infos settle it)."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    raw = e.unwrapped
    tick = step_cap(raw)
    while not raw.records:
        tick()
        obs = raw.observe(raw.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"},
                                   {"rich_infos": True}, {"deals": 1}],
                         ids=lambda r: ",".join(map(str, r.values())) or "default")
@pytest.mark.parametrize("read", ["last", "last_no_obs", "infos"])
def test_a_settlement_in_the_infos_is_each_agents_own(rules, read):
    # The step a deal ends gives every agent the settlement: a user's edit of one agent's
    # (payments normalised in place, a bet list cleared) changes no other agent's, nor the
    # deal's record or last_settlement (a record that no longer replays)
    import json

    from mariash_env.records import RecordChecker

    e = mariash_env.env(**{"deals": 2, **rules})
    raw = e.unwrapped
    _to_deal_end(e, 4)
    record, last = json.dumps(raw.records[-1]), json.dumps(raw.last_settlement)
    mover = raw.agent_selection
    if read == "last":
        info = e.last()[4]
    elif read == "last_no_obs":
        info = e.last(observe=False)[4]
    else:
        info = raw.infos[mover]
    others = {a: json.dumps(raw.infos[a]) for a in raw.possible_agents if a != mover}
    settlement = info["settlement"]
    settlement["payments"][0] += 1000
    for value in settlement.values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            value[0].clear()
    settlement["actor"] = -5
    assert json.dumps(raw.records[-1]) == record
    assert json.dumps(raw.last_settlement) == last
    assert {a: json.dumps(raw.infos[a]) for a in others} == others
    assert e.last()[4] is info  # the same info again within the step (as before)
    RecordChecker().check(raw.records[-1])


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"},
                                   {"rules": "lizany"}],
                         ids=lambda r: ",".join(map(str, r.values())) or "default")
def test_an_env_whose_first_reset_failed_is_not_reset(rules):
    # A reset that raises (a bad deck) leaves no partie: the wrapper answers as before any
    # reset (PettingZoo's "reset() needs to be called" errors, AttributeError "must be
    # reset") instead of bare AttributeErrors naming raw_env's attributes
    from mariash_env.cards import CardError

    e = mariash_env.env(**rules)
    with pytest.raises(CardError):
        e.reset(options={"deck": [0] * 32})
    with pytest.raises(AssertionError, match="reset"):
        e.step(0)
    with pytest.raises(AssertionError, match="reset"):
        e.agent_iter()
    for call in (e.last, lambda: e.agent_selection, lambda: e.infos,
                 lambda: e.observe("player_0"), e.state):
        with pytest.raises(AttributeError, match="before reset|must be reset"):
            call()
    e.reset(seed=1)  # a good reset after it plays as usual
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    # a failed reset later keeps the partie it leaves in place playable
    agent = e.agent_selection
    with pytest.raises(CardError):
        e.reset(options={"deck": [0] * 32})
    assert e.agent_selection == agent
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("rules", [{}, {"rules": "licitovany"}, {"rules": "lizany"}],
                         ids=lambda r: ",".join(map(str, r.values())) or "default")
def test_the_raw_env_steps_only_once_reset(rules):
    raw = mariash_env.raw_env(**rules)
    for action in (0, None, "good"):
        with pytest.raises(AttributeError, match="must be reset"):
            raw.step(action)
    for observe in (True, False):  # lízaný's raw env named its missing agent_selection
        with pytest.raises(AttributeError, match="must be reset"):
            raw.last(observe)


@pytest.mark.parametrize("rules", [{}, {"players": 4}, {"rules": "licitovany"},
                                   {"rules": "lizany"}],
                         ids=lambda r: ",".join(map(str, r.values())) or "default")
def test_a_users_edit_of_an_observation_leaks_nowhere(rules):
    # last() hands step()'s observation out once; the arrays are the user's: an edit in
    # place changes no later last()/observe(), no held observation and not the engine's
    # check (the legality is the state's, never a mask handed out)
    e = mariash_env.env(**rules)
    raw = e.unwrapped
    rng = np.random.default_rng(3)
    e.reset(seed=3)
    held = []
    for _ in range(12):
        obs, *_ = e.last()
        want = {k: v.copy() for k, v in obs.items()}
        for o in (obs, e.observe(e.agent_selection)):
            o["observation"][:] = 7.0
            o["action_mask"][:] = 1
        for again in (e.last()[0], e.observe(e.agent_selection)):
            for k in want:
                np.testing.assert_array_equal(again[k], want[k])
        for k, v in want.items():
            held.append((e.observe(e.agent_selection)[k], v))
        bad = np.flatnonzero(want["action_mask"] == 0)
        if bad.size:
            with pytest.raises(IllegalActionError):
                e.step(int(bad[0]))
        e.step(int(rng.choice(np.flatnonzero(want["action_mask"]))))
        if not raw.agents or raw.terminations[raw.agent_selection]:
            break
    assert all(np.array_equal(a, b) for a, b in held)  # never changed by a later step


def test_a_lizany_settlement_in_the_infos_is_each_agents_own():
    # lízaný's env built one settlement dict for both agents' infos on the deal's last
    # step: an edit of one agent's showed in the other's
    e = mariash_env.env(rules="lizany")
    e.reset(seed=5)
    raw = e.unwrapped
    rng = np.random.default_rng(5)
    tick = step_cap("lizany")
    while not any(raw.terminations.values()):
        tick()
        mask = e.last()[0]["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    a, b = raw.possible_agents
    before = [list(p) for p in (raw.infos[a]["settlement"]["payments"],
                                raw.infos[b]["settlement"]["payments"])]
    raw.infos[a]["settlement"]["payments"][0] += 1000
    raw.infos[a]["settlement"]["points"].clear()
    assert raw.infos[b]["settlement"]["payments"] == before[1]
    assert raw.infos[b]["settlement"]["points"]
