"""The table robot's compiled card play (issue #35) plays the cards the Python robot played.

``tests/data/table_play_moves.npz`` holds 3000 card-play positions (per game 500 of each
contract -- suit game, betl, durch, RULES.md §5 / LICITOVANY.md §3 -- half of them the
actor's) with the card the Python table robot chose there, recorded by the code before
the heuristics were compiled (commit 7bdff6b): the observation's 0/1 slots and the action
mask as packed bits, the card.  The compiled decoders and card choice, the robots' own
entries and a search's compiled playouts must give the same cards.  Its ``discards``
rows are 2000 random hands (10 to 12 cards, a talon, a contract and trumps) with what the
Python discard rules gave there (the best pair, the betl and durch hands of the contract
choice, the second discard, the hole counts and the suit-game value, RULES.md §4).  Its
``decisions_*`` are 2767 licitovaný decisions before the card play (auction, game,
trumps, helping suit, discards, face-down lead and flek: LICITOVANY.md §4-§6), up to 350
of each phase, with the Python robot's action.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mariash_env import Game
from mariash_env.core import state as S
from mariash_env.core.engine import apply_action
from mariash_env.games.licitovany import actions as LA
from mariash_env.games.licitovany.table_play import decode_licit
from mariash_env.games.voleny import actions as A
from mariash_env.games.voleny.table_play import (
    VIEW_SIZE,
    choose_card,
    decode_voleny,
    view_array,
)
from mariash_env.robots.card_view import CardPlayView
from mariash_env.robots.features import decode
from mariash_env.robots.licit_table import LicitTableRobot, card_play_view
from mariash_env.robots.pimc import _Rollout
from mariash_env.robots.table import TableRobot
from tests.helpers import step_cap

DATA = Path(__file__).parent / "data" / "table_play_moves.npz"


def _positions(game: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    z = np.load(DATA)
    n = int(z[f"{game}_size"])
    obs = np.unpackbits(z[f"{game}_bits"], axis=1, bitorder="little")[:, :n]
    na = LA.N_ACTIONS if game == "licitovany" else A.N_ACTIONS
    mask = np.unpackbits(z[f"{game}_play"], axis=1, bitorder="little")[:, :na]
    return obs.astype(np.float32), mask.astype(np.int8), z[f"{game}_move"].astype(np.int64)


@pytest.mark.parametrize("game", ["licitovany", "voleny"])
def test_compiled_card_play_is_the_recorded_python_robots(game):
    obs, mask, move = _positions(game)
    assert len(move) == 1500
    dec = decode_licit if game == "licitovany" else decode_voleny
    v = np.zeros(VIEW_SIZE, np.int64)
    got = np.empty_like(move)
    for i in range(len(move)):
        dec(obs[i], mask[i], v)
        got[i] = choose_card(v)
    bad = np.flatnonzero(got != move)
    assert bad.size == 0, f"{bad.size} positions play another card, first {int(bad[0])}"


@pytest.mark.parametrize("game", ["licitovany", "voleny"])
def test_robots_play_the_recorded_cards(game):
    """The robots' entries: ``play_card`` of the typed view (packed into the array), and
    the licitovaný robot with and without its input check."""
    obs, mask, move = _positions(game)
    robot = LicitTableRobot() if game == "licitovany" else TableRobot()
    fast = LicitTableRobot()
    fast.check = False
    for i in range(0, len(move), 5):
        o, m = obs[i], mask[i]
        if game == "licitovany":
            view = card_play_view(o, m)
            assert robot._voleny.play_card(view) == move[i]
            d = {"observation": o, "action_mask": m}
            assert robot.act(d) == fast.act(d) == LA.PLAY0 + move[i]
        else:
            view = CardPlayView.of_info(decode(o, m))
            assert robot.play_card(view) == move[i]
        packed = np.zeros(VIEW_SIZE, np.int64)
        (decode_licit if game == "licitovany" else decode_voleny)(o, m, packed)
        assert np.array_equal(view_array(view), packed)  # the decoders build the same view


@pytest.mark.parametrize(("game", "players"), [("licitovany", 3), ("voleny", 3),
                                               ("voleny", 4)])
def test_compiled_playouts_play_the_table_robots_moves(game, players):
    """A search's rollout (robots/pimc.py) in one compiled call per card play ends in the
    state the table robot's decisions one at a time reach, from card plays (a few random
    bids and cards on the way there, for betl, durch and every trick) at any trick; at
    four players (RULES.md §11.3) too, where the deal's seats read its three-player
    observation."""
    four = {"players": 4} if players == 4 else {}
    g0 = Game(game, records=False, **four)
    fast, slow = _Rollout(g0.rules, None), _Rollout(g0.rules, None)
    slow.play_out = None
    rng = np.random.default_rng(35)
    played = 0
    for d in range(40):
        g = Game(game, records=False, **four)
        g.new_partie(seed=700 + d)
        w = g.st.copy()
        cards = int(rng.integers(0, 30))
        tick = step_cap(g)
        while w[S.PHASE] != S.PH_DONE and (w[S.PHASE] != S.PH_PLAY or cards > 0):
            tick()
            cards -= int(w[S.PHASE] == S.PH_PLAY)
            a = slow.table_action(w)
            if rng.random() < 0.3:
                a = int(rng.choice(np.flatnonzero(slow.mask)))
            apply_action(w, slow.rv, a)
        if w[S.PHASE] != S.PH_PLAY:
            continue
        for seat in range(3):
            assert fast.value(w.copy(), seat) == slow.value(w.copy(), seat)
        a, b = w.copy(), w.copy()
        fast.value(a, 0)
        slow.value(b, 0)
        assert np.array_equal(a, b)
        # the compiled playout itself played the deal out
        assert fast.play_out(w.copy(), fast.rv, fast.obs, fast.mask, fast.view, 99,
                             fast.claim) > 0
        played += 1
        if played == 12:
            break
    assert played == 12


def test_compiled_discards_are_the_recorded_python_robots():
    from mariash_env.games.voleny.table_robot import _best_pair, _discard_cost, suit_keep_value
    from mariash_env.robots.features import betl_holes, betl_risk, cards, durch_hole_suits

    rows = np.load(DATA)["discards"]
    assert len(rows) == 2000
    for r in rows:
        hand, allowed, contract, trump, talon = (int(x) for x in r[:5])
        bh = TableRobot.betl_hand(hand, talon)
        dh = TableRobot.durch_hand_12(hand, talon)
        cost = _discard_cost(contract, trump, talon)
        second = min(cards(allowed), key=lambda c: (cost(hand & ~(1 << c), 1 << c), -(c & 7)))
        got = [*_best_pair(hand, allowed, contract, trump, talon), bh[0], *bh[1], dh[0],
               *dh[1], second, betl_holes(hand, talon), betl_risk(hand, talon),
               durch_hole_suits(hand, talon), int(suit_keep_value(hand, trump) * 100)]
        assert got == [int(x) for x in r[5:]], r[:5]


def test_compiled_licitovany_decisions_are_the_recorded_python_robots():
    """The licitovaný robot in every phase before the card play (compiled in
    games/licitovany/table_decide.py), with and without its input check."""
    z = np.load(DATA)
    n = int(z["decisions_size"])
    obs = np.unpackbits(z["decisions_bits"], axis=1, bitorder="little")[:, :n]
    obs = obs.astype(np.float32)
    mask = np.unpackbits(z["decisions_mask"], axis=1, bitorder="little")[:, :LA.N_ACTIONS]
    mask = mask.astype(np.int8)
    act = z["decisions_act"].astype(np.int64)
    assert len(act) == 2767
    robot, fast = LicitTableRobot(), LicitTableRobot()
    fast.check = False
    for o, m, a in zip(obs, mask, act):
        d = {"observation": o, "action_mask": m}
        assert robot.act(d) == fast.act(d) == a


def test_a_view_with_no_legal_card_is_refused():
    o, m, _ = _positions("voleny")
    view = CardPlayView.of_info(decode(o[0], m[0]))
    with pytest.raises(ValueError, match="no legal card"):
        TableRobot().play_card(CardPlayView(**{**view.__dict__, "legal": 0}))
