"""Export a checkpoint's policy as an ONNX robot.

    python -m training.export runs/NAME/checkpoint.pt -o robot.onnx

The graph takes ``observation`` float32[B, obs_size] and ``action_mask`` int8[B, A]
(1 = legal) and returns ``scores`` float32[B, A] (the masked Q-values or logits;
illegal actions get -1e9) and ``action`` int64[B] (the argmax, computed in the graph);
the sizes are the game's (volený 900 and 115, licitovaný 1016 and 136, lízaný 221 and
32).  Metadata (``metadata_props``): ``mariash_game`` (``voleny``, ``licitovany`` or
``lizany``), ``mariash_obs_version`` (the game's layout version), ``mariash_obs_size``,
``mariash_num_actions``, ``mariash_action_labels`` (JSON list), ``mariash_rules`` (JSON),
``mariash_training`` (JSON: method, scores, counters, last evaluation, config),
``mariash_format`` ("mariash-robot-v1").  :class:`mariash_env.robots.OnnxRobot` plays it
with onnxruntime only (no torch) and refuses a model whose layout differs from the
environment's.  After writing, the model is checked against the torch policy on real
observations (same actions required).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mariash_env import jsonio
from mariash_env.cli import ArgumentParser, closed_stdout, path_error, quiet_on_closed_pipe
from mariash_env.games.registry import games
from mariash_env.rules import make_rules

from .checkpoint import (
    CheckpointError,
    UnwritableError,
    atomic_write_bytes,
    check_writable,
    lineage_of,
    load_policy,
)
from .networks import PolicyNet, game_of

ROBOT_FORMAT = "mariash-robot-v1"
CARD_ENVS = 3000  # games played together in the model card's evaluation (500 deals x 6)
OPSET = 17


def training_info(payload: dict[str, Any]) -> dict[str, Any]:
    c = payload.get("counters", {})
    hist = payload.get("history", [])
    last = {}
    if hist:
        it = hist[-1]["iteration"]
        last = {h["opponent"]: {k: h[k] for k in ("mean", "ci_low", "ci_high", "deals")}
                for h in hist if h["iteration"] == it}
    describe = dict(payload.get("info", {}).get("describe", {}))
    trained = {k.name: k for k in games("training")}
    if payload.get("game") in trained and "scores" in describe:
        # DMC checkpoints written before the game's unit was known said groše for both
        describe["scores"] = str(describe["scores"]).replace("groše",
                                                             trained[payload["game"]].units)
    return {
        **describe,
        "iteration": c.get("iteration"),
        "decisions": c.get("decisions"),
        "updates": c.get("updates"),
        "train_seconds": c.get("train_s"),
        "lineage": lineage_of(payload),
        "last_eval_grose_per_deal": last,
        "network": {k: v for k, v in payload["network"].items() if k != "params"},
        "config": payload.get("config"),
        "torch": payload.get("info", {}).get("torch"),
        "written": payload.get("info", {}).get("time"),
    }


def sample_observations(n: int = 4096, seed: int = 123, rules: dict | None = None,
                        policy: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` observations and masks from real play (random legal actions, or ``policy``);
    at volený's four-player table the observations' first block, the deal's three-seat
    observation that the networks read there (:mod:`training.rollout`)."""
    from mariash_env.vector import VectorEnv, random_legal_actions

    rules = dict(rules or {})
    deals = rules.pop("deals", 12)
    k = min(n, 512)
    env = VectorEnv(k, seed=seed, deals=deals, **rules)
    cols = game_of(rules).obs_size
    step = env.reset()
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    got = 0
    while got < n:
        obs.append(step.obs[:, :cols].copy())
        masks.append(step.mask.copy())
        got += k
        a = random_legal_actions(step.mask, rng) if policy is None else policy(
            step.obs[:, :cols], step.mask)
        step = env.step(a)
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]


def to_onnx_bytes(net: PolicyNet, metadata: dict[str, str], opset: int = OPSET) -> bytes:
    """The ONNX model (bytes) of ``net.forward(observation, action_mask)``."""
    import onnx

    net = net.cpu().eval()
    dummy = (torch.zeros(2, net.obs_size), torch.ones(2, net.num_actions, dtype=torch.int8))
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net, dummy, buf,
            input_names=["observation", "action_mask"],
            output_names=["scores", "action"],
            dynamic_axes={"observation": {0: "batch"}, "action_mask": {0: "batch"},
                          "scores": {0: "batch"}, "action": {0: "batch"}},
            opset_version=opset, dynamo=False,
        )
    model = onnx.load_from_string(buf.getvalue())
    onnx.helper.set_model_props(model, metadata)
    model.doc_string = "mariash robot: masked action scores and greedy action (training.export)"
    onnx.checker.check_model(model)
    return model.SerializeToString()


def robot_metadata(payload: dict[str, Any]) -> dict[str, str]:
    cfg = payload["config"]
    game = game_of(cfg["env"]["rules"])
    if game.game is None:  # a game with its own engine (lízaný): no rule options
        rules = dict(cfg["env"]["rules"])
    else:
        rules = make_rules(deals=cfg["env"]["deals"], **cfg["env"]["rules"]).to_dict()
    meta = {
        "mariash_format": ROBOT_FORMAT,
        "mariash_obs_version": str(game.obs_version),
        "mariash_obs_size": str(game.obs_size),
        "mariash_num_actions": str(game.n_actions),
        "mariash_action_labels": jsonio.dumps(list(game.labels)),
        "mariash_rules": jsonio.dumps(rules),
        "mariash_training": jsonio.dumps(training_info(payload), default=str),
        "mariash_game": game.name,
    }
    return meta


def check_parity(net: PolicyNet, onnx_path: str | Path, obs: np.ndarray,
                 mask: np.ndarray) -> dict[str, float]:
    """Compare the torch policy and the ONNX robot on ``obs``/``mask``."""
    from mariash_env.robots.onnx_robot import OnnxRobot

    robot = OnnxRobot(onnx_path)
    with torch.inference_mode():
        q_t, a_t = net(torch.from_numpy(obs), torch.from_numpy(np.require(mask, requirements="W")))
    q_o, a_o = robot.scores_and_actions(obs, mask, claims=False)  # the graph's own argmax
    legal = mask.astype(bool)
    return {
        "n": float(len(obs)),
        "same_action": float((a_t.numpy() == a_o).mean()),
        "max_abs_diff": float(np.abs(q_t.numpy()[legal] - q_o[legal]).max()),
    }


class ParityError(RuntimeError):
    """The exported model does not pick the torch policy's actions (nothing was written)."""


def export(checkpoint: str | Path, out: str | Path, check: int = 4096) -> dict[str, Any]:
    """Write the ONNX robot of ``checkpoint`` to ``out``; returns facts and the parity check.

    ``out`` appears only once the model passed the parity check on ``check`` observations
    (``0`` = no check): a failed check leaves an earlier file at ``out`` untouched."""
    if isinstance(check, bool) or not isinstance(check, int) or check < 0:
        raise ValueError(f"check = {check!r}: expected a number of observations >= 0 "
                         "(0 = skip the parity check)")
    out = Path(out)
    check_writable(out)
    net, payload = load_policy(checkpoint)
    meta = robot_metadata(payload)
    data = to_onnx_bytes(net, meta)
    report: dict[str, Any] = {"path": str(out), "bytes": len(data)}
    unchecked = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        atomic_write_bytes(unchecked, [data])
        if check:
            env = payload["config"]["env"]
            obs, mask = sample_observations(check, rules={**env["rules"], "deals": env["deals"]})
            report["parity"] = parity = check_parity(net, unchecked, obs, mask)
            if parity["same_action"] < 1.0:
                raise ParityError(f"the exported model disagrees with the torch policy on "
                                  f"{(1 - parity['same_action']) * 100:.3f}% of {check} "
                                  f"observations (max |dQ| {parity['max_abs_diff']:.2e}); "
                                  f"{out} was not written")
        os.replace(unchecked, out)
    finally:
        unchecked.unlink(missing_ok=True)
    return report


def write_card(onnx_path: str | Path, card_path: str | Path, eval_deals: int = 2000,
               seed: int = 777, reproduce: str | None = None,
               start_from: Sequence[str] = (), progress: bool = False) -> str:
    """A model card (markdown) for an exported robot, with a fresh duplicate evaluation of
    the ONNX file itself against RandomRobot and TableRobot (the arena's duplicate
    match, :func:`training.evaluate.evaluate_all`).  ``reproduce``: the one command that
    makes the model (a recipe of :mod:`training.pipeline`), in a section of its own, from
    scratch or from the committed models ``start_from`` (its warm starts)."""
    from mariash_env.robots.onnx_robot import OnnxRobot

    from .evaluate import evaluate_all, format_table

    robot = OnnxRobot(onnx_path)
    info = robot.training
    rules = dict(robot.rules)
    game = robot.game
    other = game.name != "voleny"  # its game named in the card (licitovaný, lízaný)
    word = game.title.split()[0]  # "licitovaný", "lízaný", "volený"
    unit = game.units
    results = []
    if eval_deals > 0:
        results = evaluate_all(robot, ["random", "table"], eval_deals, seed, rules,
                               num_envs=CARD_ENVS, progress=progress)
    net = info.get("network", {})
    cfg = info.get("config") or {}
    hidden = (cfg.get("network") or {}).get("hidden")
    stages = list(info.get("lineage") or []) + [{
        "checkpoint": "this run", "iteration": info.get("iteration"),
        "decisions": info.get("decisions"), "updates": info.get("updates"),
        "train_s": info.get("train_seconds")}]
    training = [
        f"- {st.get('checkpoint')}: {st.get('iteration')} iterations, "
        f"{int(st.get('decisions') or 0):,} engine decisions, {int(st.get('updates') or 0):,} "
        f"gradient steps, {float(st.get('train_s') or 0) / 3600:.2f} h"
        for st in stages]
    if len(stages) > 1:
        training = ["Warm-started (`init`) from the earlier runs listed first:", "",
                    *training,
                    f"- in all: {sum(int(st.get('decisions') or 0) for st in stages):,} engine "
                    "decisions, "
                    f"{sum(float(st.get('train_s') or 0) for st in stages) / 3600:.2f} h"]
    start = (f"From the committed {', '.join(f'`{m}`' for m in start_from)} (each card says "
             "how it is made)" if start_from else "From scratch")
    lines = [
        "# mariash robot" + (f" ({word})" if other else ""),
        "",
        f"`{Path(onnx_path).name}`: a {word} mariáš player "
        "trained by self-play with "
        f"{info.get('method', '?').upper()} (`training/`), "
        "exported by `python -m training.export`.",
        "",
        "```python",
        "from mariash_env.robots import OnnxRobot   # numpy + onnxruntime, no torch",
        # the card sits beside its model where both are shipped (models/, a recipe's folder)
        f'robot = OnnxRobot("{(Path(card_path).parent / Path(onnx_path).name).as_posix()}")',
        "action = robot.act(observation)          # AEC observation dict",
        "actions = robot.act_batch(obs, mask)     # VectorEnv batch",
        "```",
        "",
        "## Model",
        "",
        f"- network: {net.get('kind', '?')} {hidden or ''}, inputs `observation` "
        f"float32[B, {game.obs_size}] and `action_mask` int8[B, {game.n_actions}]; outputs "
        "`scores` "
        f"({info.get('scores', 'scores')}, illegal actions -1e9) and `action` (argmax)",
        f"- observation layout version {game.obs_version}"
        + (f" of {game.name} (metadata `mariash_game`; the robot refuses another game or "
           "layout)" if other else " (the robot refuses another layout)"),
        f"- size {Path(onnx_path).stat().st_size / 1e6:.1f} MB",
        f"- rules: `{json.dumps(rules)}`",
        "",
        "## Training",
        "",
        *training,
        f"- seed {cfg.get('seed')}, written {info.get('written')}, torch {info.get('torch')}",
        "",
        "## Evaluation",
        "",
        f"Duplicate deals (seed {seed}), the arena's match (`python -m mariash_env.arena "
        f"--robots onnx:ROBOT,OPPONENT --seed {seed} --batch {CARD_ENVS // 6}"
        f"{f' --rules {game.name}' if other else ''}`): every deal is played under "
        + ("both seatings of the two (each leads the first trick once)" if game.players[0] == 2
           else "the six seatings of the two, the robot alone against two copies of the "
                "opponent and the opponent alone against two copies of the robot")
        + f"; {unit} per deal won by the robot, 95% bootstrap interval.",
        "",
        "```",
        (format_table([(Path(onnx_path).name, r) for r in results], unit) if results
         else "(not run)"),
        "```",
        "",
        *(["## Reproduce", "", f"{start}, every stage resumable (rerun the same command):",
           "", "```bash", reproduce, "```", ""] if reproduce else []),
        "## Limits",
        "",
        "- Trained and evaluated on the rules above only; other variants change the game.",
        "- A greedy policy: it never randomizes, so opponents can learn to exploit it.",
        "",
    ]
    text = "\n".join(lines)
    atomic_write_bytes(card_path, [text.encode("utf-8")])
    return text


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="python -m training.export", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="a training checkpoint (RUN/checkpoint.pt)")
    ap.add_argument("-o", "--out", default="robot.onnx", help="ONNX file to write")
    ap.add_argument("--check", type=int, default=4096,
                    help="observations for the torch/ONNX parity check (0 = skip)")
    ap.add_argument("--card", help="also write a model card, e.g. models/ROBOT.md, with a "
                                   "fresh duplicate evaluation of the exported file; its "
                                   "snippet names the model beside the card (ship the two "
                                   "together)")
    ap.add_argument("--card-deals", type=int, default=2000,
                    help="duplicate deals per opponent for the card's evaluation")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    try:
        for opt, v in (("--check", args.check), ("--card-deals", args.card_deals)):
            if v < 0:
                raise ValueError(f"{opt} {v}: expected a number >= 0 (0 = skip)")
        if args.card:  # before the export and the card's evaluation, not after them
            check_writable(args.card)
        report = export(args.checkpoint, args.out, args.check)
    except (CheckpointError, UnwritableError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a path the system refuses (e.g. a file name too long)
        if closed_stdout(e):
            raise  # stdout's reader gone (| head): quiet_on_closed_pipe's, not a path
        print(f"error: {path_error(e)}", file=sys.stderr)
        return 2
    except ParityError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(jsonio.dumps(report, indent=2))
    if args.card:
        try:
            # the card's evaluation takes minutes: its progress on a terminal
            print(write_card(args.out, args.card, args.card_deals,
                             progress=sys.stderr.isatty()))
        except OSError as e:
            if closed_stdout(e):
                raise  # the card written, its text's reader gone: quiet_on_closed_pipe's
            print(f"error: cannot write the card {args.card}: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
