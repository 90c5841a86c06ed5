"""OpenSpiel's policy-gradient agents (A2C, PyTorch) learn single deals of mariáš by
self-play through OpenSpiel's ``rl_environment``, then play in the project's arena.

::

    python examples/openspiel_policy_gradient.py --episodes 3000 --eval 200

The game is ``pyspiel.load_game("mariash")`` (:mod:`mariash_env.openspiel`); the agents
read its observation tensor (``ObservationType.OBSERVATION``), which is the project's
observation.  One agent per seat: seat 0 deals every one-deal game, so ``agents[p]``
learns the role ``p`` places after the dealer (0 the dealer, 1 forehand, who chooses
trumps and the contract, 2 the third seat).  In the arena :func:`role_policy` plays each
seat with the agent trained in its role (read from the observation), greedy over the
legal actions, as an ordinary batch robot against the random and the table robot.
(The information-state tensor is the whole partie's history, ``deals x 964`` floats.)
Rewards are groše (the deal's settlement), used unscaled; gradients are clipped.  The
environment is :class:`~mariash_env.openspiel.TurnRewardEnvironment`, which with
``--deals N`` credits every seat each deal's payment (for one deal it is
``rl_environment``'s own).  ``--episodes`` trains for so many games, whatever the
machine's speed (``--seconds`` stops by the clock instead).

Measured on the project's 2-core machine (shared with other jobs), torch on one thread:
``--episodes 3000 --eval 200`` (68 s of training): os_a2c - random +58.7 [+51.6, +65.8],
os_a2c - table -19.2 [-23.1, -15.9] groše per deal, as forehand betl in 97% of its
contracts; ``--episodes 10000`` (197 s): +39.5 [+30.3, +47.8] and -15.0 [-23.1, -9.3],
suit games in 87% of its contracts, 30.9% of them won (docs/openspiel.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import policy_gradient

from mariash_env.arena import duplicate_match
from mariash_env.games.voleny.observe import OBS_LAYOUT
from mariash_env.openspiel import TurnRewardEnvironment, load_game
from mariash_env.robots import PolicyRobot, RandomRobot, TableRobot
from mariash_env.rules import make_rules

# The observation's slots of the dealer's seat relative to the player (one-hot).
DEALER = next(start for name, start, _, _ in OBS_LAYOUT if name == "dealer")


def train(seconds: float, seed: int, hidden: int, deals: int = 1,
          episodes: int | None = None) -> tuple[list, int]:
    """Self-play A2C for ``seconds`` (or ``episodes`` games), one agent per seat; returns
    (agents, games played).  Seat 0 deals the first deal, so in one-deal games
    ``agents[p]`` learns the role ``p`` places after the dealer: 0 the dealer, 1 forehand
    (trumps and the contract), 2 the third seat (:func:`role_policy` plays them so)."""
    # One thread: on a few cores torch's default pool fights the environment's process and
    # makes small networks 6-8x slower (issue #31); raise it for big networks on big machines.
    torch.set_num_threads(1)
    np.random.seed(seed)  # OpenSpiel's agents sample with np.random
    torch.manual_seed(seed)
    game = load_game(make_rules(deals=deals))
    # TurnRewardEnvironment: with deals > 1 every seat gets each deal's payment (the plain
    # rl_environment shows it to the next player to move only); for one deal the same.
    # A game object ignores rl_environment's seed=: the chance sampler takes it.
    env = TurnRewardEnvironment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed),
        observation_type=rl_environment.ObservationType.OBSERVATION)
    size = env.observation_spec()["info_state"][0]
    n_actions = env.action_spec()["num_actions"]
    agents = [
        policy_gradient.PolicyGradient(
            p, size, n_actions, loss_str="a2c", hidden_layers_sizes=(hidden,),
            batch_size=16, max_global_gradient_norm=10.0,
        )
        for p in range(game.num_players())
    ]
    t0 = time.perf_counter()
    played = 0
    while (played < episodes if episodes is not None
           else time.perf_counter() - t0 < seconds):
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
        for a in agents:
            a.step(ts)
        played += 1
    return agents, played


def role_policy(agents: list):
    """A batch policy ``(obs [N, 900], mask [N, 115]) -> actions`` (greedy over the legal
    actions) playing each row with the network of the agent trained in that row's role:
    the seat's place after the dealer, read from the observation's ``dealer`` slots (the
    dealer's seat relative to the player: 0 itself, 1 the next, 2 the previous).

    Every agent meets one role in training (seat 0 deals every one-deal game), so no
    single agent's network may play every seat: ``agents[0]``'s never chose trumps or a
    contract, and played in every seat of the arena it named durch in all its contracts
    and won none (an RL audit)."""
    nets = [a.policy_logits_network for a in agents]

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(mask)
        role = (-obs[:, DEALER:DEALER + 3].argmax(axis=1)) % 3
        out = np.empty(len(obs), dtype=np.int64)
        with torch.no_grad():
            for p, net in enumerate(nets):
                rows = np.flatnonzero(role == p)
                if rows.size:
                    logits = net(torch.as_tensor(obs[rows])).numpy()
                    out[rows] = np.where(mask[rows] > 0, logits, -np.inf).argmax(axis=1)
        return out

    return act


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=180.0, help="training time")
    ap.add_argument("--eval", type=int, default=200, help="arena deals (duplicate)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--episodes", type=int, default=None,
                    help="train for this many games instead of --seconds")
    ap.add_argument("--deals", type=int, default=1, help="deals of a training partie")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.eval < 1 or args.hidden < 1 or args.deals < 1 or (
            args.episodes is not None and args.episodes < 1):
        ap.error("--seconds must be > 0, --eval, --hidden, --deals and --episodes >= 1")
    t0 = time.perf_counter()
    agents, episodes = train(args.seconds, args.seed, args.hidden, args.deals, args.episodes)
    what = "deals" if args.deals == 1 else f"parties of {args.deals} deals"
    print(f"trained {episodes} self-play {what} in {time.perf_counter() - t0:.0f} s")
    policy = role_policy(agents)  # each seat's role played by the agent trained in it
    res = duplicate_match(
        {"os_a2c": lambda: PolicyRobot(policy, "os_a2c"), "random": RandomRobot,
         "table": TableRobot},
        deals=args.eval, seed=args.seed + 1, progress=False,
    )
    print(f"arena, groše per deal over {args.eval} deals:")
    print(res.table())


if __name__ == "__main__":
    main()
