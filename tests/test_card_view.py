"""The typed card-play view the table robots read (issue #30): each game builds it from its
own observation, and bad licitovaný input is refused naming the block."""

from __future__ import annotations

import numpy as np
import pytest

from mariash_env import Game
from mariash_env.games.licitovany import actions as LA
from mariash_env.games.licitovany.observe import LOBS_LAYOUT
from mariash_env.games.voleny import actions as A
from mariash_env.robots.card_view import CardPlayView
from mariash_env.robots.features import ObservationError, decode
from mariash_env.robots.licit_table import LicitTableRobot, card_play_view
from mariash_env.robots.table import TableRobot
from tests.helpers import step_cap

_L = {name: (off, n) for name, off, n, _ in LOBS_LAYOUT}


def _positions(rules: str, deals: int, phase: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) at the table robots' turns of ``phase`` over a few deals."""
    robot = LicitTableRobot() if rules == "licitovany" else TableRobot()
    out = []
    for d in range(deals):
        g = Game(rules, records=False)
        g.new_partie(seed=d)
        tick = step_cap(g)
        while not g.deal_over:
            tick()
            o, m = g.observe(g.to_move)
            if g.phase_name == phase and np.count_nonzero(m) > 1:
                out.append((o.copy(), m.copy()))
            g.step(robot.act({"observation": o, "action_mask": m}))
    return out


def _block(o: np.ndarray, name: str) -> int:
    off, n = _L[name]
    return sum(1 << int(i) for i in np.flatnonzero(o[off:off + n] > 0.5))


def test_licitovany_view_reads_its_own_blocks():
    pos = _positions("licitovany", 6, "play")
    assert len(pos) > 20
    for o, m in pos:
        v = card_play_view(o, m)
        assert v.hand == _block(o, "hand") and v.talon == _block(o, "talon")
        assert v.legal == sum(1 << c for c in np.flatnonzero(m[LA.PLAY0:LA.PLAY0 + 32]))
        assert v.legal & ~v.hand == 0
        assert 3 * v.trick_no + len(v.cur.cards) == bin(v.played).count("1")
        for t in v.tricks:
            assert len(t.cards) == 3 and sorted(t.by) == [0, 1, 2] and t.by[0] == t.leader
            assert all(v.played_by[s] >> c & 1 for c, s in zip(t.cards, t.by))
        assert v.unknown() & (v.hand | v.played) == 0
        assert (v.trump >= 0) == (_block(o, "trump_suit") != 0)


def test_voleny_view_plays_what_the_decoded_observation_plays():
    robot = TableRobot()
    pos = _positions("voleny", 4, "play")
    assert len(pos) > 20
    for o, m in pos:
        info = decode(o, m)
        v = CardPlayView.of_info(info)
        assert v.trump == info.trump and v.voids == tuple(info.voids)
        assert robot.choose_card(info) == A.PLAY0 + robot.play_card(v)
        assert robot.decide(info) in (A.LAY_DOWN if m[A.LAY_DOWN] else -1,
                                      A.PLAY0 + robot.play_card(v))


@pytest.mark.parametrize("block, value, needle", [
    ("played_by", None, "played_by"),
    ("hand", 0.5, "'hand'"),
    ("actor", 1.0, "'actor'"),
])
def test_licitovany_view_refuses_what_no_seat_sees(block, value, needle):
    o, m = _positions("licitovany", 1, "play")[-1]
    o = o.copy()
    off, n = _L[block]
    if block == "played_by":  # a played card given to a second seat as well
        c = int(np.flatnonzero(o[off:off + 32] > 0.5)[0]) if o[off:off + 32].any() else int(
            np.flatnonzero(o[off + 32:off + 96] > 0.5)[0]) % 32
        o[off + c] = o[off + 32 + c] = o[off + 64 + c] = 1.0
    else:
        o[off:off + n] = value
    with pytest.raises(ObservationError, match=needle):
        card_play_view(o, m)
    with pytest.raises(ObservationError, match="vector of 1016"):
        card_play_view(o[:900], m)
    with pytest.raises(ObservationError, match="action mask"):
        card_play_view(_positions("licitovany", 1, "play")[-1][0], m[:-1])
