"""Training a best response to a frozen robot (``mariash best-response``, the measurement
in :mod:`mariash_env.research.best_response`).

The exploiter is trained by the project's Deep Monte-Carlo (:mod:`training.methods.dmc`)
on the batched engine, with the robot frozen in every other seat of every deal
(``selfplay.frozen``, :mod:`training.rollout`): its Q-values regress on what its
decisions earned against that robot and nothing else, so it learns the robot's
weaknesses.  It starts from the game's shipped network (its network shape and DMC
settings are read from the model), so that even a short budget starts from a strong
player; the run is an ordinary training run in ``OUT/train`` (checkpointed, resumable,
with its learning curve against the frozen robot when that robot is cheap enough to
evaluate during training), exported to ``OUT/exploiter.onnx`` at the end.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from mariash_env import jsonio
from mariash_env.atomic import atomic_open
from mariash_env.games.registry import game_kind
from mariash_env.robots import make_robot
from mariash_env.robots.onnx_robot import OnnxRobot
from mariash_env.shipped import ShippedModelError, shipped_model

from .checkpoint import CheckpointError
from .config import Config
from .export import export
from .networks import build_network, game_of
from .trainer import Trainer, warm_start

# The DMC options of a best response that do not come from the warm start: no search
# labels (the exploiter learns from its games only), little exploration (a strong start).
# Every decision is used ``epochs`` times: the frozen robot's moves are the expensive part
# of a rollout, so a sample is worth more gradient steps than in self-play.  A small
# learning rate: the warm start is a network trained for hours (lízaný against its table
# robot, 3 M decisions: lr 3e-4 fell from the warm start's +0.26 to +0.03, lr 3e-5 rose to
# +0.36); a poor warm start (an endgame) learns faster with --lr 3e-4.
_DMC = {"lr": 3e-5, "epochs": 4.0, "batch_size": 512, "eps_start": 0.05, "eps_end": 0.02,
        "eps_decay_decisions": 500_000,
        "label_data": "", "bid_label_data": "", "more_label_data": [],
        "more_bid_label_data": [], "demo_margin": 0.0}
_KEEP = ("optimizer", "grad_clip", "weight_decay", "reward_transform",
         "reward_scale", "loss", "huber_delta")


def init_model(game: str, init: str) -> Path | None:
    """The warm start's path: ``init`` (an .onnx or a checkpoint), the game's shipped
    network when ``init`` is empty, None for ``"none"``."""
    if init == "none":
        return None
    if not init:
        net = game_kind(game).net
        if not net:
            raise ValueError(f"{game} has no shipped network to warm-start from: pass --init "
                             "PATH or --init none")
        init = net.partition(":")[2]
    path = Path(init)
    # a shipped model by its name or as models/NAME (the games' net, from any folder);
    # not any missing path's file name: runs/x/robot.onnx mistyped was the shipped robot
    if not path.is_file() and path.suffix == ".onnx" and path.parent in (
            Path("."), Path("models")):
        try:
            path = shipped_model(path.name)
        except ShippedModelError:  # a FileNotFoundError: "cannot write the file: ..."
            pass
    if not path.is_file():
        raise ValueError(f"--init {init}: no such file (expected an exported robot .onnx, a "
                         "shipped one by name such as robot.onnx, or a training checkpoint)")
    return path


def exploiter_config(s: Any, init: Path | None) -> Config:
    """The training config of a best response with settings ``s``
    (:class:`mariash_env.research.best_response.Settings`)."""
    kind = game_kind(s.rules, front_end="training")
    network: dict[str, Any] = {"kind": "mlp", "hidden": [256, 256], "layer_norm": True}
    dmc: dict[str, Any] = {}
    if init is not None and init.suffix == ".onnx":
        stored = OnnxRobot(init).training.get("config") or {}
        network = stored.get("network") or network
        dmc = {**dmc, **{k: v for k, v in (stored.get("dmc") or {}).items() if k in _KEEP}}
    searching = make_robot(s.robot, rules=kind.name).wants_view
    return Config.from_dict({
        "seed": s.seed,
        "method": "dmc",
        "init": str(init) if init is not None else "",
        "env": {"num_envs": min(s.num_envs, 32) if searching else s.num_envs,
                "rollout_steps": 16, "workers": 1, "pipeline": False, "deals": 1,
                "rules": {"rules": kind.name}},
        "network": network,
        "selfplay": {"pool_size": 0, "pool_share": 0.0, "table_robot_share": 0.0,
                     "random_share": 0.0, "frozen": s.robot, "frozen_share": 1.0,
                     "frozen_seats": s.seats},
        # the learning curve: the exploiter against the frozen robot every 100 iterations
        # (a searching robot is measured only afterwards: its matches take minutes)
        "eval": {"every": 0 if searching else 100, "deals": 150, "seed": 20240 + s.seed,
                 "opponents": [] if searching else [s.robot], "final_opponents": [],
                 "num_envs": 1200},
        "run": {"max_decisions": s.decisions, "time_budget_s": s.minutes * 60.0,
                "checkpoint_every": 100, "keep_checkpoints": 0, "threads": 1,
                "tensorboard": False, "plot": True, "progress": True},
        "dmc": {**dmc, **_DMC, **({"lr": s.lr} if getattr(s, "lr", 0.0) else {})},
    }, "the best response's config")


def check_exploiter(s: Any) -> Config:
    """Everything the training of settings ``s`` needs, checked before its run folder is
    claimed (a refused run leaves nothing there): the frozen robot and the config
    (:func:`exploiter_config`, a ConfigError) and the warm start (a missing file, a
    truncated or corrupt checkpoint, one of another game or network width: a ValueError
    naming ``--init``).  Returns the config."""
    init = init_model(s.rules, s.init)
    cfg = exploiter_config(s, init)
    if init is not None:
        try:
            warm_start(build_network(cfg.network, game_of(cfg.env.rules)), cfg, str(init))
        except CheckpointError as e:  # a ValueError: one error line, exit 2
            raise ValueError(f"--init {s.init or init}: {e}") from None
    return cfg


def endgame_settings(robot: str, seed: int, init: str, decisions: int,
                     minutes: float, lr: float = 0.0) -> SimpleNamespace:
    """The settings of :func:`endgame_check`'s exploiter (as :func:`check_exploiter` and
    :func:`exploiter_config` read them; ``lr`` 0: the default learning rate)."""
    return SimpleNamespace(robot=robot, rules="voleny", seats=1, init=init,
                           decisions=decisions, minutes=minutes, num_envs=256, seed=seed,
                           lr=lr)


def train_exploiter(s: Any, out: Path, progress: bool = True, log: Any = print
                    ) -> dict[str, Any]:
    """Train (or resume) the exploiter of settings ``s`` in ``out/train`` and export it to
    ``out/exploiter.onnx``; what the measurement needs (robot specs of the exploiter and
    of its warm start) and the training's facts."""
    init = init_model(s.rules, s.init)
    onnx = out / "exploiter.onnx"
    run = out / "train"
    if not onnx.is_file():
        cfg = exploiter_config(s, init)
        cfg.run.progress = progress
        resume = (run / "checkpoint.pt").is_file()
        try:
            trainer = Trainer(None if resume else cfg, run, resume=resume, log=log)
        except CheckpointError as e:  # the run's own checkpoint damaged: one error line
            raise ValueError(str(e)) from None
        trainer.train()
        if trainer._stop_requested:  # Ctrl-C / SIGTERM: the checkpoint is kept, resume
            from mariash_env.research import PartialRunError

            raise PartialRunError(f"the exploiter's training stopped (checkpoint {run})")
        export(run / "checkpoint.pt", onnx)
    from .checkpoint import read_checkpoint

    c = read_checkpoint(run / "checkpoint.pt")["counters"]
    return {"exploiter": f"onnx:{onnx}", "init": f"onnx:{init}" if init is not None
            and init.suffix == ".onnx" else None, "decisions": int(c["decisions"]),
            "iterations": int(c["iteration"]), "train_s": float(c["train_s"]),
            "run": str(run)}


# --- the check against an exact best response ----------------------------------------------


def _saved(path: Path) -> Any:
    """What a resumed check wrote to ``path``; ValueError naming the file where it is not
    JSON, or names a key twice (:func:`mariash_env.jsonio.read`)."""
    try:
        return jsonio.read(path)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is damaged ({e}): remove it to compute it again") from None


def endgame_check(robot: str, out: Path, seed: int = 0, tricks: int = 3,
                  decisions: int = 400_000, minutes: float = 10.0, init: str = "",
                  progress: bool = True, log: Any = print, lr: float = 0.0
                  ) -> dict[str, Any]:
    """The approximate best response against ``robot`` on a small game whose exact best
    response OpenSpiel computes: the last ``tricks`` tricks of one volený deal
    (:class:`mariash_env.research.endgame.Endgame`), its cards dealt anew each time.  The
    exploiter is trained exactly as :func:`train_exploiter` trains it, with
    ``env.endgame_tricks``; the gains (best response minus the robot's own value, per
    seat) are both exact expectations over every deal of the endgame's cards, so what
    separates them is only what the training missed.  ``lr``: the exploiter's learning
    rate (0: the default).  Resumable (``out/check.json``)."""
    from mariash_env.research.endgame import Endgame, exact_best_response
    from mariash_env.robots import as_robot

    from .checkpoint import load_policy

    done = out / "check.json"
    if done.is_file():
        return _saved(done)
    eg = Endgame(seed=seed, tricks=tricks)
    frozen = make_robot(robot)
    known = out / "exact.json"  # minutes of OpenSpiel: kept for a resumed check
    if known.is_file():
        own, exact = _saved(known)
    else:
        own = [float(v) for v in eg.robot_values(frozen)]
        exact = [exact_best_response(eg, frozen, s) - own[s] for s in range(3)]
        out.mkdir(parents=True, exist_ok=True)
        with atomic_open(known, "w") as f:
            jsonio.dump([own, exact], f)
    cfg = exploiter_config(endgame_settings(robot, seed, init, decisions, minutes, lr),
                           init_model("voleny", init))
    cfg.env.endgame_tricks, cfg.env.endgame_seed = tricks, seed
    cfg.eval.every, cfg.eval.opponents = 0, []
    cfg.run.progress = progress
    run = out / "train"
    resume = (run / "checkpoint.pt").is_file()
    trainer = Trainer(None if resume else cfg, run, resume=resume, log=log)
    trainer.train()
    net, payload = load_policy(run / "checkpoint.pt")
    mine = as_robot(net.greedy)
    approx = []
    for seat in range(3):
        robots = [mine if k == seat else frozen for k in range(3)]
        approx.append(float(eg.robot_values(robots)[seat]) - own[seat])
    start = [None] * 3
    w = init_model("voleny", init)
    if w is not None:
        warm = make_robot(f"onnx:{w}")
        start = [float(eg.robot_values([warm if k == seat else frozen for k in range(3)])[seat])
                 - own[seat] for seat in range(3)]
    res = {"robot": robot, "seed": seed, "tricks": tricks, "deals": len(eg.splits()),
           "exact_gain": exact, "approx_gain": approx, "warm_start_gain": start,
           "robot_value": own, "decisions": int(payload["counters"]["decisions"]),
           "exact_mean": float(np.mean(exact)), "approx_mean": float(np.mean(approx))}
    out.mkdir(parents=True, exist_ok=True)
    with atomic_open(done, "w") as f:
        jsonio.dump(res, f, indent=1)
    return res
