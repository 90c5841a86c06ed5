"""PIMC at the four-player table, valuing the four-player settlement (the actor 3A, as it
plays) against the same search valuing the deal's three-player payments (the actor 2A, as
it did before): a duplicate match over every seating of the two robots (RULES.md §11.3).

    python -m scripts.four_valuation_match --deals 300 --seed 21 --jobs 2

The second robot hands the search the seat's deal as a three-player state (the same cards,
history and deal; no sitting-out dealer), so only the settlement the simulations and the
solver's amounts are valued in differs.
"""

from __future__ import annotations

from mariash_env.arena import duplicate_match
from mariash_env.core import state as S
from mariash_env.robots.pimc import PIMCRobot
from mariash_env.robots.view import SeatView
from mariash_env.rules import make_rules

THREE = make_rules()


class ThreeSeatValued(PIMCRobot):
    """PIMC valuing the deal at four as if it were played by three."""

    def act_view(self, view: SeatView) -> int:
        st = view._st.copy()
        st[S.P4_DEALER] = 0  # the same three-seat deal, settled as at three
        st[S.P4_SCORE:S.P4_SCORE + 8] = 0
        return super().act_view(SeatView(st, view.seat, THREE))


def four_valued() -> PIMCRobot:
    return PIMCRobot(worlds=8, time_limit=0.5)


def three_valued() -> PIMCRobot:
    return ThreeSeatValued(worlds=8, time_limit=0.5)


def main(argv: list[str] | None = None) -> None:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=300,
                    help="duplicate deals of the match (default 300)")
    ap.add_argument("--seed", type=int, default=21, help="the decks' seed (default 21)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="processes playing the match (default 2)")
    ap.add_argument("--out", default=None, help="a folder for deals.csv")
    a = ap.parse_args(argv)
    r = duplicate_match({"pimc_four_valued": four_valued, "pimc_three_valued": three_valued},
                        deals=a.deals, seed=a.seed, jobs=a.jobs, rules={"players": 4},
                        out=a.out)
    print(r.table())


if __name__ == "__main__":
    main()
