"""Speed anchors, timed fairly: random legal play with the cheapest harness on every side.

Every contender is a *runner*: an object whose ``run(seconds)`` plays uniformly random
legal actions for about ``seconds`` of wall time (whole episodes, resumed where the last
slice stopped) and returns ``(decisions, elapsed)``.  A *decision* is one action chosen
by a player; chance outcomes, dummy steps of finished agents and resets are not
counted, but their time is.  The harness is the cheapest one for every side and the
same for all of them: the stdlib :mod:`random` (``random.choice(state.legal_actions())``
for OpenSpiel's decisions and for skat's chance nodes, whose deal is uniform;
``random.choice`` over ``np.flatnonzero(obs["action_mask"])`` for an AEC env).  Skat's
observation is written by OpenSpiel's own observer into its numpy buffer
(``make_observation(game).set_from(state, player)``), not built as a Python list by
``state.observation_tensor`` (2.3x slower: a peer timed through a slower call than its
cheapest is a false figure).

:func:`interleaved` times the runners in slices (default 1.5 s) interleaved across
contenders, ``repeats`` times, and reports the median rate of each, so that a busy
machine slows every contender alike.  :class:`NullAEC` is a do-nothing PettingZoo AEC
env with the spaces of ``mariash_env.env()``: timed behind the same wrappers in the same
loop it is the AEC loop's own ceiling.

Importable as ``scripts.anchors``; runnable as ``python scripts/anchors.py``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np


class Runner:
    """Base of a timed contender: ``run(seconds) -> (decisions, elapsed)``."""

    name = "runner"

    def run(self, seconds: float) -> tuple[int, float]:  # pragma: no cover - interface
        raise NotImplementedError


# --------------------------------------------------------------------------- OpenSpiel


class SkatRunner(Runner):
    """OpenSpiel's C++ ``skat``; with ``with_obs`` the mover's observation too, written by
    OpenSpiel's observer into its buffer (the cheapest way to get it)."""

    def __init__(self, with_obs: bool = False, seed: int = 0) -> None:
        import pyspiel
        from open_spiel.python.observation import make_observation

        self.game = pyspiel.load_game("skat")
        self.observer = make_observation(self.game) if with_obs else None
        self.random = random.Random(seed)
        self.name = "open_spiel skat" + (" + observation" if with_obs else "")

    def run(self, seconds: float) -> tuple[int, float]:
        game = self.game
        observer = self.observer
        choice = self.random.choice
        decisions = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():  # skat's deal is uniform over the cards left
                    state.apply_action(choice(state.legal_actions()))
                    continue
                if observer is not None:
                    observer.set_from(state, state.current_player())
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
            if time.perf_counter() >= deadline:
                break
        return decisions, time.perf_counter() - start


def skat_available() -> bool:
    """Whether OpenSpiel with its ``skat`` game is importable here."""
    try:
        import pyspiel

        pyspiel.load_game("skat")
    except Exception:  # not installed, or skat not compiled into this build
        return False
    return True


# --------------------------------------------------------------------------- AEC


class AECRunner(Runner):
    """Whole episodes through the standard PettingZoo loop (``agent_iter`` / ``last``)."""

    def __init__(self, env, name: str, seed: int = 0) -> None:
        self.env = env
        self.name = name
        self.random = random.Random(seed)
        self.seed = seed

    def episode(self) -> int:
        env = self.env
        choice = self.random.choice
        flatnonzero = np.flatnonzero
        env.reset(seed=self.seed)
        self.seed += 1
        n = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                action = choice(flatnonzero(obs["action_mask"]))
                n += 1
            env.step(action)
        return n

    def run(self, seconds: float) -> tuple[int, float]:
        decisions = 0
        start = time.perf_counter()
        while True:
            decisions += self.episode()
            if time.perf_counter() - start >= seconds:
                break
        return decisions, time.perf_counter() - start


def _null_aec_class():
    from gymnasium import spaces
    from pettingzoo import AECEnv

    from mariash_env.actions import N_ACTIONS
    from mariash_env.core.observe import OBS_SIZE

    class NullAEC(AECEnv):
        """A do-nothing AEC env: three agents take turns for ``length`` decisions.

        Same spaces as ``mariash_env.env()``; ``observe`` returns preallocated arrays
        (a mask with a few legal actions) and ``step`` only does the AEC bookkeeping
        every env needs (rewards, cumulative rewards, turn, termination).
        """

        metadata = {"name": "null_aec_v0", "render_modes": [], "is_parallelizable": False}

        def __init__(self, length: int = 400) -> None:
            super().__init__()
            self.length = length
            self.possible_agents = ["player_0", "player_1", "player_2"]
            self.agents = list(self.possible_agents)
            obs_space = spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
            })
            self.observation_spaces = {a: obs_space for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
            mask = np.zeros(N_ACTIONS, dtype=np.int8)
            mask[82:92] = 1
            self._obs = {"observation": np.zeros(OBS_SIZE, dtype=np.float32),
                         "action_mask": mask}

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def reset(self, seed=None, options=None):
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]
            self._t = 0

        def observe(self, agent):
            return self._obs

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self._t += 1
            if self._t >= self.length:
                self.terminations = {a: True for a in self.agents}
            self.agent_selection = self.possible_agents[self._t % 3]
            self._accumulate_rewards()

    return NullAEC


def null_aec_env(wrapped: bool = True, length: int = 400):
    """The do-nothing AEC env, behind the wrappers of ``mariash_env.env()`` by default."""
    import importlib

    env_module = importlib.import_module("mariash_env.env")  # the module, not env()
    raw = _null_aec_class()(length)
    return env_module._OrderEnforcing(raw) if wrapped else raw


# --------------------------------------------------------------------------- timing


def interleaved(runners: list[Runner], slice_s: float = 1.5, repeats: int = 5,
                log: Callable[[str], None] | None = None) -> dict[str, list[float]]:
    """Rates (decisions/s) of every runner in ``repeats`` rounds of interleaved slices."""
    rates: dict[str, list[float]] = {r.name: [] for r in runners}
    for k in range(repeats):
        for r in runners:
            n, dt = r.run(slice_s)
            rates[r.name].append(n / dt)
            if log:
                log(f"  round {k + 1}/{repeats} {r.name}: {n / dt:,.0f} decisions/s")
    return rates


def median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser, positive

    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slice", type=positive(float), default=1.5,
                        help="seconds per slice (1.5)")
    parser.add_argument("--repeats", type=positive(int), default=5, help="rounds of slices (5)")
    args = parser.parse_args(argv)
    if not skat_available():
        print("error: OpenSpiel (pyspiel) with skat is not installed", file=sys.stderr)
        return 2
    runners: list[Runner] = [SkatRunner(False), SkatRunner(True)]
    rates = interleaved(runners, args.slice, args.repeats,
                        log=lambda s: print(s, file=sys.stderr))
    for name, xs in rates.items():
        print(f"{name:<40} {median(xs):>12,.0f} decisions/s (median of {len(xs)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
