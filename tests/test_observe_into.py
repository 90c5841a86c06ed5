"""``core.observe.observe_into`` / ``Game.observe``: the AEC env's fused observation is
exactly ``encode`` plus ``legal_mask`` for every seat, in every phase, and at a deal's end."""

from __future__ import annotations

import numpy as np
import pytest

import mariash_env
from mariash_env.game import Game, IllegalActionError
from tests.helpers import step_cap


def test_game_observe_equals_observation_and_legal_mask():
    game = Game()
    game.new_partie(seed=12)
    rng = np.random.default_rng(12)
    seen_end = False
    for _ in range(400):
        for seat in range(3):
            obs, mask = game.observe(seat)
            np.testing.assert_array_equal(obs, game.observation(seat))
            expected = (np.zeros(115, np.int8) if game.deal_over
                        else game.legal_mask(seat))
            np.testing.assert_array_equal(mask, expected)
            assert mask.any() == (seat == game.to_move and not game.deal_over)
        if game.deal_over:
            seen_end = True
            if not game.next_deal():
                break
            continue
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])
    assert seen_end


def test_env_observe_uses_the_fused_path():
    env = mariash_env.env(deals=1)
    env.reset(seed=3)
    raw = env.unwrapped
    for agent in raw.possible_agents:
        seat = raw.agent_name_mapping[agent]
        o = raw.observe(agent)
        np.testing.assert_array_equal(o["observation"], raw.game.observation(seat))
        np.testing.assert_array_equal(o["action_mask"], raw.game.legal_mask(seat))


# --- Game.check reuses the mask Game.observe computed, while the state is unchanged ---


def _agrees_with_fresh_mask(game: Game) -> None:
    """``check`` accepts exactly the actions a fresh ``legal_mask`` allows."""
    fresh = game.legal_mask()
    for a in range(115):
        if fresh[a] and not game.deal_over:
            assert game.check(a) == a
        else:
            with pytest.raises(IllegalActionError):
                game.check(a)


def _played(seed: int, steps: int) -> Game:
    """A game after at least ``steps`` random actions, in trick play when ``steps`` > 0."""
    game = Game()
    game.new_partie(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    while n < steps or (steps and game.phase_name != "play"):
        if game.deal_over:
            assert game.next_deal()
            continue
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])
        n += 1
    return game


def test_check_uses_the_observed_mask_without_recomputing(monkeypatch):
    import mariash_env.game as G

    calls = []
    real = G.legal_actions
    monkeypatch.setattr(G, "legal_actions", lambda *a: (calls.append(1), real(*a))[1])
    game = _played(5, 3)
    _obs, mask = game.observe(game.to_move)
    a = int(np.flatnonzero(mask)[0])
    calls.clear()
    assert game.check(a) == a and calls == []
    mask[:] = 0  # the caller's array is its own: the remembered mask is a copy
    assert game.check(a) == a and calls == []
    game.observe((game.to_move + 1) % 3)  # another seat's (all-zero) mask is not kept
    assert game.check(a) == a and calls == []
    game.step(a)
    game.check(game.legal_actions()[0])  # stepped: computed afresh
    assert calls


def _mutations():
    """Every way the state can change after observe: (name, function of the game)."""
    from mariash_env.core.engine import apply_action

    def step(g):
        g.step(g.legal_actions()[0])

    def reset(g):
        g.new_partie(seed=99)

    def restore_by_assignment(g):
        g.st = _played(7, 20).st.copy()

    def restore_in_place(g):
        g.st[:] = _played(7, 20).st

    def core_in_place(g):
        apply_action(g.st, g.rv, g.legal_actions()[0])

    def deal_deck(g):
        g.deal_deck(list(reversed(g.deck())), 1)

    def rules_replaced(g):
        g.rv = g.rules.vector().copy()  # same rules, a new vector: recomputed, same mask
        g.st[:] = _played(8, 20).st

    return [step, reset, restore_by_assignment, restore_in_place, core_in_place, deal_deck,
            rules_replaced]


@pytest.mark.parametrize("mutate", _mutations(), ids=lambda f: f.__name__)
def test_observed_mask_is_dropped_after_every_state_change(mutate):
    game = _played(3, 20)  # trick play: the mask changes with every card
    _obs, before = game.observe(game.to_move)
    mutate(game)
    after = game.legal_mask()
    assert not np.array_equal(before, after), "the change must change the legal actions"
    _agrees_with_fresh_mask(game)
    # and the same after observing the new state
    game.observe(game.to_move)
    _agrees_with_fresh_mask(game)


def test_observed_mask_at_a_deal_end_and_after_next_deal():
    game = _played(4, 0)
    rng = np.random.default_rng(4)
    tick = step_cap(game)
    while True:
        tick()
        game.observe(game.to_move)
        legal = game.legal_actions()
        if game.step(legal[rng.integers(len(legal))]):
            break
    _agrees_with_fresh_mask(game)  # the deal is over: nothing is legal
    assert game.next_deal()
    _agrees_with_fresh_mask(game)


# --- Game.step's own fast path: an int index against the observed mask ---


def test_step_uses_the_observed_mask_without_recomputing(monkeypatch):
    import mariash_env.game as G

    calls = []
    real = G.legal_actions
    monkeypatch.setattr(G, "legal_actions", lambda *a: (calls.append(1), real(*a))[1])
    for action_type in (int, np.int64, np.int32, np.uint8):
        game = _played(5, 3)
        _obs, mask = game.observe(game.to_move)
        a = int(np.flatnonzero(mask)[0])
        calls.clear()
        game.step(action_type(a))
        assert calls == [] and game.history[-1][1] == a


@pytest.mark.parametrize("mutate", _mutations(), ids=lambda f: f.__name__)
def test_step_refuses_what_the_changed_state_forbids(mutate):
    # an action the observed mask allowed, illegal once the state changed (by any path),
    # is refused by step as by check, and nothing is applied
    game = _played(3, 20)
    _obs, before = game.observe(game.to_move)
    mutate(game)
    after = game.legal_mask()
    stale = [int(a) for a in np.flatnonzero(before) if not after[a]]
    assert stale, "the change must forbid an action the observed mask allowed"
    st, history = game.st.copy(), list(game.history)
    for a in stale:
        for action in (a, np.int64(a), np.int32(a)):
            with pytest.raises(IllegalActionError):
                game.step(action)
    np.testing.assert_array_equal(game.st, st)
    assert game.history == history
    legal = int(np.flatnonzero(after)[0])
    game.step(legal)  # and what it allows is applied
    assert game.history[-1][1] == legal
