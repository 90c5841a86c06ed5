"""PIMC for licitovaný mariáš (issue #12): the seat's view serves the game, PIMC plays
whole deals legally through Game, and its card play is not worse than the licitovaný
table robot's on duplicate deals."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env import licit_actions as LA
from mariash_env.core import state as S
from mariash_env.core.licit_observe import LOBS_SIZE
from mariash_env.game import Game
from mariash_env.kinds import kind_of
from mariash_env.robots.licit_table import LicitTableRobot
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.robots.view import SeatView
from mariash_env.rules import make_rules
from mariash_env.search.licit_worlds import random_licit_position
from tests.helpers import step_cap

RULES = make_rules(rules="licitovany")


def test_seat_view_serves_licitovany():
    """Mask and observation of the licitovaný table and layout; worlds from its sampler
    keep the seat's own hand and observation."""
    g = Game(RULES)
    g.new_partie(seed=3)
    view = SeatView.from_game(g)
    mask = view.action_mask()
    assert mask.shape == (LA.N_ACTIONS,) and view.observation().shape == (LOBS_SIZE,)
    assert kind_of(RULES).obs_size == LOBS_SIZE
    assert np.array_equal(np.flatnonzero(mask), g.legal_actions())
    # a robot built with game= reads the state behind a plain observation
    obs, m = g.observe(g.to_move)
    a = PIMCRobot(worlds=2, seed=0, game=g).act({"observation": obs, "action_mask": m})
    assert m[a]
    st = random_licit_position(11, plays=7)
    seat = int(st[S.TO_MOVE])
    view = SeatView(st, seat, RULES)
    worlds = view.sample_worlds(5, 1)
    assert worlds.shape == (5, S.STATE_SIZE)
    for w in worlds:
        assert S.getm(w, S.HAND + seat) == S.getm(st, S.HAND + seat)
        assert np.array_equal(SeatView(w, seat, RULES).observation(), view.observation())


def _play_deal(seed: int, robots: list) -> Game:
    g = Game(RULES)
    g.new_partie(seed=seed)
    for r in robots:
        r.begin_deal(seed)
    tick = step_cap(g)
    while True:
        tick()
        seat = g.to_move
        r = robots[seat]
        if isinstance(r, PIMCRobot):
            a = r.act_view(SeatView.from_game(g))
        else:
            obs, mask = g.observe(seat)
            a = r.act({"observation": obs, "action_mask": mask})
        assert g.legal_mask(seat)[a], (seed, seat, a)
        if g.step(a):
            return g


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pimc_plays_whole_licitovany_deals_legally(seed):
    """Auction, game, flek and play: every PIMC action legal, the deal settled zero-sum."""
    robots = [PIMCRobot(worlds=4, seed=seed), LicitTableRobot(), PIMCRobot(worlds=4, seed=9)]
    g = _play_deal(seed, robots)
    pay = [int(S.get64(g.st, S.PAY + 2 * s)) for s in range(3)]
    assert g.st[S.PHASE] == S.PH_DONE and sum(pay) == 0
    assert robots[0].stats["decisions"] > 0


def _card_play(st: np.ndarray, pimc_seat: int, pimc: PIMCRobot | None) -> int:
    """Play the deal ``st`` out from its first card: PIMC at ``pimc_seat`` (None: nobody),
    the table robot elsewhere; the seat's desetníky."""
    from mariash_env.core.engine import apply_action

    rv = RULES.vector()
    w = st.copy()
    table = LicitTableRobot()
    tick = step_cap(RULES)
    while w[S.PHASE] != S.PH_DONE:
        tick()
        seat = int(w[S.TO_MOVE])
        view = SeatView(w, seat, RULES)
        if pimc is not None and seat == pimc_seat:
            a = pimc.act_view(view)
        else:
            a = table.act(view.observation_dict())
        assert view.action_mask()[a]
        apply_action(w, rv, a)
    return int(S.get64(w, S.PAY + 2 * pimc_seat))


def test_pimc_card_play_not_worse_than_the_table_robot_on_duplicate_deals():
    """Duplicate: each deal (random auction, game and fleks; suit games) is played out
    from its first card with PIMC at one seat and the table robot at the others, and with
    the table robot everywhere; PIMC's seat gains on the sum over every seat of 8 deals."""
    gain = 0
    for i in range(8):
        st = random_licit_position(500 + i, game=1 + (i * 5) % 6 if i % 4 else 9 + i % 4)
        for seat in range(3):
            pimc = PIMCRobot(worlds=6, seed=100 * i + seat)
            gain += _card_play(st, seat, pimc) - _card_play(st, seat, None)
    assert gain >= 0, gain


# --- issue #35: the race among candidates and the solved endgame of the simulations -----


def test_beaten_and_decided():
    from mariash_env.robots.pimc import beaten, decided

    rng = np.random.default_rng(0)
    base = rng.normal(0, 10, size=8)
    # leader; 5 behind in every world; the leader's values +-3 (the same mean); a copy
    swing = np.array([3.0, -3.0] * 4)
    values = np.stack([base, base - 5, base + swing, base], axis=1)
    alive = np.ones(4, dtype=bool)
    out = beaten(values, alive)
    assert out.tolist() == [False, True, False, False]
    assert not beaten(values, np.array([True, False, True, True]))[1]  # already out
    assert not decided(values, alive)
    assert decided(values, np.array([True, True, False, True]) & ~out)  # equal columns
    assert decided(values, np.array([False, False, True, False]))  # one left


def test_race_keeps_the_leaders_mean_and_prunes_only_the_behind():
    """A licitovaný card-play decision with the race on: the search stops on a multiple
    of RACE worlds (or all of them), the pruned cards are -inf and every card still in
    the race has exactly its mean over the same worlds without the race."""
    from mariash_env.robots.pimc import RACE

    st = random_licit_position(22, game=1, plays=4)
    seat = int(st[S.TO_MOVE])
    view = SeatView(st, seat, RULES)
    cands = [int(a) for a in np.flatnonzero(view.action_mask())]
    assert len(cands) >= 2
    r = PIMCRobot(worlds=16, seed=3, warm=False)
    worlds = view.sample_worlds(16, 4)
    raced, n = r.candidate_values(view, cands, worlds, race=RACE)
    assert n == 16 or n % RACE == 0
    full, m = r.candidate_values(view, cands, worlds[:n])
    assert m == n
    live = np.isfinite(raced)
    assert live.any() and np.allclose(raced[live], full[live])
    assert (full[~live] < full[live].max()).all()  # only cards behind were pruned


def test_race_and_endgame_are_options_off_by_default():
    """PIMC keeps its full search by default in both games (no race, simulations played
    out by the table robot); the measured settings are options, checked by name."""
    from mariash_env.robots import make_robot
    from mariash_env.robots.pimc import ENDGAME, RACE

    vol = SeatView(random_licit_position(1), 0, RULES)
    for rules in ("voleny", "licitovany"):
        r = make_robot("pimc", rules=rules)
        assert (r.race, r.endgame_from(vol)) == (0, 10) and ENDGAME == 10
    fast = make_robot(f"pimc(race={RACE}, endgame=4)", rules="licitovany")
    assert (fast.race, fast.endgame_from(vol)) == (RACE, 4)
    assert PIMCRobot(solve_bidding=True, warm=False).endgame_from(vol) == 0
    for spec, what in (("pimc(race=-1)", "race"), ("pimc(endgame=11)", "endgame")):
        with pytest.raises(ValueError, match=what):
            make_robot(spec, rules="licitovany")
    with pytest.raises(ValueError, match="race must be an int >= 0"):
        PIMCRobot(race=-2, warm=False)


def test_unchecked_playouts_play_the_checked_moves():
    """Playouts without the observation check (the default) choose what the checked ones
    chose: the same licitovaný decisions, same worlds."""
    from mariash_env.compile import decision_positions

    bid, play, rules = decision_positions("licitovany")
    for st in (bid, play):
        picks = []
        for check in (False, True):
            r = PIMCRobot(worlds=3, seed=7, warm=False)
            r._rollout(rules, None, 10).licit_table.check = check
            picks.append(r.act_view(SeatView(st, int(st[S.TO_MOVE]), rules)))
        assert picks[0] == picks[1]


def _card_play_choice() -> tuple[np.ndarray, SeatView]:
    """A licitovaný card-play decision with a choice, and the view of the seat to move."""
    for seed in range(11, 60):
        st = random_licit_position(seed, plays=6)
        view = SeatView(st, int(st[S.TO_MOVE]), RULES)
        if np.count_nonzero(view.action_mask()) > 1 and view.phase == S.PH_PLAY:
            break
    assert np.count_nonzero(view.action_mask()) > 1 and view.phase == S.PH_PLAY
    return st, view


def test_a_decision_without_worlds_takes_the_table_robots_choice(monkeypatch):
    """Licitovaný's sampler draws worlds by rejection and gives up after its tries
    (``LicitWorldError``; once in a 600-deal match of issue #35, which it stopped). A
    searching robot then takes the table robot's choice, counts it, and plays on; the
    inference path of nnpimc too."""
    from mariash_env.games.licitovany.worlds import LicitWorldError
    from mariash_env.robots import make_robot

    assert SeatView(random_licit_position(3), 0, RULES).world_errors == (LicitWorldError,)

    def no_worlds(self, n, rng=None):  # the game's own error: LicitWorldError, WorldError
        raise self.world_errors[0](f"seat {self.seat}: only 0 of {n} consistent worlds")

    st, view = _card_play_choice()
    want = LicitTableRobot().act(view.observation_dict())
    pimc = PIMCRobot(worlds=4, seed=0)  # built (and warmed up) before the sampler fails
    strong = make_robot("strong(from_trick=0, nt_from_trick=0, seed=1)", rules=RULES)
    # volený's nnpimc draws its worlds in its own inference step
    voleny = make_rules()
    g = Game(voleny)
    g.new_partie(seed=4)
    table = make_robot("table", rules=voleny)
    tick = step_cap(g)
    while not (g.st[S.PHASE] == S.PH_PLAY and np.count_nonzero(g.legal_mask(g.to_move)) > 1):
        tick()
        obs, mask = g.observe(g.to_move)
        g.step(table.act({"observation": obs, "action_mask": mask}))
    vview = SeatView.from_game(g)
    vwant = table.act(vview.observation_dict())
    inferring = make_robot("strong(from_trick=0, nt_from_trick=0, inference=True, seed=1)")
    monkeypatch.setattr(SeatView, "sample_worlds", no_worlds)
    assert pimc.act_view(view) == want
    assert pimc.stats["no_worlds"] == 1
    assert strong.act_view(view) == want and strong.stats["no_worlds"] == 1
    assert inferring.act_view(vview) == vwant and inferring.stats["no_worlds"] == 1


def test_a_sampler_that_gives_up_hands_over_the_worlds_it_found(monkeypatch):
    """LicitWorldError carries the worlds found before the tries ran out (the first ones
    of the same draw); a searching robot searches those, counted in ``few_worlds``, and
    decides as the same search given those worlds would."""
    from mariash_env.games.licitovany.worlds import LicitWorldError, sample_licit_worlds

    st, view = _card_play_choice()
    with pytest.raises(LicitWorldError, match="of 50 consistent worlds in 3 tries") as e:
        sample_licit_worlds(st, view.seat, 50, rng=5, rules=RULES, max_tries=3)
    found = e.value.worlds
    assert found.dtype == np.int32 and 1 <= len(found) <= 3
    assert np.array_equal(found, sample_licit_worlds(st, view.seat, len(found), rng=5,
                                                     rules=RULES))
    with pytest.raises(LicitWorldError) as e:  # none found: an empty array, not None
        sample_licit_worlds(st, view.seat, 5, rng=5, rules=RULES, max_tries=0)
    assert e.value.worlds.shape == (0, S.STATE_SIZE)

    def few(self, n, rng=None):
        raise LicitWorldError(f"seat {self.seat}: only 2 of {n}", found[:2])

    cands = [int(a) for a in np.flatnonzero(view.action_mask())]
    fallback = LicitTableRobot().act(view.observation_dict())
    want = PIMCRobot(worlds=4, seed=0).search(view, cands, fallback, worlds=found[:2])
    pimc = PIMCRobot(worlds=4, seed=0)
    monkeypatch.setattr(SeatView, "sample_worlds", few)
    assert pimc.act_view(view) == want
    assert (pimc.stats["few_worlds"], pimc.stats["no_worlds"], pimc.stats["worlds"]) == \
        (1, 0, 2)
