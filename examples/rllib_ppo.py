"""RLlib: PPO of one masked policy shared by the seats, from RLlib's own recipe.

    pip install -e '.[rllib]'
    python examples/rllib_ppo.py --iterations 20 [--players 4]

RLlib's recipe for a PettingZoo game with action masking: its ``PettingZooEnv`` wrapper
over the AEC env and its ``ActionMaskingTorchRLModule``.  The ``rllib`` extra installs
``ray[rllib]``'s requirements except its gymnasium==1.2.2 pin (RLlib 2.60 runs on the
project's gymnasium 1.x), and torch for the RLModule; ``tests/test_rllib.py`` trains this
configuration.

Two things RLlib needs are shipped, and tested, in ``mariash_env.wrappers``:
:func:`~mariash_env.wrappers.rllib_env` renames the observation keys to
``"observations"``/``"action_mask"`` (float32), the layout the masking module reads, and
gives each agent an action space whose ``sample()`` draws a legal action (RLlib's
environment check samples without the mask; any illegal action raises
``IllegalActionError``).  :func:`~mariash_env.wrappers.rllib_seat_returns` reports every
seat's return (``seat_returns_mean``): self-play's ``episode_return_mean`` reads 0
(zero-sum), and RLlib's ``agent_episode_returns_mean`` misses the four-player dealer who
sits out (``docs/pitfalls.md``).  ``--single-agent`` trains seat 0 against two table
robots instead (``mariash_env.single_agent.SingleAgentEnv`` with RLlib's keys).

Figures (the 2-core machine shared with other jobs, load 7-14; torch with one thread,
one env runner, 4,000 env steps an iteration, 256x256 heads): six iterations in 362 s;
iterations 5 and 6 took 26-33 s each (about 120-150 env steps/s, sampling and the PPO
update together), the first ones up to 111 s under the heavier load.  The per-seat
returns of self-play sum to zero (iteration 6: seat 0 +0.0, 1 -6.3, 2 +6.3); no
evaluation against a robot is made here.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20)
    # One env runner: on 2 cores the driver's learner needs the other one.
    ap.add_argument("--env-runners", type=int, default=1)
    ap.add_argument("--players", type=int, default=3, choices=(3, 4),
                    help="4: four-player volený, the dealer sitting out each deal")
    ap.add_argument("--single-agent", action="store_true",
                    help="seat 0 learns against two table robots (no self-play)")
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.env_runners < 0:
        print("error: --iterations must be >= 1 and --env-runners >= 0", file=sys.stderr)
        return 2
    if args.single_agent and args.players != 3:
        print("error: --single-agent plays three players (no --players 4)", file=sys.stderr)
        return 2
    try:
        import torch
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
            ActionMaskingTorchRLModule,
        )
        from ray.tune.registry import register_env
    except ImportError as e:
        from mariash_env.extras import install_hint

        print(f"error: {e} (RLlib: {install_hint('rllib')})", file=sys.stderr)
        return 2

    from mariash_env.single_agent import SingleAgentEnv
    from mariash_env.wrappers import rllib_env, rllib_seat_returns

    # One thread in the driver (its local learner): on a few cores torch's default pool
    # fights the env runners and makes small networks several times slower (issue #31).
    torch.set_num_threads(1)

    model = {"head_fcnet_hiddens": [256, 256], "head_fcnet_activation": "relu"}
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
    config = PPOConfig()
    if args.single_agent:
        # int8 masks are fine: the module takes torch.log(mask), which promotes to float.
        register_env("mariash_seat0", lambda _cfg: SingleAgentEnv(
            seat=0, opponents="table", deals=1, obs_keys=("observations", "action_mask")))
        config = config.environment("mariash_seat0").rl_module(rl_module_spec=module)
    else:
        rules = {"deals": 1} if args.players == 3 else {"deals": 1, "players": 4}
        register_env("mariash", lambda _cfg: PettingZooEnv(rllib_env(**rules)))
        config = (
            config.environment("mariash")
            .multi_agent(policies={"shared"},
                         policy_mapping_fn=lambda agent_id, *a, **kw: "shared")
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
            .callbacks(on_episode_end=rllib_seat_returns)
        )
    config = (
        # RLlib discards a remote runner's samples that take longer than sample_timeout_s
        # (60 s): on a slow or busy machine every iteration then trains on nothing.
        config.env_runners(num_env_runners=args.env_runners, sample_timeout_s=3600.0)
        .training(train_batch_size_per_learner=4000, minibatch_size=256, num_epochs=4,
                  lr=3e-4, gamma=1.0, entropy_coeff=0.01)
    )
    algo = config.build_algo()
    try:
        for i in range(args.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            seats = runners.get("seat_returns_mean") or {"player_0": runners.get(
                "episode_return_mean", float("nan"))}  # single agent: seat 0's return
            print(f"iteration {i + 1}: {runners.get('num_env_steps_sampled_lifetime', 0):.0f} "
                  f"steps in {result.get('time_total_s', 0.0):.0f} s, return per seat "
                  + " ".join(f"{a[-1]}:{v:+.1f}" for a, v in sorted(seats.items())))
    finally:
        algo.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
