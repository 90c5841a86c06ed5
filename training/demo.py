"""Five minutes from scratch: train, beat RandomRobot on duplicate deals, export, play.

    python -m training.demo                 # what `make demo` runs
    python -m training.demo --seconds 60    # a shorter training budget
    python -m training.demo --out runs/demo2

1. evaluates the untrained network against RandomRobot (duplicate deals),
2. trains it with Deep Monte-Carlo self-play on CPU (training/configs/demo.toml; a time
   budget of about four and a half minutes on 2 cores) with a progress bar,
3. evaluates it again and prints the table (and against TableRobot),
4. exports it to ONNX (checking that the ONNX robot picks the torch policy's actions),
5. plays one deal with the exported robot (onnxruntime only) against two RandomRobots,
   printing every action and the final table.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from mariash_env.cli import (
    ArgumentParser,
    UnwritableError,
    closed_stdout,
    path_error,
    quiet_on_closed_pipe,
)

CONFIG = Path(__file__).with_name("configs") / "demo.toml"


def play_one_deal(robot_path: Path, seed: int = 7, robot_seat: int = 1) -> None:
    """One deal: the ONNX robot in ``robot_seat`` (1 = forehand), RandomRobots elsewhere."""
    from mariash_env.robots import OnnxRobot, RandomRobot

    robot = OnnxRobot(robot_path)
    others = RandomRobot(seed=seed)
    try:
        import mariash_env

        env = mariash_env.env(render_mode="ansi", deals=1)
    except (ImportError, AttributeError):  # pragma: no cover - AEC env not available
        env = None
    if env is None:  # pragma: no cover
        _play_vector(robot, others, seed, robot_seat)
        return
    env.reset(seed=seed)
    names = {a: ("ONNX robot" if i == robot_seat else "random") for i, a in
             enumerate(env.possible_agents)}
    print(f"\nOne deal (seed {seed}): the exported robot is player_{robot_seat} "
          f"(forehand = player_1), the others play at random.\n")
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        bot = robot if seat == robot_seat else others
        a = bot.act(obs)
        extra = ""
        if seat == robot_seat:
            scores, _ = robot.scores_and_actions(obs["observation"], obs["action_mask"])
            extra = f"   (Q = {scores[0, a]:+.2f})"
        phase = mariash_env.PHASE_NAMES[info["phase"]]  # infos hold its index
        print(f"  {agent:<9} {names[agent]:<10} {phase:<12} "
              f"{env.unwrapped.action_label(a)}{extra}")
        env.step(a)
    print()
    print(env.render())
    print("\ngroše this deal: " + ", ".join(f"{a} ({names[a]}) {total[a]:+.0f}"
                                             for a in env.possible_agents))


def _play_vector(robot, others, seed: int, robot_seat: int) -> None:  # pragma: no cover
    from mariash_env.actions import ACTION_LABELS
    from mariash_env.vector import VectorEnv

    env = VectorEnv(1, seed=seed, deals=1)
    step = env.reset()
    while True:
        p = int(step.player[0])
        bot = robot if p == robot_seat else others
        a = int(bot.act_batch(step.obs, step.mask)[0])
        print(f"  player_{p}  {ACTION_LABELS[a]}")
        step = env.step(np.array([a]))
        if step.deal_done[0]:
            print("groše:", step.rewards[0].tolist())
            return


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m training.demo", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="runs/demo", help="run directory (replaced)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="training time budget (default: demo.toml's)")
    ap.add_argument("--config", default=str(CONFIG),
                    help="the training config (default training/configs/demo.toml)")
    ap.add_argument("--seed", type=int, default=None,
                    help="the training's seed (default: the config's)")
    args = ap.parse_args(argv)

    from .checkpoint import CheckpointError
    from .config import load_config
    from .trainer import Trainer, check_robots

    overrides = []
    if args.seconds is not None:
        overrides.append(f"run.time_budget_s={float(args.seconds)}")
    if args.seed is not None:
        overrides.append(f"seed={args.seed}")
    try:
        if args.seconds is not None and not args.seconds > 0:
            raise ValueError(f"--seconds {args.seconds}: expected a number of seconds > 0")
        cfg = load_config(args.config, overrides)
        check_robots(cfg)  # before replacing an old run
        out = Path(args.out)
        if out.exists():
            if not _is_run_dir(out):
                raise ValueError(f"--out {out} exists and is not a training run directory "
                                 "(no checkpoint.pt or config.json): refusing to replace it")
            shutil.rmtree(out)
        trainer = Trainer(cfg, out)  # checks the robots and that out is writable
    except (ValueError, CheckpointError, UnwritableError) as e:  # ConfigError: a ValueError
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # --out refused by the system (e.g. a name too long)
        if closed_stdout(e):
            raise  # stdout's reader gone (| head): quiet_on_closed_pipe's, not a path
        print(f"error: {path_error(e)}", file=sys.stderr)
        return 2
    return _demo(trainer, out)


def _is_run_dir(path: Path) -> bool:
    """A directory the demo may replace: empty, or holding a training run."""
    return path.is_dir() and (not any(path.iterdir()) or (path / "checkpoint.pt").is_file()
                              or (path / "config.json").is_file())


def _demo(trainer: Any, out: Path) -> int:
    from .evaluate import format_table
    from .export import export

    cfg = trainer.cfg
    t_all = time.perf_counter()
    print(f"mariash demo: Deep Monte-Carlo self-play from scratch, "
          f"{cfg.run.time_budget_s:.0f} s of training on this machine's CPU/GPU "
          f"({cfg.env.num_envs} games in parallel).  Run directory: {out}\n")

    print("Evaluating the untrained network against RandomRobot ...")
    before = trainer.evaluate(["random"])
    summary = trainer.train()
    after = trainer.last_results or trainer.evaluate()

    rows = [("untrained network", r) for r in before] + [("trained network", r) for r in after]
    print()
    print(f"Duplicate evaluation: {cfg.eval.deals} deals, each played three times with the "
          "agent in every seat against two robots; groše per deal won by the agent "
          "(0 = as good as the robot).")
    print(format_table(rows))
    print(f"\ntraining: {summary['iteration']} iterations, {summary['decisions']:,} decisions "
          f"({summary['decisions_per_s']:,.0f}/s), {summary['updates']:,} updates "
          f"({summary['updates_per_s']:.1f}/s), final loss {summary['last_loss']:.4f}")
    won = [r for r in after if r.opponent == "random"]
    if won and won[0].ci_low > 0:
        print(f"=> the trained agent beats RandomRobot by {won[0].mean:+.2f} groše per deal "
              f"(95% CI {won[0].ci_low:+.2f} .. {won[0].ci_high:+.2f}).")
    elif won:
        print(f"=> the agent is not yet clearly better than RandomRobot ({won[0].mean:+.2f}).")

    onnx_path = out / "robot.onnx"
    report = export(out / "checkpoint.pt", onnx_path)
    print(f"\nExported {onnx_path} ({report['bytes'] / 1e6:.1f} MB); ONNX vs torch: "
          f"{report['parity']['same_action'] * 100:.1f}% same actions on "
          f"{report['parity']['n']:.0f} observations.")
    play_one_deal(onnx_path)
    print(f"\nLearning curve: {out / 'curves.png'}; TensorBoard: tensorboard --logdir {out / 'tb'}"
          f"\nDemo took {time.perf_counter() - t_all:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
