"""Where does a robot win or lose against the table robot?  A phase ablation.

Plays the same duplicate deals as ``training.evaluate`` (the arena's match: the six
seatings of the robot and the table robot) once with the robot's own decisions and then
once per part of the game with the table robot's decisions in that part only.  A part
whose swap *raises* the score is one the robot plays worse than the table robot: each
row shows the change on the same deals, with its paired 95% CI.  The
model's game (volený or licitovaný) picks the table robot and the parts.

    .venv/bin/python scripts/ablate_phases.py models/robot.onnx --deals 1000
    .venv/bin/python scripts/ablate_phases.py models/robot_licitovany.onnx --deals 1000

Each side's card play is also split by volený's contract kinds or by licitovaný's
announced games (sedma, sto, dvě sedmy, betl and durch): issue #35 found that way that
licitovaný's network plays every suit game as actor worse than the table robot does.

A robot spec of :func:`mariash_env.robots.make_robot` works too (volený), a searching one
(``wants_view``) included, whose games are then played one decision at a time;
``--parts`` keeps the rows whose names contain one of the given words:

    .venv/bin/python scripts/ablate_phases.py strong --deals 1000 --parts "card play"

``--with SPEC`` swaps in another robot's decisions instead of the table robot's (any robot
spec of the model's game, a searching one included), and ``--by-company`` adds to each
row what the robot's seats take a game alone against two table robots and beside its own
copy (the arena's ``--by-company``): a part that pays only beside the copy shows there.
Issue #35 found that way that volený PIMC's margin over the table robot is mostly its
defenders' fleks, which lose alone and pay beside a copy that is the actor:

    .venv/bin/python scripts/ablate_phases.py models/robot_voleny_deal3.onnx --deals 300 \
        --seed 11 --by-company --parts flek --with "nnpimc(model='models/robot_voleny_deal3.onnx', \
        worlds=8, bidding='simulate', from_trick=9, nt_from_trick=9)"
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mariash_env.arena import MAX_JOBS, check_match_args, duplicate_match  # noqa: E402
from mariash_env.cli import ArgumentParser, fail, nonnegative, path_error, positive  # noqa: E402
from mariash_env.core.state import C_SUIT, CONTRACT_NAMES  # noqa: E402
from mariash_env.games.licitovany.games import GAME_IDS, KIND  # noqa: E402
from mariash_env.kinds import LICITOVANY, VOLENY, GameKind  # noqa: E402
from mariash_env.robots import Robot, make_robot  # noqa: E402
from mariash_env.robots.onnx_robot import OnnxRobot  # noqa: E402
from mariash_env.rules import make_rules  # noqa: E402
from training.evaluate import as_robot, bootstrap_ci  # noqa: E402

# licitovaný's suit games (not betl, durch), by their ids
LICIT_SUIT_GAMES = tuple(g for g, k in zip(GAME_IDS, KIND[1:]) if k == C_SUIT)

# part of the game -> (phases, whose decisions: None = any seat, True = actor, False = defence)
PARTS = {
    "voleny": {
        "trump, contract, discards": (("trump", "contract", "discard"), None),
        "Barva? and betl answers": (("barva", "betl_answer"), None),
        "announcement": (("announce",), None),
        "flek and against bets": (("flek",), None),
        "card play as actor": (("play",), True),
        "card play as defender": (("play",), False),
    },
    "licitovany": {
        "auction": (("bid", "hold", "lone_bid"), None),
        "game, trumps, helping suit, discards, lead": (
            ("game", "trumps", "helping", "discard", "lead"), None),
        "flek": (("flek",), None),
        "card play as actor": (("play",), True),
        "card play as defender": (("play",), False),
    },
}


# the card play of each side split by contract (volený): which of its games a swap helps in
SPLITS = {
    "voleny": {
        "card play as actor, suit games": (("play",), True, ("suit",)),
        "card play as actor, betl and durch": (("play",), True, ("betl", "durch")),
        "card play as defender, suit games": (("play",), False, ("suit",)),
        "card play as defender, betl and durch": (("play",), False, ("betl", "durch")),
        "flek as actor (re, supre)": (("flek",), True, None),
        "flek in defence": (("flek",), False, None),
    },
    "licitovany": {
        "card play as actor, sedma games": (("play",), True, ("sedma", "lepsi_sedma")),
        "card play as actor, sto games": (("play",), True, (
            "sto", "sto_sedma", "lepsi_sto", "lepsi_sto_sedma")),
        "card play as actor, dve sedmy games": (("play",), True, (
            "dve_sedmy", "dve_sedmy_sto", "lepsi_dve_sedmy", "lepsi_dve_sedmy_sto")),
        "card play as actor, betl and durch": (("play",), True, ("betl", "durch")),
        "card play as defender, suit games": (("play",), False, LICIT_SUIT_GAMES),
        "card play as defender, betl and durch": (("play",), False, ("betl", "durch")),
        "flek as actor (re, supre)": (("flek",), True, None),
        "flek in defence": (("flek",), False, None),
    },
}
CONTRACTS = CONTRACT_NAMES[1:]  # the observation's contract slots, in order (not "none")


def selector(game: GameKind, phases: tuple[str, ...], as_actor: bool | None,
             contracts: tuple[str, ...] | None = None):
    """``obs[B, n] -> bool[B]``: the decisions in ``phases`` (for that side; in
    ``contracts`` only, when given: volený's contract kinds, licitovaný's game ids)."""
    a0 = next(off for name, off, _, _ in game.obs_layout if name == "actor")
    codes = [game.phase_names.index(p) for p in phases]
    if contracts is not None:
        field, names = ("game", GAME_IDS) if game is LICITOVANY else ("contract", CONTRACTS)
        c0 = next(off for name, off, _, _ in game.obs_layout if name == field)
        slots = [c0 + names.index(c) for c in contracts]

    def select(obs: np.ndarray) -> np.ndarray:
        sel = np.isin(game.phase_of(obs), codes)
        if as_actor is not None:
            me_actor = obs[:, a0] > 0  # relative seat 0 is the seat itself
            sel &= me_actor if as_actor else ~me_actor
        if contracts is not None:
            sel &= obs[:, slots].max(1) > 0
        return sel

    return select


def swapped(robot, table, game: GameKind, phases: tuple[str, ...], as_actor: bool | None,
            contracts: tuple[str, ...] | None = None):
    """The robot's batch policy with the table robot deciding in ``phases`` (for that
    side; in ``contracts`` only, when given)."""
    select = selector(game, phases, as_actor, contracts)

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        a = robot.act_batch(obs, mask)
        sel = select(obs)
        if sel.any():
            a[sel] = table.act_batch(obs[sel], mask[sel])
        return a

    return act


class SwappedView(Robot):
    """A robot with another (the table robot, or ``--with``'s) deciding where ``select``
    says (:func:`selector`), one decision at a time: for either of them searching
    (``wants_view``)."""

    wants_view = True

    def __init__(self, robot: Robot, table: Robot, select=None) -> None:
        self.robot, self.table, self.select = robot, table, select

    def begin_deal(self, seed: int) -> None:
        self.robot.begin_deal(seed)
        self.table.begin_deal(seed)

    def act_view(self, view) -> int:
        obs, mask = view.observation()[None], view.action_mask()[None]
        if self.select is not None and self.select(obs)[0]:
            if self.table.wants_view:
                return int(self.table.act_view(view))
            return int(self.table.act_batch(obs, mask)[0])
        return self.robot.act_view(view)


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="an exported robot (.onnx), or a robot spec of "
                                  "make_robot (volený)")
    ap.add_argument("--deals", type=positive(int), default=1000,
                    help="duplicate deals of each row's match (default 1000)")
    ap.add_argument("--seed", type=nonnegative(int), default=777,
                    help="the decks' seed, the same for every row (default 777)")
    ap.add_argument("--parts", nargs="*", default=None, metavar="WORD",
                    help="keep only the swaps whose names contain one of these words")
    ap.add_argument("--jobs", type=positive(int), default=1, help=f"processes (1..{MAX_JOBS})")
    ap.add_argument("--with", dest="other", default="table", metavar="SPEC",
                    help="the robot whose decisions are swapped in (a robot spec of the "
                         "model's game; default the table robot)")
    ap.add_argument("--by-company", action="store_true",
                    help="also what the robot's seats take a game alone against two table "
                         "robots and beside its own copy")
    args = ap.parse_args(argv)
    try:  # every argument before the first (long) match
        check_match_args(args.deals, args.jobs, args.seed)
        if args.model.endswith(".onnx"):
            robot = OnnxRobot(args.model)
            game, rules = robot.game, dict(robot.rules)  # the model's own game and rules
        else:
            robot = make_robot(args.model)
            game, rules = VOLENY, make_rules().to_dict()
    except ValueError as e:  # also OnnxRobotError
        fail(e)
    except OSError as e:  # a model path the system refuses (e.g. a name too long)
        fail(path_error(e, "read"))
    table = make_robot("table", rules=rules)
    try:
        other = table if args.other == "table" else make_robot(args.other, rules=rules)
    except ValueError as e:  # an unknown robot or argument, one for another game
        fail(e)
    who = type(table).__name__ if other is table else args.other
    spec = {**PARTS[game.name], **SPLITS[game.name]}
    if args.parts:
        kept = {k: v for k, v in spec.items() if any(w in k for w in args.parts)}
        if not kept:
            fail(f"--parts {' '.join(args.parts)} names no swap; the swaps are: "
                 f"{'; '.join(spec)}")
        spec = kept
    if robot.wants_view or other.wants_view:
        rows = [("the robot's own decisions", lambda: SwappedView(robot, other))]
        rows += [(f"{who}'s {part}",
                  lambda sp=sp: SwappedView(robot, other, selector(game, *sp)))
                 for part, sp in spec.items()]
    else:
        rows = [("the robot's own decisions", lambda: as_robot(robot.act_batch))]
        rows += [(f"{who}'s {part}",
                  lambda sp=sp: as_robot(swapped(robot, other, game, *sp)))
                 for part, sp in spec.items()]
    unit = "desetníky" if game is LICITOVANY else "groše"
    print(f"{args.model} vs {type(table).__name__}, {args.deals} duplicate deals (seed "
          f"{args.seed}), swapping in {who}; "
          f"{unit} per deal and 95% CI; the swap's change on the same deals (paired)")
    rules.pop("deals", None)
    own = None
    for name, make in rows:
        res = duplicate_match({"agent": make, "robot": lambda: table},
                              deals=args.deals, seed=args.seed, rules=rules, progress=False,
                              batch=250, jobs=args.jobs)
        x = res.per_deal[:, 0]
        lo, hi = bootstrap_ci(x)
        line = f"  {name:50s} {x.mean():+7.3f}  [{lo:+.3f}, {hi:+.3f}]"
        if own is None:
            own = x
        else:  # the same deals and seatings: the difference is far less noisy than either
            dlo, dhi = bootstrap_ci(x - own)
            line += f"   change {(x - own).mean():+.3f}  [{dlo:+.3f}, {dhi:+.3f}]"
        if args.by_company:
            alone, beside = res.company()
            line += (f"   a game alone {alone['a_takes']:+.3f}, beside its copy "
                     f"{beside['a_takes']:+.3f}")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
