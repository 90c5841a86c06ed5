"""OpenSpiel's policy-gradient agents (A2C, PyTorch) learn single deals of mariáš by
self-play through OpenSpiel's ``rl_environment``, then play in the project's arena.

::

    python examples/openspiel_policy_gradient.py --seconds 180 --eval 200

The game is ``pyspiel.load_game("mariash")`` (:mod:`mariash_env.openspiel`); the agents
read its observation tensor (``ObservationType.OBSERVATION``), which is the project's
observation, so the trained network plays in the duplicate arena as an ordinary batch
robot (greedy over the legal actions) against the random and the table robot.  (The
information-state tensor is the whole partie's history, ``deals x 964`` floats.)  Rewards are groše
(the deal's settlement), used unscaled; gradients are clipped.

Measured on the project's 2-core machine (shared with other jobs), torch on one thread:
``python examples/openspiel_policy_gradient.py --seconds 30 --eval 100``: after 30 s of
self-play the A2C agent scored +3.7 groše per deal in the duplicate arena (100 deals x 6
seatings), +21.3 [+18.4, +24.4] ahead of the random robot and -10.1 [-13.1, -7.7] behind the
table robot (47 s wall in all).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import policy_gradient

from mariash_env.arena import duplicate_match
from mariash_env.openspiel import load_game
from mariash_env.robots import PolicyRobot, RandomRobot, TableRobot
from mariash_env.rules import make_rules


def train(seconds: float, seed: int, hidden: int) -> tuple[list, int]:
    """Self-play A2C, one agent per seat, for ``seconds``; returns (agents, episodes)."""
    # One thread: on a few cores torch's default pool fights the environment's process and
    # makes small networks 6-8x slower (issue #31); raise it for big networks on big machines.
    torch.set_num_threads(1)
    np.random.seed(seed)  # OpenSpiel's agents sample with np.random
    torch.manual_seed(seed)
    game = load_game(make_rules(deals=1))
    env = rl_environment.Environment(
        game, seed=seed, observation_type=rl_environment.ObservationType.OBSERVATION)
    size = env.observation_spec()["info_state"][0]
    n_actions = env.action_spec()["num_actions"]
    agents = [
        policy_gradient.PolicyGradient(
            p, size, n_actions, loss_str="a2c", hidden_layers_sizes=(hidden,),
            batch_size=16, max_global_gradient_norm=10.0,
        )
        for p in range(3)
    ]
    t0 = time.perf_counter()
    episodes = 0
    while time.perf_counter() - t0 < seconds:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
        for a in agents:
            a.step(ts)
        episodes += 1
    return agents, episodes


def greedy_policy(agent):
    """A batch policy ``(obs [N, 900], mask [N, 115]) -> actions`` from an agent's network."""
    net = agent.policy_logits_network

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = net(torch.as_tensor(np.asarray(obs, dtype=np.float32))).numpy()
        return np.where(np.asarray(mask) > 0, logits, -np.inf).argmax(axis=1)

    return act


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=180.0, help="training time")
    ap.add_argument("--eval", type=int, default=200, help="arena deals (duplicate)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=128)
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.eval < 1 or args.hidden < 1:
        ap.error("--seconds must be > 0, --eval and --hidden >= 1")
    agents, episodes = train(args.seconds, args.seed, args.hidden)
    print(f"trained {episodes} self-play deals in {args.seconds:g} s")
    policy = greedy_policy(agents[0])
    res = duplicate_match(
        {"os_a2c": lambda: PolicyRobot(policy, "os_a2c"), "random": RandomRobot,
         "table": TableRobot},
        deals=args.eval, seed=args.seed + 1, progress=False,
    )
    print(f"arena, groše per deal over {args.eval} deals:")
    print(res.table())


if __name__ == "__main__":
    main()
