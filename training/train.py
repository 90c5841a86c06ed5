"""Train a mariáš agent.

    python -m training.train --config training/configs/default.toml --out runs/NAME
    python -m training.train --out runs/NAME --resume            # continue from its checkpoint
    python -m training.train --config C --out runs/X --set run.max_iterations=50 --set seed=3
    python -m training.train --describe-config                   # every option, documented
    python -m training.train --out runs/NAME --backend ray --address auto   # on a Ray cluster

``--resume`` reads ``RUN/checkpoint.pt`` (refusing a truncated, corrupt or mismatched
one with a CheckpointError) and continues exactly where it stood; without ``--config``
it reuses the run's stored config, with one only ``[run]`` and ``[eval]`` may differ.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from mariash_env import jsonio
from mariash_env.cli import (
    ArgumentParser,
    add_ray_arguments,
    closed_stdout,
    quiet_on_closed_pipe,
)

from .backends import BACKENDS
from .checkpoint import CheckpointError, UnwritableError, stored_config
from .config import ConfigError, describe_config, load_config, parse_override
from .logs import LogError
from .trainer import EvaluationError, Trainer, read_run_checkpoint


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m training.train", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="TOML or JSON config (default: built-in defaults)")
    ap.add_argument("--out", help="run directory (checkpoints, logs, curves.png)")
    ap.add_argument("--resume", action="store_true", help="continue the run in --out")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config option, e.g. run.time_budget_s=60 (repeatable)")
    ap.add_argument("--backend", choices=BACKENDS, default="process",
                    help="rollout workers as local processes or as Ray actors (same results)")
    add_ray_arguments(ap, "the run stops with one line")
    ap.add_argument("--learner-on-gpu", action="store_true",
                    help="with --backend ray: the learner runs in a Ray actor holding one GPU "
                         "of the cluster (its node writes --out); with no GPU there, here")
    ap.add_argument("--show-config", action="store_true", help="print the effective config")
    ap.add_argument("--describe-config", action="store_true",
                    help="print every option with its default and documentation")
    args = ap.parse_args(argv)
    try:
        if args.describe_config:
            print(describe_config())
            return 0
        if args.resume and not args.config:
            if not args.out:
                ap.error("--resume needs --out")
            # The run's stored config, with the --set overrides applied.
            from .config import Config

            stored = stored_config(read_run_checkpoint(args.out), args.out)  # moved: here
            cfg = Config.from_dict(stored, "stored config").replace(
                **dict(parse_override(s) for s in args.set))
        else:
            cfg = load_config(args.config, args.set)
        if args.show_config:
            print(jsonio.dumps(cfg.to_dict(), indent=2))
            return 0
        if not args.out:
            ap.error("--out is required")
        if args.address is not None and args.backend != "ray":
            ap.error("--address needs --backend ray")
        if args.learner_on_gpu and args.backend != "ray":
            ap.error("--learner-on-gpu needs --backend ray")
        if args.backend == "ray" and importlib.util.find_spec("ray") is None:
            raise ConfigError("--backend ray needs Ray: pip install -e '.[ray]'")
        if args.backend == "ray":
            if not args.ray_timeout > 0:
                ap.error(f"invalid --ray-timeout {args.ray_timeout:g}: expected seconds > 0")
            from mariash_env.ray_pool import join

            join(args.address, args.ray_timeout)  # fails within seconds, before --out exists
        summary = None
        if args.learner_on_gpu:
            from .ray_learner import train_on_gpu_node

            summary = train_on_gpu_node(cfg, args.out, args.resume)
            if summary is None:
                print("[train] --learner-on-gpu: the Ray cluster has no GPU; the learner "
                      "runs here", file=sys.stderr)
        if summary is None:
            trainer = Trainer(cfg, args.out, resume=args.resume, backend=args.backend,
                              address=args.address)
            summary = trainer.train()
    except (ConfigError, CheckpointError, FileExistsError, UnwritableError, LogError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (EvaluationError, OSError) as e:  # e.g. a disk filled up: the last checkpoint stays
        if closed_stdout(e):
            raise  # no failure: quiet_on_closed_pipe ends it (| head), the checkpoint kept
        print(f"error: {e}", file=sys.stderr)
        return 1
    except MemoryError as e:  # the games or the network do not fit: a setting, not a bug
        print(f"error: out of memory ({e}): use fewer env.num_envs or env.workers, or a "
              "smaller network; the last checkpoint stays", file=sys.stderr)
        return 1
    except RuntimeError as e:
        if type(e).__name__ != "RayClusterError":  # the ray extra is optional: by name
            raise
        print(f"error: {e}", file=sys.stderr)  # the last checkpoint stays
        return 1
    except KeyboardInterrupt:  # a second Ctrl-C / SIGTERM: the last checkpoint stays
        print(f"error: interrupted; the last checkpoint is in {args.out}", file=sys.stderr)
        return 130
    print(jsonio.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
