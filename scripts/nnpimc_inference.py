"""How much a network's inference tells nnpimc about the hidden hands (docs/nnpimc.md).

Deals are played by ``pimc(worlds=6, bidding='table')`` at every seat; at each card-play
decision with a choice from the third trick on, the seat to move samples ``--worlds``
worlds and weighs them with the model (NNPIMCRobot.log_weights) at each temperature.
Printed per temperature: the mean log-probability that a hidden card lies in the hand
that really holds it (weighted worlds; the uniform worlds' figure first: higher is
better, equal means the weights say nothing), and how often the real world outweighs a
sampled one (0.5: no information)::

    python scripts/nnpimc_inference.py --model models/robot.onnx --deals 60
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.arena import deal_states  # noqa: E402
from mariash_env.cli import ArgumentParser, fail, path_error  # noqa: E402
from mariash_env.core import state as S  # noqa: E402
from mariash_env.core.engine import apply_action  # noqa: E402
from mariash_env.robots import OnnxRobotError, PIMCRobot  # noqa: E402
from mariash_env.robots.nnpimc import DEFAULT_MODEL, NNPIMCRobot  # noqa: E402
from mariash_env.robots.view import SeatView  # noqa: E402
from mariash_env.rules import make_rules  # noqa: E402


def measure(model: str, deals: int, worlds: int, temperatures: list[float]
            ) -> dict[str, float]:
    """``{"positions", "cards", "uniform", "logp@T", "rank@T"}`` (module docstring)."""
    rules = make_rules()
    rv = rules.vector()
    pimc = PIMCRobot(worlds=6, bidding="table", seed=0)
    nets = {t: NNPIMCRobot(model, worlds=1, temperature=t) for t in temperatures}
    logp: dict[float, list[float]] = {t: [] for t in nets}
    rank: dict[float, list[float]] = {t: [] for t in nets}
    logu: list[float] = []
    npos = 0
    for seed in range(deals):
        st = deal_states(np.array([seed]), np.array([seed % 3]), rules)[0].copy()
        while st[S.PHASE] != S.PH_DONE:
            me = int(st[S.TO_MOVE])
            view = SeatView(st, me)
            if (st[S.PHASE] == S.PH_PLAY and st[S.TRICK_NO] >= 2
                    and view.action_mask().sum() > 1):
                ws = view.sample_worlds(worlds, np.random.default_rng([seed, npos]))
                npos += 1
                mine = int(S.getm(st, S.HAND + me)) | int(S.getm(st, S.PLAYED))
                # per hidden card in another hand: is it there in each sampled world?
                held = []
                for s in range(3):
                    hand = int(S.getm(st, S.HAND + s))
                    in_ws = ws[:, S.HAND + s].astype(np.int64) & S.MASK32
                    for c in range(32):
                        if s != me and not (mine >> c) & 1 and (hand >> c) & 1:
                            held.append((in_ws >> c) & 1)
                for inw in held:
                    logu.append(float(np.log(max(inw.mean(), 1e-3))))
                for t, r in nets.items():
                    lw = r.log_weights(np.vstack([st[None], ws]), me, rules)
                    d = lw[1:] - lw[0]  # ties (within rounding) count half
                    rank[t].append(float((d < -1e-9).mean() + 0.5 * (abs(d) <= 1e-9).mean()))
                    p = np.exp(lw[1:] - lw[1:].max())
                    p /= p.sum()
                    for inw in held:
                        logp[t].append(float(np.log(max((p * inw).sum(), 1e-3))))
            apply_action(st, rv, pimc.act_view(view))
    out = {"positions": float(npos), "cards": float(len(logu)),
           "uniform": float(np.mean(logu)) if logu else float("nan")}
    for t in nets:
        out[f"logp@{t:g}"] = float(np.mean(logp[t])) if logp[t] else float("nan")
        out[f"rank@{t:g}"] = float(np.mean(rank[t])) if rank[t] else float("nan")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(prog="scripts/nnpimc_inference.py", description=__doc__)
    ap.add_argument("--model", default=str(DEFAULT_MODEL), help="an exported volený robot")
    ap.add_argument("--deals", type=int, default=60, help="deals played (>= 1)")
    ap.add_argument("--worlds", type=int, default=64, help="worlds sampled a decision (>= 2)")
    ap.add_argument("--temperatures", default="0.1,0.3,1",
                    help="comma-separated softmax temperatures (> 0)")
    args = ap.parse_args(argv)
    if args.deals < 1:
        fail(f"invalid --deals {args.deals}: expected an int >= 1")
    if args.worlds < 2:
        fail(f"invalid --worlds {args.worlds}: expected an int >= 2")
    try:
        temps = [float(x) for x in args.temperatures.split(",")]
    except ValueError:
        fail(f"invalid --temperatures {args.temperatures!r}: expected numbers like 0.1,0.3")
    if not temps or not all(0 < t < float("inf") for t in temps):
        fail(f"invalid --temperatures {args.temperatures!r}: every temperature must be > 0")
    try:
        res = measure(args.model, args.deals, args.worlds, temps)
    except OnnxRobotError as e:
        fail(e)
    except OSError as e:  # a model path the system refuses (e.g. a name too long)
        fail(path_error(e, "read"))
    print(f"{res['positions']:.0f} positions, {res['cards']:.0f} hidden cards in hands")
    print(f"uniform worlds: mean log P(true holder) = {res['uniform']:.4f}")
    for t in temps:
        print(f"temperature {t:g}: weighted mean log P(true holder) = "
              f"{res[f'logp@{t:g}']:.4f}; the real world outweighs a sampled one in "
              f"{res[f'rank@{t:g}']:.3f} of pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
