"""Duplicate evaluation on the batched engine: the same deals, the agent in every seat.

Each evaluation deal is dealt once (``VectorEnv(deals=1)``, seeded) and copied into
three games; in game ``j`` the agent sits in seat ``j`` and the robot in the two other
seats.  A deal's score is the agent's mean groše over its three seatings, so the
luck of the cards cancels: with the same robot in all three seats every score is 0
(the game is zero-sum).  The mean over deals comes with a 95% bootstrap confidence
interval.

``python -m training.evaluate CHECKPOINT_OR_ONNX [--robot random|table] [--deals N]``
evaluates a checkpoint (greedy policy) or an exported ONNX robot.
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

from mariash_env.arena import bootstrap_ci as arena_bootstrap_ci
from mariash_env.robots.base import RandomRobot
from mariash_env.vector import VectorEnv

ActFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

# In the first deal of a partie seat 0 deals, so seat 1 is forehand (forhont).
SEAT_ROLES = ("dealer", "forehand", "middlehand")


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
    """Percentile bootstrap interval of the mean of ``x`` (the arena's estimator)."""
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return (math.nan, math.nan)
    if x.size == 1 or resamples <= 0:
        return (float(x.mean()), float(x.mean()))
    lo, hi = arena_bootstrap_ci(x, n_boot=resamples, alpha=1 - level, seed=seed)
    return float(lo), float(hi)


def as_act_fn(agent: Any) -> ActFn:
    """A callable ``(obs, mask) -> actions`` from a Robot, a PolicyNet or a callable."""
    if hasattr(agent, "act_batch"):
        return agent.act_batch
    try:
        import torch

        from .networks import PolicyNet
    except ImportError:  # pragma: no cover
        PolicyNet = None  # noqa: N806
    if PolicyNet is not None and isinstance(agent, PolicyNet):
        net = agent
        dev = next(net.parameters()).device

        def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            was_training = net.training
            net.eval()
            with torch.inference_mode():
                a = net(torch.from_numpy(np.ascontiguousarray(obs)).to(dev),
                        torch.from_numpy(np.ascontiguousarray(mask)).to(dev))[1]
            net.train(was_training)
            return a.cpu().numpy()

        return act
    if callable(agent):
        return agent
    raise TypeError(f"cannot evaluate {type(agent).__name__}: expected a Robot, a PolicyNet "
                    "or a callable (obs, mask) -> actions")


def make_opponent(name: str, seed: int) -> Any | None:
    """A robot by name: 'random', 'table', or any spec of ``mariash_env.robots.make_robot``
    ('pimc(worlds=8)', 'onnx:PATH'); ``None`` for 'table' while TableRobot is missing."""
    if name == "random":
        return RandomRobot(seed=seed)
    if name == "table":
        from .rollout import load_table_robot_class, make_robot

        cls = load_table_robot_class()
        return None if cls is None else make_robot(cls, seed)
    try:
        from mariash_env.robots import make_robot as make_named
    except ImportError:  # pragma: no cover - older mariash_env
        raise ValueError(f"unknown robot {name!r}: expected 'random' or 'table'") from None
    return make_named(name)


def duplicate_eval(agent: Any, robot: Any, deals: int = 1000, seed: int = 20240,
                   rules: dict[str, Any] | None = None, num_envs: int = 3000,
                   bootstrap: int = 2000, name: str | None = None) -> EvalResult:
    """Play ``deals`` duplicate deals (3 games each) of ``agent`` against ``robot``."""
    t0 = time.perf_counter()
    act_agent = as_act_fn(agent)
    act_robot = as_act_fn(robot)
    rules = dict(rules or {})
    rules.pop("deals", None)
    per_chunk = max(1, num_envs // 3)
    scores = np.empty((deals, 3), np.float64)
    for start in range(0, deals, per_chunk):
        d = min(per_chunk, deals - start)
        src = VectorEnv(d, seed=0, observations=False, deals=1, **rules)
        src.reset(seed=seed + start)
        states = np.repeat(src.copy_states(), 3, axis=0)
        env = VectorEnv(3 * d, seed=0, deals=1, **rules)
        env.reset(seed=0)
        env.restore_states(states)
        step = env.current()
        agent_seat = np.tile(np.arange(3), d)
        result = np.zeros(3 * d, np.float64)
        active = np.ones(3 * d, bool)
        actions = np.zeros(3 * d, np.int64)
        while active.any():
            mine = active & (step.player == agent_seat)
            theirs = active & ~mine
            actions[:] = np.argmax(step.mask, axis=1)  # finished games: any legal action
            if mine.any():
                actions[mine] = act_agent(step.obs[mine], step.mask[mine])
            if theirs.any():
                actions[theirs] = act_robot(step.obs[theirs], step.mask[theirs])
            step = env.step(actions)
            ended = np.flatnonzero(active & step.deal_done)
            result[ended] = step.rewards[ended, agent_seat[ended]]
            active[ended] = False
        scores[start:start + d] = result.reshape(d, 3)
    per_deal = scores.mean(axis=1)
    lo, hi = bootstrap_ci(per_deal, bootstrap, seed)
    by_role = {SEAT_ROLES[s]: float(scores[:, s].mean()) for s in range(3)}
    return EvalResult(
        opponent=name or getattr(robot, "name", type(robot).__name__),
        deals=deals, mean=float(per_deal.mean()), ci_low=lo, ci_high=hi,
        std=float(per_deal.std(ddof=1)) if deals > 1 else 0.0, by_role=by_role,
        seconds=time.perf_counter() - t0,
    )


def evaluate_all(agent: Any, opponents: list[str], deals: int, seed: int,
                 rules: dict[str, Any] | None = None, num_envs: int = 3000,
                 bootstrap: int = 2000) -> list[EvalResult]:
    """:func:`duplicate_eval` against each available robot in ``opponents``."""
    out = []
    for name in opponents:
        robot = make_opponent(name, seed)
        if robot is None:
            continue
        out.append(duplicate_eval(agent, robot, deals=deals, seed=seed, rules=rules,
                                  num_envs=num_envs, bootstrap=bootstrap, name=name))
    return out


def format_table(rows: list[tuple[str, EvalResult]]) -> str:
    """A plain-text table of ``(label, result)`` rows."""
    wa = max([22] + [len(label) for label, _ in rows])
    wo = max([8] + [len(r.opponent) for _, r in rows])
    head = (f"{'agent':<{wa}} {'vs':<{wo}} {'groše/deal':>10}  {'95% CI':<19} {'deals':>6}   "
            f"{'as forehand':>11} {'middlehand':>10} {'dealer':>8}")
    lines = [head, "-" * len(head)]
    for label, r in rows:
        ci = f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}]"
        lines.append(f"{label:<{wa}} {r.opponent:<{wo}} {r.mean:>+10.3f}  {ci:<19} "
                     f"{r.deals:>6}   {r.by_role['forehand']:>+11.2f} "
                     f"{r.by_role['middlehand']:>+10.2f} {r.by_role['dealer']:>+8.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a training checkpoint (.pt) or an exported robot (.onnx)")
    ap.add_argument("--robot", action="append",
                    help="opponent robot: random, table, pimc(...), onnx:PATH (repeatable; "
                         "default: random and table)")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20240)
    ap.add_argument("--num-envs", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (checkpoints)")
    args = ap.parse_args(argv)
    robots = args.robot or ["random", "table"]
    try:
        for opt, v, least in (("--deals", args.deals, 1), ("--seed", args.seed, 0),
                              ("--num-envs", args.num_envs, 3), ("--threads", args.threads, 1)):
            if v < least:
                raise ValueError(f"{opt} {v}: expected an integer >= {least}")
        for name in robots:  # every robot before the first (long) evaluation
            try:
                make_opponent(name, args.seed)
            except (ValueError, TypeError, OSError, ImportError) as e:
                raise ValueError(f"--robot {name!r} cannot be built: {e}") from None
        agent, rules = _load_agent(args.model, args.threads)
    except ValueError as e:  # also CheckpointError and OnnxRobotError
        print(f"error: {e}", file=sys.stderr)
        return 2
    rows = []
    for r in evaluate_all(agent, robots, args.deals, args.seed, rules, args.num_envs):
        rows.append((args.model.rsplit("/", 1)[-1], r))
    print(format_table(rows))
    return 0


def _load_agent(model: str, threads: int) -> tuple[Any, dict[str, Any]]:
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
