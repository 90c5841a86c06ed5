"""Benchmark: random playouts (whole single deals) per second through each API, one run.

* PettingZoo AEC ``mariash_env.env(deals=1)``: observation + mask every decision;
* ``VectorEnv`` (``--num-envs`` games, observations on, ``random_legal_actions``);
* OpenSpiel ``pyspiel.load_game("mariash")``: chance draws + decisions, stdlib ``random``;
* search: ``sample_worlds`` (worlds/s at random play positions) and ``solve`` (whole
  card play of a deal at its first card, value + best move).

Each is timed for ``--seconds`` after a warm-up (JIT compilation excluded), one thread.

    python scripts/bench_apis.py [--seconds 5] [--num-envs 1024]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mariash_env.cli import ArgumentParser, positive  # noqa: E402


def _timed(fn, seconds: float) -> tuple[int, float]:
    """Call ``fn()`` (returns units done) until ``seconds`` pass; (units, elapsed)."""
    t0 = time.perf_counter()
    n = 0
    while True:
        n += fn()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n, dt


def aec(seconds: float) -> tuple[int, float]:
    import mariash_env

    env = mariash_env.env(deals=1, records=False)
    rng = random.Random(0)
    seed = iter(range(10**9))

    def one() -> int:
        env.reset(seed=next(seed))
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        return 1

    one()
    return _timed(one, seconds)


def vector(seconds: float, num_envs: int) -> tuple[int, float]:
    from mariash_env.vector import VectorEnv, random_legal_actions

    env = VectorEnv(num_envs, seed=0, deals=1)
    rng = np.random.default_rng(0)
    step = env.reset()

    def chunk() -> int:
        nonlocal step
        done = 0
        for _ in range(20):
            step = env.step(random_legal_actions(step.mask, rng))
            done += int(step.deal_done.sum())
        return done

    chunk()
    return _timed(chunk, seconds)


def openspiel(seconds: float) -> tuple[int, float]:
    import pyspiel

    import mariash_env.openspiel  # noqa: F401  (registers "mariash")

    game = pyspiel.load_game("mariash")
    rng = random.Random(0)

    def one() -> int:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                s.apply_action(rng.choice(s.legal_actions()))
        return 1

    one()
    return _timed(one, seconds)


def sampler(seconds: float) -> tuple[int, float]:
    from mariash_env.core import state as S
    from mariash_env.search import random_position, sample_worlds

    positions = [random_position(i, plays=i % 20) for i in range(50)]
    k = iter(range(10**9))

    def batch() -> int:
        i = next(k)
        st = positions[i % len(positions)]
        sample_worlds(st, int(st[S.TO_MOVE]), 100, i)
        return 100

    batch()
    return _timed(batch, seconds)


def solver(seconds: float) -> tuple[int, float]:
    from mariash_env.search import random_position, solve

    k = iter(range(10**9))

    def one() -> int:
        solve(random_position(10_000 + next(k)), pv=False)
        return 1

    one()
    return _timed(one, seconds)


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(description="random playouts per second through each API")
    ap.add_argument("--seconds", type=positive(float), default=5.0,
                    help="seconds each API is timed after its warm-up (default 5)")
    ap.add_argument("--num-envs", type=positive(int), default=1024,
                    help="games of the VectorEnv run (default 1024)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.num_envs < 1:
        ap.error("--seconds must be > 0 and --num-envs >= 1")
    rows = [
        ("PettingZoo AEC env, random playouts", "deals/s", aec(args.seconds)),
        (f"VectorEnv ({args.num_envs} games), random playouts", "deals/s",
         vector(args.seconds, args.num_envs)),
        ("OpenSpiel game, random playouts (chance + decisions)", "deals/s",
         openspiel(args.seconds)),
        ("search.sample_worlds (100 a call)", "worlds/s", sampler(args.seconds)),
        ("search.solve, whole card play from the first card", "deals/s",
         solver(args.seconds)),
    ]
    print("| API | rate | unit |\n| --- | ---: | --- |")
    for name, unit, (n, dt) in rows:
        print(f"| {name} | {n / dt:,.0f} | {unit} |")


if __name__ == "__main__":
    main()
