"""Duplicate evaluation of a learner against robots: the arena's match, as a function.

``duplicate_eval(agent, robot)`` is :func:`mariash_env.arena.duplicate_match` of the two
(the arena is the project's one duplicate-evaluation harness): every deal (a deck
shuffled from ``seed`` and the deal's index, dealt by seat ``i % 3``) is played under
the six seatings of two players (the agent alone in each seat against two copies of the
robot, and the robot alone against two copies of the agent), so the luck of the cards
cancels: with the same robot on both sides every score is 0 (the game is zero-sum).  A
deal's score is the agent's mean groše over its seats; the mean over deals comes with
the arena's 95% bootstrap confidence interval.  So a matchup has one figure, whether it
comes from training, the model card or ``python -m mariash_env.arena``.

``python -m training.evaluate CHECKPOINT_OR_ONNX [--robot random|table] [--deals N]
[--jobs N] [--backend ray [--address A]]`` evaluates a checkpoint (greedy policy) or an
exported ONNX robot; ``--jobs`` and ``--backend`` are the arena's (worker processes, or
Ray actors): where the deals play, not what they score.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mariash_env.arena import MAX_JOBS, ROLES, check_backend, duplicate_match
from mariash_env.arena import bootstrap_ci as arena_bootstrap_ci
from mariash_env.cli import (
    ArgumentParser,
    add_ray_arguments,
    closed_stdout,
    path_error,
    quiet_on_closed_pipe,
)
from mariash_env.games.registry import game_kind
from mariash_env.pools import jobs_above_cores
from mariash_env.robots import PolicyRobot, RandomRobot, Robot, make_robot
from mariash_env.robots import as_robot as robot_of

ActFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

# A seat's role in a deal (the dealer, forehand after it, middlehand): EvalResult.by_role.
SEAT_ROLES = ROLES


@dataclass
class EvalResult:
    """The agent's groše per deal against one robot (duplicate, luck cancelled)."""

    opponent: str
    deals: int
    mean: float
    ci_low: float
    ci_high: float
    std: float
    by_role: dict[str, float]  # mean groše when the agent is dealer / forehand / middlehand
    seconds: float

    def row(self) -> str:
        return (f"{self.mean:+8.3f}  [{self.ci_low:+.3f}, {self.ci_high:+.3f}]  "
                f"{self.deals:6d} deals")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bootstrap_ci(x: np.ndarray, resamples: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``x`` (the arena's estimator); NaN for
    fewer than two values, as the arena's (one value is no spread)."""
    x = np.asarray(x, np.float64)
    if x.size < 2:
        return (math.nan, math.nan)
    if resamples <= 0:
        return (float(x.mean()), float(x.mean()))
    lo, hi = arena_bootstrap_ci(x, n_boot=resamples, alpha=1 - level, seed=seed)
    return float(lo), float(hi)


def as_robot(agent: Any, name: str = "agent") -> Robot:
    """A :class:`~mariash_env.robots.Robot` from a Robot, a PolicyNet (greedy, batched)
    or anything :func:`mariash_env.robots.as_robot` takes (``act_batch``, a callable)."""
    # A PolicyNet exists only once training.networks (torch) is imported: never import
    # torch just to look (evaluating an ONNX robot stays torch-free and fast to start).
    networks = sys.modules.get(f"{__package__}.networks")
    if networks is not None and isinstance(agent, networks.PolicyNet):
        net = agent

        def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            was_training = net.training
            net.eval()
            a = net.greedy(obs, mask)
            net.train(was_training)
            return a

        return PolicyRobot(act, name)
    return robot_of(agent, name)


def as_act_fn(agent: Any) -> ActFn:
    """A callable ``(obs, mask) -> actions`` from a Robot, a PolicyNet or a callable."""
    return as_robot(agent).act_batch


def make_opponent(name: str, seed: int, rules: dict[str, Any] | None = None) -> Robot:
    """A robot by name for the game of ``rules``: 'random' (seeded), or any spec of
    :func:`mariash_env.robots.make_robot` ('table', 'pimc(worlds=8)', 'onnx:PATH')."""
    if name == "random":
        return RandomRobot(seed=seed)
    return make_robot(name, rules=rules)


def duplicate_eval(agent: Any, robot: Any, deals: int = 1000, seed: int = 20240,
                   rules: dict[str, Any] | None = None, num_envs: int = 3000,
                   bootstrap: int = 2000, name: str | None = None,
                   progress: bool = False, jobs: int = 1, backend: str = "process",
                   address: str | None = None) -> EvalResult:
    """The arena's duplicate match of ``agent`` against ``robot`` over ``deals`` deals
    (module docstring); ``num_envs`` games are played together (``num_envs // 6`` deals
    of six seatings per batch); ``progress``: the arena's progress bar (a gate's or a
    card's thousands of deals take minutes).  ``jobs``, ``backend`` and ``address``: the
    arena's worker processes or Ray actors, each handed batches of deals; the result is
    the same.  When a robot plays from a view (``wants_view``: PIMC), every game is
    played alone and each robot reseeded by its deal and seating, so the batch changes
    nothing: there a batch is one deal, and the deals spread over the jobs (a gate of 400
    deals against PIMC was one batch of 400, for one worker)."""
    t0 = time.perf_counter()
    me = as_robot(agent)
    other = as_robot(robot, name or getattr(robot, "name", type(robot).__name__))
    rules = dict(rules or {})
    rules.pop("deals", None)
    batch = 1 if me.wants_view or other.wants_view else max(1, num_envs // 6)
    res = duplicate_match({"agent": lambda: me, "robot": lambda: other}, deals=deals,
                          seed=seed, rules=rules, progress=progress,
                          n_boot=max(bootstrap, 1), batch=batch, jobs=jobs,
                          backend=backend, address=address)
    per_deal = res.per_deal[:, 0]
    if deals > 1 and bootstrap > 0:
        lo, hi = (float(v[0]) for v in res.ci())
    else:
        lo = hi = float(res.means()[0])
    return EvalResult(
        opponent=name or getattr(robot, "name", type(robot).__name__),
        deals=deals, mean=float(res.means()[0]), ci_low=lo, ci_high=hi,
        std=float(per_deal.std(ddof=1)) if deals > 1 else 0.0, by_role=res.by_role(0),
        seconds=time.perf_counter() - t0,
    )


def evaluate_all(agent: Any, opponents: list[str], deals: int, seed: int,
                 rules: dict[str, Any] | None = None, num_envs: int = 3000,
                 bootstrap: int = 2000, progress: bool = False, jobs: int = 1,
                 backend: str = "process", address: str | None = None
                 ) -> list[EvalResult]:
    """:func:`duplicate_eval` against each robot in ``opponents``."""
    return [duplicate_eval(agent, make_opponent(name, seed, rules), deals=deals, seed=seed,
                           rules=rules, num_envs=num_envs, bootstrap=bootstrap, name=name,
                           progress=progress, jobs=jobs, backend=backend, address=address)
            for name in opponents]


def format_table(rows: list[tuple[str, EvalResult]], unit: str = "groše") -> str:
    """A plain-text table of ``(label, result)`` rows (scores in ``unit`` per deal)."""
    wa = max([22] + [len(label) for label, _ in rows])
    wo = max([8] + [len(r.opponent) for _, r in rows])
    # the game's roles (forehand, middlehand, dealer; lízaný's leader and second)
    roles = list(rows[0][1].by_role) if rows else ["forehand", "middlehand", "dealer"]
    cols = [("as forehand" if k == "forehand" else k, k) for k in roles]
    head = (f"{'agent':<{wa}} {'vs':<{wo}} {unit + '/deal':>10}  {'95% CI':<19} {'deals':>6}   "
            + " ".join(f"{name:>{max(8, len(name))}}" for name, _ in cols))
    lines = [head, "-" * len(head)]
    for label, r in rows:
        ci = f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}]"
        lines.append(f"{label:<{wa}} {r.opponent:<{wo}} {r.mean:>+10.3f}  {ci:<19} "
                     f"{r.deals:>6}   " + " ".join(f"{r.by_role[k]:>+{max(8, len(name))}.2f}"
                                                  for name, k in cols))
    return "\n".join(lines)


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m training.evaluate", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a training checkpoint (.pt) or an exported robot (.onnx)")
    ap.add_argument("--robot", action="append",
                    help="opponent robot: random, table, pimc(...), onnx:PATH (repeatable; "
                         "default: random and table)")
    ap.add_argument("--deals", type=int, default=2000,
                    help="duplicate deals against each robot (default 2000)")
    ap.add_argument("--seed", type=int, default=20240, help="the decks' seed (default 20240)")
    ap.add_argument("--num-envs", type=int, default=3000,
                    help="games played together, num_envs // 6 deals a batch (default 3000)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (checkpoints)")
    ap.add_argument("--jobs", type=int, default=1,
                    help=f"the arena's worker processes (or Ray actors), 1..{MAX_JOBS} "
                         f"(default 1); {jobs_above_cores()}, the same result")
    ap.add_argument("--backend", default="process",
                    help="where the jobs run: 'process' (this machine) or 'ray' (Ray actors)")
    add_ray_arguments(ap, "it goes on with fewer")
    args = ap.parse_args(argv)
    robots = args.robot or ["random", "table"]
    try:
        for opt, v, least in (("--deals", args.deals, 1), ("--seed", args.seed, 0),
                              ("--num-envs", args.num_envs, 3), ("--threads", args.threads, 1),
                              ("--jobs", args.jobs, 1)):
            if v < least:
                raise ValueError(f"{opt} {v}: expected an integer >= {least}")
        if args.jobs > MAX_JOBS:
            raise ValueError(f"--jobs {args.jobs}: expected an integer <= {MAX_JOBS}")
        check_backend(args.backend, args.address)
        for name in robots:  # every robot before the first (long) evaluation
            try:
                make_opponent(name, args.seed)
            except (ValueError, TypeError, OSError, ImportError) as e:
                raise ValueError(f"--robot {name!r} cannot be built: {e}") from None
        agent, rules = load_agent(args.model, args.threads)
        for name in robots:  # again for the model's game (licitovaný refuses some)
            try:
                make_opponent(name, args.seed, rules)
            except (ValueError, TypeError, OSError, ImportError) as e:
                raise ValueError(f"--robot {name!r} cannot play the model's game: {e}") from None
    except ValueError as e:  # also CheckpointError and OnnxRobotError
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the model's path refused by the system (e.g. a name too long)
        if closed_stdout(e):
            raise  # stdout's reader gone (| head): quiet_on_closed_pipe's, not a path
        print(f"error: {path_error(e, 'read')}", file=sys.stderr)
        return 2
    if args.backend == "ray":  # joined before the first deal: a bad cluster fails in seconds
        from mariash_env.ray_pool import RayClusterError, join

        try:
            join(args.address, args.ray_timeout)
        except (RayClusterError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    rows = []
    for r in evaluate_all(agent, robots, args.deals, args.seed, rules, args.num_envs,
                          progress=sys.stderr.isatty(), jobs=args.jobs,
                          backend=args.backend, address=args.address):
        rows.append((args.model.rsplit("/", 1)[-1], r))
    print(format_table(rows, game_kind(rules).units))
    return 0


def load_agent(model: str, threads: int = 1) -> tuple[Any, dict[str, Any]]:
    """The agent of a ``.onnx`` robot or a training checkpoint, and its rules."""
    if model.endswith(".onnx"):
        from mariash_env.robots.onnx_robot import OnnxRobot

        agent = OnnxRobot(model)
        return agent, agent.rules
    import torch

    from .checkpoint import CheckpointError, load_policy

    torch.set_num_threads(threads)
    try:
        agent, payload = load_policy(model)
    except CheckpointError as e:
        raise ValueError(str(e)) from None
    return agent, dict(payload["config"]["env"]["rules"])

if __name__ == "__main__":
    sys.exit(main())
