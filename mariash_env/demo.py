"""A rendered partie of robots with the running score: ``python -m mariash_env.demo``."""

from __future__ import annotations

from . import env as make_env
from .cli import ArgumentParser, fail, nonnegative, quiet_on_closed_pipe
from .robots import RandomRobot
from .rules import MAX_DEALS


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(prog="python -m mariash_env.demo", description=__doc__)
    # the env refuses a negative seed: parsed here, so that the error names --seed
    ap.add_argument("--seed", type=nonnegative(int), default=0,
                    help="shuffle of the partie, an int >= 0 (default 0)")
    ap.add_argument("--deals", type=int, default=12,
                    help=f"deals of the partie, 1..{MAX_DEALS} (default 12)")
    ap.add_argument("--quiet", action="store_true", help="only the settlement of each deal")
    args = ap.parse_args(argv)
    if not 1 <= args.deals <= MAX_DEALS:  # named as the option, not the env's rule option
        fail(f"invalid --deals {args.deals}: expected an int 1..{MAX_DEALS}")
    try:
        e = make_env(render_mode="ansi", deals=args.deals, records=False)
    except ValueError as err:
        fail(err)
    e.reset(seed=args.seed)
    robots = {a: RandomRobot(seed=args.seed + i) for i, a in enumerate(e.possible_agents)}
    raw = e.unwrapped
    shown = -1
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if not args.quiet and info["deal"] != shown:  # before the deal's trump choice
            shown = info["deal"]
            print(f"{'' if shown == 0 else chr(10)}=== deal {shown + 1} ===")
        action = robots[agent].act(obs)
        if not args.quiet:
            print(f"{agent}: {raw.action_label(action)}")
        e.step(action)
        info = raw.infos[agent]
        if info["settlement_deal"] >= 0:
            s = raw.last_settlement
            bets = ", ".join(
                f"{b['bet']}{' ' + b['level_name'] if b.get('level_name') else ''} "
                f"{'won' if b['won'] else 'lost'} {b['amount']:+d}"
                for b in s["bets"]
            )
            print(f"--- deal {info['settlement_deal'] + 1}: {s['contract']} by player_"
                  f"{s['actor']} ({s['end']}): {bets}; payments {s['payments']}")
            print(f"    running groše: {raw.game.scores}")
    print("\nfinal table:")
    print(raw.render())
    scores = raw.game.scores
    best = max(scores)
    winners = [f"player_{i}" for i, s in enumerate(scores) if s == best]
    print(f"partie won by {', '.join(winners)} with {best:+d} groše (totals {scores})")


if __name__ == "__main__":
    main()
