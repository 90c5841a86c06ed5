"""TorchRL: PPO of one policy shared by the three seats, on the PettingZoo env.

    python examples/torchrl_ppo.py --seconds 60

``PettingZooWrapper(mariash_env.env(deals=1, stack_infos=True), use_mask=True,
group_map=ALL_IN_ONE_GROUP)`` puts the three seats in one group "agents"
(``("agents", "observation", "observation")`` float[3, 900],
``("agents", "action_mask")`` bool[3, 115], ``("agents", "mask")``: the seat to
move).  The actor samples from a ``MaskedCategorical``; the seats not to move
have an empty mask, and their action is ignored by the environment, so the
example lets them "choose" action 0 and zeroes their advantage: only the seat
that moved learns from a step.  Each iteration collects ``--frames`` steps,
computes GAE per seat and runs a few epochs of clipped PPO.
Needs the ``examples`` extra (``pip install -e '.[examples]'``).

Measured on the project's 2-core machine (shared with other jobs), torch on one thread:
``python examples/torchrl_ppo.py --seconds 30`` ran 7 PPO iterations of 512 steps in 33 s
(about 110 steps a second through ``PettingZooWrapper``; the value loss fell from 34.7 to
6.3).  It prints no strength figure: ``examples/torchrl_vector_ppo.py`` trains at engine
speed and measures one against the random robot.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="training wall time")
    ap.add_argument("--iterations", type=int, default=10**9, help="at most this many")
    ap.add_argument("--frames", type=int, default=512, help="environment steps per iteration")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.iterations < 1 or args.frames < 16:
        print("error: --seconds must be > 0, --iterations >= 1, --frames >= 16", file=sys.stderr)
        return 2
    try:
        import torch
        from tensordict.nn import TensorDictModule, TensorDictSequential
        from torch import nn
        from torchrl.collectors import Collector
        from torchrl.envs import PettingZooWrapper
        from torchrl.envs.utils import MarlGroupMapType
        from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
        from torchrl.objectives import ClipPPOLoss
    except ImportError as e:  # a missing package, or one of an incompatible version
        from mariash_env.extras import install_hint

        print(f"error: {e} ({install_hint('examples')})", file=sys.stderr)
        return 2
    import mariash_env

    # One thread: on a few cores torch's default pool fights the environment's process and
    # makes small networks 6-8x slower (issue #31); raise it for big networks on big machines.
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    env = PettingZooWrapper(
        mariash_env.env(deals=1, stack_infos=True), use_mask=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, categorical_actions=True, seed=args.seed,
    )
    obs_key = ("agents", "observation", "observation")
    n_obs = env.observation_spec[obs_key].shape[-1]
    n_act = env.full_action_spec["agents", "action"].space.n

    class NonEmpty(nn.Module):
        # A seat not to move has no legal action; let it "take" action 0 (ignored by
        # the environment) so that the masked distribution stays defined.
        def forward(self, mask: torch.Tensor) -> torch.Tensor:
            out = mask.clone()
            out[..., 0] |= ~mask.any(-1)
            return out

    def mlp(n_out: int) -> nn.Module:
        return nn.Sequential(nn.Linear(n_obs, 256), nn.Tanh(), nn.Linear(256, n_out))

    policy_net = TensorDictSequential(
        TensorDictModule(NonEmpty(), [("agents", "action_mask")], [("agents", "legal")]),
        TensorDictModule(mlp(n_act), [obs_key], [("agents", "logits")]),
    )
    actor = ProbabilisticActor(
        policy_net,
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "legal")},
        out_keys=[("agents", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=("agents", "action_log_prob"),
    )
    critic = ValueOperator(mlp(1), in_keys=[obs_key], out_keys=[("agents", "state_value")])
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01,
                       normalize_advantage=False)
    loss.set_keys(
        action=("agents", "action"), sample_log_prob=("agents", "action_log_prob"),
        value=("agents", "state_value"), reward=("agents", "reward"),
        done=("agents", "done"), terminated=("agents", "terminated"),
        advantage=("agents", "advantage"), value_target=("agents", "value_target"),
    )
    loss.make_value_estimator(gamma=1.0, lmbda=0.95)
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
    collector = Collector(env, actor, frames_per_batch=args.frames, total_frames=-1)

    t0 = time.monotonic()
    for it, data in enumerate(collector):
        with torch.no_grad():
            loss.value_estimator(data, params=loss.critic_network_params,
                                 target_params=loss.target_critic_network_params)
        moved = data["agents", "mask"].unsqueeze(-1)
        data["agents", "advantage"] = data["agents", "advantage"] * moved
        deals = int(data["next", "done"].sum())
        reward = float(data["next", "agents", "reward"][..., 0, 0].sum())
        flat = data.reshape(-1)
        for _ in range(4):
            for idx in torch.randperm(flat.numel()).split(128):
                out = loss(flat[idx])
                total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optim.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optim.step()
        collector.update_policy_weights_()
        print(f"iteration {it + 1}: {flat.numel()} steps, {deals} deals ended, "
              f"seat 0 got {reward:+.0f} groše, value loss {float(out['loss_critic']):.2f}")
        if it + 1 >= args.iterations or time.monotonic() - t0 >= args.seconds:
            break
    collector.shutdown()
    print(f"trained {it + 1} PPO iterations in {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
