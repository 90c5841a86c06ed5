"""Mariáš as an OpenSpiel game (issue #18): OpenSpiel's own random-simulation checks, the
same play and settlement as :class:`mariash_env.game.Game` (RULES.md §2 deals and cuts,
§9 settlement), information states and resampling, and the OpenSpiel robots in the arena."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import Game, RulesError, make_rules  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from mariash_env.openspiel import (  # noqa: E402
    OpenSpielRobot,
    game_params,
    load_game,
    max_game_length,
    state_from_record,
    utility_bound,
)
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.robots.table import TableRobot  # noqa: E402

VARIANTS = [
    ({}, 20),
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
        while not s.is_terminal() and len(s.history()) < stop:
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
    # home tariff, max_flek 4: A <= (2 * 144 + 2 * 4) * 2^4 + 4 = 4740, the actor 2A.
    assert game.max_utility() == 9480.0 == -game.min_utility()
    assert game.information_state_tensor_shape() == [900]
    capped = load_game(make_rules(payment_cap=500, max_flek=None, deals=3))
    assert capped.max_utility() == 2 * 500 * 3
    unlimited = load_game(make_rules(max_flek=None))
    assert unlimited.max_utility() == utility_bound(make_rules(max_flek=None)) > 1e10


@pytest.mark.parametrize("params,fragment", [
    ({"rules": "licitovany"}, "licitovany"),
    ({"tariff": "pub"}, "tariff"),
    ({"max_flek": -2}, "max_flek"),
    ({"deals": 0}, "deals"),
    ({"killed_seven": 4}, "killed_seven"),
    ({"payment_cap": -5}, "payment_cap -5: expected groše > 0, or 0 for none"),
    ({"foo": 1}, "Unknown parameter 'foo'"),
])
def test_bad_parameters_are_refused_by_name(params, fragment):
    with pytest.raises((RulesError, pyspiel.SpielError, ValueError), match=fragment):
        pyspiel.load_game("mariash", params)


def test_params_round_trip():
    for rules in (make_rules(), make_rules(max_flek=None, payment_cap=300, deals=5,
                                          shuffle="every_deal", tariff="csm")):
        assert load_game(rules).ctx.rules == rules
        assert pyspiel.load_game("mariash", game_params(rules)).ctx.rules == rules


@pytest.mark.parametrize("options", [{"open_contracts": True},
                                     {"hundred_counting": "order_free"}])
def test_variants_without_a_parameter_are_refused_not_dropped(options):
    with pytest.raises(RulesError, match=f"no parameter for.*{next(iter(options))}"):
        load_game(make_rules(**options))


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
        while not s.is_terminal():
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
    while s.is_chance_node():
        s.apply_action(_random_action(s, rng))
    g = Game(make_rules(deals=1))
    g.new_partie(deck=[int(a) for a in s.history()], dealer=0)
    while not s.is_terminal():
        p = s.current_player()
        assert s.legal_actions() == g.legal_actions()
        for seat in range(3):
            assert np.array_equal(np.asarray(s.information_state_tensor(seat)),
                                  g.observation(seat))
            assert np.array_equal(np.asarray(s.observation_tensor(seat)), g.observation(seat))
        a = _random_action(s, rng)
        s.apply_action(a)
        g.step(a)
        assert p == g.history[-1][0]
    assert s.returns() == [float(x) for x in g.scores]


def test_information_state_string_identifies_the_tensor():
    """Equal strings <=> equal tensors, over many states of several seats."""
    game = pyspiel.load_game("mariash")
    seen: dict[str, bytes] = {}
    tensors: dict[bytes, str] = {}
    for s in _random_states(game, 30, seed=11):
        for p in range(3):
            key = s.information_state_string(p)
            t = np.asarray(s.information_state_tensor(p), dtype=np.float32).tobytes()
            assert seen.setdefault(key, t) == t
            assert tensors.setdefault(t + bytes([p]), key) == key
            assert s.observation_string(p) == key
    assert len(seen) > 60


def test_dealing_information_state_shows_no_card():
    game = pyspiel.load_game("mariash")
    s = game.new_initial_state()
    for c in (5, 9, 30):
        s.apply_action(c)
    assert s.information_state_string(1) == "p1 dealing 3/32"
    assert not np.any(s.information_state_tensor(1))


def test_resample_from_infostate_keeps_the_infostate_and_redeals_hidden_cards():
    game = pyspiel.load_game("mariash")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = np.random.default_rng(2)
    differs = 0
    for s in _random_states(game, 12, seed=7):
        p = s.current_player()
        key = s.information_state_string(p)
        for _ in range(3):
            r = s.resample_from_infostate(p, sampler)
            assert r.information_state_string(p) == key
            assert r.legal_actions() == s.legal_actions()
            differs += str(r) != str(s)
            while not r.is_terminal():  # a resampled world plays on to a settled deal
                r.apply_action(_random_action(r, rng))
            assert sum(r.returns()) == 0
    assert differs > 20  # the hidden cards are redealt, not copied


def test_clone_is_independent_and_history_bounded():
    rng = np.random.default_rng(9)
    game = pyspiel.load_game("mariash", {"deals": 2})
    for _ in range(5):
        s = game.new_initial_state()
        decisions = 0
        while not s.is_terminal():
            if not s.is_chance_node():
                decisions += 1
                c = s.clone()
                before = str(s)
                c.apply_action(c.legal_actions()[-1])
                assert str(s) == before
            s.apply_action(_random_action(s, rng))
        assert decisions <= game.max_game_length() == max_game_length(make_rules(deals=2))


def test_state_from_record_refuses_a_bad_record():
    game = pyspiel.load_game("mariash")
    with pytest.raises(ValueError, match="state record"):
        state_from_record(game, np.zeros(5, dtype=np.int32))


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
    """examples/openspiel_policy_gradient.py trains for a second and plays in the arena."""
    pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[1]
    p = subprocess.run(
        [sys.executable, "-W", "ignore", "examples/openspiel_policy_gradient.py",
         "--seconds", "1", "--eval", "2", "--hidden", "16"],
        cwd=root, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "self-play deals in 1 s" in p.stdout
    assert "os_a2c" in p.stdout and "table" in p.stdout


def test_api_benchmark_runs():
    """scripts/bench_apis.py (the README's research-section figures) runs every row."""
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
