"""Behaviour cloning on a data set of ``mariash dataset``: the offline baseline of issue #34.

::

    mariash dataset --robots table --deals 2000 --out runs/data/table --jobs 2
    python -m training.bc --data runs/data/table --out runs/bc/table [--epochs 6]
        [--hidden 512,256] [--batch 512] [--lr 1e-3] [--seed 0] [--eval-deals 300]

Trains the project's policy network (:class:`training.networks.MLP`, the game's
observation and action sizes) to pick the data set's actions: cross-entropy over the
legal actions (the network's scores as logits, illegal ones masked as in the exported
graph).  The deals whose index ends in 0 are held out (validation accuracy: the share of
their decisions where the network picks the recorded action).  The network is exported as
an ONNX robot (``OUT/bc.onnx``, :func:`training.export.to_onnx_bytes`, checked against the
torch policy on the held-out observations) that ``onnx:OUT/bc.onnx`` plays anywhere, and,
unless ``--eval-deals 0``, played in a duplicate match against the table robot and the
random robot (:func:`mariash_env.arena.duplicate_match`, results in ``OUT/eval/``).
``OUT/bc.json`` holds the settings, the losses, the accuracies and the match.

Volený (three players; a four-player set is cloned from the deal block of its
observations, as robots play at four) and licitovaný.
"""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from mariash_env import jsonio
from mariash_env.atomic import atomic_open
from mariash_env.cli import (
    ArgumentParser,
    UnwritableError,
    check_writable,
    fail,
    nonnegative,
    positive,
    quiet_on_closed_pipe,
)
from mariash_env.kinds import KINDS
from mariash_env.research.dataset import DatasetError, check_layout, read_manifest

from .checkpoint import atomic_write_bytes
from .decisions import DecisionDataset
from .export import ROBOT_FORMAT, check_parity, to_onnx_bytes
from .networks import MLP


def robot_metadata(manifest: dict[str, Any], info: dict[str, Any]) -> dict[str, str]:
    """The ONNX metadata OnnxRobot reads, for a network cloned from ``manifest``'s set."""
    game = KINDS[manifest["game"]]
    return {
        "mariash_format": ROBOT_FORMAT,
        "mariash_obs_version": str(game.obs_version),
        "mariash_obs_size": str(game.obs_size),
        "mariash_num_actions": str(game.n_actions),
        "mariash_action_labels": jsonio.dumps(list(game.labels)),
        "mariash_rules": jsonio.dumps(manifest["settings"]["rules"]),
        "mariash_training": jsonio.dumps(info, default=str),
        "mariash_game": game.name,
    }


def train(data: DecisionDataset, hidden: list[int], epochs: int, batch: int, lr: float,
          seed: int) -> tuple[MLP, list[dict[str, float]]]:
    """Fit an MLP to the data set's actions; returns it (its weights of the epoch with the
    best held-out accuracy) and one row per epoch (train loss, held-out loss and
    accuracy)."""
    torch.manual_seed(seed)
    d = data.data
    obs, mask, act = d["observation"], d["action_mask"], d["action"]
    held = (d["deal"] % 10) == 0
    tr, va = torch.nonzero(~held).flatten(), torch.nonzero(held).flatten()
    net = MLP(hidden=hidden, obs_size=obs.shape[1], num_actions=mask.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    history = []
    best: tuple[float, dict[str, torch.Tensor]] | None = None
    for epoch in range(epochs):
        net.train()
        perm = tr[torch.randperm(len(tr), generator=gen)]
        total, n = 0.0, 0
        for b in range(0, len(perm), batch):
            i = perm[b:b + batch]
            logits, _ = net(obs[i], mask[i])
            loss = F.cross_entropy(logits, act[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(i)
            n += len(i)
        row = {"epoch": epoch + 1, "train_loss": total / max(n, 1)}
        row.update(evaluate(net, obs[va], mask[va], act[va]))
        history.append(row)
        if best is None or not row["heldout_accuracy"] <= best[0]:
            best = (row["heldout_accuracy"], copy.deepcopy(net.state_dict()))
        print(f"epoch {epoch + 1}: loss {row['train_loss']:.4f}, held-out loss "
              f"{row['heldout_loss']:.4f}, accuracy {100 * row['heldout_accuracy']:.2f}%",
              file=sys.stderr)
    if best is not None:
        net.load_state_dict(best[1])
    net.eval()
    return net, history


@torch.inference_mode()
def evaluate(net: MLP, obs: torch.Tensor, mask: torch.Tensor,
             act: torch.Tensor) -> dict[str, float]:
    """Loss and accuracy (greedy action == recorded action) on held-out decisions."""
    net.eval()
    if len(act) == 0:
        return {"heldout_loss": float("nan"), "heldout_accuracy": float("nan")}
    logits, greedy = net(obs, mask)
    return {"heldout_loss": float(F.cross_entropy(logits, act)),
            "heldout_accuracy": float((greedy == act).float().mean())}


def by_phase(net: MLP, data: DecisionDataset, path: str) -> dict[str, float]:
    """Held-out accuracy per phase of the deal (where the clone departs from its teacher)."""
    from mariash_env.research.dataset import load

    phase = load(path, ["phase"])["phase"]
    d = data.data
    held = ((d["deal"] % 10) == 0).numpy()
    with torch.inference_mode():
        greedy = net(d["observation"][held], d["action_mask"][held])[1].numpy()
    ok = greedy == d["action"].numpy()[held]
    ph = phase[held]
    return {p: round(float(ok[ph == p].mean()), 4) for p in dict.fromkeys(ph)}


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m training.bc",
                        description="Behaviour cloning on a mariash data set.")
    ap.add_argument("--data", required=True, help="a data set directory (mariash dataset)")
    ap.add_argument("--out", required=True, help="directory for bc.onnx, bc.json and eval/")
    ap.add_argument("--epochs", type=positive(int), default=6,
                    help="passes over the data set (default 6)")
    ap.add_argument("--hidden", default="512,256", help="hidden layer widths (default 512,256)")
    ap.add_argument("--batch", type=positive(int), default=512,
                    help="decisions a gradient step (default 512)")
    ap.add_argument("--lr", type=positive(float), default=1e-3,
                    help="Adam's learning rate (default 1e-3)")
    ap.add_argument("--seed", type=int, default=0,
                    help="the initial weights' and the batches' seed (default 0)")
    ap.add_argument("--threads", type=positive(int), default=2, help="torch threads (default 2)")
    ap.add_argument("--eval-deals", type=nonnegative(int), default=300,
                    help="deals of the duplicate match bc/table/random (default 300; 0: "
                         "none)")
    ap.add_argument("--jobs", type=positive(int), default=1,
                    help="processes of the match (default 1)")
    args = ap.parse_args(argv)
    try:
        hidden = [int(h) for h in args.hidden.split(",")]
        if not hidden or min(hidden) < 1:
            raise ValueError
    except ValueError:
        fail(f"invalid --hidden {args.hidden!r}: expected widths >= 1, e.g. 512,256")
    try:
        man = read_manifest(args.data)
        if man["game"] not in KINDS:
            raise DatasetError(f"{args.data} is a data set of {man['game']}: behaviour "
                               f"cloning exports robots of {', '.join(KINDS)} only")
        # the robot is stamped with this checkout's version: the Python readers' remedy
        # (allow_other_layout) would export a robot fed other features than it learnt on
        check_layout(man, args.data, as_is="behaviour cloning cannot read it as it is: "
                     "the robot it exports is fed this checkout's observations")
        data = DecisionDataset(args.data, obs_size=KINDS[man["game"]].obs_size)
    except DatasetError as e:
        fail(e)
    out = Path(args.out)
    try:  # before the training, not after it: a file in the way, a folder not to be made
        check_writable(out / "bc.onnx")
    except UnwritableError as e:
        fail(f"--out {out}: {e}")
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    net, history = train(data, hidden, args.epochs, args.batch, args.lr, args.seed)
    info = {"method": "behaviour cloning", "data": str(args.data),
            "data_command": man.get("command"), "robots": man["robots"],
            "decisions": len(data), "hidden": hidden, "epochs": args.epochs,
            "batch": args.batch, "lr": args.lr, "seed": args.seed,
            "train_seconds": round(time.perf_counter() - t0, 1), "history": history}
    model = out / "bc.onnx"
    atomic_write_bytes(model, [to_onnx_bytes(net, robot_metadata(man, info))])
    held = data.data["deal"] % 10 == 0
    parity = check_parity(net, model, data.data["observation"][held][:4096].numpy(),
                          data.data["action_mask"][held][:4096].numpy().astype(np.int8))
    info["parity"] = parity
    info["heldout_accuracy_by_phase"] = by_phase(net, data, args.data)
    acc = max(h["heldout_accuracy"] for h in history)
    print(f"wrote {model} (held-out accuracy {100 * acc:.2f}%, parity "
          f"{parity['same_action']:.4f}); by phase: " + ", ".join(
              f"{k} {100 * v:.1f}%" for k, v in info["heldout_accuracy_by_phase"].items()))
    if args.eval_deals:
        from mariash_env.arena import duplicate_match

        rules = man["settings"]["rules"]
        res = duplicate_match({"bc": f"onnx:{model}", "table": "table", "random": "random"},
                              deals=args.eval_deals, seed=12345, jobs=args.jobs, rules=rules,
                              batch=50, progress=False)
        print(res.table())
        res.save(out / "eval", plot=False)
        info["match"] = {"deals": res.deals, "seed": 12345, "summary": res.summary(),
                         "pairwise": res.pairwise()}
    with atomic_open(out / "bc.json", "w") as f:
        jsonio.dump(info, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

