"""The four-player table (``players=4``, RULES.md §11.3) as the OpenSpiel game "mariash"
(issue #18 x #15): four players, the dealer of each deal sitting out (never to move), the
deal's payments as ``Game(players=4)`` pays them (actor +3A, each of the other three -A),
the four-player observation, resampling for every player incl. the one sitting out; and
the OpenSpiel robots in four-player arena matches (they search the four-player game)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import Game, RulesError, make_rules  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.core.observe4 import OBS4_SIZE  # noqa: E402
from mariash_env.openspiel import (  # noqa: E402
    OpenSpielRobot,
    game_params,
    info_state_size,
    load_game,
    rules_from_params,
    utility_bound,
)
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.robots.table import TableRobot  # noqa: E402
from mariash_env.robots.view import SeatView  # noqa: E402
from tests.helpers import step_cap  # noqa: E402
from tests.test_openspiel import _check_resampled, _random_action  # noqa: E402
from tests.test_openspiel_licit import _resample_checker  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FOUR = {"players": 4}


def _play(game, rng: np.random.Generator, stop: int | None = None):
    """A random state of ``game`` (chance uniform), ``stop`` moves in or at the end."""
    s = game.new_initial_state()
    tick = step_cap(game, deals=None, chance=True)
    while not s.is_terminal() and (stop is None or len(s.history()) < stop):
        tick()
        s.apply_action(_random_action(s, rng))
    return s


@pytest.mark.parametrize("params,sims", [
    ({**FOUR, "deals": 2}, 2),
    ({**FOUR, "deals": 2, "shuffle": "every_deal", "open_contracts": True}, 1),
])
def test_random_sim_test_at_four_with_resampling(params, sims):
    """pyspiel's C++ checks (chance, legal actions, rewards against returns, clone,
    serialisation round trip) on four-player games, resampling every player on the way."""
    game = pyspiel.load_game("mariash", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False,
                            state_checker_fn=_resample_checker(6, everyone=True))


def test_four_player_game_info():
    """§11.3: four players, 16 deals unless given, the four-player observation (924
    floats), the actor's 3A in the utility bound."""
    game = pyspiel.load_game("mariash", FOUR)
    assert game.num_players() == 4
    assert game.get_type().max_num_players == 4 and game.get_type().min_num_players == 3
    rules = game.ctx.rules
    assert rules.players == 4 and rules.deals == 16
    assert game.observation_tensor_shape() == [OBS4_SIZE] == [924]
    assert game.information_state_tensor_shape() == [16 * (924 + 64)] == [
        info_state_size(rules)]
    # home tariff, max_flek 4 (tests/test_openspiel_bounds.py): each player is forehand in
    # 4 deals (3 * 2,624 won, 3 * 2,112 lost) and a defender or sitting out in 12 (2,112
    # won, 2,624 lost)
    assert game.max_utility() == 4 * 3 * 2624 + 12 * 2112 == utility_bound(rules)
    assert -game.min_utility() == 4 * 3 * 2112 + 12 * 2624
    assert pyspiel.load_game("mariash", {**FOUR, "deals": 1}).ctx.rules.deals == 1
    assert pyspiel.load_game("mariash").ctx.rules.deals == 1  # three: a deal is a game
    assert pyspiel.load_game("mariash", {"players": 3}).num_players() == 3


@pytest.mark.parametrize("rules", [
    make_rules(players=4), make_rules(players=4, deals=3, shuffle="every_deal"),
    make_rules(players=4, deals=2, open_contracts=True, max_flek=None, payment_cap=300),
])
def test_four_player_game_string_round_trips(rules):
    game = load_game(rules)
    assert game.ctx.rules == rules and game.num_players() == 4
    assert pyspiel.load_game(str(game)).ctx.rules == rules
    assert rules_from_params(game_params(rules)) == rules
    rng = np.random.default_rng(3)
    s = _play(game, rng, stop=int(rng.integers(40, 90)))
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))
    assert g2.ctx.rules == rules and s2.history() == s.history() and str(s2) == str(s)


def test_licitovany_at_four_is_refused():
    with pytest.raises(RulesError, match="players=4 and rules='licitovany'"):
        pyspiel.load_game("mariash", {**FOUR, "rules": "licitovany"})


@pytest.mark.parametrize("shuffle", ["partie", "every_deal"])
def test_returns_are_game_four_payments_and_dealer_never_moves(shuffle):
    """§11.3 on the same deck, cuts and decisions as Game(players=4): the player to move,
    every player's observation (the sitting-out one's too), the legal actions, each deal's
    rewards (its settlement's payments) and the returns (the partie totals, zero-sum) are
    Game's; the dealer sitting out is never current."""
    game = pyspiel.load_game("mariash", {**FOUR, "deals": 3, "shuffle": shuffle})
    rng = np.random.default_rng(11)
    for _ in range(3):
        hist = _play(game, rng).history()
        chance = []  # per history entry: a chance outcome?
        s = game.new_initial_state()
        for a in hist:
            chance.append(s.is_chance_node())
            s.apply_action(a)
        cuts = [a for a, c in zip(hist[32:], chance[32:]) if c] if shuffle == "partie" else []
        s = game.new_initial_state()
        g = Game(game.ctx.rules)
        drawn: list[int] = []
        for i, (a, is_chance) in enumerate(zip(hist, chance)):
            if is_chance:
                s.apply_action(a)
                drawn.append(a)
                if i == 31:  # the first deck drawn
                    g.new_partie(deck=drawn, dealer=0, cuts=cuts)
                    drawn = []
                elif i > 31 and (shuffle == "partie" or len(drawn) == 32):
                    assert g.next_deal()  # gathered and cut as cuts[deal] / reshuffled
                    if shuffle == "every_deal":
                        g.deal_deck(drawn, g.dealer)
                    drawn = []
                continue
            p = s.current_player()
            assert p == g.to_move and p != g.sitting_out
            for q in range(4):
                assert np.array_equal(s.observation_tensor(q), g.observation(q))
            assert s.legal_actions() == g.legal_actions()
            s.apply_action(a)
            if g.step(a):
                pay = g.last_settlement["payments"]
                assert len(pay) == 4 and sum(pay) == 0
                assert s.rewards() == [float(x) for x in pay]
            assert s.returns() == [float(x) for x in g.scores]
        assert s.is_terminal() and g.partie_over
        assert s.returns() == [float(x) for x in g.scores] and sum(s.returns()) == 0


@pytest.mark.parametrize("params,states", [
    ({**FOUR, "deals": 1}, 8),
    ({**FOUR, "deals": 2}, 8),
    ({**FOUR, "deals": 3, "shuffle": "every_deal"}, 3),
])
def test_every_player_resamples_at_four(params, states):
    """Each of the four players, the one sitting out the deal included, resamples to a
    state of its information set (same information state and observation, a history that
    replays legally, serialisation and clone round-trip); the other players' hidden cards
    are redrawn.  With two deals the states are in the second deal of a gathered partie."""
    game = pyspiel.load_game("mariash", params)
    rng = np.random.default_rng(8)
    deals = game.ctx.rules.deals
    got = differs = 0
    while got < states:
        s = _play(game, rng, stop=int(rng.integers(33, 40 + 80 * deals)))
        if s.is_terminal() or s.is_chance_node() or (deals == 2 and len(s.recalled()) < 2):
            continue
        got += 1
        out = int(s.st[_p4_dealer()])
        assert s.current_player() != out
        for p in range(4):
            r = s.resample_from_infostate(p, rng.random)
            differs += str(r) != str(s)
            _check_resampled(game, s, r, p, rng)
    assert differs > states


def _p4_dealer() -> int:
    from mariash_env.core import state as S

    return S.P4_DEALER


def test_sitting_out_world_redraws_every_hand():
    """The dealer sitting out has seen no hand: its resampled worlds redraw all three
    (the Gibbs chain over the three seats' samplers), never keep one as dealt."""
    game = pyspiel.load_game("mariash", {**FOUR, "deals": 1})
    rng = np.random.default_rng(4)
    s = game.new_initial_state()
    tick = step_cap(game, chance=True)
    while s.is_chance_node():
        tick()
        s.apply_action(_random_action(s, rng))
    from mariash_env.core import state as S

    assert int(s.st[S.P4_DEALER]) == 0 and s.current_player() == 1
    kept = np.zeros(3, int)
    for _ in range(20):
        r = s.resample_from_infostate(0, rng.random)
        assert r.information_state_string(0) == s.information_state_string(0)
        for c in range(3):
            kept[c] += S.getm(r.st, S.HAND + c) == S.getm(s.st, S.HAND + c)
    assert kept.max() <= 1


def test_ismcts_plays_the_four_player_game_for_every_player():
    """OpenSpiel's ISMCTSBot on the four-player game itself (``num_players() == 4``), one
    bot per player, each simulation resampling the mover's information state: the
    deal's decisions until each of the three playing has decided, each legal, the dealer
    sitting out never asked (§11.3)."""
    from open_spiel.python.algorithms import ismcts, mcts

    from mariash_env.core import state as S

    game = pyspiel.load_game("mariash", {**FOUR, "deals": 1})
    rng = np.random.RandomState(3)
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 4.0, 6,
                             random_state=rng) for _ in range(4)]
    s = game.new_initial_state()
    movers = []
    tick = step_cap(game, chance=True)
    while s.is_chance_node():
        tick()
        s.apply_action(_random_action(s, np.random.default_rng(len(s.history()))))
    while len(set(movers)) < 3 and len(movers) < 40 and not s.is_terminal():
        p = s.current_player()
        assert p != int(s.st[S.P4_DEALER])
        a = bots[p].step(s)
        assert a in s.legal_actions()
        s.apply_action(a)
        movers.append(p)
    assert len(set(movers)) == 3 and int(s.st[S.P4_DEALER]) not in movers


def test_openspiel_robot_plays_a_four_player_partie():
    """Every decision of a four-player Game (both deals, each dealer sitting out, §11.3)
    made by OpenSpiel robots is legal for the player to move."""
    rng = np.random.default_rng(7)
    robots = [OpenSpielRobot("random", seed=1), OpenSpielRobot("ismcts", simulations=4, seed=2)]
    g = Game(players=4, deals=2)
    g.new_partie(seed=3)
    moves = 0
    tick = step_cap(g, deals=None)
    while not g.partie_over:
        tick()
        p = g.to_move
        assert p != g.sitting_out
        a = robots[int(rng.integers(2))].act_view(SeatView.from_game(g, p))
        assert a in g.legal_actions(p)
        g.step(a)
        moves += 1
        if g.deal_over and not g.partie_over:
            g.next_deal()
    assert moves > 0 and sum(g.scores) == 0


def test_ismcts_robot_searches_the_four_player_game():
    """At four (RULES.md §11.3) ``os_ismcts`` searches the four-player OpenSpiel game
    itself, its bot the player holding the robot's seat (not a three-seat copy of the
    deal): every bot it makes is over a game of ``num_players() == 4`` for the player to
    move, and its moves are legal for that player, the dealer never asked."""
    robot = make_robot("os_ismcts(simulations=3, seed=4)")
    made = []
    bot_of = robot.bot

    def bot(game, player):
        made.append((game.num_players(), player))
        return bot_of(game, player)

    robot.bot = bot
    g = Game(players=4, deals=1)
    g.new_partie(seed=3, dealer=1)
    asked = []
    tick = step_cap(g)
    while not g.deal_over:
        tick()
        p = g.to_move
        view = SeatView.from_game(g, p)
        n = len(made)
        a = robot.act_view(view)
        assert a in g.legal_actions(p)
        if len(made) > n:  # a decision with a choice: one bot, for this player
            assert made[-1] == (4, p)
            asked.append(p)
        g.step(a)
    assert len(asked) > 10 and g.sitting_out not in asked and len(set(asked)) == 3
    assert robot._game(g.rules).num_players() == 4


@pytest.mark.parametrize("spec", ["os_random", "os_ismcts(simulations=4, seed=1)"])
def test_openspiel_robots_play_a_four_player_match(spec):
    res = duplicate_match({spec: lambda: make_robot(spec), "table": TableRobot}, deals=1,
                          seed=5, progress=False, rules={"players": 4})
    assert res.per_deal.shape[0] == 1 and np.all(np.isfinite(res.per_deal))


def test_arena_command_at_four(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "mariash_env.arena", "--rule", "players=4", "--robots",
         "os_ismcts(simulations=4),table", "--deals", "1", "--out", str(tmp_path),
         "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert "os_ismcts(simulations=4)" in p.stdout


def test_resample_benchmark_at_four():
    """scripts/bench_resample.py --players 4 resamples every player (4 per state); a
    four-player licitovaný game is refused with one error line and status 2."""
    p = subprocess.run(
        [sys.executable, "scripts/bench_resample.py", "--players", "4", "--deals", "2",
         "--states", "2", "--robot", "random"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "players=4" in p.stdout and "8 of 8 resamples succeed" in p.stdout
    p = subprocess.run(
        [sys.executable, "scripts/bench_resample.py", "--players", "4", "--rules",
         "licitovany"], cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 2 and p.stderr.startswith("error: ") and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1
