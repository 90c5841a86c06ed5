"""More labels or a wider network?  Held-out regret of fresh networks fitted to labels.

A network distilled from PIMC can only play PIMC's cards as well as it predicts them on
states it was not trained on.  This script fits fresh policy networks
(:class:`training.networks.MLP`, the label set's game sizes) to the card-play labels of one
or more directories -- the label loss of search distillation (``dmc.label_data``): the
Huber loss on PIMC's value of every legal card plus ``--advantage`` times the Huber loss of
the values centred on their state's mean -- with every width of ``--hidden`` and every
label count of ``--sizes`` (the first rows of the directories, in the order given), and
prints after every epoch the regret (:func:`scripts.label_regret.regret_of`: the label
value of PIMC's best card minus that of the network's card, in the game's unit) on
``--train-check`` training rows and on the held-out set, with its standard error over the
held-out states (a few states where one card costs tens of units make it wide).  Held-out
regret that falls with more labels asks for more labels; training regret far below
held-out regret, for more labels or less width; both high, for more width.  ``--plot``
draws the held-out regret of each width (the mean of the last half of the epochs) against
the label count, beside the table robot's on the same set.  ``--augment`` fits every
width and count a second time with each batch drawn under random suit symmetries of the
game (``dmc.label_augment``: the relabelled states' observations, the labels moved with
the cards), so the plot shows what the symmetry is worth in labels.

    .venv/bin/python scripts/label_fit.py runs/licit_auction/labels_actor_play \\
        runs/licit_auction/labels_actor_play2 --heldout runs/heldout_actor_play \\
        --hidden 256,256 1024,512,256 --sizes 37500 75000 150000 --plot fit.png

The labels are means over a few sampled worlds, so the regret measures agreement with
PIMC's estimate.  No training state is kept: the networks are measured and dropped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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
from scripts.label_regret import choices, load_rows, regret_of  # noqa: E402
from training.pimc_labels import (  # noqa: E402
    LabelError,
    encode_states,
    game_symmetry,
    label_game,
    relabelled,
)


def widths(text: str) -> list[int]:
    """``"1024,512,256"`` -> ``[1024, 512, 256]`` (argparse type: positive integers)."""
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        out = []
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"invalid widths {text!r}: expected positive "
                                         "integers separated by commas, e.g. 512,256")
    return out


def load(dirs: list[str], states: int, game: str | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, np.ndarray, np.ndarray]:
    """The first ``states`` card-play rows of ``dirs`` in turn: observations, legal mask
    (bool), values (NaN outside the labelled actions), the sets' game (all one game), and
    the state records and seats the observations were encoded from."""
    obs, mask, value, recs, seats = [], [], [], [], []
    left = states
    for d in dirs:
        g = label_game(d, game).name
        if game is None:
            game = g
        if left <= 0:
            continue
        rows = load_rows(d, left)
        obs.append(encode_states(rows["state"], rows["seat"], g))
        mask.append(rows["mask"].astype(bool))
        value.append(rows["value"])
        recs.append(rows["state"])
        seats.append(rows["seat"])
        left -= len(rows["seat"])
    assert game is not None
    return (np.concatenate(obs), np.concatenate(mask), np.concatenate(value), game,
            np.concatenate(recs), np.concatenate(seats))


def fit(obs: np.ndarray, mask: np.ndarray, value: np.ndarray, hidden: list[int],
        epochs: int, checks: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
        lr: float = 1e-3, batch: int = 512, advantage: float = 4.0, scale: float = 0.1,
        seed: int = 0, augment: tuple[np.ndarray, np.ndarray, str] | None = None
        ) -> list[list[tuple[float, float]]]:
    """Fit a fresh MLP of ``hidden`` widths for ``epochs`` on the rows; after each epoch,
    the mean regret on every ``(obs, mask, value)`` of ``checks`` and its standard error
    over the rows.  Targets are the values times ``scale`` (the DMC's transformed units),
    the Huber delta 1 as in training.  ``augment``: the rows' ``(state records, seats,
    game)``, each batch then drawn under random suit symmetries of the game
    (``dmc.label_augment``): the observations encoded from the relabelled records, the
    mask and targets moved with the cards."""
    import torch
    from torch import nn

    from training.methods.dmc import label_loss
    from training.networks import MLP

    torch.manual_seed(seed)
    net = MLP(hidden, obs_size=obs.shape[1], num_actions=mask.shape[1])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    huber = nn.HuberLoss(delta=1.0)
    target = np.nan_to_num(value * scale).astype(np.float32)
    rng = np.random.default_rng(seed)
    sym = None
    if augment is not None:
        states, seats, game = augment
        sym = game_symmetry(game, "--augment")
    batch = min(batch, len(obs))
    curve = []
    for _ in range(epochs):
        net.train()
        order = rng.permutation(len(obs))
        for i in range(0, len(order) - batch + 1, batch):
            j = order[i:i + batch]
            o, m, t = obs[j], mask[j], target[j]
            if sym is not None:
                o, m, t = relabelled(sym, game, states[j], seats[j], m, t, rng)
            loss = label_loss(net.scores(torch.from_numpy(o)), torch.from_numpy(m),
                              torch.from_numpy(t), huber, advantage)
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        row = []
        for o, m, v in checks:
            with torch.no_grad():
                q = net.scores(torch.from_numpy(o)).numpy()
            pick = np.where(m, q, -np.inf).argmax(1)
            r = regret_of(v, m, pick)[0]
            row.append((float(r.mean()), float(r.std() / np.sqrt(len(r)))))
        curve.append(row)
    return curve


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", nargs="+", help="card-play label directories (one game)")
    ap.add_argument("--heldout", required=True,
                    help="a card-play label directory none of the networks is fitted on")
    ap.add_argument("--hidden", nargs="+", type=widths, default=[[256, 256]],
                    help="network widths to compare, each comma-separated (default 256,256)")
    ap.add_argument("--sizes", nargs="+", type=positive(), default=None,
                    help="label counts to fit on, the first rows (default: all rows)")
    ap.add_argument("--heldout-states", type=positive(), default=3000,
                    help="rows of --heldout the regret is measured on, the first (default "
                         "3000)")
    ap.add_argument("--train-check", type=positive(), default=3000,
                    help="training rows whose regret is printed beside the held-out's")
    ap.add_argument("--epochs", type=positive(), default=6,
                    help="passes over the labels of each fit (default 6)")
    ap.add_argument("--lr", type=positive(float), default=1e-3,
                    help="learning rate of each fit (default 1e-3)")
    ap.add_argument("--advantage", type=nonnegative(float), default=4.0,
                    help="weight of the centred-values term (dmc.label_advantage_weight)")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the fits and of the training rows checked (default 0)")
    ap.add_argument("--augment", action="store_true",
                    help="fit every width and count a second time with the labels drawn "
                         "under random suit symmetries of the game (dmc.label_augment)")
    ap.add_argument("--plot", metavar="PNG", help="best held-out regret by label count")
    args = ap.parse_args(argv)
    if args.plot:
        try:
            check_writable(args.plot)
        except UnwritableError as e:
            fail(f"--plot: {e}")
    try:
        sizes = sorted(set(args.sizes or [10**12]))
        obs, mask, value, game, recs, seats = load(args.labels, max(sizes))
        ho, hm, hv, *_ = load([args.heldout], args.heldout_states, game)
    except (LabelError, ValueError) as e:
        fail(e)
    except OSError as e:
        fail(path_error(e, "read"))
    sizes = sorted({min(s, len(obs)) for s in sizes})
    from mariash_env.kinds import KINDS
    from mariash_env.rules import make_rules

    kind = KINDS[game]
    if args.augment:
        try:
            game_symmetry(game, "--augment")
        except LabelError as e:
            fail(e)
    table = regret_of(hv, hm, choices("table", ho, hm.astype(np.int8), np.random.default_rng(0),
                                      {}, make_rules(rules=game), kind))[0].mean()
    print(f"{len(obs)} {game} labels of {', '.join(args.labels)}; held out: {len(ho)} of "
          f"{args.heldout} (the table robot's regret there: {table:.3f})")
    late = max(1, args.epochs // 2)  # one epoch's figure swings: the mean of the last ones
    best: dict[str, list[tuple[float, float]]] = {}
    runs = [(h, aug) for h in args.hidden for aug in ([False, True] if args.augment
                                                        else [False])]
    for hidden, aug in runs:
        name = ",".join(map(str, hidden)) + (" augmented" if aug else "")
        for n in sizes:
            tc = np.random.default_rng(args.seed).choice(n, min(args.train_check, n),
                                                         replace=False)
            curve = fit(obs[:n], mask[:n], value[:n], hidden, args.epochs,
                        [(obs[tc], mask[tc], value[tc]), (ho, hm, hv)], args.lr,
                        advantage=args.advantage, seed=args.seed,
                        augment=(recs[:n], seats[:n], game) if aug else None)
            for ep, ((tr, _), (he, se)) in enumerate(curve, 1):
                print(f"hidden {name:>24}  labels {n:>8}  epoch {ep:>2}  regret: training "
                      f"{tr:.3f}  held out {he:.3f} ± {se:.3f}", flush=True)
            tail = curve[-late:]
            best.setdefault(name, []).append((float(np.mean([c[1][0] for c in tail])),
                                              float(np.mean([c[1][1] for c in tail]))))
    print(f"held-out regret by label count (the mean of the last {late} epochs; ± one "
          "standard error over the held-out states):")
    for name, row in best.items():
        print(f"  hidden {name:>24}: " + "  ".join(f"{n}: {r:.3f} ± {e:.3f}"
                                                   for n, (r, e) in zip(sizes, row)))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from mariash_env.atomic import atomic_open

        fig, ax = plt.subplots(figsize=(6, 4))
        for name, row in best.items():
            ax.errorbar(sizes, [r for r, _ in row], yerr=[e for _, e in row], marker="o",
                        capsize=3, label=f"MLP {name}")
        ax.axhline(table, color="grey", ls="--", label="table robot")
        ax.set_xscale("log")
        ax.set_xlabel("labels fitted on")
        ax.set_ylabel(f"held-out regret ({kind.units} a decision)")
        ax.set_title("Fresh networks fitted to PIMC's card-play labels")
        ax.legend()
        fig.tight_layout()
        with atomic_open(args.plot, "wb") as f:
            fig.savefig(f, format="png", dpi=110)
        plt.close(fig)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
