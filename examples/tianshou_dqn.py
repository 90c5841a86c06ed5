"""Tianshou 2.x: masked DQN in one seat against two table robots.

    python examples/tianshou_dqn.py --seconds 60

The learner's view is :class:`mariash_env.single_agent.SingleAgentEnv` with
``obs_keys=("obs", "mask")``: Tianshou's DQN reads ``batch.obs.obs`` as the
network input and ``batch.obs.mask`` (bool, Tianshou's dtype) to mask both the greedy
and the epsilon-random actions.  The replay buffer is first filled with 256 random legal
actions by Tianshou's masked random policy, which reads the same mask: not by
``collect(random=True)``, which samples ``action_space.sample()``, legal only where the
space is the env's own (``DummyVectorEnv``; a ``SubprocVectorEnv`` hands over a plain
``Discrete`` copy).  Each epoch collects ``--steps`` decisions into the buffer and tests on
``--eval`` single deals; training stops after about ``--seconds``.  ``--subproc`` runs
the environments in worker processes (``SubprocVectorEnv``).  Needs the ``examples``
extra (``pip install -e '.[examples]'``).

Measured on the project's 2-core machine (shared with other jobs), torch on one thread:
``python examples/tianshou_dqn.py --seconds 30 --eval 20`` trained 35 s, 3,328 decisions in
the replay buffer, and scored -11.75 groše per deal against the table robots over 20 deals
(94 s wall in all, imports and the tests included).
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="training wall time")
    ap.add_argument("--epochs", type=int, default=10**6, help="at most this many epochs")
    ap.add_argument("--steps", type=int, default=1000, help="decisions collected per epoch")
    ap.add_argument("--opponents", default="table", help="robot spec of both opponents")
    ap.add_argument("--eval", type=int, default=10, help="test deals after each epoch")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--subproc", action="store_true",
                    help="environments in worker processes (SubprocVectorEnv)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.epochs < 1 or args.steps < 10 or args.eval < 1:
        print("error: --seconds must be > 0, --epochs >= 1, --steps >= 10, --eval >= 1",
              file=sys.stderr)
        return 2
    try:
        import torch
        from tianshou.algorithm import DQN
        from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
        from tianshou.algorithm.optim import AdamOptimizerFactory
        from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
        from tianshou.data import Collector, VectorReplayBuffer
        from tianshou.env import DummyVectorEnv, SubprocVectorEnv
        from tianshou.trainer import OffPolicyTrainerParams
        from tianshou.utils.net.common import Net
    except ImportError as e:  # a missing package, or one of an incompatible version
        from mariash_env.extras import install_hint

        print(f"error: {e} ({install_hint('examples')})", file=sys.stderr)
        return 2
    from mariash_env.single_agent import SingleAgentEnv

    def make() -> SingleAgentEnv:
        return SingleAgentEnv(seat=0, opponents=args.opponents, obs_keys=("obs", "mask"),
                              deals=1)

    try:
        probe = make()
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # One thread: on a few cores torch's default pool fights the environment's process and
    # makes small networks 6-8x slower (issue #31); raise it for big networks on big machines.
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    vector_env = SubprocVectorEnv if args.subproc else DummyVectorEnv
    train_envs = vector_env([make for _ in range(2)])
    test_envs = vector_env([make])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1000)

    n_obs = probe.observation_space["obs"].shape[0]
    net = Net(state_shape=n_obs, action_shape=probe.action_space.n, hidden_sizes=[256, 256])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=probe.action_space,
        observation_space=probe.observation_space, eps_training=0.1, eps_inference=0.0,
    )
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=1.0,
                    n_step_return_horizon=1, target_update_freq=200)
    buffer = VectorReplayBuffer(20_000, len(train_envs))
    train_collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector(algorithm, test_envs)
    # Warm-up: random legal actions (the mask in obs.mask) into the same buffer.
    warm_up = Collector(MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space),
                        train_envs, buffer)
    warm_up.reset()
    warm_up.collect(n_step=256)
    train_collector.reset(reset_buffer=False)

    deadline = time.monotonic() + args.seconds
    t0 = time.monotonic()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector, test_collector=test_collector,
            max_epochs=args.epochs, epoch_num_steps=args.steps,
            collection_step_num_env_steps=32, test_step_num_episodes=args.eval,
            batch_size=64, update_step_num_gradient_steps_per_sample=0.25,
            stop_fn=lambda _mean_reward: time.monotonic() >= deadline,
            verbose=False, show_progress=False,
        )
    )
    test = test_collector.collect(n_episode=args.eval)
    print(f"trained {result.timing.total_time:.1f} s ({time.monotonic() - t0:.1f} s wall), "
          f"{len(buffer)} decisions in the replay buffer")
    print(f"learner vs {args.opponents}: {test.returns_stat.mean:+.2f} groše per deal over "
          f"{test.n_collected_episodes} deals")
    train_envs.close()
    test_envs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
