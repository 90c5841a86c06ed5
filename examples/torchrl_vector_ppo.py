"""TorchRL PPO self-play on the compiled engine (``mariash_env.torchrl_env``), then a
duplicate match against the random robot.

    python examples/torchrl_vector_ppo.py --seconds 100
    python examples/torchrl_vector_ppo.py --iterations 50

One policy plays every seat of ``--envs`` single-deal games (``deals=1``: a deal is an
episode) stepped together by :func:`mariash_env.torchrl_env.torchrl_env`; the actor
samples from a ``MaskedCategorical`` over the ``"action_mask"``.  A transition's return is
the payment its mover receives when the deal ends (undiscounted Monte Carlo; the deals
still running at the end of a rollout are left out), the critic's value is its
baseline, and TorchRL's ``ClipPPOLoss`` makes a few epochs of clipped PPO per rollout.
Then the greedy policy (the most probable legal action) plays a duplicate match against
``random`` in :func:`mariash_env.arena.duplicate_match` (the same deals in every seating)
and the example prints the difference in groše per deal with its 95 % bootstrap CI, and
a last line ``result: diff=... ci_low=... ci_high=...``.  ``--seconds`` trains for so
long; ``--iterations`` for so many PPO iterations instead, whatever the machine's speed.

Figures reached on the project's 2-core machine (shared with other jobs), ``--seconds
100`` (the default) with the other defaults: 50 iterations of 256 games x 64 steps
(819,200 decisions), then ppo - random ``+85.2`` groše per deal, 95 % CI
``[+79.6, +90.8]``, over 400 duplicate deals x 6 seatings (the random robot plays betl or
durch in 85 % of its contracts and loses them).  The test's ``--iterations 10 --envs 32
--minibatch 256 --seed 11 --eval-deals 200`` (20,480 decisions, about 6 s) already gives
``+74.1 [+67.6, +80.8]``, where the same seed's untrained policy (``--iterations 0``) loses,
``-39.2 [-50.0, -28.3]``.
Needs the ``examples`` extra (``pip install -e '.[examples]'``).
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=100.0, help="training wall time")
    ap.add_argument("--iterations", type=int, default=None,
                    help="train for this many PPO iterations instead of --seconds")
    ap.add_argument("--envs", type=int, default=256, help="games stepped together")
    ap.add_argument("--steps", type=int, default=64, help="steps per rollout")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--minibatch", type=int, default=2048)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--eval-deals", type=int, default=400, help="duplicate deals vs random")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if (args.seconds < 0 or args.envs < 1 or args.steps < 2 or args.epochs < 1
            or args.minibatch < 1 or args.eval_deals < 0
            or (args.iterations is not None and args.iterations < 0)):
        print("error: --seconds >= 0, --iterations >= 0, --envs >= 1, --steps >= 2, "
              "--epochs >= 1, --minibatch >= 1 and --eval-deals >= 0 are needed",
              file=sys.stderr)
        return 2
    try:
        import torch
        from tensordict.nn import TensorDictModule
        from torch import nn
        from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
        from torchrl.objectives import ClipPPOLoss
    except ImportError as e:  # a missing package, or one of an incompatible version
        from mariash_env.extras import install_hint

        print(f"error: {e} ({install_hint('examples')})", file=sys.stderr)
        return 2
    import numpy as np

    from mariash_env.arena import duplicate_match
    from mariash_env.robots.base import PolicyRobot, RandomRobot
    from mariash_env.torchrl_env import torchrl_env

    # One thread: the networks are small, so torch's intra-op threads only contend with
    # the engine (and, on the 2-core machine, with everything else): with the default
    # thread count the same training runs several times slower (issue #31).
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    env = torchrl_env(args.envs, seed=args.seed, deals=1)
    n_obs, n_act = env.obs_size, env.n_actions
    scale = 10.0  # groše -> the critic's units

    def mlp(n_out: int) -> nn.Module:
        return nn.Sequential(nn.Linear(n_obs, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                             nn.Linear(256, n_out))

    policy_net = mlp(n_act)
    actor = ProbabilisticActor(
        TensorDictModule(policy_net, ["observation"], ["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},
        out_keys=["action"], distribution_class=MaskedCategorical,
        return_log_prob=True, log_prob_key="action_log_prob",
    )
    critic = ValueOperator(mlp(1), in_keys=["observation"], out_keys=["state_value"])
    loss = ClipPPOLoss(actor, critic, clip_epsilon=0.2, entropy_coeff=0.01,
                       normalize_advantage=True)
    loss.set_keys(sample_log_prob="action_log_prob", value="state_value")
    optim = torch.optim.Adam(loss.parameters(), lr=args.lr)

    td = env.reset()
    t0 = time.monotonic()
    it = decisions = 0
    while (it < args.iterations if args.iterations is not None
           else time.monotonic() - t0 < args.seconds):
        steps = []
        with torch.no_grad():
            for _ in range(args.steps):
                actor(td)
                data, td = env.step_and_maybe_reset(td)
                steps.append(data)
        batch = torch.stack(steps, dim=1)  # [envs, steps]
        decisions += batch.numel()
        # The mover's return: the payment of its deal, found walking back from the end.
        reward, done = batch["next", "reward"], batch["next", "done"][..., 0]
        seat = batch["seat"]
        fut = torch.zeros_like(reward[:, 0])
        known = torch.zeros_like(done[:, 0])
        ret = torch.zeros(seat.shape)
        valid = torch.zeros_like(done)
        for t in reversed(range(args.steps)):
            fut = torch.where(done[:, t, None], reward[:, t], fut)
            known = known | done[:, t]
            ret[:, t] = fut.gather(1, seat[:, t, None])[:, 0] / scale
            valid[:, t] = known
        flat = batch[valid]
        with torch.no_grad():
            value = critic(flat.select("observation"))["state_value"][:, 0]
        flat["value_target"] = ret[valid][:, None]
        flat["advantage"] = (ret[valid] - value)[:, None]
        for _ in range(args.epochs):
            for idx in torch.randperm(flat.numel()).split(args.minibatch):
                out = loss(flat[idx])
                total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optim.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optim.step()
        it += 1
        if it % 10 == 0:
            print(f"iteration {it}: {decisions:,} decisions, "
                  f"{int(done.sum())} deals ended in the last rollout, "
                  f"value loss {float(out['loss_critic'].detach()):.3f}, "
                  f"{time.monotonic() - t0:.0f} s", flush=True)
    print(f"trained {it} PPO iterations ({decisions:,} decisions) in "
          f"{time.monotonic() - t0:.1f} s", flush=True)
    if args.eval_deals == 0:
        return 0

    def greedy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = policy_net(torch.as_tensor(obs[:, :n_obs], dtype=torch.float32))
            logits[~torch.as_tensor(mask, dtype=torch.bool)] = -torch.inf
            return logits.argmax(1).numpy()

    t1 = time.monotonic()
    res = duplicate_match({"ppo": lambda: PolicyRobot(greedy, "ppo"), "random": RandomRobot},
                          deals=args.eval_deals, seed=args.seed + 1, progress=False,
                          batch=min(args.eval_deals, 200))
    print(res.table())
    pair = res.pairwise()[0]
    print(f"evaluated in {time.monotonic() - t1:.1f} s")
    print(f"result: diff={pair['diff']:+.3f} ci_low={pair['ci_low']:+.3f} "
          f"ci_high={pair['ci_high']:+.3f} (ppo - random, groše per deal, "
          f"{args.eval_deals} duplicate deals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
