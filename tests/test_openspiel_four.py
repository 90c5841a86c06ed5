"""The four-player table (``players=4``, RULES.md §11.3) and the OpenSpiel game (issue #18 x
#15).  The game ``"mariash"`` is three-player only: at four it is refused by name rather
than played as a three-player game; the OpenSpiel robots play a four-player arena match by
searching the deal's three-seat core game (§11.3: the deal at four is a three-seat deal)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import Game, RulesError, make_rules  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.openspiel import OpenSpielRobot, load_game, rules_from_params  # noqa: E402
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.robots.table import TableRobot  # noqa: E402
from mariash_env.robots.view import SeatView  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("load", [
    lambda: pyspiel.load_game("mariash", {"players": 4}),
    lambda: pyspiel.load_game("mariash", {"players": 4, "deals": 2}),
    lambda: load_game(make_rules(players=4)),
    lambda: rules_from_params({"players": 4}),
])
def test_four_players_refused_not_played_as_three(load):
    """§11.3: a game seating four must not be played with three players and 3-seat
    returns; until it is implemented it is refused naming players=4."""
    with pytest.raises(RulesError, match="players=4 is not supported by the OpenSpiel game"):
        load()


def test_three_players_still_load():
    assert pyspiel.load_game("mariash", {"players": 3}).num_players() == 3


def test_openspiel_robot_plays_a_four_player_partie():
    """Every decision of a four-player Game (both deals, each dealer sitting out, §11.3)
    made by OpenSpiel robots is legal for the player to move."""
    rng = np.random.default_rng(7)
    robots = [OpenSpielRobot("random", seed=1), OpenSpielRobot("ismcts", simulations=4, seed=2)]
    g = Game(players=4, deals=2)
    g.new_partie(seed=3)
    moves = 0
    while not g.partie_over:
        p = g.to_move
        assert p != g.sitting_out
        a = robots[int(rng.integers(2))].act_view(SeatView.from_game(g, p))
        assert a in g.legal_actions(p)
        g.step(a)
        moves += 1
        if g.deal_over and not g.partie_over:
            g.next_deal()
    assert moves > 0 and sum(g.scores) == 0


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
