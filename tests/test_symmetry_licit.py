"""Suit symmetry of licitovaný mariáš (mariash_env/games/licitovany/symmetry.py): every
permutation of bells, leaves and acorns that keeps hearts maps a deal onto an
equivalent one, from the shuffle on -- the same auction (LICITOVANY.md §3-§4: the
needs of a bid name hearts only in the lepší games), relabelled trumps, helping suit,
discards, lead card and cards (§5-§7), the same exact values and payments (§8-§9).
Moving hearts is not a symmetry (§3: a lepší seven needs the 7 of hearts)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from mariash_env.core import state as S
from mariash_env.core.deal import shuffled_deck
from mariash_env.core.engine import apply_action, legal_actions, start_partie
from mariash_env.games.licitovany import actions as LA
from mariash_env.games.licitovany import symmetry as Y
from mariash_env.games.licitovany.games import G_LEPSI_SEDMA, G_SEDMA
from mariash_env.games.licitovany.observe import LSTATE_OBS_SIZE, encode_licit
from mariash_env.games.licitovany.phases import needs_met
from mariash_env.games.licitovany.worlds import random_licit_position
from mariash_env.games.voleny.symmetry import card_map
from mariash_env.kinds import LICITOVANY, VOLENY
from mariash_env.rules import make_rules
from mariash_env.search import solve
from tests.helpers import step_cap

RULES = make_rules(rules="licitovany")
RV = RULES.vector()


def _mask(st: np.ndarray) -> np.ndarray:
    m = np.zeros(LA.N_ACTIONS, np.int8)
    legal_actions(st, RV, m)
    return m


def _moved(a: int, p: np.ndarray) -> int:
    """The action ``a`` relabelled by ``p``."""
    return int(np.flatnonzero(Y.permute_actions(np.eye(LA.N_ACTIONS, dtype=np.int8)[a], p))[0])


def _encode(st: np.ndarray, seat: int) -> np.ndarray:
    out = np.zeros(LSTATE_OBS_SIZE, np.float32)
    encode_licit(st, seat, out, True)
    return out


def test_the_symmetries_keep_hearts_and_are_the_registrys():
    assert len(Y.PERMS) == 6 and (Y.PERMS[:, 0] == 0).all()
    assert len({tuple(p) for p in Y.PERMS}) == 6 and (Y.PERMS[0] == np.arange(4)).all()
    assert LICITOVANY.load("symmetry") is Y.SYMMETRY
    assert VOLENY.load("symmetry").symmetries is not Y.symmetries
    rng = np.random.default_rng(0)
    drawn = Y.random_symmetries(np.zeros((600, S.STATE_SIZE), np.int32), rng)
    assert {tuple(p) for p in drawn} == {tuple(p) for p in Y.PERMS}


def test_the_suit_actions_move_with_the_suits():
    """trump:b under b -> l is trump:l; helping:h stays; discard, lead and play cards
    move with their suit; bids, fleks and the auction's words keep their index."""
    p = np.array([0, 2, 3, 1])  # b -> l, l -> a, a -> b
    idx = LA.action_index
    assert _moved(idx("trump:b"), p) == idx("trump:l")
    assert _moved(idx("trump:a"), p) == idx("trump:b")
    assert _moved(idx("helping:h"), p) == idx("helping:h")
    assert _moved(idx("helping:l"), p) == idx("helping:a")
    assert _moved(idx("discard:Kb"), p) == idx("discard:Kl")
    assert _moved(idx("lead:7a"), p) == idx("lead:7b")
    assert _moved(idx("play:Ah"), p) == idx("play:Ah")
    assert _moved(idx("play:Tl"), p) == idx("play:Ta")
    for label in ("bid:sedma", "hold", "pass", "fold", "game:betl", "flek:seven", "good",
                  "show"):
        assert _moved(idx(label), p) == idx(label)
    rows = np.random.default_rng(1).random((5, LA.N_ACTIONS))
    back = Y.permute_actions(Y.permute_actions(rows, p), np.argsort(p))
    np.testing.assert_array_equal(back, rows)


def test_moving_hearts_is_refused_and_is_no_symmetry():
    """§3: the lepší sedma needs the 7 of hearts, a plain sedma a 7 of b, l or a: the
    same hand with hearts and bells swapped can bid the one and not the other."""
    with pytest.raises(ValueError, match="keeps hearts"):
        Y.permute_actions(np.zeros(LA.N_ACTIONS), np.array([1, 0, 2, 3]))
    seven_h, seven_b = np.int64(1) << 0, np.int64(1) << 8
    assert needs_met(G_LEPSI_SEDMA, seven_h) and not needs_met(G_LEPSI_SEDMA, seven_b)
    assert needs_met(G_SEDMA, seven_b) and not needs_met(G_SEDMA, seven_h)


@settings(max_examples=25, deadline=None)
@given(seed=st_.integers(0, 10**6), k=st_.integers(1, 5))
def test_a_relabelled_deal_is_the_same_deal_from_the_shuffle(seed, k):
    """A whole deal of random legal actions, from the deck on, replayed on the deck with
    its suits relabelled and each action relabelled: at every step the record is the
    relabelled record (the observations of every seat with it), the legal actions are
    the relabelled ones, and the deal pays the same."""
    p = Y.PERMS[k]
    st = S.new_state()
    S.seed_rng(st, seed)
    deck = shuffled_deck(st)
    ps = st.copy()
    dealer = seed % 3
    start_partie(st, deck, dealer, LICITOVANY.game)
    start_partie(ps, card_map(p)[deck], dealer, LICITOVANY.game)
    rng = np.random.default_rng(seed)
    steps = 0
    tick = step_cap(RULES)
    while True:
        tick()
        np.testing.assert_array_equal(ps, Y.permute_suits(st, p))
        for seat in range(3):
            np.testing.assert_array_equal(_encode(ps, seat), _encode(Y.permute_suits(st, p),
                                                                      seat))
        if st[S.PHASE] == S.PH_DONE:
            break
        m = _mask(st)
        np.testing.assert_array_equal(_mask(ps), Y.permute_actions(m, p))
        a = int(rng.choice(np.flatnonzero(m)))
        apply_action(st, RV, a)
        apply_action(ps, RV, _moved(a, p))
        steps += 1
    assert steps > 0
    for s in range(3):
        assert S.get64(ps, S.PAY + 2 * s) == S.get64(st, S.PAY + 2 * s)


@pytest.mark.parametrize("game", [1, 2, 7, 10, 12])  # sedma, lepší sedma, betl, two sevens
def test_exact_values_move_with_the_cards(game):
    """The solver's value of every legal card of a relabelled endgame is the value of
    the original card (exact play of both sides, §7-§9)."""
    for seed in range(2):
        st = random_licit_position(40 + seed, game=game, plays=21 + seed)
        base = solve(st, RULES, pv=False, all_moves=True).move_values
        for p in Y.PERMS[1:]:
            ps = Y.permute_suits(st, p)
            np.testing.assert_array_equal(_mask(ps), Y.permute_actions(_mask(st), p))
            got = solve(ps, RULES, pv=False, all_moves=True).move_values
            assert got == {_moved(a, p): v for a, v in base.items()}


def test_a_game_without_symmetry_is_refused_by_augmentation(monkeypatch, tmp_path):
    from training import pimc_labels as pl

    monkeypatch.setattr(pl, "kind_of", lambda g: dataclasses.replace(LICITOVANY, symmetry=""))
    monkeypatch.setattr(pl, "label_game", lambda path, game=None: LICITOVANY)
    monkeypatch.setattr(pl, "shard_files", lambda path: [])
    monkeypatch.setattr(pl, "read_settings", lambda path: {"phase": "play"})
    with pytest.raises(pl.LabelError, match="has no suit symmetry.*voleny, licitovany"):
        pl.LabelSet(tmp_path, augment=True)
