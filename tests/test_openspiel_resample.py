"""Resampling in gathered parties never fails (issue #18): with ``shuffle="partie"`` a
state after the first deal is resampled by rejection from the first deal's world
conditioned on the later deals; where that finds no world (early-ended deals whose unseen
hands feed a later deal, licitovaný bidding the conditioned draw cannot see) the
relabelling chain (``MariashState._relabel_chain``) gives a state of the information set.
RULES.md §2, LICITOVANY.md §2: the next deck is the last deal's piles gathered and cut."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env import openspiel as O  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from tests.test_openspiel import _check_resampled  # noqa: E402
from tests.test_openspiel_licit import _table_states  # noqa: E402


def _early_ended(s) -> bool:
    """A deal before the current one ended before its tenth trick (all passed, given up,
    a betl lost, a lay-down...): its unseen hands are gathered into the next deck."""
    return any(int(r[S.TRICK_NO]) < 10 for r in s.recalled()[:-1])


# Seeds whose states include ones the rejection alone does not resample (ResampleError
# without the chain, at its 500 tries: volený states 9, 13, 18, 21, 22 of 24, licitovaný
# state 16).
@pytest.mark.parametrize("params,robot,seed", [
    ({"deals": 3}, "random", 2),
    ({"rules": "licitovany", "deals": 4}, "table", 11),
])
def test_gathered_partie_states_all_resample(params, robot, seed, monkeypatch):
    """24 gathered-partie states (from the second deal on, early-ended deals among them)
    each resample for a seat (the seats in turn) to a state of its information set, with
    a history that replays legally; some need the chain."""
    game = pyspiel.load_game("mariash", params)
    chained = []
    chain = O.MariashState._relabel_chain

    def spy(self, player, rng):
        chained.append(player)
        return chain(self, player, rng)

    monkeypatch.setattr(O.MariashState, "_relabel_chain", spy)
    monkeypatch.setattr(O, "RELABEL_STEPS", 300)  # its states are correct at any length
    # Rejection gives up after 50 worlds, not 500: the states it cannot resample cost 500
    # futile tries each (two thirds of the test); with 50 it still resamples most of
    # them (volený 13 of 24, licitovaný 22), the chain the rest.
    monkeypatch.setattr(O, "RESAMPLE_TRIES", 50)
    rng = np.random.default_rng(seed)
    states = _table_states(game, 24, seed, robot=robot)
    assert sum(_early_ended(s) for s in states) >= 6
    for i, s in enumerate(states):
        p = i % 3
        r = s.resample_from_infostate(p, rng.random)
        _check_resampled(game, s, r, p, rng)
    assert 0 < len(chained) < len(states)  # both ways


def test_chain_stays_in_the_information_set_and_moves(monkeypatch):
    """The chain alone (from the real state): every state it returns has the seat's
    information state and a history that replays legally, and it moves away from the
    real state (the hidden cards redrawn)."""
    monkeypatch.setattr(O, "RELABEL_STEPS", 300)
    game = pyspiel.load_game("mariash", {"deals": 2})
    rng = np.random.default_rng(3)
    s = next(t for t in _table_states(game, 30, 5)
             if t.current_player() >= 0 and len(t.recalled()) == 2)
    p = (s.current_player() + 1) % 3
    moved = []
    for k in range(6):
        r = s._relabel_chain(p, np.random.default_rng(k))
        _check_resampled(game, s, r.clone(), p, rng)
        moved.append(str(r) != str(s))
    assert sum(moved) >= 4
