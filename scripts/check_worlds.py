"""Are the searching robots' worlds deals that could have happened?  At random decisions of
random deals, for every seat:

* volený, each variant: the seat's ``knowledge`` admits where the cards really are;
  every world ``sample_worlds`` draws replays exactly from its own deck (the other seats'
  hidden decisions taken from it, ``fill_hidden``); the seat record of the seat to move
  (``seat_record_of``, three players) rebuilds, under two seeds, the seat's own
  observation and legal actions (``seat_view``; licitovaný's too);
* licitovaný: the places the seat's sampler allows each hidden card (``places_admit``)
  admit where the cards really are; every world ``sample_licit_worlds`` draws replays
  exactly;
* both: the worlds drawn from another deal the seat cannot tell from the real one (the
  engine's deal of one of its worlds) are the same, seed for seed: no hidden fact of the
  real deal goes into them.

``python -m scripts.check_worlds [--deals 300] [--seed 0] [--games voleny,licitovany]``
prints one line of counts per game and variant and exits 1 if any check failed.  The
tests run the same checks small (tests/test_worlds_replay.py, tests/test_licit_worlds.py,
tests/test_seat_record.py).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VARIANTS = {"voleny": [{}, {"marriage_order": "queen_first"}, {"open_contracts": True},
                       {"open_contracts": True, "hundred_counting": "order_free"},
                       {"tariff": "csm", "max_flek": 1}, {"players": 4}],
            "licitovany": [{}]}


def replayed(w: Any, g: Any, me: int) -> Any:
    """The deal the engine makes of the world ``w`` of core seat ``me``: dealt from its own
    deck, ``g``'s decisions (the other seats' hidden ones taken from ``w`` by the game's
    ``fill_hidden``) applied (the partie's generator words are not the deal's); None if
    one of them is illegal there."""
    from mariash_env.core import state as S
    from mariash_env.core.deal import deck_of
    from mariash_env.core.engine import apply_action, legal_actions, start_partie_of

    fill = g.kind.load("hidden_info").fill_hidden
    r = S.new_state()
    start_partie_of(r, deck_of(w), int(w[S.P4_DEALER] if g.four else w[S.DEALER]), g.rv)
    r[S.CUT], r[S.DEAL_NO] = w[S.CUT], w[S.DEAL_NO]
    r[S.RNG:S.RNG + 4] = w[S.RNG:S.RNG + 4]
    mask = np.zeros(g.kind.n_actions, dtype=np.int8)
    history = [(g.core_seat(p), a) for p, a in g.history]  # at four: players -> seats
    for a in fill(history, w, me):
        legal_actions(r, g.rv, mask)
        if not mask[a]:
            return None
        apply_action(r, g.rv, a)
    return r


def world_replays(w: Any, g: Any, me: int) -> bool:
    """A sampled world is a deal that could have happened: :func:`replayed` gives it back
    exactly."""
    r = replayed(w, g, me)
    return r is not None and bool(np.array_equal(r, w))


def check(game: str, opts: dict[str, Any], deals: int, seed: int) -> Counter:
    """The counts of one game and variant (keys ``*_bad`` count failures)."""
    from mariash_env import Game, make_rules
    from mariash_env.core import state as S
    from mariash_env.games.licitovany.worlds import places_admit
    from mariash_env.search import knowledge
    from mariash_env.seat_record import SeatRecordError, seat_record_of, seat_view

    rules = make_rules(rules=game, deals=1, **opts)
    info = Game(rules).kind.load("hidden_info")
    voleny = game == "voleny"
    rng = np.random.default_rng(seed)
    out: Counter = Counter()
    for _ in range(deals):
        g = Game(rules)
        g.new_partie(seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(rules.players)))
        while not g.deal_over:
            in_deal = not voleny or g.st[S.PHASE] >= S.PH_TRUMP
            for me in range(3) if in_deal and rng.random() < 0.3 else ():
                out["knowledge"] += 1
                out["knowledge_bad"] += not (knowledge(g.st, me, rules).admits(g.st) if voleny
                                             else places_admit(g.st, me, rules))
                try:
                    worlds = info.sample_worlds(g.st, me, 2, int(rng.integers(1 << 30)), rules)
                except info.world_errors:
                    out["gave_up"] += 1
                    continue
                for w in worlds:
                    out["worlds"] += 1
                    out["worlds_bad"] += not world_replays(w, g, me)
                # Another deal the seat cannot tell from the real one (the engine's deal of
                # a world) gives the same worlds from the same seed: nothing the seat does
                # not know goes into them.
                other, again = replayed(worlds[0], g, me), int(rng.integers(1 << 30))
                try:
                    same = other is not None and np.array_equal(
                        info.sample_worlds(g.st, me, 2, again, rules),
                        info.sample_worlds(other, me, 2, again, rules))
                except info.world_errors:
                    out["gave_up"] += 1
                    continue
                out["unseen"] += 1
                out["unseen_bad"] += not same
            if rules.players == 3 and rng.random() < 0.1:
                rec, seat = seat_record_of(g), g.to_move
                for r in range(2):
                    out["records"] += 1
                    try:
                        v = seat_view(rec, rng=r)
                    except SeatRecordError:
                        out["records_bad"] += 1
                        continue
                    out["records_bad"] += not (
                        np.array_equal(v.observation(), g.observation(seat))
                        and np.array_equal(v.action_mask(), g.legal_mask(seat)))
            g.step(int(rng.choice(g.legal_actions())))
    return out


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(prog="python -m scripts.check_worlds",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300, help="random deals per variant")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    ap.add_argument("--games", default="voleny,licitovany",
                    help="comma-separated games to check (default voleny,licitovany)")
    args = ap.parse_args(argv)
    games = args.games.split(",")
    unknown = sorted(set(games) - set(VARIANTS))
    if args.deals < 1 or unknown:
        ap.error(f"expected --deals >= 1 and --games among {sorted(VARIANTS)}")
    failed = 0
    for game in games:
        for opts in VARIANTS[game]:
            t0 = time.monotonic()
            c = check(game, opts, args.deals, args.seed)
            bad = sum(v for k, v in c.items() if k.endswith("_bad"))
            failed += bad
            shown = ", ".join(f"{k} {v:,}" for k, v in sorted(c.items()))
            print(f"{game} {opts or 'standard'}: {shown} ({time.monotonic() - t0:.0f} s)")
    print("failures:", failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
