"""The searching robots value the four-player settlement (``players=4``, RULES.md §11.3).

At four the dealer who sits out pays or collects with the defence: the actor gets ``3A``,
each of the other three ``-A``, where the core's three-seat deal writes ``2A`` for the
actor.  PIMC's card play (the solver's amount times the seat's share), its simulations
(the deal played out, then the seat's payment) and the network's playouts of ``nnpimc``
must count the four-player amounts for the seat in the deal; a defender's are those of
the three-seat deal.
"""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env.actions import N_ACTIONS
from mariash_env.core import state as S
from mariash_env.core.engine import apply_action, legal_actions
from mariash_env.game import Game
from mariash_env.games.voleny.four import dealer_pays, payment4, player_of, seat_payment4
from mariash_env.playout import playout_values
from mariash_env.robots import OnnxRobot, SeatView
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.robots.playouts import _payoff, _Rollout, seat_share
from mariash_env.rules import make_rules
from tests.helpers import step_cap

FOUR = make_rules(players=4)
NET = "models/robot_voleny_seated3.onnx"


def _random_step(st: np.ndarray, rng: np.random.Generator) -> None:
    mask = np.zeros(N_ACTIONS, np.int8)
    legal_actions(st, FOUR.vector(), mask)
    apply_action(st, FOUR.vector(), int(rng.choice(np.flatnonzero(mask))))


def _deal(seed: int, dealer: int) -> np.ndarray:
    g = Game(FOUR)
    g.new_partie(seed=seed, dealer=dealer)
    return g.st.copy()


def _until(st: np.ndarray, rng: np.random.Generator, stop) -> np.ndarray | None:
    """``st`` played on by random legal actions up to the first state ``stop`` accepts
    (None when the deal ends first)."""
    tick = step_cap(FOUR)
    while st[S.PHASE] != S.PH_DONE:
        tick()
        if stop(st):
            return st
        _random_step(st, rng)
    return None


def test_the_seat_payment_at_four_is_the_settlement_of_the_seats_player():
    """RULES.md §11.3: actor 3A, each of the other three -A; by core seat as by player."""
    rng = np.random.default_rng(0)
    for k in range(40):
        st = _deal(k, k % 4)
        tick = step_cap(FOUR)
        while st[S.PHASE] != S.PH_DONE:
            tick()
            _random_step(st, rng)
        actor = int(st[S.ACTOR])
        a = int(dealer_pays(st))
        assert a == S.get64(st, S.PAY + 2 * actor) // 2 != 0
        pays = [int(payment4(st, p)) for p in range(4)]
        assert sum(pays) == 0
        for c in range(3):
            got = int(seat_payment4(st, c))
            assert got == pays[int(player_of(st, c))]
            assert got == (3 * a if c == actor else -a)
            assert _payoff(st, c, 4) == got
            assert _payoff(st, c, 3) == (2 * a if c == actor else -a)
        assert pays[int(st[S.P4_DEALER])] == -a


def test_seat_share_counts_every_other_player():
    st = np.zeros(S.STATE_SIZE, np.int32)
    st[S.ACTOR] = 1
    assert [seat_share(st, c) for c in range(3)] == [-1.0, 2.0, -1.0]
    assert [seat_share(st, c, 4) for c in range(3)] == [-1.0, 3.0, -1.0]


def _card_play(seed: int, dealer: int, actor_to_move: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    for k in range(50):
        st = _until(_deal(seed * 100 + k, dealer), rng, lambda s: (
            s[S.PHASE] == S.PH_PLAY and s[S.TRICK_NO] >= 2
            and (int(s[S.TO_MOVE]) == int(s[S.ACTOR])) == actor_to_move))
        if st is not None:
            return st
    raise AssertionError("no such position")


@pytest.mark.parametrize("actor_to_move", [True, False])
def test_pimc_values_the_card_play_in_four_player_groshe(actor_to_move):
    from mariash_env.search import solve

    st = _card_play(3, 1, actor_to_move)
    seat = int(st[S.TO_MOVE])
    view = SeatView(st, seat, FOUR)
    cands = [int(a) for a in np.flatnonzero(view.action_mask())]
    robot = PIMCRobot(worlds=4, seed=1)
    worlds = view.sample_worlds(4, np.random.default_rng(2))
    means, n = robot.candidate_values(view, cands, worlds)
    assert n == 4
    share = 3.0 if actor_to_move else -1.0  # not the three-seat deal's 2 for the actor
    want = np.mean([[share * solve(w, FOUR, pv=False, all_moves=True).move_values[a]
                     for a in cands] for w in worlds], axis=0)
    np.testing.assert_allclose(means, want)


def test_pimc_simulations_end_in_the_four_player_settlement():
    """A bidding simulation's value is what the seat's player is paid at four."""
    rng = np.random.default_rng(7)
    roll = _Rollout(FOUR, None)
    seen = set()
    for k in range(30):
        st = _deal(500 + k, k % 4)
        for _ in range(int(rng.integers(0, 3))):  # somewhere in the bidding
            if st[S.PHASE] in (S.PH_PLAY, S.PH_DONE):
                break
            _random_step(st, rng)
        for seat in range(3):
            w = st.copy()
            v = roll.value(w, seat)  # w is played to the end in place
            assert w[S.PHASE] == S.PH_DONE
            assert v == payment4(w, player_of(w, seat))
            seen.add(int(w[S.ACTOR]) == seat)
            if int(w[S.ACTOR]) == seat:
                assert v == 1.5 * S.get64(w, S.PAY + 2 * seat)
    assert seen == {True, False}


def test_network_playouts_are_valued_for_the_seats_player_at_four():
    """``nnpimc(leaf='network')``'s values: the deal played out by the network, then the
    four-player payment of the player in the seat (not of the player numbered like the
    seat: the dealer here is not player 3, so the two differ)."""
    net = OnnxRobot(NET)
    for actor_to_move in (True, False):
        st = _card_play(11, 0, actor_to_move)
        seat = int(st[S.TO_MOVE])
        assert int(player_of(st, seat)) != seat
        cands = [int(a) for a in np.flatnonzero(SeatView(st, seat, FOUR).action_mask())]
        got = playout_values(net, st[None], seat, cands, FOUR)[0]
        for a, value in zip(cands, got):
            w = st.copy()
            apply_action(w, FOUR.vector(), a)
            tick = step_cap(FOUR)
            while w[S.PHASE] != S.PH_DONE:  # the network at every seat, one by one
                tick()
                view = SeatView(w, int(w[S.TO_MOVE]), FOUR)
                apply_action(w, FOUR.vector(), net.act(view.observation_dict()))
            assert value == payment4(w, player_of(w, seat))
        # against others, the robot in the seat only: the seating is the deal's seats
        mixed = playout_values(net, st[None], seat, cands, FOUR, others=net)[0]
        np.testing.assert_array_equal(mixed, got)
