"""Seconds per deal of the licitovaný PIMC robot, this tree against an older one (issue #35).

Two worker processes, one per tree (this checkout, and ``--old``: e.g. a
``git worktree add /tmp/tp_old <commit>``), each play the same single deals -- the PIMC
robot (``make_robot("pimc", rules="licitovany")``, its defaults) in seat 0 against the
game's table robot in seats 1 and 2 -- alternating old and new deal by deal, so that both
see the same load of the machine.  Printed: each deal's seconds in both trees, the totals
and their ratio, and whether the PIMC robot took the same decisions in both (every action
of seat 0, same seeds).  ``--profile`` then runs the new tree's deals once more under
cProfile and prints where their time goes.

    .venv/bin/python scripts/bench_licit_pimc.py --old /tmp/tp_old --deals 10
    .venv/bin/python scripts/bench_licit_pimc.py --old /tmp/tp_old --deals 10 --profile 25

``--positions N`` first compares the table robot's card choices: the old tree plays N
deals of each game (table robot, some random actions so that betl, durch, defence and
every trick occur) and records every card-play position with its card; this tree's
:func:`~mariash_env.games.voleny.table_play.choose_card` (from the compiled decoders) must
give the same card.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _worker() -> None:
    """Play the deals whose seeds come on stdin (one a line) and answer each with a JSON
    line: seconds, the PIMC robot's actions and its stats (runs in the tree on PYTHONPATH)."""
    from mariash_env.arena import play_deal
    from mariash_env.robots import make_robot
    from mariash_env.rules import make_rules

    rules = make_rules(rules="licitovany")
    pimc = make_robot("pimc", rules="licitovany")
    table = make_robot("table", rules="licitovany")
    acts: list[int] = []
    inner = pimc.act_view

    def act_view(view):  # record the robot's decisions
        a = inner(view)
        acts.append(int(a))
        return a

    pimc.act_view = act_view
    # One deal untimed first: the compilation (or cache load) of what the deals call.
    play_deal([pimc, table, table], (0, 1, 2), 10**6, 0, rules)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip() == "positions":
            _positions(*json.loads(sys.stdin.readline()))
            print(json.dumps({"done": True}), flush=True)
            continue
        seed = int(line)
        acts.clear()
        t0 = time.perf_counter()
        play_deal([pimc, table, table], (0, 1, 2), seed, 0, rules)
        print(json.dumps({"seconds": time.perf_counter() - t0, "actions": acts}), flush=True)


def _positions(path: str, deals: int, seed0: int) -> None:
    """Record the table robot's card-play positions and cards over ``deals`` deals of each
    game (random actions mixed in: a third of the bidding, a twentieth of the card play)
    into the npz ``path``: per game its observations, masks and cards."""
    import numpy as np

    from mariash_env import Game
    from mariash_env.robots.card_view import CardPlayView
    from mariash_env.robots.features import decode
    from mariash_env.robots.licit_table import LicitTableRobot, card_play_view
    from mariash_env.robots.table import TableRobot

    rng = np.random.default_rng(seed0)
    out = {}
    for game in ("licitovany", "voleny"):
        robot = LicitTableRobot() if game == "licitovany" else TableRobot()
        volen = robot._voleny if game == "licitovany" else robot
        obs, masks, moves = [], [], []
        for d in range(deals):
            g = Game(game, records=False)
            g.new_partie(seed=seed0 + d)
            while not g.deal_over:
                o, m = g.observe(g.to_move)
                legal = np.flatnonzero(m)
                play = g.phase_name == "play"
                if play and legal.size > 1:
                    v = (card_play_view(o, m) if game == "licitovany"
                         else CardPlayView.of_info(decode(o, m)))
                    if v.legal:
                        obs.append(o.copy())
                        masks.append(m.copy())
                        moves.append(volen.play_card(v))
                if rng.random() < (0.05 if play else 0.3):
                    a = int(rng.choice(legal))
                else:
                    a = robot.act({"observation": o, "action_mask": m})
                g.step(a)
        out[f"{game}_obs"] = np.array(obs, np.float32)
        out[f"{game}_mask"] = np.array(masks, np.int8)
        out[f"{game}_move"] = np.array(moves, np.int64)
    np.savez(path, **out)


class Worker:
    """A worker process in the tree ``root``."""

    def __init__(self, root: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(root))
        self.p = subprocess.Popen([sys.executable, __file__, "--worker"], cwd=root, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.read()

    def read(self) -> dict:
        from mariash_env import jsonio  # this tree's (the worker's may be older than jsonio)

        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("a worker died (its stderr above)")
        return jsonio.loads(line)

    def deal(self, seed: int) -> dict:
        self.p.stdin.write(f"{seed}\n")
        self.p.stdin.flush()
        return self.read()

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def compare_positions(old: Worker, deals: int, seed: int) -> None:
    """The table robot's cards recorded by the old tree against this tree's compiled
    decoders and card choice (module docstring)."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from mariash_env import jsonio
    from mariash_env.games.licitovany.table_play import decode_licit
    from mariash_env.games.voleny.table_play import VIEW_SIZE, choose_card, decode_voleny

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "positions.npz")
        old.p.stdin.write("positions\n" + jsonio.dumps([path, deals, seed]) + "\n")
        old.p.stdin.flush()
        old.read()
        z = dict(np.load(path))
    v = np.zeros(VIEW_SIZE, np.int64)
    for game, dec in (("licitovany", decode_licit), ("voleny", decode_voleny)):
        obs, mask, move = z[f"{game}_obs"], z[f"{game}_mask"], z[f"{game}_move"]
        same = 0
        for o, m, c in zip(obs, mask, move):
            dec(o, m, v)
            same += choose_card(v) == c
        print(f"{game}: {same} of {len(move)} card-play positions the same card")


def main() -> None:
    sys.path.insert(0, str(ROOT))  # this tree's package, as the comparison imports it
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="the older tree to compare with")
    ap.add_argument("--deals", type=int, default=10,
                    help="single deals each tree plays (default 10)")
    ap.add_argument("--seed", type=int, default=201, help="the first deal's seed")
    ap.add_argument("--positions", type=int, default=0,
                    help="deals per game of the card-choice comparison (0: none)")
    ap.add_argument("--profile", type=int, default=0, help="cProfile lines to print (0: none)")
    args = ap.parse_args()
    old, new = Worker(args.old.resolve()), Worker(ROOT)
    if args.positions:
        compare_positions(old, args.positions, 100_000)
    t_old = t_new = 0.0
    decisions = same = 0
    print("seed   old s   new s  decisions same")
    for k in range(args.deals):
        seed = args.seed + k
        a = old.deal(seed)
        b = new.deal(seed)
        t_old += a["seconds"]
        t_new += b["seconds"]
        n = len(a["actions"])
        eq = a["actions"] == b["actions"]
        decisions += n
        same += n if eq else sum(x == y for x, y in zip(a["actions"], b["actions"]))
        print(f"{seed:5d} {a['seconds']:7.2f} {b['seconds']:7.2f} {n:10d} {eq}", flush=True)
    old.close()
    new.close()
    print(f"seconds per deal: old {t_old / args.deals:.3f}, new {t_new / args.deals:.3f}, "
          f"ratio {t_old / t_new:.2f}x; PIMC decisions identical: {same} of {decisions}")
    if args.profile:
        import cProfile
        import pstats

        sys.path.insert(0, str(ROOT))
        from mariash_env.arena import play_deal
        from mariash_env.robots import make_robot
        from mariash_env.rules import make_rules

        rules = make_rules(rules="licitovany")
        p, t = make_robot("pimc", rules="licitovany"), make_robot("table", rules="licitovany")
        pr = cProfile.Profile()
        pr.enable()
        for k in range(args.deals):
            play_deal([p, t, t], (0, 1, 2), args.seed + k, 0, rules)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    if "--worker" in sys.argv:
        _worker()
    else:
        main()
