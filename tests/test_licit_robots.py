"""Robots and the arena under licitovaný rules (LICITOVANY.md): make_robot picks the
game's robot, the duplicate match plays the game and counts desetníky, and a robot that
cannot play the game is refused by name."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from mariash_env import arena
from mariash_env.arena import duplicate_match
from mariash_env.robots import RandomRobot, TableRobot, make_robot
from mariash_env.robots.licit_table import LicitTableRobot
from mariash_env.rules import make_rules
from mariash_env.vector import VectorEnv

ROOT = Path(__file__).resolve().parents[1]
LICIT = {"rules": "licitovany"}


@pytest.mark.parametrize("rules", ["licitovany", LICIT, make_rules(rules="licitovany")],
                         ids=["name", "dict", "Rules"])
def test_make_robot_picks_the_licit_table_robot(rules):
    assert isinstance(make_robot("table", rules=rules), LicitTableRobot)
    assert isinstance(make_robot("random", rules=rules, seed=3), RandomRobot)
    # volený stays the default
    robot = make_robot("table")
    assert isinstance(robot, TableRobot) and not isinstance(robot, LicitTableRobot)
    assert not isinstance(make_robot("table", rules={}), LicitTableRobot)


def test_unknown_game_rules_are_refused():
    with pytest.raises(ValueError, match="unknown game rules 'ferbl'"):
        make_robot("table", rules="ferbl")


def test_pimc_plays_licitovany_in_the_arena(tmp_path):
    """PIMC serves licitovaný (its worlds and solver): a short duplicate arena match."""
    res = arena.main(["--rules", "licitovany", "--robots", "pimc(worlds=4),table",
                      "--deals", "2", "--seed", "5", "--out", str(tmp_path), "--quiet",
                      "--no-plot"])
    assert res == 0
    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert rows


def test_licit_table_robot_plays_legal_actions_in_a_vector_env():
    robot = make_robot("table", rules="licitovany")
    env = VectorEnv(32, seed=4, rules="licitovany")
    step = env.reset()
    assert step.mask.shape == (32, 136) and step.obs.shape == (32, 1016)
    for _ in range(120):
        a = robot.act_batch(step.obs, step.mask)
        assert step.mask[np.arange(32), a].all()
        step = env.step(a)


def test_licit_match_is_zero_sum_and_counts_desetniky(tmp_path):
    """LICITOVANY.md §9: every deal settles zero-sum, so with two robots the duplicate
    scores of a deal are opposite; the table robot beats random clearly."""
    res = duplicate_match({"table": "table", "random": lambda: RandomRobot(seed=0)},
                          deals=6, seed=2, rules=LICIT, progress=False, n_boot=200, batch=6)
    assert res.rules == "licitovany" and res.unit == "desetníky"
    np.testing.assert_allclose(res.per_deal.sum(axis=1), 0, atol=1e-9)
    for deal in res.outcomes:
        assert len(deal) == 6
        for o in deal:
            assert sum(o["payments"]) == 0
    assert res.means()[0] > 0
    # a spec string is built for the match's game
    table = arena.build_robot("table", make_rules(rules="licitovany", deals=1))
    assert isinstance(table, LicitTableRobot)
    res.save(tmp_path, plot=False)
    rows = list(csv.DictReader((tmp_path / "summary.csv").open(encoding="utf-8")))
    assert "desetníky_per_deal" in rows[0] and "groše_per_deal" not in rows[0]
    assert float(rows[0]["desetníky_per_deal"]) == pytest.approx(res.means()[0])
    assert "desetníky/deal" in res.table() and "fold" in res.table()


def test_licit_match_depends_on_the_game():
    """The same seed under the two games gives different matches (the rules reach the
    engine and the robots)."""
    robots = {"table": "table", "random": lambda: RandomRobot(seed=1)}
    a = duplicate_match(robots, deals=3, seed=5, rules=LICIT, progress=False, n_boot=50,
                        batch=3)
    b = duplicate_match(robots, deals=3, seed=5, progress=False, n_boot=50, batch=3)
    assert a.rules == "licitovany" and b.rules == "voleny"
    assert not np.array_equal(a.per_deal, b.per_deal)


def test_arena_cli_licitovany(tmp_path, capsys):
    assert arena.main(["--rules", "licitovany", "--robots", "table,random", "--deals", "3",
                       "--batch", "3", "--out", str(tmp_path), "--quiet", "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "desetníky/deal" in out and "3 deals x 6 seatings" in out
    rows = list(csv.DictReader((tmp_path / "deals.csv").open(encoding="utf-8")))
    assert len(rows) == 3
    for r in rows:
        assert float(r["table"]) + float(r["random"]) == pytest.approx(0, abs=1e-3)


@pytest.mark.parametrize("argv, match", [
    (["--rules", "ferbl"], "ferbl"),
    (["--rules", "licitovany", "--robots", "os_ismcts(simulations=0),table"], "simulations"),
    (["--rules", "licitovany", "--rule", "tariff=csm"], "tariff"),
    (["--rule", "nonsense"], "KEY=VALUE"),
])
def test_arena_cli_refuses_bad_rules(tmp_path, capsys, argv, match):
    with pytest.raises(SystemExit) as e:
        arena.main([*argv, "--deals", "1", "--out", str(tmp_path), "--quiet", "--no-plot"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and match in err and "Traceback" not in err


def test_arena_rule_options_reach_the_game():
    assert arena.parse_rule_options("licitovany", ["deals=3", "max_flek=2"]) == {
        "rules": "licitovany", "deals": 3, "max_flek": 2}


def test_volený_model_refused_for_licitovany():
    from mariash_env.robots import OnnxRobotError

    model = ROOT / "models" / "robot.onnx"
    with pytest.raises(OnnxRobotError, match="robot of voleny mariáš but the game here is "
                                             "licitovany"):
        make_robot(f"onnx:{model}", rules="licitovany")
    assert make_robot(f"onnx:{model}").game.name == "voleny"
