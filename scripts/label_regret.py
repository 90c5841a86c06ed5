"""How closely does a robot play PIMC's card play?  Regret on a label set.

For every labelled card-play state of a PIMC label directory (``python -m
training.pimc_labels``; best a set the model was *not* trained on) each robot picks a card,
and the script prints, by role (actor, defender) and contract, how often that card is
PIMC's best one (the label's argmax) and its *regret*: the label value of PIMC's best card
minus the label value of the robot's card, for the seat in the game's unit (volený
groše, licitovaný desetníky: the set's game, :func:`training.pimc_labels.label_game`, which
also picks the table robot and the networks' observations).  A network that
regresses the labels well has a regret near zero; the table robot and a uniformly random
card are printed as yardsticks, and with ``--pimc W`` PIMC itself: the best card of a
fresh label of W worlds, the card ``pimc(worlds=W)`` plays (the labels' own noise puts
its regret above zero).  The labels are means over a few sampled worlds, so the
figures measure agreement with PIMC's estimate, not with the truth.  ``--plot``'s error
bars are 95% percentile bootstraps over the deals (a label set holds several states of a
deal, which are not independent: the states of a deal are resampled together; a deal is
known by its dealt deck, the state's ``POS`` slots).

    .venv/bin/python scripts/label_regret.py runs/labels_b --states 8000 \\
        models/robot_distilled_bid.onnx models/robot_distilled.onnx
    .venv/bin/python scripts/label_regret.py runs/licit_nt --pimc 6 \\
        models/robot_licitovany_deal3.onnx models/robot_licitovany_deal4.onnx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.cli import (  # noqa: E402
    ArgumentParser,
    UnwritableError,
    check_writable,
    fail,
    nonnegative,
    path_error,
    positive,
)
from mariash_env.core import state as S  # noqa: E402
from mariash_env.games.base import GameKind  # noqa: E402
from mariash_env.robots.onnx_robot import OnnxRobot  # noqa: E402
from mariash_env.rules import make_rules  # noqa: E402
from training.pimc_labels import (  # noqa: E402
    encode_states,
    label_game,
    label_state,
    phase_of,
    read_settings,
    read_shards,
    shard_files,
)


def load_rows(path: str, states: int, skip: int = 0) -> dict[str, np.ndarray]:
    """The first ``states`` rows after ``skip`` of a card-play label directory."""
    if phase_of(read_settings(Path(path))) != "play":
        fail(f"{path} holds bidding labels; this script measures card play")
    rows = read_shards(path, shard_files(path), skip + states)
    rows = {k: v[skip:] for k, v in rows.items()}
    if len(rows["seat"]) == 0:
        fail(f"{path} has no rows after {skip}")
    return rows


def choices(name: str, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
            rows: dict[str, np.ndarray], rules: Any, kind: GameKind) -> np.ndarray:
    """The action each robot takes in each row (``kind``: the label set's game)."""
    if name.startswith("pimc"):  # PIMC's own choice: a fresh label's best card
        w = int(name[4:])
        out = np.zeros(len(mask), np.int64)
        for i, (st, seat) in enumerate(zip(rows["state"], rows["seat"])):
            v = label_state(st, int(seat), rules, w, rng)
            out[i] = int(np.nanargmax(np.where(mask[i] > 0, v, np.nan)))
        return out
    if name == "random":
        return np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    if name == "table":  # the game's table robot
        t = kind.load("table_robot")()
        return np.array([t.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask)])
    return OnnxRobot(name, game=kind.name).act_batch(obs, mask)


def regret_of(value: np.ndarray, mask: np.ndarray, actions: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the best labelled value minus the chosen action's (>= 0) and whether
    the chosen action is a best one."""
    v = np.where(mask.astype(bool) & ~np.isnan(value), value, -np.inf)
    best = v.max(1)
    got = v[np.arange(len(v)), actions]
    if not np.isfinite(got).all():
        raise ValueError("an action chosen outside the labelled legal actions")
    return best - got, got >= best - 1e-6


def deal_ids(states: np.ndarray) -> np.ndarray:
    """Per state record, the index of its deal: states dealt from the same deck (the
    ``POS`` slots, set when the deal is dealt and kept to its end) share one."""
    return np.unique(states[:, S.POS:S.POS + 32], axis=0, return_inverse=True)[1].ravel()


def cluster_ci(values: np.ndarray, deals: np.ndarray, n_boot: int = 1000, seed: int = 0,
               alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the mean of ``values`` (float[n] or [n, k], one column
    per robot) with the deals resampled, each with all its states: the mean over the
    states of the resampled deals, counted as often as their deal is drawn."""
    v = np.asarray(values, np.float64)
    v = v[:, None] if v.ndim == 1 else v
    _, d = np.unique(deals, return_inverse=True)
    d = d.ravel()
    nd = int(d.max()) + 1
    sums = np.zeros((nd, v.shape[1]))
    np.add.at(sums, d, v)
    counts = np.bincount(d, minlength=nd).astype(np.float64)
    rng = np.random.default_rng(seed)
    w = rng.multinomial(nd, np.full(nd, 1.0 / nd), size=n_boot).astype(np.float64)
    means = (w @ sums) / (w @ counts)[:, None]
    lo = np.quantile(means, alpha / 2, axis=0)
    hi = np.quantile(means, 1 - alpha / 2, axis=0)
    return lo, hi


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", help="a card-play label directory")
    ap.add_argument("models", nargs="+", help="ONNX models (table and random are added)")
    ap.add_argument("--states", type=positive(int), default=8000,
                    help="labelled states read, after --skip (default 8000)")
    ap.add_argument("--skip", type=nonnegative(int), default=0, help="rows to pass over first")
    ap.add_argument("--seed", type=nonnegative(int), default=0,
                    help="seed of the random robot, PIMC's worlds and the bootstrap "
                         "(default 0)")
    ap.add_argument("--pimc", type=nonnegative(int), default=0, metavar="W",
                    help="also PIMC with W worlds (fresh worlds, not the label's): the "
                         "regret of search itself against the labels (0 = off; slow, "
                         "about 10 ms a state)")
    ap.add_argument("--plot", metavar="PNG", help="also draw the regrets as bars")
    ap.add_argument("--by-trick", action="store_true",
                    help="also group the states by role and trick (0-9): where in the deal "
                         "a robot gives its groše up")
    args = ap.parse_args(argv)

    try:  # every input and output before the (long) labelling
        if args.plot:
            check_writable(args.plot)
        kind = label_game(args.labels)
        for m in args.models:
            OnnxRobot(m, game=kind.name)
        rows = load_rows(args.labels, args.states, args.skip)
    except (UnwritableError, ValueError) as e:  # also LabelError and OnnxRobotError
        fail(e)
    except OSError as e:  # a path the system refuses (e.g. a name too long)
        fail(path_error(e, "read"))
    n = len(rows["seat"])
    obs = encode_states(rows["state"], rows["seat"], kind.name)
    mask = rows["mask"]
    actor = rows["state"][:, S.ACTOR] == rows["seat"]
    contract = np.array([S.contract_name(st) for st in rows["state"]])
    # a role the set holds no state of (a set of one side, --roles actor) gets no row
    groups: list[tuple[str, np.ndarray]] = [("all", np.ones(n, bool))] + [
        (role, sel) for role, sel in (("actor", actor), ("defender", ~actor)) if sel.any()]
    for c in sorted(set(contract)):
        for role, sel in (("actor", actor), ("defender", ~actor)):
            g = (contract == c) & sel
            if g.sum() >= 50:
                groups.append((f"{c} {role}", g))

    if args.by_trick:
        trick = rows["state"][:, S.TRICK_NO]
        for role, sel in (("actor", actor), ("defender", ~actor)):
            for t in range(10):
                if (sel & (trick == t)).any():
                    groups.append((f"{role}, trick {t}", sel & (trick == t)))

    rng = np.random.default_rng(args.seed)
    names = list(args.models) + ["table", "random"]
    if args.pimc:
        names.insert(0, f"pimc{args.pimc}")
    rules = make_rules(**read_settings(Path(args.labels))["rules"])
    regret, agree = {}, {}
    for name in names:
        regret[name], agree[name] = regret_of(rows["value"], mask,
                                              choices(name, obs, mask, rng, rows, rules,
                                                      kind))
    print(f"{n} labelled card-play states of {args.labels} (rows {args.skip}..)\n")
    stems = [Path(m).stem for m in names]  # whole: models often differ only at the end
    wide = [max(24, len(s) + 2) for s in stems]
    head = f"regret, {kind.units} (agree %)"
    print(f"{head:24s}{'states':>8s}"
          + "".join(f"{s:>{w}s}" for s, w in zip(stems, wide)))
    for label, g in groups:
        cells = "".join(f"{regret[m][g].mean():>{w - 9}.3f} ({100 * agree[m][g].mean():4.1f}%)"
                        for m, w in zip(names, wide))
        print(f"{label:24s}{int(g.sum()):8d}{cells}")
    if args.plot:
        plot(args.plot, groups, regret, names, f"{n} held-out card-play states of "
             f"{Path(args.labels).name}", kind.units, deal_ids(rows["state"]), args.seed)
    return 0


def plot(path: str, groups: list[tuple[str, np.ndarray]], regret: dict[str, np.ndarray],
         names: list[str], title: str, units: str = "groše",
         deals: np.ndarray | None = None, seed: int = 0) -> None:
    """Grouped bars: mean regret (``units`` a card decision) per group and robot, with the
    95% bootstrap interval of the mean over ``deals`` (each state's deal, :func:`deal_ids`;
    None: every state its own deal)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_trick = [(lab, g) for lab, g in groups if ", trick " in lab]
    groups = [(lab, g) for lab, g in groups if ", trick " not in lab]
    if by_trick:  # bars of the groups above, a line per robot over the tricks below
        fig = plt.figure(figsize=(max(9.0, 1.1 * len(groups) * len(names) / 3), 8.0))
        ax = fig.add_subplot(2, 1, 1)
        for k, role in enumerate(("actor", "defender")):
            sub = fig.add_subplot(2, 2, 3 + k)
            rows = [(int(lab.rsplit(" ", 1)[1]), g) for lab, g in by_trick
                    if lab.startswith(role + ",")]
            for m in names:
                sub.plot([t for t, _ in rows], [regret[m][g].mean() for _, g in rows],
                         marker="o", label=Path(m).stem)
            sub.set_xlabel(f"trick (0-9), {role}")
            sub.set_ylabel(f"regret, {units}")
            sub.grid(alpha=0.3)
    else:
        fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(groups) * len(names) / 3), 4.2))
    width = 0.8 / len(names)
    x = np.arange(len(groups))
    if deals is None:
        deals = np.arange(len(regret[names[0]]))
    table = np.stack([regret[m] for m in names], axis=1)
    # the bars' ends, [group, robot]: one resampling of a group's deals for every robot
    ends = [cluster_ci(table[g], deals[g], seed=seed) for _, g in groups]
    for k, m in enumerate(names):
        mean = np.array([regret[m][g].mean() for _, g in groups])
        err = np.array([[mean[j] - lo[k], hi[k] - mean[j]] for j, (lo, hi) in enumerate(ends)])
        ax.bar(x + (k - (len(names) - 1) / 2) * width, mean, width,
               yerr=np.maximum(err.T, 0), capsize=2, label=Path(m).stem)
    ax.set_xticks(x, [f"{lab}\n({int(g.sum())})" for lab, g in groups], fontsize=8)
    ax.set_ylabel(f"regret against PIMC's labels, {units}")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
