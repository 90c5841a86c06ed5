"""The endgame and its exact best response (issue #34, mariash_env.research.endgame).

The endgame is a volený deal's last two tricks (RULES.md §6 card play, §7 marriages, §8
laying down, §9 settlement) with the remaining cards dealt by chance.  Checked here: its
deals are states the engine accepts and settles zero-sum; the OpenSpiel game's
information states and the robot's observations are the engine's; OpenSpiel's best
response equals one computed here on the engine alone (backward induction over the
seat's observation histories); a best response never does worse than the robot; the
robot's exact value agrees with OpenSpiel's policy evaluation and with a Monte Carlo on
the batched engine.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from mariash_env.core import state as S  # noqa: E402
from mariash_env.core.engine import apply_action, encode_game, legal_actions  # noqa: E402
from mariash_env.games.voleny.actions import N_ACTIONS  # noqa: E402
from mariash_env.research.endgame import (  # noqa: E402
    Endgame,
    RobotPolicy,
    exact_best_response,
)
from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.vector import VectorEnv  # noqa: E402

SEED = 1100  # a seed whose deal the endgame accepts at once (found by Endgame(1000, 2))


@pytest.fixture(scope="module")
def eg() -> Endgame:
    return Endgame(SEED, tricks=2)


@pytest.fixture(scope="module")
def robots() -> dict[str, Any]:
    return {"table": make_robot("table"), "random": make_robot("random")}


def _hands(states: np.ndarray) -> np.ndarray:
    return states[..., S.HAND:S.HAND + 3].astype(np.int64) & S.MASK32


def test_prefix_and_deals(eg: Endgame) -> None:
    st = eg.prefix
    assert st[S.PHASE] == S.PH_PLAY and st[S.CONTRACT] == S.C_SUIT
    assert st[S.TRICK_NO] == 8 and st[S.TRICK_N] == 0 and st[S.TO_MOVE] == eg.leader
    out = sum(1 << int(c) for c in eg.cards)
    assert eg.cards.size == 6 and int(np.bitwise_or.reduce(_hands(st))) == out
    splits = eg.splits()
    assert splits.shape == (90, S.STATE_SIZE) == (eg.num_deals, S.STATE_SIZE)
    hands = _hands(splits)
    assert len({tuple(h) for h in hands}) == 90  # every deal once
    assert (np.bitwise_or.reduce(hands, axis=1) == out).all()
    assert all(bin(int(m)).count("1") == 2 for m in hands.ravel())
    # Everything but the hands is the prefix; the real deal is one of them.
    rest = np.ones(S.STATE_SIZE, bool)
    rest[S.HAND:S.HAND + 3] = False
    assert (splits[:, rest] == st[rest]).all()
    assert any((row == st).all() for row in splits)
    # The engine's validator takes them; random legal play ends every deal zero-sum in at
    # most six cards (RULES.md §6, §9).
    venv = VectorEnv(90, deals=1, observations=False)
    venv.restore_states(splits)
    step = venv.current()
    rng = np.random.default_rng(0)
    done = np.zeros(90, bool)
    pay = np.zeros((90, 3))
    for _ in range(6):
        legal = step.mask.astype(bool)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        step = venv.step(acts)
        pay[step.deal_done & ~done] = step.rewards[step.deal_done & ~done]
        done |= step.deal_done
    assert done.all() and np.allclose(pay.sum(axis=1), 0) and (pay != 0).any(axis=1).all()


def test_start_states_are_uniform_deals(eg: Endgame) -> None:
    states = eg.start_states(3000, np.random.default_rng(1))
    index = {tuple(h): i for i, h in enumerate(_hands(eg.splits()))}
    counts = np.bincount([index[tuple(h)] for h in _hands(states)], minlength=90)
    assert counts.sum() == 3000 and counts.min() > 0
    # Chi-square with 89 degrees of freedom: far below 150 (p ~ 1e-4) when uniform.
    assert ((counts - 3000 / 90) ** 2 / (3000 / 90)).sum() < 150
    VectorEnv(3000, deals=1, observations=False).restore_states(states)


def _tree(eg: Endgame, every: int = 1):
    """Every decision node of the OpenSpiel game below every ``every``-th deal."""
    game = eg.game()
    root = game.new_initial_state()
    stack = [root.child(i) for i in range(0, eg.num_deals, every)]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        yield s
        stack.extend(s.child(a) for a in s.legal_actions())


def test_information_states_and_observations(eg: Endgame, robots: dict[str, Any]) -> None:
    game = eg.game()
    assert game.num_players() == 3 and game.max_chance_outcomes() == 90
    loaded = pyspiel.load_game("mariash_endgame", {"seed": eg.seed, "tricks": 2})
    assert np.array_equal(loaded.endgame.prefix, eg.prefix)
    venv = VectorEnv(1, deals=1)
    groups: dict[str, set[bytes]] = collections.defaultdict(set)
    pol = RobotPolicy(game, robots["table"])
    for i, s in enumerate(_tree(eg, every=2)):
        p = s.current_player()
        obs, mask = game.ctx.observe(s.st)
        if i % 25 == 0:  # the policy's observation is VectorEnv's
            venv.restore_states(s.st[None].copy())
            step = venv.current()
            assert step.player[0] == p
            assert np.array_equal(step.obs[0], obs) and np.array_equal(step.mask[0], mask)
            assert list(pol.action_probabilities(s).values()) == [1.0]
        groups[s.information_state_string(p)].add(obs.tobytes() + mask.tobytes())
    # One information state: one observation and one set of legal actions.
    assert len(groups) > 45 and all(len(v) == 1 for v in groups.values())


# --- a best response by backward induction on the engine alone -----------------------
class _Brute:
    """The best response of ``seat``, written apart from OpenSpiel: its information state
    is its observations so far (the engine's encoding); every node of the tree is
    visited, and the information states are decided deepest first, each by the action
    with the highest counterfactual-weighted value given the deeper ones (perfect recall:
    what follows a decision lies deeper)."""

    def __init__(self, eg: Endgame, robot: Any, seat: int, uniform: bool) -> None:
        self.rv, self.robot, self.seat, self.uniform = eg.rules_vector, robot, seat, uniform
        self.mask = np.zeros(N_ACTIONS, np.int8)
        self.obs = np.zeros(VectorEnv.obs_size, np.float32)
        self.cache: dict[bytes, int] = {}
        self.nodes: dict[tuple, list] = collections.defaultdict(list)

    def see(self, st: np.ndarray) -> tuple[bytes, list[int]]:
        legal_actions(st, self.rv, self.mask)
        encode_game(st, self.rv, int(st[S.TO_MOVE]), self.obs, False)
        return self.obs.tobytes(), np.flatnonzero(self.mask).tolist()

    def others(self, obs: bytes, legal: list[int]) -> list[tuple[int, float]]:
        if self.uniform:
            return [(a, 1.0 / len(legal)) for a in legal]
        if obs not in self.cache:
            o = np.frombuffer(obs, np.float32)[None]
            self.cache[obs] = int(self.robot.act_batch(o, self.mask[None].copy())[0])
        return [(self.cache[obs], 1.0)]

    def collect(self, st: np.ndarray, seen: tuple, w: float) -> None:
        """Every decision node of the seat with its counterfactual weight."""
        if st[S.PHASE] == S.PH_DONE:
            return
        obs, legal = self.see(st)
        if st[S.TO_MOVE] == self.seat:
            seen = (*seen, obs)
            self.nodes[seen].append((st, w, legal))
            moves = [(a, 1.0) for a in legal]
        else:
            moves = self.others(obs, legal)
        for a, p in moves:
            child = st.copy()
            apply_action(child, self.rv, a)
            self.collect(child, seen, w * p)

    def walk(self, st: np.ndarray, seen: tuple, strat: dict) -> float:
        """The seat's expected payment below ``st`` playing ``strat``."""
        if st[S.PHASE] == S.PH_DONE:
            return float(S.read64(st, S.PAY, 3)[self.seat])
        obs, legal = self.see(st)
        if st[S.TO_MOVE] == self.seat:
            seen = (*seen, obs)
            moves = [(strat[seen], 1.0)]
        else:
            moves = self.others(obs, legal)
        total = 0.0
        for a, p in moves:
            child = st.copy()
            apply_action(child, self.rv, a)
            total += p * self.walk(child, seen, strat)
        return total

    def value(self, worlds: np.ndarray) -> float:
        for w in worlds:
            self.collect(w.copy(), (), 1.0)
        strat: dict[tuple, int] = {}
        for key in sorted(self.nodes, key=len, reverse=True):
            nodes = self.nodes[key]

            def q(a: int, nodes: list = nodes, key: tuple = key) -> float:
                total = 0.0
                for st, w, _ in nodes:
                    child = st.copy()
                    apply_action(child, self.rv, a)
                    total += w * self.walk(child, key, strat)
                return total

            strat[key] = max(nodes[0][2], key=q)
        return sum(self.walk(w.copy(), (), strat) for w in worlds) / len(worlds)


def brute_best_response(eg: Endgame, robot: Any, seat: int, uniform: bool) -> float:
    return _Brute(eg, robot, seat, uniform).value(eg.splits())


@pytest.mark.parametrize("name", ["table", "random"])
def test_exact_best_response(eg: Endgame, robots: dict[str, Any], name: str) -> None:
    robot = robots[name]
    values = eg.robot_values(robot)
    assert abs(values.sum()) < 1e-9  # zero-sum (RULES.md §9)
    for seat in range(3):
        br = exact_best_response(eg, robot, seat)
        assert br == pytest.approx(brute_best_response(eg, robot, seat, name == "random"),
                                   abs=1e-9)
        assert br >= values[seat] - 1e-9
        assert eg.robot_value(robot, seat) == values[seat]


@pytest.mark.parametrize("name", ["table", "random"])
def test_robot_value_matches_openspiel_and_monte_carlo(eg: Endgame, robots: dict[str, Any],
                                                       name: str) -> None:
    from open_spiel.python.algorithms.expected_game_score import policy_value

    robot = robots[name]
    values = eg.robot_values(robot)
    game = eg.game()
    exact = policy_value(game.new_initial_state(), [RobotPolicy(game, robot)] * 3)
    assert np.allclose(exact, values, atol=1e-9)
    # The batched engine from random deals: within five standard errors.
    n = 1200
    venv = VectorEnv(n, deals=1)
    venv.restore_states(eg.start_states(n, np.random.default_rng(2)))
    step = venv.current()
    if hasattr(robot, "begin_deal"):
        robot.begin_deal(3)
    pay = np.zeros((n, 3))
    done = np.zeros(n, bool)
    for _ in range(6):
        acts = np.argmax(step.mask, axis=1)  # a deal over: the next partie's, unused
        live = ~done
        acts[live] = robot.act_batch(step.obs[live], step.mask[live])
        step = venv.step(acts)
        pay[step.deal_done & ~done] = step.rewards[step.deal_done & ~done]
        done |= step.deal_done
    assert done.all()
    se = pay.std(axis=0) / np.sqrt(n) + 1e-12
    assert (np.abs(pay.mean(axis=0) - values) < 5 * se + 1e-9).all()


def test_endgame_observers_refuse_a_view_they_do_not_give(eg: Endgame) -> None:
    """As the "mariash" game's: the observers give a seat's own view only; a public-only,
    all-players or public-less observer is refused by name (it got the seat's own view,
    so a public observer showed that seat's hand)."""
    from tests.helpers import observers_give_the_own_view_only

    s = next(_tree(eg, every=45))
    observers_give_the_own_view_only(eg.game(), s, s.current_player())
