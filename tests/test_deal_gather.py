"""RULES.md §2, §12: the gathered deck of a finished deal, checked against a plain
Python reading of the rule on deals of every kind of ending (played out, conceded,
decided early, laid down), and a permutation even from a corrupted state."""

from __future__ import annotations

import numpy as np

from mariash_env.core import state as S
from mariash_env.core.deal import gathered_deck
from mariash_env.core.engine import apply_action
from mariash_env.vector import VectorEnv, random_legal_actions


def reference_gather(st: np.ndarray) -> list[int]:
    """§2: piles bottom to top per seat (forehand, middlehand, dealer): the actor's talon
    in discard order, its tricks in the order taken, after a lay-down the claimed hands,
    then the cards left in hand in dealt order; the deck from the top is the stack
    reversed."""
    dealt = [0] * 32
    for c in range(32):
        dealt[int(st[S.POS + c])] = c

    def in_dealt_order(m: int) -> list[int]:
        return [c for c in dealt if (m >> c) & 1]

    stack: list[int] = []
    for k in range(3):
        seat = (int(st[S.FOREHAND]) + k) % 3
        if seat == st[S.ACTOR] and st[S.CONTRACT] != S.C_NONE and st[S.DISC + 1] >= 0:
            stack += [int(st[S.DISC]), int(st[S.DISC + 1])]
        for t in range(10):
            if st[S.TWIN + t] == seat:
                stack += [int(st[S.TRICKS + 3 * t + j]) for j in range(3)]
        if st[S.CLAIMER] == seat:
            for j in range(3):
                stack += in_dealt_order(int(S.getm(st, S.CLAIM_HANDS + (seat + j) % 3)))
        stack += in_dealt_order(int(S.getm(st, S.HAND + seat)))
    return stack[::-1]


def test_gathered_deck_matches_the_rule_on_every_kind_of_ending():
    env = VectorEnv(256, seed=11, observations=False)
    step = env.reset()
    rng = np.random.default_rng(11)
    ends: dict[int, int] = {}
    for _ in range(150):
        actions = random_legal_actions(step.mask, rng)
        states = env.copy_states()
        for i in range(0, 256, 3):
            st = states[i]
            if apply_action(st, env.rules_vector, actions[i]):
                want = reference_gather(st)
                assert sorted(want) == list(range(32))
                assert gathered_deck(st).tolist() == want
                ends[int(st[S.END])] = ends.get(int(st[S.END]), 0) + 1
        step = env.step(actions)
    for end in (S.END_PLAYED, S.END_CONCEDED, S.END_BROKEN, S.END_LAID):
        assert ends.get(end, 0) > 0, f"no deal ended with {S.END_NAMES[end]}: {ends}"


def test_gathered_deck_stays_a_permutation_of_a_corrupted_state():
    env = VectorEnv(64, seed=5, observations=False)
    env.reset()
    rng = np.random.default_rng(5)
    base = env.copy_states()
    for _ in range(400):
        st = base[rng.integers(64)].copy()
        st[S.TRICKS:S.TRICKS + 30] = rng.integers(-1, 40, 30)
        st[S.TWIN:S.TWIN + 10] = rng.integers(-1, 3, 10)
        st[S.HAND:S.HAND + 3] = rng.integers(-2**31, 2**31, 3)
        st[S.CLAIM_HANDS:S.CLAIM_HANDS + 3] = rng.integers(-2**31, 2**31, 3)
        st[S.CLAIMER] = rng.integers(-1, 3)
        st[S.POS:S.POS + 32] = rng.integers(-5, 40, 32)
        assert sorted(gathered_deck(st).tolist()) == list(range(32))
    # 32 cards gathered, one of them the code 32 in card 0's place: no card, so the deck is
    # repaired (a 32 taken for card 0, 32 & 31, would pass as a whole deck)
    st = base[0].copy()
    seat = next(s for s in range(3) if S.getm(st, S.HAND + s) & 1)
    hand = int(S.getm(st, S.HAND + seat))
    a, b = [c for c in range(1, 32) if hand >> c & 1][:2]
    S.setm(st, S.HAND + seat, hand & ~(1 | 1 << a | 1 << b))
    st[S.TRICKS:S.TRICKS + 3] = [32, a, b]
    st[S.TWIN] = seat
    assert sorted(gathered_deck(st).tolist()) == list(range(32))
