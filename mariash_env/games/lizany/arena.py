"""What the arena (:mod:`mariash_env.arena`) needs to play lízaný (:mod:`mariash_env.lizany`).

``python -m mariash_env.arena --rules lizany --robots table,random`` (or
``duplicate_match(..., rules={"rules": "lizany"})``) plays every deck (shuffled from the
match seed and the deal's index) once in *every seating* of two different robots: A as
``player_0`` (who leads the first trick) and B as ``player_1``, then swapped; with more
robots every ordered pair, with one the robot against itself.  A robot's score on a deal
is its mean reward (±1, ±2) over the seats it filled.  The arena's result shows lízaný's
columns (:func:`table`: win rate, leading and second, share of double wins, mean points).
A deal takes about a millisecond, so the match plays in the calling process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...robots.base import Robot
from ...rules import check_game_options
from ..base import GameArena, step_bound
from . import core as C
from .game import RULES, LizanyGame
from .kind import KIND

LIZANY = RULES["rules"]


def lizany_rules(options: Mapping[str, Any]) -> dict[str, Any]:
    """The rules of a lízaný match from rule options; lízaný has none besides the game
    (``deals=1``, ``players=2`` are what a match plays anyway): RulesError naming any
    other."""
    check_game_options(KIND, options)
    return dict(RULES)


def play_seatings(robots: list[Robot], seats: list[tuple[int, ...]],
                  seed: int) -> list[dict[str, Any]]:
    """The deck of ``seed`` played once in each seating (:func:`play_deal`); before each
    game every robot gets ``begin_deal`` with a seed of the deal, the seating and itself."""
    outs = []
    for seating in seats:
        for j, r in enumerate(robots):
            r.begin_deal(int(np.random.SeedSequence([seed, j, *seating]).generate_state(1)[0]))
        outs.append(play_deal(robots, seating, seed))
    return outs


def new_deal(seed: int) -> LizanyGame:
    """The deal of the deck shuffled from ``seed`` (the arena's and the data set's)."""
    return LizanyGame(seed=seed)


def play_deal(robots: list[Robot], seating: tuple[int, ...], seed: int) -> dict[str, Any]:
    """Play the deck of ``seed`` with ``robots[seating[s]]`` as ``player_s``; the outcome:
    rewards as ``payments``, points, tricks, decisions and thinking seconds per seat."""
    g = new_deal(seed)
    decisions = [0, 0]
    think = [0.0, 0.0]
    tick = step_bound("lízaný's play_deal", C.DEAL_DECISIONS)
    while not g.over:
        tick()
        s = g.to_move
        t0 = time.perf_counter()
        a = robots[seating[s]].act({"observation": g.observe(s), "action_mask": g.legal_mask(s)})
        think[s] += time.perf_counter() - t0
        decisions[s] += 1
        g.play(int(a))
    return {"payments": list(g.rewards), "points": list(g.totals()), "tricks": list(g.tricks),
            "decisions": decisions, "think": think}


def stats(k: int, seats: list[tuple[int, ...]],
          outcomes: list[list[dict[str, Any]]]) -> list[dict[str, float]]:
    """Per robot: seats played, win rates (all, leading, second), the share of its wins
    that were double (the loser took no trick), mean points, seconds per decision."""
    n, wins, double, pts, dec, think = (np.zeros(k) for _ in range(6))
    seat_n, seat_win = np.zeros((k, 2)), np.zeros((k, 2))
    for deal in outcomes:
        for seating, o in zip(seats, deal):
            for s, r in enumerate(seating):
                won = o["payments"][s] > 0
                n[r] += 1
                wins[r] += won
                double[r] += o["payments"][s] == 2
                seat_n[r, s] += 1
                seat_win[r, s] += won
                pts[r] += o["points"][s]
                dec[r] += o["decisions"][s]
                think[r] += o["think"][s]
    return [{
        "seats_played": int(n[r]),
        "win_rate": float(wins[r] / max(n[r], 1)),
        "win_rate_leading": float(seat_win[r, 0] / max(seat_n[r, 0], 1)),
        "win_rate_second": float(seat_win[r, 1] / max(seat_n[r, 1], 1)),
        "double_win_share": float(double[r] / max(wins[r], 1)),
        "points_per_deal": float(pts[r] / max(n[r], 1)),
        "seconds_per_decision": float(think[r] / max(dec[r], 1)),
    } for r in range(k)]


def table(res: Any) -> str:
    """The text table of a lízaný :class:`~mariash_env.arena.MatchResult`."""
    lines = [
        f"lízaný duplicate match: {res.deals} deals x {len(res.seatings)} seatings "
        f"({res.seconds:.0f} s)",
        f"{'robot':<28}{'reward/deal':>12}{'95% CI':>20}{'win%':>7}{'leading':>9}"
        f"{'second':>8}{'double%':>9}{'points':>8}",
    ]
    for row in res.summary():
        ci = f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
        lines.append(
            f"{row['robot']:<28}{row['reward_per_deal']:>+12.3f}{ci:>20}"
            f"{100 * row['win_rate']:>6.1f}%{100 * row['win_rate_leading']:>8.1f}%"
            f"{100 * row['win_rate_second']:>7.1f}%{100 * row['double_win_share']:>8.1f}%"
            f"{row['points_per_deal']:>8.1f}")
    return "\n".join(lines)


ARENA = GameArena(title="lízaný", rules=lizany_rules, play_seatings=play_seatings,
                  stats=stats, table=table, roles=("leader", "second"), deal=new_deal,
                  deal_decisions=C.DEAL_DECISIONS,
                  kernels=(C.new_deal, C.legal_cards, C.legal_cards_of, C.play_card, C.encode))
"""The kind's ``arena``: every deal in the calling process (a deal takes a millisecond);
``by_role`` by seat: ``player_0`` leads the first trick; its kernels: those
:class:`LizanyGame` calls in a deal."""
