"""Issue #30 (the game-unit restructuring): one package per game under
``mariash_env/games/`` behind one registry; the old module paths keep working."""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

import numpy as np
import pytest

from mariash_env.games import base
from mariash_env.games.base import GameError, GameKind
from mariash_env.games.registry import game_kind, games, register_game

PKG = Path(__file__).resolve().parents[1] / "mariash_env"


@functools.cache
def _graph() -> dict[str, set[str]]:
    from test_import_cycles import import_graph

    return import_graph()

# old dotted path -> the module it now is (issue #30 step 2)
MOVED = {
    "licit_actions": "games.licitovany.actions",
    "licit_record": "games.licitovany.record",
    "core.licit": "games.licitovany.phases",
    "core.licit_games": "games.licitovany.games",
    "core.licit_observe": "games.licitovany.observe",
    "core.licit_settle": "games.licitovany.settle",
    "search.licit_worlds": "games.licitovany.worlds",
    "robots.licit_table": "games.licitovany.table_robot",
    "play.licit": "games.licitovany.play",
    "lizany": "games.lizany.game",
    "lizany_arena": "games.lizany.arena",
    "robots.lizany_table": "games.lizany.table_robot",
    "actions": "games.voleny.actions",
    "core.observe": "games.voleny.observe",
    "core.settle": "games.voleny.settle",
    "search.worlds": "games.voleny.worlds",
    "robots.table": "games.voleny.table_robot",
    "core.four": "games.voleny.four",
    "core.observe4": "games.voleny.observe4",
}


def test_registry_lists_every_game_once():
    """Issue #30 item 1: the registry holds volený, licitovaný and lízaný; kinds' names
    are aliases over it (KINDS and kind_of: the games of the compiled engine)."""
    from mariash_env import kinds

    assert [k.name for k in games()] == ["voleny", "licitovany", "lizany"]
    assert list(kinds.KINDS) == [k.name for k in games("game")] == ["voleny", "licitovany"]
    assert kinds.kind_of("licitovany") is game_kind("licitovany") is kinds.LICITOVANY
    assert kinds.GameKind is GameKind
    assert game_kind(None) is game_kind({"rules": "voleny"}) is kinds.VOLENY
    from mariash_env.rules import make_rules

    assert game_kind(make_rules(rules="licitovany")).name == "licitovany"


def test_unknown_or_unsupported_game_is_refused_by_the_registry():
    """Issue #30 item 1: an unknown game and a front end a game lacks raise GameError (a
    ValueError and a KeyError, as kind_of's KeyError was) naming what is accepted."""
    from mariash_env.kinds import kind_of

    with pytest.raises(GameError, match="expected one of voleny, licitovany, lizany"):
        game_kind("bridge")
    with pytest.raises(KeyError):
        kind_of("lizany")  # no compiled core: not a game of the engine
    with pytest.raises(ValueError, match="it is played by: aec, parallel, vector, records, "
                                         "single_agent, arena"):
        game_kind("lizany", front_end="seat_record")
    assert game_kind("lizany", front_end="arena").name == "lizany"
    with pytest.raises(GameError, match="unknown front end"):
        game_kind("voleny").supports("telnet")
    assert str(GameError("plain")) == "plain"  # not KeyError's repr


def test_register_game_refuses_a_taken_name():
    """Issue #30 item 1: a name registers once (the registry stays the one list)."""
    with pytest.raises(GameError, match="already registered"):
        register_game(game_kind("voleny"))
    with pytest.raises(GameError, match="takes a GameKind"):
        register_game("voleny")  # type: ignore[arg-type]
    with pytest.raises(GameError, match="unknown front ends"):
        GameKind("x", None, 1, ("a",), int, str, 1, 1, 1, (), None, None, "u", (),
                 front_ends=frozenset({"telnet"}))


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_are_the_moved_modules(old):
    """Issue #30 item 2: every old import path is the moved module itself (private names
    and monkeypatching included), and nothing in mariash_env imports the old path."""
    new = importlib.import_module(f"mariash_env.{MOVED[old]}")
    assert importlib.import_module(f"mariash_env.{old}") is new
    assert (PKG / MOVED[old].replace(".", "/")).with_suffix(".py").exists()
    users = [m for m, deps in _graph().items()
             if f"mariash_env.{old}" in deps and m.startswith("mariash_env")]
    assert not users, users


def test_old_paths_keep_private_names():
    """Issue #30 item 2: tests and scripts reach private names through the old paths."""
    from mariash_env.core import licit, observe

    assert callable(licit._legal_bid.py_func) and callable(observe._layout)
    from mariash_env import lizany

    assert lizany.N_ACTIONS == 32 and lizany.OBS_SIZE == 221 and lizany.STATE_SIZE == 285


def test_constant_modules_of_the_cache_digest_are_the_real_ones():
    """Issue #30 item 2: the numba cache digest hashes the moved action tables (an old
    path is now an alias whose text never changes with the constants)."""
    from mariash_env.core import jit

    for rel in jit._CONSTANT_MODULES:
        text = (PKG / rel).read_text(encoding="utf-8")
        assert "sys.modules[__name__]" not in text, rel


def test_four_players_read_their_layout_from_the_kind():
    """Issue #30 item 3: Game and VectorEnv take the observation of their seat count
    from the GameKind (volený at four: OBS4), not from a four-player branch."""
    from mariash_env.game import Game
    from mariash_env.games.voleny import observe4 as Q
    from mariash_env.vector import VectorEnv

    kind = game_kind("voleny")
    assert kind.players == (3, 4)
    assert kind.layout(4).obs_size == Q.OBS4_SIZE and kind.layout(3).obs_size == kind.obs_size
    with pytest.raises(GameError, match="not played with 2 players"):
        kind.layout(2)
    g = Game(players=4, deals=1)
    obs, mask = g.observe(g.to_move)
    assert obs.shape == (Q.OBS4_SIZE,) and g.full_state().shape == (Q.STATE4_OBS_SIZE,)
    assert np.array_equal(obs, g.observation(g.to_move))
    four = VectorEnv.bytes_per_game(True, "voleny", 4)
    three = VectorEnv.bytes_per_game(True, "voleny", 3)
    assert four - three == 8 + 4 * (Q.OBS4_SIZE - kind.obs_size)


def test_front_ends_ask_the_registry():
    """Issue #30 item 3: the robot factory, the arena's unit and the play table's games
    come from the registry (lízaný's table robot by the name its kind gives)."""
    from mariash_env.arena import MatchResult
    from mariash_env.games.lizany.table_robot import LizanyRuleRobot
    from mariash_env.play.session import RULES, TABLE_GAMES
    from mariash_env.robots import game_name, make_robot

    assert isinstance(make_robot("table", rules="lizany"), LizanyRuleRobot)
    assert type(make_robot("table", rules="licitovany")) is game_kind("licitovany").load(
        "table_robot")
    from mariash_env.games.lizany.pimc import LizanyPIMCRobot
    assert isinstance(make_robot("pimc", rules="lizany"), LizanyPIMCRobot)  # its own
    with pytest.raises(ValueError, match="robot 'pimc' of lízaný mariáš takes the arguments"):
        make_robot("pimc(use_solver=False)", rules="lizany")
    with pytest.raises(ValueError, match="unknown game rules 'x'"):
        game_name("x")
    # the table plays every game of the "play" front end; PlaySession those without a
    # session of their own (lízaný's is LizanySession)
    assert TABLE_GAMES == tuple(k.name for k in games("play")) == (
        "voleny", "licitovany", "lizany")
    assert RULES == ("voleny", "licitovany") and game_kind("lizany").table_session
    units = {k.name: k.units for k in games()}
    assert units == {"voleny": "groše", "licitovany": "desetníky", "lizany": "reward"}
    for k in games("arena"):
        res = MatchResult(["a"], [(0,)], np.zeros((1, 1)), np.zeros(1), [], rules=k.name)
        assert res.unit == k.units
    assert game_kind("voleny").front_ends == frozenset(base.FRONT_ENDS)


def test_one_card_set_helper():
    """Issue #30 item 4: the card-set-to-list helper exists once (cards.cards_of); the
    robots' ``features.cards`` is it, OpenSpiel and licitovaný's sampler call it."""
    from mariash_env import cards, openspiel
    from mariash_env.games.licitovany import worlds
    from mariash_env.robots import features

    assert features.cards is cards.cards_of
    assert not hasattr(openspiel, "_bits") and not hasattr(worlds, "_bits")
    assert cards.cards_of(np.int64(0b1010_0001)) == [0, 5, 7]
    # an int32 slot holding card 31 reads as its 32 bits; a wider set keeps its high
    # bits (the table robot shifts card sets: tests/test_robot_moves.py)
    assert cards.cards_of(np.int32(-2**31 + 1)) == [0, 31]
    assert cards.cards_of((1 << 40) | (1 << 31) | 1) == [0, 31, 40]
    assert cards.cards_of(0) == []
    rng = np.random.default_rng(0)
    for m in rng.integers(0, 2**32, 50):
        assert cards.cards_of(int(m)) == [i for i in range(32) if int(m) >> i & 1]


def test_single_agent_env_refuses_a_game_it_does_not_play(monkeypatch):
    """Issue #30 item 3: SingleAgentEnv asks the registry: it plays every game that lists
    it (tests/test_single_agent_games.py), and refuses by name one that does not."""
    import dataclasses

    from mariash_env.games import registry
    from mariash_env.single_agent import SingleAgentEnv

    licit = game_kind("licitovany")
    assert licit.supports("single_agent")
    assert SingleAgentEnv(rules="licitovany").game.kind is licit
    without = dataclasses.replace(licit, front_ends=licit.front_ends - {"single_agent"})
    monkeypatch.setitem(registry._GAMES, "licitovany", without)
    with pytest.raises(GameError, match="single_agent front end does not play licitovaný"):
        SingleAgentEnv(rules="licitovany")
    assert SingleAgentEnv().game.kind is game_kind("voleny")


def test_table_series_and_warmup_read_the_kind(monkeypatch, tmp_path):
    """Issue #30: the play table shows what the kind's ``table_view`` says, the series
    reads rewards by player where ``results_by_player`` says so, and ``warmup``'s network
    part follows ``world_inference``; none of them tests the game's name."""
    import dataclasses
    import json

    from mariash_env import compile as C
    from mariash_env.games import registry
    from mariash_env.games.licitovany import play as licit_play
    from mariash_env.play.series import party_stats
    from mariash_env.play.session import PlaySession

    for k in games("play"):
        assert k.table_session or isinstance(k.load("table_view"), base.TableView)
    licit = game_kind("licitovany")
    view = dataclasses.replace(licit.load("table_view"), roles=("r0", "r1", "r2"))
    monkeypatch.setattr(licit_play, "TEST_VIEW", view, raising=False)
    monkeypatch.setitem(registry._GAMES, "licitovany", dataclasses.replace(
        licit, table_view=f"{licit_play.__name__}:TEST_VIEW", world_inference=True))
    st = PlaySession("table,table", rules="licitovany", save_dir=tmp_path, seed=1).state()
    assert sorted(s["role"] for s in st["seats"]) == ["r0", "r1", "r2"]

    calls: list[tuple[str, bool]] = []
    monkeypatch.setattr(C, "_warm_game", lambda g, net: calls.append((g, net)))
    monkeypatch.setattr(C, "_DONE", set())
    C.warmup(["licitovany"], network=True, quiet=True)
    monkeypatch.setitem(registry._GAMES, "licitovany", licit)
    C.warmup(["licitovany", "voleny"], network=True, quiet=True)
    assert calls == [("licitovany", True), ("voleny", True)]

    # a lízaný partie of two deals: the human (seat 1) is player_1, then player_0
    (tmp_path / "z.json").write_text(json.dumps({"human_seat": 1, "rules": "lizany"}))
    (tmp_path / "z.jsonl").write_text("".join(
        json.dumps({"result": {"rewards": r}}) + "\n" for r in ([2, -2], [-1, 1])))
    assert party_stats(tmp_path)["games"]["lizany"]["total"] == -3
    lizany = game_kind("lizany")
    monkeypatch.setitem(registry._GAMES, "lizany",
                        dataclasses.replace(lizany, results_by_player=False))
    assert party_stats(tmp_path)["skipped"][-1]["file"] == "z.jsonl"  # read as settlements
