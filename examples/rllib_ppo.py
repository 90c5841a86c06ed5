"""RLlib (a recipe, not run in CI): PPO of one masked policy shared by the three seats.

    python -m venv .venv-rllib && .venv-rllib/bin/pip install -e . "ray[rllib]==2.60.0" torch
    .venv-rllib/bin/python examples/rllib_ppo.py --iterations 20

RLlib gets its own virtual environment: ``ray[rllib]`` is a large install and pins
its own gymnasium, so it is not part of the ``examples`` extra (plain ``ray``, for
training's ``--backend ray``, is the ``ray`` extra).

Two things RLlib needs are shipped, and tested, in ``mariash_env.wrappers``:
:func:`~mariash_env.wrappers.rllib_env` renames the observation keys to
``"observations"``/``"action_mask"`` (float32), the layout RLlib's
``ActionMaskingTorchRLModule`` reads, and gives each agent an action space whose
``sample()`` draws a legal action (RLlib's environment check samples without the
mask; any illegal action raises ``IllegalActionError``).  RLlib's own
``PettingZooEnv`` wrapper turns the turn-based AEC env into its multi-agent env:
only the seat to move gets an observation, and every seat its reward when a deal
ends.  ``--single-agent`` trains seat 0 against two table robots instead
(``mariash_env.single_agent.SingleAgentEnv`` with RLlib's keys).

No figures: ``ray[rllib]`` does not install beside the project's pins (it pins
gymnasium 1.2.2), so this recipe was not run here.  Self-play's ``episode_return_mean``
reads 0 (zero-sum): read the per-agent returns (``docs/pitfalls.md``).
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--env-runners", type=int, default=2)
    ap.add_argument("--single-agent", action="store_true",
                    help="seat 0 learns against two table robots (no self-play)")
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.env_runners < 0:
        print("error: --iterations must be >= 1 and --env-runners >= 0", file=sys.stderr)
        return 2
    try:
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
            ActionMaskingTorchRLModule,
        )
        from ray.tune.registry import register_env
    except ImportError as e:
        print(f"error: {e} (RLlib: pip install 'ray[rllib]==2.60.0')", file=sys.stderr)
        return 2
    import torch

    from mariash_env.single_agent import SingleAgentEnv
    from mariash_env.wrappers import rllib_env

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
        register_env("mariash", lambda _cfg: PettingZooEnv(rllib_env(deals=1)))
        config = (
            config.environment("mariash")
            .multi_agent(policies={"shared"},
                         policy_mapping_fn=lambda agent_id, *a, **kw: "shared")
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        )
    config = (
        config.env_runners(num_env_runners=args.env_runners)
        .training(train_batch_size_per_learner=4000, minibatch_size=256, num_epochs=4,
                  lr=3e-4, gamma=1.0, entropy_coeff=0.01)
    )
    algo = config.build_algo()
    try:
        for i in range(args.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            print(f"iteration {i + 1}: episode return mean "
                  f"{runners.get('episode_return_mean', float('nan')):+.2f}, "
                  f"{runners.get('num_env_steps_sampled_lifetime', 0)} steps")
    finally:
        algo.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
