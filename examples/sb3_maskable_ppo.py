"""Stable-Baselines3 + sb3-contrib: MaskablePPO in one seat against two table robots.

    python examples/sb3_maskable_ppo.py --seconds 60

Trains for about ``--seconds`` of wall time (or ``--steps`` learner decisions),
then plays ``--eval`` single deals greedily against the same robots and prints
the mean groše per deal of the learner (random play: about -25).  The masks come
from :meth:`SingleAgentEnv.action_masks`, which MaskablePPO calls by itself.
Needs the ``examples`` extra (``pip install -e '.[examples]'``).

Measured on the project's 2-core machine (shared with other jobs), torch on one thread:
``python examples/sb3_maskable_ppo.py --seconds 30 --eval 100`` trained 27,064 decisions
in 30 s (about 900 a second; 690 a second in a run under heavier load) and scored -1.43
groše per deal against the table robots over 100 deals (34 s wall in all).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="training wall time")
    ap.add_argument("--steps", type=int, default=10**9, help="at most this many decisions")
    ap.add_argument("--opponents", default="table", help="robot spec of both opponents")
    ap.add_argument("--eval", type=int, default=20, help="deals played after training")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.steps < 1 or args.eval < 0:
        print("error: --seconds must be > 0, --steps >= 1, --eval >= 0", file=sys.stderr)
        return 2
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import Logger
    except ImportError as e:  # a missing package, or one of an incompatible version
        from mariash_env.extras import install_hint

        print(f"error: {e} ({install_hint('examples')})", file=sys.stderr)
        return 2
    # One thread: on a few cores torch's default pool fights the environment's process and
    # makes small networks 6-8x slower (issue #31); raise it for big networks on big machines.
    torch.set_num_threads(1)
    from mariash_env.single_agent import SingleAgentEnv

    try:
        env = SingleAgentEnv(seat=0, opponents=args.opponents, deals=1)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    class Deadline(BaseCallback):
        def __init__(self, seconds: float) -> None:
            super().__init__()
            self.end = time.monotonic() + seconds

        def _on_step(self) -> bool:
            return time.monotonic() < self.end

    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2,
                        seed=args.seed, device="cpu", verbose=0)
    # A logger without outputs: SB3's default at verbose=0 makes an empty SB3-<time> folder
    # in the temporary directory on every run and never removes it.
    model.set_logger(Logger(folder=None, output_formats=[]))
    t0 = time.monotonic()
    model.learn(total_timesteps=args.steps, callback=Deadline(args.seconds))
    print(f"trained {model.num_timesteps} decisions in {time.monotonic() - t0:.1f} s")

    totals = []
    obs, _ = env.reset(seed=args.seed + 1)
    for _ in range(args.eval):
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
            total += reward
        totals.append(total)
        obs, _ = env.reset()
    if totals:
        print(f"learner vs {args.opponents}: {np.mean(totals):+.2f} groše per deal "
              f"over {len(totals)} deals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
