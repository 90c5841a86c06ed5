"""Issue #18's two missing parts of the OpenSpiel game: licitovaný mariáš (LICITOVANY.md)
and the volený variant options as game parameters, and resampling in gathered parties
(RULES.md §2, LICITOVANY.md §2: the cards are gathered, not shuffled, between deals)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import Game, RulesError, arena, make_rules  # noqa: E402
from mariash_env import licit_actions as LA  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from mariash_env.openspiel import (  # noqa: E402
    OpenSpielRobot,
    info_state_size,
    load_game,
    max_game_length,
    utility_bound,
)
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.search import sample_worlds  # noqa: E402
from mariash_env.search.licit_worlds import sample_licit_worlds  # noqa: E402
from tests.helpers import step_cap  # noqa: E402
from tests.test_openspiel import _check_resampled, _random_action  # noqa: E402

LICIT = {"rules": "licitovany"}


def _resample_checker(every: int, everyone: bool = False):
    """A ``state_checker_fn`` for ``random_sim_test``: every ``every``-th decision state is
    resampled for the seat to move (``everyone``: for every player), which must keep that
    player's information state (and the mover's legal actions)."""
    seen = [0]

    def check(state) -> None:
        if state.is_chance_node() or state.is_terminal():
            return
        seen[0] += 1
        if seen[0] % every:
            return
        mover = state.current_player()
        for p in range(state.num_players()) if everyone else [mover]:
            r = state.resample_from_infostate(p, np.random.default_rng(seen[0] + p).random)
            assert r.information_state_string(p) == state.information_state_string(p)
            assert r.current_player() == mover
            if p == mover:
                assert r.legal_actions() == state.legal_actions()

    return check


@pytest.mark.parametrize("params,sims", [
    ({**LICIT, "deals": 2}, 2),
    ({**LICIT, "deals": 2, "shuffle": "every_deal", "max_flek": -1, "payment_cap": 0,
      "marriage_order": "queen_first"}, 2),
    ({"open_contracts": True, "hundred_counting": "order_free"}, 6),
    ({"open_contracts": True, "deals": 2, "max_flek": 1}, 2),
])
def test_random_sim_test_with_resampling(params, sims):
    """pyspiel's C++ checks (chance outcomes, legal actions, rewards against returns,
    clone, serialisation) on licitovaný and the volený variants, resampling along the way."""
    game = pyspiel.load_game("mariash", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False,
                            state_checker_fn=_resample_checker(7))


def test_licitovany_game_info_is_its_own():
    """LICITOVANY.md §12's 136 actions, its 1016-float observation, its defaults (max_flek
    5, a cap of 500 desetníky, §6 and §9) and bounds."""
    game = pyspiel.load_game("mariash", {**LICIT, "deals": 3})
    rules = make_rules(rules="licitovany", deals=3)
    assert game.ctx.rules == rules
    assert game.num_distinct_actions() == LA.N_ACTIONS == 136
    assert game.observation_tensor_shape() == [1016]
    assert game.information_state_tensor_shape() == [3 * (1016 + 32)] == [
        info_state_size(rules)]
    assert game.max_utility() == -game.min_utility() == utility_bound(rules) == 2 * 500 * 3
    assert game.max_game_length() == max_game_length(rules)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    unbounded = load_game(make_rules(rules="licitovany", payment_cap=None, max_flek=None))
    assert unbounded.max_utility() > 1e9
    # the volený options are refused for licitovaný by name (LICITOVANY.md §11)
    with pytest.raises(RulesError, match="volený options that do not apply"):
        load_game(rules="licitovany", killed_seven=3)


@pytest.mark.parametrize("params,string", [
    (LICIT, "mariash(deals=1,marriage_order=any,max_flek=5,payment_cap=500,players=3,"
            "rules=licitovany,shuffle=partie)"),
    ({**LICIT, "deals": 3, "max_flek": -1, "payment_cap": 0, "players": 3},
     "mariash(deals=3,marriage_order=any,max_flek=-1,payment_cap=0,players=3,"
     "rules=licitovany,shuffle=partie)"),
    ({}, "mariash(deals=1,hundred_counting=first_played,killed_seven=2,marriage_order=any,"
         "max_flek=4,open_contracts=False,payment_cap=0,players=3,rules=voleny,"
         "shuffle=partie,tariff=home)"),
    ({"players": 4}, "mariash(deals=16,hundred_counting=first_played,killed_seven=2,"
                     "marriage_order=any,max_flek=4,open_contracts=False,payment_cap=0,"
                     "players=4,rules=voleny,shuffle=partie,tariff=home)"),
    ({"rules": "lizany"}, "mariash(deals=1,players=2,rules=lizany)"),
])
def test_every_game_string_names_only_what_applies_and_round_trips(params, string):
    """A game's string (what serialisation and pickling store) names the rules as played
    and only the options the game takes: licitovaný's showed volený's defaults
    (``hundred_counting``, ``killed_seven``, ``open_contracts``, ``tariff``) and the
    sentinel ``players=-1``.  ``load_game(str(game))`` is the same game, and so is a string
    of earlier versions, sentinels and volený defaults included."""
    game = pyspiel.load_game("mariash", params)
    assert str(game) == string
    again = pyspiel.load_game(str(game))
    assert str(again) == string and again.get_parameters() == game.get_parameters()
    assert again.num_players() == game.num_players()
    assert (again.min_utility(), again.max_utility()) == (game.min_utility(),
                                                          game.max_utility())
    state = game.new_initial_state()
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(g2) == string and str(s2) == str(state)
    if params.get("rules") == "licitovany":
        old = ("mariash(deals=1,hundred_counting=first_played,killed_seven=2,marriage_order="
               "any,max_flek=5,open_contracts=False,payment_cap=500,players=-1,"
               "rules=licitovany,shuffle=partie,tariff=home)")
        assert pyspiel.load_game(old).ctx.rules == load_game(rules="licitovany").ctx.rules


def test_licitovany_plays_and_settles_as_game():
    """The chance draws deal Game's deck (dealer 0), a cut is Game's cut (LICITOVANY.md §2),
    every decision has Game's legal actions and labels, the observation is Game's, the
    returns are Game's desetníky, zero-sum (§9), within the bounds and the length."""
    rng = np.random.default_rng(3)
    rules = make_rules(rules="licitovany", deals=3)
    game = load_game(rules)
    for _ in range(4):
        s = game.new_initial_state()
        deck, cuts, decisions = [], [], []
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal():
            tick()
            a = _random_action(s, rng)
            if s.is_chance_node():
                (cuts if s.st is not None else deck).append(a)
            else:
                p = s.current_player()
                assert s.action_to_string(p, a) == LA.ACTION_LABELS[a]
                decisions.append((p, a, s.legal_actions(),
                                  np.asarray(s.observation_tensor(p), np.float32)))
            s.apply_action(a)
            assert abs(sum(s.returns())) < 1e-9
        g = Game(rules)
        g.new_partie(deck=deck, dealer=0, cuts=cuts)
        for p, a, legal, obs in decisions:
            if g.deal_over:
                assert g.next_deal()
            assert g.to_move == p and g.legal_actions() == legal
            assert np.array_equal(g.observation(p), obs)
            g.step(a)
        assert g.partie_over and s.returns() == [float(x) for x in g.scores]
        assert max(map(abs, s.returns())) <= game.max_utility()
        assert len(decisions) <= game.max_game_length()


def test_variant_parameters_reach_the_rules():
    """open_contracts (RULES.md §11.1) and hundred_counting (§11.2) are played: the game's
    legal actions include the open contracts, and its bound covers order-free hundreds."""
    game = pyspiel.load_game("mariash", {"open_contracts": True})
    assert game.ctx.rules.open_contracts and game.ctx.rv.tolist() == make_rules(
        deals=1, open_contracts=True).vector().tolist()
    free = load_game(make_rules(deals=1, hundred_counting="order_free"))
    assert free.max_utility() > load_game(make_rules(deals=1)).max_utility()
    rng = np.random.default_rng(2)
    labels = set()
    for _ in range(30):
        s = game.new_initial_state()
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal():
            tick()
            if not s.is_chance_node():
                labels.update(s.action_to_string(s.current_player(), a)
                              for a in s.legal_actions())
            s.apply_action(_random_action(s, rng))
    assert {"contract:open_betl", "contract:open_durch"} <= labels


def _table_states(game, n: int, seed: int, first_deal: int = 1, robot: str = "table"):
    """States of parties played by the table robot (``robot="random"``: random play), at
    random points from deal ``first_deal + 1`` on."""
    table = make_robot("table", rules=game.ctx.rules)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        stop = int(rng.integers(1, 40 + 80 * game.get_parameters()["deals"]))
        tick = step_cap(game, deals=None, chance=True)
        while not s.is_terminal() and len(s.history()) < stop:
            tick()
            if s.is_chance_node() or robot == "random":
                s.apply_action(_random_action(s, rng))
                continue
            mask = np.zeros(game.num_distinct_actions(), np.int8)
            mask[s.legal_actions()] = 1
            obs = np.asarray(s.observation_tensor(s.current_player()), np.float32)
            s.apply_action(int(table.act({"observation": obs, "action_mask": mask})))
        if not s.is_terminal() and len(s.recalled()) > first_deal:
            out.append(s)
    return out


@pytest.mark.parametrize("params,states", [
    ({"deals": 4}, 8),
    ({**LICIT, "deals": 3}, 8),
])
def test_gathered_parties_resample_from_later_deals(params, states):
    """RULES.md §2 / LICITOVANY.md §2: from the second deal on, the first deal's world must
    deal every later hand the seat saw.  States of table-robot parties in deals 2..4
    resample for every seat (no ResampleError), each with the seat's information state,
    a history that replays legally and other hidden cards than the real ones."""
    game = pyspiel.load_game("mariash", params)
    rng = np.random.default_rng(5)
    differs = 0
    for s in _table_states(game, states, seed=5):
        for p in range(3):
            r = s.resample_from_infostate(p, rng.random)
            differs += str(r) != str(s)
            _check_resampled(game, s, r, p, rng)
    assert differs > states


def test_samplers_honour_a_location_restriction():
    """search.sample_worlds / sample_licit_worlds(restrict=...): each hidden card lies only
    where its mask allows (1 next seat, 2 previous seat, 4 the rest)."""
    from mariash_env.search import random_position
    from mariash_env.search.licit_worlds import random_licit_position

    for st, sample, rules in (
            (random_position(4, plays=3), sample_worlds, make_rules()),
            (random_licit_position(4, plays=3), sample_licit_worlds,
             make_rules(rules="licitovany"))):
        me = int(st[S.TO_MOVE])
        nxt, prv = (me + 1) % 3, (me + 2) % 3
        hidden = [c for c in range(32)
                  if S.getm(st, S.HAND + nxt) >> c & 1 or S.getm(st, S.HAND + prv) >> c & 1]
        restrict = np.full(32, 7, dtype=np.int64)
        pinned = {hidden[0]: 1, hidden[-1]: 2}
        for c, bit in pinned.items():
            restrict[c] = bit
        free = sample(st, me, 40, np.random.default_rng(1), rules)
        assert any(not S.getm(w, S.HAND + nxt) >> hidden[0] & 1 for w in free)
        for w in sample(st, me, 40, np.random.default_rng(1), rules, restrict=restrict):
            assert S.getm(w, S.HAND + nxt) >> hidden[0] & 1
            assert S.getm(w, S.HAND + prv) >> hidden[-1] & 1
        # both samplers check their record, seat and arguments first (memory safety)
        bad = st.copy()
        bad[S.ACTOR] = 99
        with pytest.raises(ValueError, match="field actor .* = 99 is out of range"):
            sample(bad, me, 2, np.random.default_rng(1), rules)
        with pytest.raises(ValueError, match="seat 5: expected a seat"):
            sample(st, 5, 2, np.random.default_rng(1), rules)
        with pytest.raises(ValueError, match="32 location masks"):
            sample(st, me, 2, np.random.default_rng(1), rules, restrict=restrict[:4])


def test_openspiel_robots_play_licitovany_in_the_arena(tmp_path, capsys):
    """os_ismcts (IS-MCTS with the licitovaný resampler) against the table robot in the
    duplicate arena, from the command line too; os_random as well; both built for the
    game by make_robot."""
    for spec in ("os_ismcts(simulations=6, seed=2)", "os_random(seed=1)"):
        assert isinstance(make_robot(spec, rules="licitovany"), OpenSpielRobot)
        res = duplicate_match({spec: spec, "table": "table"}, deals=2, seed=3,
                              progress=False, rules={"rules": "licitovany"})
        assert res.rules == "licitovany" and res.unit == "desetníky"
        assert res.per_deal.shape == (2, 2) and np.all(np.isfinite(res.per_deal))
        assert np.allclose(res.per_deal.sum(axis=1), 0)
    assert arena.main(["--rules", "licitovany", "--robots", "os_ismcts(simulations=4),table",
                       "--deals", "1", "--seed", "2", "--out", str(tmp_path), "--quiet",
                       "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "desetníky/deal" in out and "os_ismcts(simulations=4)" in out


def test_licit_sampler_before_flekking_with_four_helping_cards():
    """LICITOVANY.md §6: a defender with four cards of the helping suit shows on his first
    flek turn; before flekking (the actor still discarding) nobody has had a turn, so the
    sampler finds worlds for that defender (it once rejected every world there)."""
    from mariash_env.core.tables import SUIT_MASK

    rules = make_rules(rules="licitovany", deals=1)
    rng = np.random.default_rng(15)
    g = Game(rules)
    g.new_partie(seed=15)
    tick = step_cap(rules)
    while g.phase != S.PH_DISCARD:  # into (lepší) dvě sedmy, its helping suit named
        tick()
        labels = g.legal_labels()
        g.step(next((x for x in labels if "dve_sedmy" in x), None)
               or labels[int(rng.integers(len(labels)))])
    actor = int(g.st[S.ACTOR])
    right = (actor + 2) % 3
    helping = int(SUIT_MASK[int(g.st[S.LIC_HELP])])
    assert bin(g.hand(right) & helping).count("1") >= 4
    for w in sample_licit_worlds(g.st, right, 5, np.random.default_rng(0), rules):
        assert S.getm(w, S.HAND + right) == g.hand(right)
