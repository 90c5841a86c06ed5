"""Lízaný as the OpenSpiel game "mariash" (``{"rules": "lizany"}``, issue #30): two
players, the same deal as :class:`LizanyGame` from the drawn deck (observation = lízaný's
own, returns its ±1/±2), pyspiel's random-simulation checks with resampling, the
information state, resampling that redraws only what the seat has not seen (the
opponent's cards and the stock order), and IS-MCTS playing a deal through it."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import RulesError  # noqa: E402
from mariash_env.games.base import GameError  # noqa: E402
from mariash_env.games.lizany.actions import OBS_SIZE  # noqa: E402
from mariash_env.games.lizany.game import LizanyGame  # noqa: E402
from mariash_env.openspiel import MariashLizanyGame  # noqa: E402
from mariash_env.openspiel.lizany import INFO_SIZE  # noqa: E402
from tests.helpers import step_cap  # noqa: E402
from tests.test_openspiel import _random_action, _same_view  # noqa: E402
from tests.test_openspiel_licit import _resample_checker  # noqa: E402

LIZANY = {"rules": "lizany"}


def _game():
    return pyspiel.load_game("mariash", LIZANY)


def _play(game, rng: np.random.Generator, stop: int | None = None):
    """A random state (chance uniform), ``stop`` actions in or at the end."""
    s = game.new_initial_state()
    tick = step_cap("lizany", chance=True)
    while not s.is_terminal() and (stop is None or len(s.history()) < stop):
        tick()
        s.apply_action(_random_action(s, rng))
    return s


def test_random_sim_test_with_resampling():
    """pyspiel's C++ checks (chance outcomes, legal actions, returns, clone, serialisation
    round trip, observation and information-state calls), resampling both players on
    the way."""
    pyspiel.random_sim_test(_game(), num_sims=6, serialize=True, verbose=False,
                            state_checker_fn=_resample_checker(5, everyone=True))


def test_game_type_info_and_parameters():
    game = _game()
    assert isinstance(game, MariashLizanyGame) and game.num_players() == 2
    t = game.get_type()
    assert t.short_name == "mariash" and t.min_num_players == t.max_num_players == 2
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.provides_information_state_tensor and t.provides_observation_tensor
    assert game.num_distinct_actions() == 32 and game.max_chance_outcomes() == 32
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-2.0, 2.0, 0.0)
    assert game.max_game_length() == 32
    assert game.observation_tensor_shape() == [OBS_SIZE] == [221]
    assert game.information_state_tensor_shape() == [INFO_SIZE] == [221 + 3 * 32]
    assert str(game) == "mariash(deals=1,players=2,rules=lizany)"
    assert isinstance(pyspiel.load_game(str(game)), MariashLizanyGame)
    assert pyspiel.load_game("mariash", {**LIZANY, "players": 2, "deals": 1}).num_players() == 2
    # the registered type covers every game it loads: two to four players
    assert pyspiel.load_game("mariash").get_type().min_num_players == 3


@pytest.mark.parametrize("params,fragment", [
    ({"players": 4}, "invalid players=4 for rules='lizany'"),
    ({"players": 3}, "invalid players=3 for rules='lizany'"),  # was taken as "not given"
    ({"deals": 3}, "invalid deals=3"),
    ({"tariff": "csm"}, "invalid tariff='csm'"),
    ({"shuffle": "every_deal"}, "shuffle"),
])
def test_options_lizany_does_not_take_are_refused_by_name(params, fragment):
    with pytest.raises(RulesError, match=fragment):
        pyspiel.load_game("mariash", {**LIZANY, **params})


def test_a_game_the_registry_keeps_from_openspiel_is_refused(monkeypatch):
    """The adapter asks the registry: a game whose kind lists no "openspiel" front end is
    refused by name (GameError naming the front ends that play it)."""
    from dataclasses import replace

    from mariash_env.games import registry

    kind = registry.game_kind("lizany")
    monkeypatch.setitem(registry._GAMES, "lizany",
                        replace(kind, front_ends=kind.front_ends - {"openspiel"}))
    with pytest.raises(GameError, match="openspiel front end does not play"):
        pyspiel.load_game("mariash", LIZANY)


def test_same_deal_as_lizany_game():
    """Deck, turns, legal actions, both observations (zeros while dealing) and the
    returns (±1, ±2 at the end, zero-sum) are LizanyGame's on the drawn deck."""
    game = _game()
    rng = np.random.default_rng(5)
    results = set()
    for _ in range(12):
        s = game.new_initial_state()
        tick = step_cap("lizany", chance=True)
        while s.is_chance_node():
            tick()
            assert not any(s.observation_tensor(0)) and not any(s.information_state_tensor(1))
            s.apply_action(_random_action(s, rng))
        g = LizanyGame(deck=s.history())
        tick = step_cap("lizany", chance=True)
        while not s.is_terminal():
            tick()
            assert s.current_player() == g.to_move and s.returns() == [0.0, 0.0]
            assert s.legal_actions() == np.flatnonzero(g.legal_mask()).tolist()
            for p in range(2):
                assert np.array_equal(s.observation_tensor(p), g.observe(p))
            a = _random_action(s, rng)
            s.apply_action(a)
            g.play(a)
        assert g.over and s.returns() == [float(r) for r in g.rewards] == s.rewards()
        assert sum(s.returns()) == 0 and abs(s.returns()[0]) in (1.0, 2.0)
        results.add(s.returns()[0])
    assert len(results) >= 2


def test_information_state_is_the_seats_history():
    """Equal information-state strings mean equal tensors; the string names the seat's
    first hand, the trump card, every card played (a marriage marked ``!``) and only its
    own draws; the other seat's draws never appear."""
    game = _game()
    rng = np.random.default_rng(2)
    by_string: dict[str, list[float]] = {}
    marked = 0
    for _ in range(20):
        s = _play(game, rng, stop=int(rng.integers(33, 64)))
        if s.is_chance_node():
            continue
        deck = s.history()[:32]
        for p in range(2):
            info = s.information_state_string(p)
            t = s.information_state_tensor(p)
            assert by_string.setdefault(info, t) == t
            assert info.startswith(f"p{p} hand:") and " trump:" in info
            first = info.split(" ")[1][len("hand:"):].split(",")
            assert sorted(first) == sorted(
                game.new_initial_state().action_to_string(-1, c)[len("deal:"):]
                for c in deck[8 * p:8 * p + 8])
            draws = [w[1:] for w in info.split(" ") if w.startswith("+")]
            hidden = {game.new_initial_state().action_to_string(-1, c)[len("deal:"):]
                      for c in deck[8 * (1 - p):8 * (1 - p) + 8]}
            assert not hidden & set(draws) and not hidden & set(first)
            marked += "!" in info
    assert marked  # some marriage was announced in these deals


def _check_resampled(game, s, r, p, rng):
    """``r`` (resampled from ``s`` for ``p``) is a state of ``p``'s information set with a
    history that replays legally; serialisation and clone round-trip; it plays on."""
    _same_view(s, r, p)
    t = game.new_initial_state()
    for a in r.history():
        assert t.is_chance_node() or a in t.legal_actions()
        t.apply_action(a)
    assert str(t) == str(r) and t.history() == r.history()
    g2, r2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, r))
    assert r2.history() == r.history() and r2.information_state_string(p) == \
        s.information_state_string(p)
    c = r.clone()
    tick = step_cap("lizany", chance=True)
    while not c.is_terminal():
        tick()
        c.apply_action(_random_action(c, rng))
    assert sum(c.returns()) == 0


def test_resampled_states_keep_what_the_seat_saw_and_redraw_the_rest():
    """Both seats at random depths (dealing, the stock, the follow phase): the resampled
    state is in the seat's information set; the seat's own first hand and the trump card
    stay, the opponent's first hand is redrawn (while unseen cards remain)."""
    game = _game()
    rng = np.random.default_rng(7)
    states = moved = 0
    while states < 40:
        s = _play(game, rng, stop=int(rng.integers(0, 64)))
        states += 1
        for p in range(2):
            r = s.resample_from_infostate(p, rng.random)
            _check_resampled(game, s, r, p, rng)
            if s.is_chance_node():
                continue
            h, hr = s.history(), r.history()
            assert sorted(hr[8 * p:8 * p + 8]) == sorted(h[8 * p:8 * p + 8])
            assert hr[16] == h[16]  # the trump card
            o = slice(8 * (1 - p), 8 * (1 - p) + 8)
            moved += sorted(hr[o]) != sorted(h[o])
    assert moved > 20


def test_resampling_at_the_first_lead_is_uniform_over_the_unseen_cards():
    """Before any play the seat has seen its eight cards and the trump card: each of the
    other 23 is in the opponent's first hand with probability 8/23 (about 104 of 300)."""
    game = _game()
    s = _play(game, np.random.default_rng(3), stop=32)
    rng = np.random.default_rng(4)
    counts = np.zeros(32)
    for _ in range(300):
        r = s.resample_from_infostate(0, rng.random)
        counts[r.history()[8:16]] += 1
    unseen = sorted(set(range(32)) - set(s.history()[:8]) - {s.history()[16]})
    assert counts[sorted(set(range(32)) - set(unseen))].sum() == 0
    assert 70 < counts[unseen].min() and counts[unseen].max() < 140


def test_ismcts_plays_a_deal_through_the_resampler():
    """OpenSpiel's ISMCTSBot for both players (each simulation resamples the state) plays
    a whole deal, every move legal, to returns of ±1 or ±2."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = _game()
    rng = np.random.RandomState(1)
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 10,
                             random_state=rng) for _ in range(2)]
    s = game.new_initial_state()
    moves = 0
    tick = step_cap("lizany", chance=True)
    while not s.is_terminal():
        tick()
        if s.is_chance_node():
            s.apply_action(_random_action(s, np.random.default_rng(moves + len(s.history()))))
            continue
        a = bots[s.current_player()].step(s)
        assert a in s.legal_actions()
        s.apply_action(a)
        moves += 1
    assert moves == 32 and abs(s.returns()[0]) in (1.0, 2.0) and sum(s.returns()) == 0
