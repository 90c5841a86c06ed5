"""Benchmark: OpenSpiel ``resample_from_infostate`` on the game ``"mariash"``
(docs/openspiel.md, the resampling figures): how many resamples succeed and how long a call takes.

States are taken at random points of parties played by ``--robot`` (random or table;
chance nodes drawn uniformly) and resampled for each seat.  For ``--deals`` > 1 only
states from the second deal on are kept (a gathered partie resamples by rejection there).

    python scripts/bench_resample.py [--deals 3] [--shuffle partie] [--robot table]
                                     [--states 60] [--seed 11] [--rules licitovany] [--players 4]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mariash_env.cli import ArgumentParser, nonnegative, positive  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive(int), default=3,
                    help="deals of the partie; above 1 only states from the second deal "
                         "on are kept (default 3)")
    ap.add_argument("--shuffle", choices=("partie", "every_deal"), default="partie",
                    help="the game's shuffle rule (default partie)")
    ap.add_argument("--robot", choices=("random", "table"), default="table",
                    help="who plays the parties the states are taken from (default table)")
    ap.add_argument("--states", type=positive(int), default=60,
                    help="states resampled, each for every seat (default 60)")
    ap.add_argument("--seed", type=nonnegative(int), default=11,
                    help="seed of the play, the chance draws and the resamples (default 11)")
    ap.add_argument("--rules", choices=("voleny", "licitovany"), default="voleny",
                    help="the game (default voleny)")
    ap.add_argument("--players", type=int, choices=(3, 4), default=3,
                    help="seats (4: volený only; default 3)")
    args = ap.parse_args(argv)

    import pyspiel

    from mariash_env.openspiel import ResampleError
    from mariash_env.robots import make_robot
    from mariash_env.rules import RulesError

    try:
        game = pyspiel.load_game("mariash", {"rules": args.rules, "deals": args.deals,
                                             "shuffle": args.shuffle, "players": args.players})
    except RulesError as e:  # e.g. licitovaný at four
        print(f"error: {e}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    table = make_robot("table", rules=args.rules)

    def act(s) -> int:
        if s.is_chance_node():
            outcomes, probs = zip(*s.chance_outcomes())
            return int(rng.choice(outcomes, p=probs))
        if args.robot == "random":
            return int(rng.choice(s.legal_actions()))
        mask = np.zeros(game.num_distinct_actions(), np.int8)
        mask[s.legal_actions()] = 1
        obs = np.asarray(s.observation_tensor(s.current_player()), np.float32)
        return int(table.act({"observation": obs, "action_mask": mask}))

    ok = failed = states = 0
    seconds = 0.0
    while states < args.states:
        s = game.new_initial_state()
        stop = int(rng.integers(1, 40 + 80 * args.deals))
        while not s.is_terminal() and len(s.history()) < stop:
            s.apply_action(act(s))
        if s.is_terminal() or (args.deals > 1 and len(s.recalled()) < 2):
            continue
        states += 1
        for p in range(game.num_players()):
            t0 = time.perf_counter()
            try:
                s.resample_from_infostate(p, rng.random)
                ok += 1
            except ResampleError:
                failed += 1
            seconds += time.perf_counter() - t0
    print(f"rules={args.rules} players={args.players} deals={args.deals} shuffle={args.shuffle} "
          f"robot={args.robot}: {ok} of "
          f"{ok + failed} resamples succeed, {1000 * seconds / (ok + failed):.1f} ms a call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
