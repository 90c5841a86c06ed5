"""Issue #9's property test: 10^6 random legal decisions across every rule option that
``make_rules`` accepts, with no exception and exact zero-sum payments and scores.

The bulk runs through the batched engine (:class:`mariash_env.vector.VectorEnv`), one
test per ``max_flek`` value (0..20 and None) over the cross product of tariff, killed
seven, marriage order and shuffle, with ``payment_cap`` and ``deals`` (up to
``MAX_DEALS``) taken in turn.  Play is random over the legal actions, biased towards
flek and announcements against so that high flek levels (the large amounts) occur.
After every step each game's running scores must sum to exactly zero (RULES.md §9),
and a deal that ends must change them by exactly its rewards.  A smaller slice runs
through the AEC environment and checks the same against the settlements.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import mariash_env
from mariash_env import actions as A
from mariash_env.core import state as S
from mariash_env.rules import MAX_DEALS, MAX_PAYMENT_CAP
from mariash_env.vector import VectorEnv, random_legal_actions

MAX_FLEKS = [*range(21), None]
CROSS = list(itertools.product(("home", "csm"), (2, 3), ("any", "queen_first"),
                               ("partie", "every_deal")))
CAPS = [None, 1, 7, 100, MAX_PAYMENT_CAP]
DEALS = [1, 2, 3, 12, MAX_DEALS]
N_ENVS, STEPS = 32, 90  # 22 x 16 x 32 x 90 = 1,013,760 decisions (+ 19,200 below)
BOLD = np.zeros(A.N_ACTIONS, dtype=np.int8)
BOLD[[A.FLEK0, A.FLEK0 + 1, A.FLEK0 + 2, A.FLEK0 + 3, A.AGAINST_SEVEN, A.AGAINST_HUNDRED,
      A.ANNOUNCE_STO_SEDMA, A.ANNOUNCE_SEDMA]] = 1


def choose(mask: np.ndarray, rng: np.random.Generator, p: np.ndarray | float) -> np.ndarray:
    """Uniform legal actions, but where a bold one (flek, against, sedma) is legal, one of
    those with probability ``p`` (per row)."""
    a = random_legal_actions(mask, rng)
    bold = mask & BOLD
    has = bold.any(axis=1) & (rng.random(mask.shape[0]) < p)
    if has.any():
        a[has] = random_legal_actions(bold[has], rng)
    return a


def play_batch(max_flek, j: int, combo: tuple, seed: int, n_envs: int = N_ENVS,
               steps: int = STEPS, deals: int | None = None, bold: float | None = None,
               caps: tuple = tuple(CAPS)) -> int:
    tariff, killed_seven, marriage_order, shuffle = combo
    rules = {"tariff": tariff, "killed_seven": killed_seven, "max_flek": max_flek,
             "marriage_order": marriage_order, "shuffle": shuffle,
             "payment_cap": caps[(j + MAX_FLEKS.index(max_flek)) % len(caps)]}
    venv = VectorEnv(n_envs, seed=seed, observations=False,
                     deals=DEALS[j % len(DEALS)] if deals is None else deals, **rules)
    # per game, calm tables to flek wars (or all at ``bold``)
    boldness = np.linspace(0.2, 0.95, n_envs) if bold is None else bold
    rng = np.random.default_rng(seed)
    step = venv.reset()
    ended = 0
    for _ in range(steps):
        before = S.read64(venv.states, S.SCORE, 3)
        step = venv.step(choose(step.mask, rng, boldness))
        scores = S.read64(venv.states, S.SCORE, 3)
        assert not scores.sum(axis=1).any(), (rules, scores[scores.sum(axis=1) != 0])
        done = step.deal_done & ~step.partie_done
        if done.any():
            delta = scores[done] - before[done]
            assert np.array_equal(delta.astype(np.float64), step.rewards[done]), (
                rules, delta, step.rewards[done])
            assert not delta.sum(axis=1).any()
            if rules["payment_cap"] is not None:  # RULES.md §9: the cap bounds A
                assert (np.abs(delta) <= 2 * rules["payment_cap"]).all()
        assert not step.rewards.astype(np.float64).sum(axis=1).any()
        ended += int(step.deal_done.sum())
    assert venv.decisions == n_envs * steps
    return ended


@pytest.mark.parametrize("max_flek", MAX_FLEKS)
def test_random_play_over_every_rule_option_is_exact_and_zero_sum(max_flek):
    ended = 0
    for j, combo in enumerate(CROSS):
        ended += play_batch(max_flek, j, combo, seed=1000 * MAX_FLEKS.index(max_flek) + j)
    assert ended > len(CROSS) * N_ENVS  # deals really end (and parties, with deals <= 3)


def test_unlimited_flek_wars_keep_exact_scores():
    """``max_flek=None`` at the csm tariff with most games in flek wars: one deal can pay
    about 10^9 groše, so a 12-deal partie must keep its scores in 64 bits."""
    play_batch(None, 0, ("csm", 2, "any", "partie"), seed=5, n_envs=64, steps=300, deals=12,
               bold=0.95, caps=(None,))


AEC_OPTIONS = [
    {"max_flek": None, "tariff": "csm", "killed_seven": 3, "shuffle": "partie"},
    {"max_flek": 20, "payment_cap": 7, "marriage_order": "queen_first"},
    {"max_flek": 0, "shuffle": "every_deal", "tariff": "csm"},
    {"max_flek": 4},
]


@pytest.mark.parametrize("options", AEC_OPTIONS)
def test_aec_slice_pays_exact_zero_sum_settlements(options):
    e = mariash_env.env(deals=6, records=False, **options)
    raw = e.unwrapped
    rng = np.random.default_rng(7)
    decisions = 0
    for episode in range(6):
        e.reset(seed=episode)
        totals = np.zeros(3, dtype=np.int64)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"][None, :]
            e.step(int(choose(mask, rng, 0.8)[0]))
            decisions += 1
            info = raw.infos[agent]
            if info["settlement_deal"] >= 0:
                pay = raw.last_settlement["payments"]
                assert sum(pay) == 0 and [raw.rewards[a] for a in raw.possible_agents] == pay
                totals += pay
                if not raw.game.partie_over:
                    assert raw.game.scores == totals.tolist()
        assert raw.game.scores == totals.tolist()
    assert decisions > 500
