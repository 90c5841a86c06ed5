"""The engine's loops that play a game forward stop at the rules' bound on a deal.

Random play (``random_position``, ``random_licit_position``), the robots' play-outs, the
batched play of ``play_games``, lízaný's arena and the tables' warm-up deals each take at
most a deal's player decisions (``core.engine.deal_decisions``: each game's
``phases.deal_decisions``, RULES.md §3-§8, LICITOVANY.md §4-§7; lízaný a card each).  An
action dispatch that does not move the game on (the mutation audit's ``apply_*`` mutants)
then raises :class:`StuckGameError` naming the loop and the bound at once, where it
looped for ever (``random_position`` hung the audit's ``test_tricks.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env.core.engine as engine
from mariash_env.games.base import StuckGameError, step_bound
from mariash_env.rules import make_rules
from tests.helpers import deal_decisions as rules_decisions

_STUCK = r"took more than {n} steps, the most the rules let it take: the game does not move on"


def _nothing(*_a):
    """An action dispatch that changes nothing (and never ends the deal)."""
    return 0


@pytest.mark.parametrize("opts", [
    {}, {"max_flek": None}, {"max_flek": 0}, {"open_contracts": True}, {"players": 4},
    {"rules": "licitovany"}, {"rules": "licitovany", "max_flek": None},
    {"rules": "licitovany", "max_flek": 1}])
def test_deal_decisions_is_the_rules_bound(opts):
    """The compiled bound is OpenSpiel's per deal and within the one tests/helpers writes
    from the rules apart from the code (RULES.md §3-§8, §11.1, §11.3, §12; LICITOVANY.md
    §4-§7; its licitovaný play counts 31 where the game has no lay-down, 30)."""
    from mariash_env.openspiel.params import _deal_bounds

    rules = make_rules(**opts)
    n = int(engine.deal_decisions(rules.vector()))
    assert n == _deal_bounds(rules).decisions
    assert rules_decisions(rules) - 1 <= n <= rules_decisions(rules)


def test_step_bound_raises_past_its_limit_only():
    tick = step_bound("a test loop", 3)
    for _ in range(3):
        tick()
    with pytest.raises(StuckGameError, match="^a test loop " + _STUCK.format(n=3)):
        tick()
    assert issubclass(StuckGameError, RuntimeError)


def test_random_position_stops_when_the_dispatch_does_nothing(monkeypatch):
    from mariash_env.games.voleny import worlds

    n = int(engine.deal_decisions(make_rules().vector()))
    monkeypatch.setattr(worlds, "apply_action", _nothing)
    with pytest.raises(StuckGameError, match="random_position's random play of a deal "
                                             + _STUCK.format(n=n)):
        worlds.random_position(1)


def test_random_licit_position_stops_when_the_dispatch_does_nothing(monkeypatch):
    from mariash_env.games.licitovany.worlds import random_licit_position

    rules = make_rules(rules="licitovany")
    n = int(engine.deal_decisions(rules.vector()))
    monkeypatch.setattr(engine, "apply_action", _nothing)
    with pytest.raises(StuckGameError, match="random_licit_position's random play of a "
                                             "deal " + _STUCK.format(n=n)):
        random_licit_position(1, rules=rules)


@pytest.mark.parametrize("game", ["voleny", "licitovany"])
def test_a_rollout_stops_when_the_dispatch_does_nothing(monkeypatch, game):
    """The table robot's play-out of a world (PIMC's rollouts): the Python loop, its
    compiled play-out doing nothing too, and the compiled play-out's own loop (its
    Python text, the dispatch it calls replaced)."""
    from mariash_env.playout import decision_positions
    from mariash_env.robots import playouts, table_playout
    from mariash_env.robots.playouts import _Rollout

    bid, play, rules = decision_positions(game)
    roll = _Rollout(rules, None)
    n = int(engine.deal_decisions(rules.vector()))
    monkeypatch.setattr(playouts, "apply_action", _nothing)
    roll.play_out = _nothing
    with pytest.raises(StuckGameError, match="a rollout's play-out of a deal "
                                             + _STUCK.format(n=n)):
        roll.value(bid.copy(), 0)
    monkeypatch.setattr(table_playout, "apply_action", _nothing)
    name = "play_out_licit" if game == "licitovany" else "play_out_cards"
    kernel = getattr(table_playout, name)
    kernel = getattr(kernel, "py_func", kernel)  # plain Python under NUMBA_DISABLE_JIT
    w = (bid if game == "licitovany" else play).copy()
    with pytest.raises(StuckGameError, match=f"{name}'s? play-out took more than a deal's "
                                             "decisions"):
        kernel(w, roll.rv, roll.obs, roll.mask, roll.view, 99, roll.claim)


def test_play_games_stops_when_the_engine_does_not_move_on(monkeypatch):
    from mariash_env.playout import deal_states, play_games
    from mariash_env.robots.base import RandomRobot
    from mariash_env.vector import VectorEnv

    rules = make_rules()
    states = deal_states(np.array([1, 2]), np.array([0, 1]), rules)
    n = int(engine.deal_decisions(rules.vector()))
    monkeypatch.setattr(VectorEnv, "step", lambda self, actions: self.current())
    with pytest.raises(StuckGameError, match="play_games' deals " + _STUCK.format(n=n)):
        play_games([RandomRobot(seed=0)], states, np.zeros((2, 3), np.int64), rules)


def test_lizany_loops_stop_when_a_card_play_does_nothing(monkeypatch):
    """Lízaný's arena deal and the table's warm-up deal: 32 decisions, a card each."""
    from mariash_env.games.lizany import arena
    from mariash_env.games.lizany.game import LizanyGame
    from mariash_env.play import lizany_table

    class First:
        def act(self, obs):
            return int(np.flatnonzero(obs["action_mask"])[0])

    monkeypatch.setattr(LizanyGame, "play", lambda self, a: False)
    with pytest.raises(StuckGameError, match="lízaný's play_deal " + _STUCK.format(n=32)):
        arena.play_deal([First(), First()], (0, 1), 3)
    monkeypatch.setattr(lizany_table, "_WARM", [False])
    with pytest.raises(StuckGameError, match="the lízaný table's warm-up deal "
                                             + _STUCK.format(n=32)):
        lizany_table.warm_lizany()


def test_the_tables_warm_up_deal_stops_when_a_step_does_nothing(monkeypatch):
    from mariash_env.game import Game
    from mariash_env.play import session

    n = int(engine.deal_decisions(make_rules().vector()))
    monkeypatch.setattr(session, "_TABLE_WARM", set())
    monkeypatch.setattr(Game, "step", lambda self, label: False)
    with pytest.raises(StuckGameError, match="the voleny table's warm-up deal "
                                             + _STUCK.format(n=n)):
        session.warm_table("voleny", {})


@pytest.mark.parametrize("game", ["voleny", "licitovany", "lizany"])
def test_single_agent_robot_moves_stop_when_a_step_does_nothing(monkeypatch, game):
    """SingleAgentEnv's robots between two of the learner's moves: at most a deal's
    decisions (lízaný: 32), counted afresh each deal (at four players the learner sits a
    deal out)."""
    from mariash_env.game import Game
    from mariash_env.games.lizany.game import LizanyGame
    from mariash_env.single_agent import SingleAgentEnv

    env = SingleAgentEnv(seat=0, opponents="random", rules=game)  # seat 1 moves first
    if game == "lizany":
        n = 32
        env.seat = 1  # lízaný's seat 0 leads: the learner moves second
        env.robots = env.robots[::-1]
        monkeypatch.setattr(LizanyGame, "play", lambda self, a: False)
    else:
        n = int(engine.deal_decisions(env.rules.vector()))
        monkeypatch.setattr(Game, "step", lambda self, action: False)
    with pytest.raises(StuckGameError, match="SingleAgentEnv's robot moves in a deal "
                                             + _STUCK.format(n=n)):
        env.reset(seed=1)


def _stuck_table(monkeypatch, tmp_path, game: str):
    """A table of ``game`` whose robots move first, and a deal's decisions there
    (lízaný: 32), with a move that changes nothing (``Game.step``, ``LizanyGame.play``)."""
    from mariash_env.game import Game
    from mariash_env.games.lizany.game import LizanyGame
    from mariash_env.play.tables import open_table

    # the robots move first: seat 0 deals (forehand is seat 1), lízaný's seat 0 leads
    s = open_table("random,random", rules=game, save_dir=tmp_path, seed=2,
                   human_seat=1 if game == "lizany" else 0)
    assert s.waiting == "robot"
    if game == "lizany":
        monkeypatch.setattr(LizanyGame, "play", lambda self, a: False)
        return s, 32
    monkeypatch.setattr(Game, "step", lambda self, action: False)
    return s, int(engine.deal_decisions(s.game.rules.vector()))


@pytest.mark.parametrize("game", ["voleny", "licitovany", "lizany"])
def test_the_tables_run_robots_stops_when_a_move_does_nothing(monkeypatch, tmp_path, game):
    """TableSession.run_robots (the robots' moves until the human's turn): at most a
    deal's decisions."""
    s, n = _stuck_table(monkeypatch, tmp_path, game)
    with pytest.raises(StuckGameError, match=f"the {game} table's robot moves "
                                             + _STUCK.format(n=n)):
        s.run_robots()


@pytest.mark.parametrize("game", ["voleny", "licitovany", "lizany"])
def test_the_terminal_tables_robot_moves_stop_when_a_move_does_nothing(monkeypatch, tmp_path,
                                                                      game):
    """The terminal table (``mariash play --terminal``) asks the robots one move at a time
    (each printed as it happens), not by run_robots: at most a deal's decisions in a row
    too, where it asked for ever."""
    pytest.importorskip("rich")
    import io

    from rich.console import Console

    from mariash_env.play.terminal import TerminalTable

    s, n = _stuck_table(monkeypatch, tmp_path, game)

    def read(prompt):
        raise AssertionError(f"the human was asked ({prompt!r}): no robot move is made")

    table = TerminalTable(s, console=Console(file=io.StringIO()), read=read)
    with pytest.raises(StuckGameError, match=f"the {game} terminal table's robot moves "
                                             + _STUCK.format(n=n)):
        table.run()


def test_the_data_sets_own_engine_deals_stop_when_a_card_play_does_nothing(monkeypatch):
    """mariash dataset's deals of a game of its own engine (lízaný: its arena's
    ``deal_decisions``, 32)."""
    from mariash_env.games.lizany.game import LizanyGame
    from mariash_env.games.registry import game_kind
    from mariash_env.research import dataset
    from mariash_env.robots.base import RandomRobot

    kind = game_kind("lizany")
    assert kind.load("arena").deal_decisions == 32
    monkeypatch.setattr(LizanyGame, "play", lambda self, a: False)
    with pytest.raises(StuckGameError, match="the data set's lizany deal "
                                             + _STUCK.format(n=32)):
        dataset._play_own([RandomRobot(seed=0)], np.array([1]), np.zeros((1, 2), np.int64),
                          kind)
