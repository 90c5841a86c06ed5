"""Mariáš as an OpenSpiel game (issue #18): OpenSpiel's own random-simulation checks, the
same play and settlement as :class:`mariash_env.game.Game` (RULES.md §2 deals and cuts,
§9 settlement), information states and resampling, and the OpenSpiel robots in the arena."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import Game, RulesError, make_rules  # noqa: E402
from mariash_env import actions as A  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from mariash_env.openspiel import (  # noqa: E402
    OpenSpielRobot,
    ResampleError,
    game_params,
    info_state_size,
    load_game,
    max_game_length,
    state_from_record,
    utility_bound,
)
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.robots.table import TableRobot  # noqa: E402
from tests.helpers import decision_compiles, step_cap  # noqa: E402

# The default game of every registry game: tests/test_conformance.py.
VARIANTS = [
    ({"deals": 3}, 4),
    ({"deals": 2, "shuffle": "every_deal", "max_flek": -1, "payment_cap": 500}, 4),
    ({"tariff": "csm", "killed_seven": 3, "marriage_order": "queen_first", "max_flek": 1}, 8),
]


def _random_action(state, rng: np.random.Generator) -> int:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return int(rng.choice(outcomes, p=probs))
    return int(rng.choice(state.legal_actions()))


def _random_states(game, n: int, seed: int):
    """Decision states at random depths of random games."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        stop = int(rng.integers(32, 80))
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal() and len(s.history()) < stop:
            tick()
            s.apply_action(_random_action(s, rng))
        if not s.is_terminal() and not s.is_chance_node():
            out.append(s)
    return out


@pytest.mark.parametrize("params,sims", VARIANTS)
def test_openspiel_random_sim_test(params, sims):
    """pyspiel's C++ checks (chance outcomes, legal actions, rewards vs returns, clone,
    serialisation round trip, information state / observation calls) on every variant."""
    game = pyspiel.load_game("mariash", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_game_type_and_info_are_true_to_the_game():
    game = pyspiel.load_game("mariash")
    t = game.get_type()
    assert t.short_name == "mariash"
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.provides_information_state_string and t.provides_information_state_tensor
    assert t.provides_observation_string and t.provides_observation_tensor
    assert game.num_players() == 3
    assert game.num_distinct_actions() == 115
    assert game.max_chance_outcomes() == 32
    assert game.utility_sum() == 0.0
    # home tariff, max_flek 4: forehand wins at most 2 * 2,624 and loses 2 * 2,112
    # (tests/test_openspiel_bounds.py plays both deals)
    assert (game.min_utility(), game.max_utility()) == (-4224.0, 5248.0)
    # players=3 given is the default's game (its sentinel -1: lízaný refuses a given 3)
    assert str(pyspiel.load_game("mariash", {"players": 3})) == str(game)
    assert game.information_state_tensor_shape() == [900 + 64]
    assert game.observation_tensor_shape() == [900]
    assert info_state_size(make_rules()) == 12 * 964
    assert pyspiel.load_game("mariash", {"deals": 12}).information_state_tensor_shape() == [
        12 * 964]
    capped = load_game(make_rules(payment_cap=500, max_flek=None, deals=3))
    assert capped.max_utility() == 2 * 500 * 3
    unlimited = load_game(make_rules(max_flek=None))
    assert unlimited.max_utility() == utility_bound(make_rules(max_flek=None)) > 1e10


@pytest.mark.parametrize("params,model", [
    ({}, "TERMINAL"), ({"rules": "licitovany"}, "TERMINAL"), ({"deals": 3}, "REWARDS"),
    ({"players": 4}, "REWARDS"), ({"rules": "lizany"}, "TERMINAL")])
def test_reward_model_and_chance_outcomes_are_true_to_the_node(params, model):
    """A game of one deal pays only at its end and declares terminal rewards (OpenSpiel's
    MCTSBot refuses any other); a partie pays each deal as it is settled.  Chance
    outcomes are offered at chance nodes only: none at a decision or at the end."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("mariash", params)
    assert game.get_type().reward_model == getattr(pyspiel.GameType.RewardModel, model)
    rng = np.random.default_rng(5)
    s = game.new_initial_state()
    tick = step_cap(game, deals=None, chance=True)
    while not s.is_terminal():
        tick()
        assert bool(s.chance_outcomes()) == s.is_chance_node(), s.history()
        s.apply_action(_random_action(s, rng))
    assert s.chance_outcomes() == []
    if model == "TERMINAL":  # MCTS plays it (seeing the whole state: it is no IS search)
        bot = mcts.MCTSBot(game, 2, 8, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                           random_state=np.random.RandomState(1))
        s = game.new_initial_state()
        tick = step_cap(game, chance=True)
        while s.is_chance_node():
            tick()
            s.apply_action(_random_action(s, rng))
        s.apply_action(bot.step(s))


@pytest.mark.parametrize("params", [
    {"deals": 2}, {"deals": 3}, {"deals": 2, "shuffle": "every_deal"},
    {"rules": "licitovany", "deals": 2}, {"players": 4, "deals": 3}, {}])
def test_rewards_sum_to_the_returns_over_decision_and_terminal_states(params):
    """The rule of MariashState.rewards (docs/openspiel.md, docs/pitfalls.md): a deal's
    payment is the reward of the decision that settles it and stays over the chance nodes
    that follow (the next deal's cut or draws) until the next decision, where OpenSpiel
    reads it (pyspiel.random_sim_test, rl_environment).  Summed at the decision and
    terminal states, or right after each decision, the rewards are the returns; summed
    after every transition they count a payment once more per chance node after it."""
    game = pyspiel.load_game("mariash", params)
    n = game.num_players()
    rng = np.random.default_rng(11)
    for _ in range(3):
        s = game.new_initial_state()
        after_decisions, every = np.zeros(n), np.zeros(n)
        paid, extra = np.zeros(n), np.zeros(n)
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal():
            tick()
            chance = s.is_chance_node()
            s.apply_action(_random_action(s, rng))
            r = np.array(s.rewards())
            every += r
            if chance:
                assert np.array_equal(r, paid), "a chance node keeps the last payment"
                extra += r
                continue
            after_decisions += r
            paid = r
        returns = np.array(s.returns())
        assert np.array_equal(after_decisions, returns)
        assert np.array_equal(every, returns + extra)
        # OpenSpiel's reading: at each decision node (chance resolved) and the terminal
        t = game.new_initial_state()
        total = np.zeros(n)
        for a in s.history():
            if not t.is_chance_node() and t.history():
                total += t.rewards()
            t.apply_action(a)
        total += t.rewards()
        assert np.array_equal(total, returns)


@pytest.mark.parametrize("params,fragment", [
    ({"rules": "lizany", "tariff": "csm"}, "invalid tariff='csm' for rules='lizany'"),
    ({"rules": "bridge"}, "invalid value 'bridge' for rule option 'rules'"),
    ({"tariff": "pub"}, "tariff"),
    ({"max_flek": -3}, "max_flek"),
    ({"deals": 0}, "deals"),
    ({"killed_seven": 4}, "killed_seven"),
    ({"payment_cap": -5}, "payment_cap -5: expected groše > 0, 0 for none or -1"),
    ({"foo": 1}, "Unknown parameter 'foo'"),
    ({"tariff": "csm", "open_contracts": True}, "open_contracts=True and tariff='csm'"),
    ({"hundred_counting": "kilo"}, "hundred_counting"),
    ({"players": 4, "rules": "licitovany"}, "four-player"),
    ({"players": 5}, "players"),
    ({"deals": -2}, "deals"),
    ({"rules": "licitovany", "tariff": "csm"}, "volený options that do not apply"),
    ({"rules": "licitovany", "open_contracts": True}, "open_contracts"),
])
def test_bad_parameters_are_refused_by_name(params, fragment):
    with pytest.raises((RulesError, pyspiel.SpielError, ValueError), match=fragment):
        pyspiel.load_game("mariash", params)


@pytest.mark.parametrize("rules", [
    make_rules(deals=1), make_rules(max_flek=None, payment_cap=300, deals=5,
                                    shuffle="every_deal", tariff="csm"),
    make_rules(deals=2, open_contracts=True, hundred_counting="order_free"),
    make_rules(rules="licitovany", deals=1), make_rules(rules="licitovany", deals=4,
                                                       max_flek=None, payment_cap=None),
    make_rules(rules="licitovany", deals=2, max_flek=2, marriage_order="queen_first",
               shuffle="every_deal"),
])
def test_params_round_trip(rules):
    """Every option reaches Rules, and the game's parameters (its string, what
    serialisation stores) name the rules played."""
    game = load_game(rules)
    assert game.ctx.rules == rules
    assert pyspiel.load_game("mariash", game_params(rules)).ctx.rules == rules
    assert pyspiel.load_game(str(game)).ctx.rules == rules


def test_each_game_takes_its_own_defaults():
    """max_flek / payment_cap left out: the game's defaults (volený 4 and none, RULES.md
    §11; licitovaný 5 and 500, LICITOVANY.md §6, §9); -1 and 0 mean unlimited and none."""
    assert load_game(deals=1).ctx.rules == make_rules(deals=1)
    assert load_game(rules="licitovany").ctx.rules == make_rules(rules="licitovany", deals=1)
    assert load_game(rules="licitovany").get_parameters()["max_flek"] == 5
    r = load_game(rules="licitovany", max_flek=-1, payment_cap=0).ctx.rules
    assert r.max_flek is None and r.payment_cap is None


@pytest.mark.parametrize("shuffle", ["partie", "every_deal"])
def test_same_play_and_settlement_as_game(shuffle):
    """The chance draws deal the same deck as Game.new_partie(deck=...) (dealer 0), a cut
    outcome is Game's cut (RULES.md §2); every decision has Game's legal actions, the
    information state tensor is Game.observation, and the returns are Game's scores."""
    rng = np.random.default_rng(3)
    rules = make_rules(deals=3, shuffle=shuffle)
    game = load_game(rules)
    for _ in range(4):
        s = game.new_initial_state()
        g = Game(rules)
        decks: list[list[int]] = [[]]
        cuts: list[int] = []
        decisions = []
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal():
            tick()
            a = _random_action(s, rng)
            if s.is_chance_node():
                if shuffle == "partie" and s.st is not None:
                    cuts.append(a)
                else:
                    if len(decks[-1]) == 32:
                        decks.append([])
                    decks[-1].append(a)
            else:
                decisions.append((s.current_player(), a))
            s.apply_action(a)
        # Replay on Game.
        g.new_partie(deck=decks[0], dealer=0, cuts=cuts or None)
        deal = 0
        for seat, a in decisions:
            if g.deal_over:
                assert g.next_deal()
                deal += 1
                if shuffle == "every_deal":
                    g.deal_deck(decks[deal], int(g.st[S.DEALER]))
            assert g.to_move == seat
            g.step(a)
        assert g.partie_over
        assert s.returns() == [float(x) for x in g.scores]
        assert sum(s.returns()) == 0


def test_legal_actions_and_tensors_match_game_along_a_deal():
    rng = np.random.default_rng(5)
    game = pyspiel.load_game("mariash")
    s = game.new_initial_state()
    tick = step_cap(game, chance=True)
    while s.is_chance_node():
        tick()
        s.apply_action(_random_action(s, rng))
    g = Game(make_rules(deals=1))
    g.new_partie(deck=[int(a) for a in s.history()], dealer=0)
    tick = step_cap(game, deals=None, chance=True)
    while not s.is_terminal():
        tick()
        p = s.current_player()
        assert s.legal_actions() == g.legal_actions()
        for seat in range(3):
            info = np.asarray(s.information_state_tensor(seat))
            assert np.array_equal(info[:900], g.observation(seat)) and not info[900:932].any()
            first7 = [c for c in range(32) if g.st[S.POS + c] < 7] if seat == 1 else []
            assert np.flatnonzero(info[932:]).tolist() == first7  # seat 1 is forehand
            assert np.array_equal(np.asarray(s.observation_tensor(seat)), g.observation(seat))
        a = _random_action(s, rng)
        s.apply_action(a)
        g.step(a)
        assert p == g.history[-1][0]
    assert s.returns() == [float(x) for x in g.scores]


def test_strings_identify_the_tensors():
    """Equal observation strings <=> equal observation tensors; equal information-state
    strings => equal information-state tensors (the string is finer: it keeps the order of
    the decisions), over many states of several seats."""
    game = pyspiel.load_game("mariash")
    obs: dict[str, bytes] = {}
    obs_back: dict[bytes, str] = {}
    info: dict[str, bytes] = {}
    for s in _random_states(game, 30, seed=11):
        for p in range(3):
            key = s.observation_string(p)
            t = np.asarray(s.observation_tensor(p), dtype=np.float32).tobytes()
            assert obs.setdefault(key, t) == t
            assert obs_back.setdefault(t + bytes([p]), key) == key
            ikey = s.information_state_string(p)
            it = np.asarray(s.information_state_tensor(p), dtype=np.float32).tobytes()
            assert info.setdefault(ikey, it) == it
            assert ikey != key and key.split(" ", 1)[1] in ikey
    assert len(obs) > 60


@pytest.mark.parametrize("params", [{}, {"rules": "licitovany"}, {"rules": "lizany"},
                                    {"players": 4, "deals": 1}])
def test_observers_refuse_a_view_they_do_not_give(params):
    """The observers give a seat's own view (the public part and its private cards): a
    public-only or an all-players observer, or one without the public part, is refused by
    name.  (It answered the seat's own view, so a public observer leaked its hand.)"""
    from tests.helpers import observers_give_the_own_view_only

    game = pyspiel.load_game("mariash", params)
    observers_give_the_own_view_only(game, _play(game, range(32)), 0)


@pytest.mark.parametrize("params", [{}, {"players": 4, "deals": 1}])
def test_information_state_tensor_recalls_the_open_contracts_overcalled(params):
    """With open contracts (RULES.md §11.1) the no-trump contracts named before the last
    overcall are public history: betl, durch or open betl, each overcalled by open durch,
    are three information states for every player, in the tensor as in the string (the
    tensor kept only the contract standing: the three shared one)."""
    game = pyspiel.load_game("mariash", {"open_contracts": True, **params})
    ends = []
    for first in ("contract:betl", "contract:durch", "contract:open_betl"):
        s = _play(game, range(32))
        for step in ("trump:", first, "discard:", "discard:", "contract:open_durch",
                     "discard:", "discard:"):
            legal = [A.ACTION_LABELS[a] for a in s.legal_actions()]
            s.apply_action(A.action_index(next(x for x in legal if x.startswith(step))))
        ends.append(s)
    assert ends[0].legal_actions() == [A.action_index("good"), A.action_index("flek:game")]
    for p in range(game.num_players()):
        assert len({s.information_state_string(p) for s in ends}) == 3
        assert len({np.asarray(s.information_state_tensor(p)).tobytes() for s in ends}) == 3
        assert all(len(s.information_state_tensor(p)) == info_state_size(game.rules)
                   for s in ends)


def test_dealing_information_state_shows_no_card():
    game = pyspiel.load_game("mariash")
    s = game.new_initial_state()
    for c in (5, 9, 30):
        s.apply_action(c)
    assert s.observation_string(1) == "p1 dealing 3/32"
    assert s.information_state_string(1) == "p1 | dealing 3/32"
    assert not np.any(s.information_state_tensor(1)) and not np.any(s.observation_tensor(1))


def _play(game, actions):
    s = game.new_initial_state()
    for a in actions:
        s.apply_action(int(a))
    return s


def _conceded_first_deal(game, trump: int, rng) -> list[int]:
    """The first deal's history: a fixed deck, forehand (seat 1) picks ``trump``, plays a
    suit game with the same two discards, announces hra and the defence concedes (RULES.md
    §5.4): every such deal pays the same, whatever the trump card."""
    h = list(range(32))
    s = _play(game, h)
    labels = []
    tick = step_cap(game, chance=True)
    while not s.is_terminal() and s.st[S.PHASE] != S.PH_DONE:
        tick()
        legal = [A.ACTION_LABELS[a] for a in s.legal_actions()]
        if s.st[S.PHASE] == S.PH_TRUMP:
            pick = A.ACTION_LABELS[trump]
        else:
            pick = next(x for x in ("contract:suit", "discard:7h", "discard:8h", "good",
                                    "announce:hra") if x in legal)
        labels.append(pick)
        s.apply_action(A.action_index(pick))
    h += [A.action_index(x) for x in labels]
    return h


@pytest.mark.parametrize("shuffle", ["partie", "every_deal"])
def test_information_state_recalls_earlier_deals(shuffle):
    """Perfect recall across deals (RULES.md §2: the gathered deck carries the earlier
    deals): two parties whose first deals differ (the trump card) but pay the same reach
    the same second-deal observation with different information states."""
    game = pyspiel.load_game("mariash", {"deals": 2, "shuffle": shuffle})
    rng = np.random.default_rng(0)
    # Forehand's first 7 cards are deck positions 0..6: 7h..Kh, Ah, 7b (card indices 0..6).
    h1 = _conceded_first_deal(game, A.action_index("trump:Kh"), rng)
    h2 = _conceded_first_deal(game, A.action_index("trump:Qh"), rng)
    assert h1 != h2
    tail = [7] if shuffle == "partie" else [int(c) for c in rng.permutation(32)]
    s1, s2 = _play(game, h1 + tail), _play(game, h2 + tail)
    assert int(s1.st[S.DEAL_NO]) == 1 and s1.returns() == s2.returns() != [0.0] * 3
    rest = []
    while len(rest) < 6:  # the same second-deal decisions in both
        a = int(rng.choice(s1.legal_actions()))
        assert a in s2.legal_actions()
        for s in (s1, s2):
            s.apply_action(a)
        rest.append(a)
    for p in range(3):
        assert s1.observation_string(p) == s2.observation_string(p)
        assert np.array_equal(s1.observation_tensor(p), s2.observation_tensor(p))
        assert s1.information_state_string(p) != s2.information_state_string(p)
        assert not np.array_equal(s1.information_state_tensor(p), s2.information_state_tensor(p))
        i1 = np.asarray(s1.information_state_tensor(p))
        assert np.array_equal(i1[964:964 + 900], s1.observation_tensor(p))
        assert i1[964 + 900 + 7] == (1.0 if shuffle == "partie" else 0.0)  # the cut
        # forehand's first seven cards (deal 0: seat 1, deck positions 0..6 = cards 0..6)
        assert i1[900 + 32:964].tolist() == ([1.0] * 7 + [0.0] * 25 if p == 1 else [0.0] * 32)


def _same_view(s, r, p):
    """``r`` shows player ``p`` what ``s`` shows it: information state (string and
    tensor), observation, the player to move and, if ``p``, its legal actions."""
    assert r.information_state_string(p) == s.information_state_string(p)
    assert np.array_equal(r.information_state_tensor(p), s.information_state_tensor(p))
    assert np.array_equal(r.observation_tensor(p), s.observation_tensor(p))
    assert r.current_player() == s.current_player()
    if p == s.current_player():
        assert r.legal_actions() == s.legal_actions()


def _check_resampled(game, s, r, p, rng):
    """``r`` (resampled from ``s`` for ``p``) is a real state of ``p``'s information set."""
    _same_view(s, r, p)
    # The history replays, every decision legal, to the same state; serialisation and
    # clone round-trip.
    t = game.new_initial_state()
    for a in r.history():
        assert t.is_chance_node() or a in t.legal_actions(), (a, str(t))
        t.apply_action(a)
    assert str(t) == str(r) and np.array_equal(t.st, r.st) and t.history() == r.history()
    g2, r2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, r))
    assert r2.history() == r.history() and str(r2) == str(r)
    assert r2.information_state_string(p) == s.information_state_string(p)
    c = r.clone()
    assert c.history() == r.history() and c.information_state_string(p) == \
        r.information_state_string(p)
    # random_sim_test-style consistency on the rest of the game.
    tick = step_cap(game, deals=None, chance=True)
    while not r.is_terminal():
        tick()
        if r.is_chance_node():
            assert abs(sum(pr for _, pr in r.chance_outcomes()) - 1.0) < 1e-9
        else:
            assert r.legal_actions()
            for q in range(game.num_players()):
                r.information_state_string(q)
                r.observation_tensor(q)
        assert abs(sum(r.returns())) < 1e-9
        r.apply_action(_random_action(r, rng))
    assert abs(sum(r.returns())) < 1e-9


@pytest.mark.parametrize("params,games", [
    ({}, 25),
    ({"deals": 3, "shuffle": "every_deal"}, 8),
    ({"deals": 3}, 8),
    ({"rules": "licitovany"}, 10),  # search.licit_worlds' exact sampler
    ({"rules": "licitovany", "deals": 3, "shuffle": "every_deal"}, 6),
    ({"rules": "licitovany", "deals": 3}, 4),
])
def test_resampled_states_have_a_history_that_replays(params, games):
    game = pyspiel.load_game("mariash", params)
    rng = np.random.default_rng(21)
    sampler = rng.random  # OpenSpiel's sampler protocol: a uniform draw per call
    done = differs = refused = states = 0
    while states < games:  # states at random depths of random parties, chance nodes too
        s = game.new_initial_state()
        stop = int(rng.integers(1, 40 + 80 * game.get_parameters()["deals"]))
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal() and len(s.history()) < stop:
            tick()
            s.apply_action(_random_action(s, rng))
        if s.is_terminal():
            continue
        states += 1
        for p in range(3):
            try:
                r = s.resample_from_infostate(p, sampler)
            except ResampleError as e:
                # Only a later deal of a gathered partie may find no world (docstring).
                assert params.get("shuffle", "partie") == "partie" and len(s.recalled()) > 1
                assert f"seat {p}" in str(e)
                refused += 1
                continue
            differs += str(r) != str(s)  # hidden cards redealt
            _check_resampled(game, s, r, p, rng)
            done += 1
    assert done + refused == 3 * games and done >= games and differs > done // 2


def test_clone_is_independent_and_history_bounded():
    rng = np.random.default_rng(9)
    game = pyspiel.load_game("mariash", {"deals": 2})
    for _ in range(5):
        s = game.new_initial_state()
        decisions = 0
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal():
            tick()
            if not s.is_chance_node():
                decisions += 1
                c = s.clone()
                before = (str(s), s.information_state_string(0), s.history())
                c.apply_action(c.legal_actions()[-1])
                assert (str(s), s.information_state_string(0), s.history()) == before
            s.apply_action(_random_action(s, rng))
        assert decisions <= game.max_game_length() == max_game_length(make_rules(deals=2))


@pytest.mark.parametrize("params", [{}, {"rules": "licitovany"}, {"rules": "lizany"},
                                    {"players": 4}, {"shuffle": "partie", "deals": 2}])
def test_an_illegal_action_or_outcome_is_refused_and_nothing_applied(params):
    """``apply_action`` of a drawn card, an outcome out of range, an action out of the
    table or one not legal now: an IllegalActionError naming it and the legal ones, the
    history and the state as before; ``action_to_string`` of an index out of the table
    (a negative one too) names the range."""
    from mariash_env import IllegalActionError

    game = pyspiel.load_game("mariash", params)
    state = game.new_initial_state()
    state.apply_action(5)
    for bad in (5, 99):  # -1 is kInvalidAction: pyspiel refuses it itself
        with pytest.raises(IllegalActionError, match=r"for chance: legal are \['deal:7h'"):
            state.apply_action(bad)
    tick = step_cap(game, chance=True)
    while state.is_chance_node():
        tick()
        state.apply_action(state.chance_outcomes()[0][0])
    player, n = state.current_player(), game.num_distinct_actions()
    illegal = next(a for a in range(n) if a not in state.legal_actions())
    before = str(state), state.history()
    for bad in (illegal, n, 10**6):
        with pytest.raises(IllegalActionError, match=rf"for player.{player}.*legal are \["):
            state.apply_action(bad)
        assert (str(state), state.history()) == before
    for bad in (n, -1):
        with pytest.raises(ValueError, match=rf"action {bad} is outside 0..{n - 1}"):
            state.action_to_string(player, bad)
    state.apply_action(state.legal_actions()[0])  # the state goes on as if nothing happened
    assert len(state.history()) == len(before[1]) + 1
    for bad in (-1, game.num_players(), True, 0.0):
        with pytest.raises(ValueError, match=rf"player_id {bad!r}: expected a player 0\.\."):
            state.resample_from_infostate(bad, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_state_from_record_refuses_a_bad_record():
    game = pyspiel.load_game("mariash")
    with pytest.raises(ValueError, match="state record"):
        state_from_record(game, np.zeros(5, dtype=np.int32))
    g = Game()
    g.new_partie(seed=3)
    st = g.st.copy()
    st[S.TO_MOVE] = 7  # the engine would index past its tables with it
    with pytest.raises(ValueError, match=r"state_from_record: the record: field to_move "
                                         r"\(slot \d+\) = 7 is out of range"):
        state_from_record(game, st)
    assert state_from_record(game, g.st).current_player() == g.to_move


def test_record_states_resample_within_their_deal():
    """A state made from a core record has no history: it resamples to another such
    search state inside the deal, and refuses by name once the deal is over."""
    game = pyspiel.load_game("mariash", {"deals": 2})
    rng = np.random.default_rng(4)
    s = _random_states(game, 1, seed=3)[0]
    r = state_from_record(game, s.st)
    p = r.current_player()
    w = r.resample_from_infostate(p, rng.random)
    assert w.from_record and np.array_equal(w.observation_tensor(p), s.observation_tensor(p))
    tick = step_cap(game, chance=True)
    while not r.is_chance_node():
        tick()
        r.apply_action(_random_action(r, rng))
    with pytest.raises(ResampleError, match="resamples only within a deal"):
        r.resample_from_infostate(0, rng.random)


@pytest.mark.parametrize("spec", ["os_random", "os_ismcts(simulations=8, seed=1)"])
def test_openspiel_robots_play_in_the_arena(spec):
    robot = make_robot(spec)
    assert isinstance(robot, OpenSpielRobot) and robot.wants_view
    res = duplicate_match({spec: lambda: make_robot(spec), "table": TableRobot}, deals=1,
                          seed=4, progress=False)
    assert res.per_deal.shape == (1, 2) and np.all(np.isfinite(res.per_deal))


def test_openspiel_robot_arguments_are_checked():
    with pytest.raises(ValueError, match="simulations"):
        make_robot("os_ismcts(simulations=0)")
    with pytest.raises(ValueError, match="unknown argument 'worlds'"):
        make_robot("os_random(worlds=3)")


def test_policy_gradient_example_runs():
    """examples/openspiel_policy_gradient.py trains and plays in the arena: four deals
    (each seat's agent makes an A2C update on them: its batch is 16 decisions), by
    --episodes, not the clock (--seconds 1 trained one deal, no update, on the 2-core
    machine)."""
    pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run(
        [sys.executable, "-W", "ignore", "examples/openspiel_policy_gradient.py",
         "--episodes", "4", "--eval", "2", "--hidden", "16"],
        cwd=root, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(root)},  # this checkout's mariash_env
    )
    assert p.returncode == 0, p.stderr
    assert "trained 4 self-play deals in " in p.stdout
    assert "os_a2c" in p.stdout and "table" in p.stdout


def test_policy_gradient_example_plays_each_role_with_the_agent_trained_in_it():
    """In a one-deal game seat 0 deals, so agents[p] of the example learns only the role p
    places after the dealer, and agents[0] never chose trumps or a contract: the arena
    played its network in every seat (an RL audit: durch in 100% of its contracts, none
    won).  role_policy reads each seat's role from the observation's dealer slots and
    plays it with that role's agent; the role read is the OpenSpiel player at every
    decision of one-deal games.  Training by games repeats exactly, and parties train
    through TurnRewardEnvironment."""
    pytest.importorskip("torch")
    import importlib.util

    import torch

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "openspiel_policy_gradient", root / "examples" / "openspiel_policy_gradient.py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)

    class Prefers(torch.nn.Module):  # a network whose greedy action is ``action``
        def __init__(self, action: int) -> None:
            super().__init__()
            self.action = action

        def forward(self, x):
            out = torch.zeros(x.shape[0], 115)
            out[:, self.action] = 1.0
            return out

    class Agent:
        def __init__(self, action: int) -> None:
            self.policy_logits_network = Prefers(action)

    act = ex.role_policy([Agent(a) for a in (10, 20, 30)])
    game = load_game(make_rules(deals=1))
    rng = np.random.default_rng(2)
    obs, players = [], []
    for _ in range(3):
        s = game.new_initial_state()
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal():
            tick()
            if not s.is_chance_node():
                p = s.current_player()
                obs.append(s.observation_tensor(p))
                players.append(p)
            s.apply_action(_random_action(s, rng))
    assert set(players) == {0, 1, 2}
    chosen = act(np.array(obs), np.ones((len(obs), 115), dtype=np.int8))
    assert chosen.tolist() == [(10, 20, 30)[p] for p in players]

    threads = torch.get_num_threads()
    try:
        agents, played = ex.train(60.0, 0, 8, episodes=6)
        again, _ = ex.train(60.0, 0, 8, episodes=6)
        _, parties = ex.train(60.0, 0, 8, deals=2, episodes=2)
    finally:
        torch.set_num_threads(threads)
    assert played == 6 and parties == 2
    for a, b in zip(agents, again):
        for x, y in zip(a.policy_logits_network.parameters(),
                        b.policy_logits_network.parameters()):
            assert torch.equal(x, y)


def test_api_benchmark_runs():
    """scripts/bench_apis.py (the figures of docs/benchmarks.md) runs every row."""
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run(
        [sys.executable, "scripts/bench_apis.py", "--seconds", "0.05", "--num-envs", "8"],
        cwd=root, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    for row in ("PettingZoo AEC", "VectorEnv (8 games)", "OpenSpiel game", "sample_worlds",
                "search.solve"):
        assert row in p.stdout


def test_openspiel_module_and_bots_import_no_torch():
    """mariash_env stays torch-free with the OpenSpiel game and its IS-MCTS robot."""
    code = (
        "import sys, mariash_env.openspiel as o; from mariash_env.robots import make_robot; "
        "r = make_robot('os_ismcts(simulations=2)'); r.bot(r._game(o.make_rules(deals=1)), 0); "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr


def test_ismcts_searches_a_real_state_through_its_resampler():
    """OpenSpiel's ISMCTSBot on a real state (with history) resamples it through
    resample_from_infostate and answers a legal action."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("mariash")
    rng = np.random.RandomState(3)
    s = _random_states(game, 1, seed=5)[0]
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 4.0, 12,
                           random_state=rng)
    assert bot.step(s) in s.legal_actions()


def test_resample_after_a_laid_down_deal():
    """A deal that ended by a lay-down (RULES.md §8; the table robot always lays down)
    is resampled before the lay-down, which must then be legal in the world: the next
    deal's states resample for every seat with histories that replay legally."""
    game = pyspiel.load_game("mariash", {"deals": 2, "shuffle": "every_deal"})
    robot = TableRobot()
    rng = np.random.default_rng(8)
    found = 0
    for _ in range(40):
        s = game.new_initial_state()
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal() and (not s.finished or s.is_chance_node()):
            tick()
            if s.is_chance_node():
                s.apply_action(_random_action(s, rng))
                continue
            p = s.current_player()
            mask = np.zeros(115, np.int8)
            mask[s.legal_actions()] = 1
            s.apply_action(robot.act({"observation": np.asarray(s.observation_tensor(p),
                                                                 np.float32),
                                      "action_mask": mask}))
        if s.is_terminal() or s.finished[0][S.END] != S.END_NAMES.index("laid_down"):
            continue
        for p in range(3):
            _check_resampled(game, s, s.resample_from_infostate(p, rng.random), p, rng)
        found += 1
        if found == 2:
            break
    assert found == 2


def test_resample_benchmark_runs():
    """scripts/bench_resample.py (the resampling figures of docs/openspiel.md) runs."""
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run(
        [sys.executable, "scripts/bench_resample.py", "--deals", "2", "--states", "2",
         "--robot", "random"], cwd=root, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "resamples succeed" in p.stdout and " of 6 " in p.stdout


@pytest.mark.parametrize("params", [
    {"deals": 3}, {"deals": 2, "shuffle": "every_deal"}, {"players": 4, "deals": 3},
    {"rules": "licitovany", "deals": 2}, {}])
def test_turn_reward_environment_credits_every_player_its_payments(params):
    """OpenSpiel's agents read time_step.rewards[player_id] at their own turns and at the
    last step.  The plain rl_environment shows a deal's payment only until the next
    decision, so in a partie the other seats never see it; TurnRewardEnvironment credits
    every player at its next turn or at the end: both what agents see and the sum over all
    time steps are returns(), at three and four players and in licitovaný."""
    from open_spiel.python import rl_environment

    from mariash_env.openspiel import TurnRewardEnvironment

    game = pyspiel.load_game("mariash", params)
    n = game.num_players()
    plain_seen, seen, summed, returns = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    for env_class, out in ((TurnRewardEnvironment, seen), (rl_environment.Environment,
                                                           plain_seen)):
        # (a game object ignores rl_environment's seed=: the sampler takes it)
        env = env_class(game, chance_event_sampler=rl_environment.ChanceEventSampler(3))
        rng = np.random.default_rng(3)
        for _ in range(6):
            ts = env.reset()
            tick = step_cap(game, deals=None, chance=True)
            while not ts.last():
                tick()
                p = ts.observations["current_player"]
                if ts.rewards is not None:
                    out[p] += ts.rewards[p]
                    if env_class is TurnRewardEnvironment:
                        summed += ts.rewards
                        assert all(r == 0 for q, r in enumerate(ts.rewards) if q != p)
                ts = env.step([int(rng.choice(ts.observations["legal_actions"][p]))])
            out += ts.rewards
            if env_class is TurnRewardEnvironment:
                summed += ts.rewards
                returns += env.get_state.returns()
    assert np.array_equal(seen, returns) and np.array_equal(summed, returns)
    if params.get("deals", 1) > 1:  # the plain environment loses the other seats' pay
        assert not np.array_equal(plain_seen, returns)
    else:
        assert np.array_equal(plain_seen, returns)


def test_os_robots_decide_without_compiling_after_construction():
    """Issue #35 audit: os_ismcts's first decision compiled the world sampler and the
    engine's calls (42 s on an empty numba cache); it is warmed up when it is built, so in a
    fresh process no decision of a deal of either game gives a kernel a signature (compiled
    or loaded from the disk cache), and the warm-up leaves the robot's draws alone."""
    assert decision_compiles("os_ismcts(simulations=3, seed=1)", "table",
                             ("voleny", "licitovany"), deals=2) == {}
    a, b = make_robot("os_ismcts(simulations=3, seed=4)"), OpenSpielRobot(simulations=3, seed=4)
    assert a.rng.randint(0, 2**31 - 1) == b.rng.randint(0, 2**31 - 1)
