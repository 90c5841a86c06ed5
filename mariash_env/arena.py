"""Duplicate evaluation of robots: the same deals, every seating, luck of the cards cancels.

::

    python -m mariash_env.arena --robots table,pimc,random --deals 2000 --jobs 2 \\
        [--seed S] [--batch B] [--out DIR] [--no-plot] [--rules licitovany] [--rule K=V]

Every deal is a fixed deck (shuffled from ``seed`` and the deal's index) with a fixed
dealer, played as a single deal (rules ``deals=1``) once under *every seating* of the
robots: with three robots the 6 permutations; with two robots A, B the 6 seatings
AAB, ABA, BAA, ABB, BAB, BBA; with more, all ordered choices of three different robots;
with one, the robot against itself.  Each robot sits in each seat equally often on the
same deck (:func:`seatings`).

Four players (``--rule players=4``, RULES.md §11.3) play the same way over four seats:
every seating of the robots in seats 0..3 (four robots: the 24 permutations; fewer: every
seating that uses them all, e.g. 14 for two), deal ``i`` dealt by seat ``i % 4``, who
sits out and pays or collects with the defence; its payment counts in its robot's mean.
Robots play from the three-player observation of the deal (the first 900 features of
the four-player observation), so every robot built for three plays at four unchanged.

Both games play here: ``--rules licitovany`` (or ``rules={"rules": "licitovany"}``)
plays licitovaný mariáš, each robot spec built for that game
(:func:`mariash_env.robots.make_robot`), the scores counted in its unit, desetníky;
``--rule KEY=VALUE`` sets any other rule option (RULES.md §11, LICITOVANY.md §11).
``--rules lizany`` plays the two-player game (:mod:`mariash_env.lizany`), every deck in
both seatings; its scores are rewards (±1, ±2): :mod:`mariash_env.games.lizany.arena`.

A robot's score on a deal is the mean of its groše (desetníky) over all the seats it
filled on that deal; the match reports the mean over deals with a 95 % bootstrap confidence interval
(resampling deals), the pairwise differences (paired per deal, with CIs), the contract
mix of each robot as actor (suit games played / conceded / sedma not played, betl,
durch), and its win rates as actor and in defence.  ``--by-contract`` splits each pair's
difference over the games by who was actor and what was played (``actor pimc, betl:
-1.2``; the rows add up to the difference, each with a paired CI), which tells where a
robot loses.  ``--by-company`` splits a two-robot match's difference by the seatings
where the first robot sits alone against two copies of the second and where two of its
copies sit against one: every seating counts in the difference, so a robot that gains
only beside its own copy (a defender's flek raising the stakes of a game his copy is the
favourite of) scores there, and this split shows it.  ``--out`` receives
``summary.csv``, ``pairwise.csv``, ``deals.csv`` (per deal and robot), ``contracts.csv``
(the contract split), ``company.csv`` (two robots in three or four seats: the company
split) and the bar chart with error bars named for the game's unit: ``groše.png``
(volený), ``desetníky.png`` (licitovaný), ``reward.png`` (lízaný).

As a library::

    from mariash_env.arena import duplicate_match
    from mariash_env.robots import TableRobot, RandomRobot
    res = duplicate_match({"table": TableRobot, "random": RandomRobot}, deals=200, seed=1)
    print(res.table())

Robots are driven through the robot protocol of :mod:`mariash_env.robots.base`: each
gets ``begin_deal(seed)`` before it plays, robots that search (``wants_view = True``,
e.g. :class:`~mariash_env.robots.PIMCRobot`) get ``act_view`` with a
:class:`~mariash_env.robots.SeatView` (which samples worlds from the seat's knowledge but
never shows the hidden cards): a match with such a robot is played one game at a time,
every robot asked per decision; otherwise all robots are asked for ``act_batch`` on all
the games of a batch (``batch`` deals x every seating) in one
:class:`~mariash_env.vector.VectorEnv`.  The seeds depend on the deal, the seating and
the batch only, so a match does not depend on ``jobs``.

This is the one duplicate evaluation of the project: ``training.evaluate`` (the learner
against robots during training) and the model card of ``training.export`` call
:func:`duplicate_match`.
"""

from __future__ import annotations

import csv
import itertools
import os
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import atomic_open
from .cli import (
    ArgumentParser,
    add_ray_arguments,
    closed_stdout,
    fail,
    path_error,
    quiet_on_closed_pipe,
)
from .core import state as S
from .extras import MissingExtraError, install_hint, plot_or_note, pyplot
from .games.base import GameArena, GameError
from .games.registry import game_kind, games
from .playout import deal_states, play_games
from .robots.base import Robot, as_robot
from .rules import Rules, is_int, make_rules

# The API (and the reference page); the seed, argument and output helpers below are the
# CLI's and the research tools' own, importable by name.
__all__ = ["duplicate_match", "MatchResult", "seatings", "deal_seed", "play_deal",
           "build_robot", "bootstrap_ci", "parse_rule_options", "RobotFactory", "MAX_DEALS",
           "ROLES", "ROLES4", "CONTRACT_KEYS"]

RobotFactory = Callable[[], Any] | str
"""A robot class or any callable returning a robot (or what :func:`as_robot` accepts), or
a robot spec of :func:`mariash_env.robots.make_robot` (built for the match's game)."""

MAX_DEALS = 10_000_000
"""Most deals in one match (about 30 days of the table robot on one core)."""
MAX_JOBS = 256

ROLES = ("dealer", "forehand", "middlehand")
"""A seat's role in a deal: the dealer, the seat after it (forehand), the last."""
ROLES4 = ("sitting_out", "forehand", "middlehand", "dealers_role")
"""At four (RULES.md §11.3): the dealer sits out, the next three play the deal."""

CONTRACT_KEYS = ("suit_played", "suit_conceded", "sedma_not_played", "betl", "durch")
"""The contracts as played that a match counts (:meth:`MatchResult.contributions`): a suit
game played out or conceded (licitovaný: folded), a sedma announced without a trump game
to play it in (void), betl, durch."""


def seatings(k: int, seats: int = 3) -> list[tuple[int, ...]]:
    """Seatings (robot index per seat 0 .. ``seats``-1) of ``k`` robots, each robot in each
    seat equally often: with no more robots than seats every seating that uses them all,
    else every ordered choice of different robots."""
    if k < 1:
        raise ValueError("a match needs at least one robot")
    if k <= seats:
        return [s for s in itertools.product(range(k), repeat=seats) if len(set(s)) == k]
    return list(itertools.permutations(range(k), seats))


def deal_seed(seed: int, i: int) -> int:
    """The seed deal ``i`` of a match with seed ``seed`` shuffles its deck from."""
    return (int(seed) * 1_000_003 + int(i)) & ((1 << 62) - 1)


def pair_seed(a: int, b: int) -> int:
    """The bootstrap seed of the pair of robots ``a < b`` (one stream per pair, so that a
    pair's CI does not depend on the other robots of the match)."""
    return 1 + a * 31 + b


def bootstrap_ci(x: np.ndarray, n_boot: int = 2000, alpha: float = 0.05,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the mean over the first axis (per column of ``x``); NaN
    for fewer than two rows: a resample of one row is that row, an interval of no width
    that no number of deals could justify."""
    x = np.asarray(x, dtype=np.float64)
    one = x.ndim == 1
    if one:
        x = x[:, None]
    n = x.shape[0]
    if n < 2:
        nan = np.full(x.shape[1], np.nan)
        return (nan[0], nan[0]) if one else (nan, nan)  # type: ignore[return-value]
    rng = np.random.default_rng(seed)
    means = np.empty((n_boot, x.shape[1]))
    step = max(1, 2_000_000 // max(n, 1))
    for b0 in range(0, n_boot, step):
        b1 = min(n_boot, b0 + step)
        idx = rng.integers(0, n, size=(b1 - b0, n))
        means[b0:b1] = x[idx].mean(axis=1)
    lo = np.quantile(means, alpha / 2, axis=0)
    hi = np.quantile(means, 1 - alpha / 2, axis=0)
    if one:
        return lo[0], hi[0]
    return lo, hi


# --- playing ---------------------------------------------------------------------------------


def robot_seed(seed: int, robot: int, seating: tuple[int, ...]) -> int:
    """The seed robot ``robot`` gets (:meth:`~mariash_env.robots.Robot.begin_deal`) before
    the deal of seed ``seed`` under ``seating`` (when it plays one game at a time)."""
    fourth = 101 * seating[3] if len(seating) > 3 else 0
    return deal_seed(seed, 7919 * robot + 31 * seating[0] + 7 * seating[1] + seating[2]
                     + fourth)


def batch_seed(seed: int, robot: int) -> int:
    """The seed robot ``robot`` gets before a batch whose first deal has seed ``seed``."""
    return deal_seed(seed, 7919 * robot + 1_000_003)


def play_deal(robots: list[Any], seating: tuple[int, ...], seed: int, dealer: int,
              rules: Rules) -> dict[str, Any]:
    """Play one single deal with ``robots[seating[s]]`` in seat ``s``; returns its outcome
    (each robot first gets ``begin_deal``)."""
    bots = [as_robot(r) for r in robots]
    for j, r in enumerate(bots):
        r.begin_deal(robot_seed(seed, j, seating))
    st = deal_states(np.array([seed]), np.array([dealer]), rules)
    return play_games(bots, st, np.array([seating]), rules, True)[0]


_WORKER: dict[str, Any] = {}


def own_arena(game: Any) -> GameArena | None:
    """The arena of a game with its own engine (its kind's ``arena``), None for a game
    of the compiled core or a name the registry does not know (``make_rules`` refuses it
    then, naming the games)."""
    try:
        kind = game_kind(game)
    except GameError:
        return None
    return kind.load("arena") if kind.arena else None


def build_robot(factory: RobotFactory, rules: Rules | dict[str, Any]) -> Robot:
    """The robot of a factory, or of a spec string built for the game of ``rules``."""
    if isinstance(factory, str):
        from .robots import make_robot

        return make_robot(factory, rules=rules)
    return as_robot(factory())


def _init_worker(factories: list[RobotFactory], rules: Rules) -> None:
    _WORKER["robots"] = [build_robot(f, rules) for f in factories]
    _WORKER["rules"] = rules


def _init_own_worker(factories: list[RobotFactory], rules: dict[str, Any], game: str,
                     seats: list[tuple[int, ...]]) -> None:
    """A worker of a game with its own arena (lízaný): its robots, the game's arena."""
    _WORKER["robots"] = [build_robot(f, rules) for f in factories]
    _WORKER["own"] = own_arena(game)
    _WORKER["seats"] = seats


def _warm_before_fork(factories: list[RobotFactory], rules: Any, seats: list[tuple[int, ...]],
                      own: GameArena | None) -> None:
    """Before the worker processes fork: build each robot once (its own warm-up, announced
    once) and play one deal of random robots in one seating, batched and seat by seat, or
    in the game's own arena (the engine's kernels: their types do not depend on the
    seating), so that every worker inherits the compiled code instead of compiling it
    again, each in silence (112 s of two workers on an empty cache).  Announced when the
    disk cache lacks one of those kernels (the game's own: its arena's ``kernels``)."""
    from .compile import compiling_notice
    from .core.engine import apply_action
    from .robots.base import RandomRobot
    from .vector import _refresh_kernel

    for f in factories:
        build_robot(f, rules)
    bots: list[Robot] = [RandomRobot(0) for _ in range(max(len(factories), len(seats[0])))]
    game = rules.rules if isinstance(rules, Rules) else rules.get("rules", "voleny")
    kernels = own.kernels if own is not None else (apply_action, _refresh_kernel)
    with compiling_notice(game, about="about a minute", what="engine's kernels",
                          kernels=kernels):
        if own is not None:
            own.play_seatings(bots, seats[:1], 0)
            return
        states = deal_states(np.array([0]), np.array([0]), rules)
        seat = np.array([range(rules.players)])
        for one_by_one in (False, True):  # the batched robots' path and the views'
            play_games(bots, states, seat, rules, one_by_one)


def _play_own(args: tuple[int, int]) -> tuple[int, list[dict[str, Any]]]:
    """Deal ``i`` of seed ``sd`` in every seating, by the game's own arena."""
    i, sd = args
    return i, _WORKER["own"].play_seatings(_WORKER["robots"], _WORKER["seats"], sd)


def _play_batch(args: tuple[list[int], list[int], list[int]]
                ) -> list[tuple[int, list[dict[str, Any]]]]:
    """Play deals ``idx`` (seeds, dealers) under every seating.  When a robot wants a
    view: one game at a time, every robot asked per decision (``act_view``) and given
    ``begin_deal`` before each game; else all games of the batch together (``act_batch``,
    ``begin_deal`` once per batch)."""
    idx, seeds, dealers = args
    robots: list[Robot] = _WORKER["robots"]
    rules: Rules = _WORKER["rules"]
    seats = seatings(len(robots), rules.players)
    states = deal_states(np.array(seeds), np.array(dealers), rules)
    if any(r.wants_view for r in robots):
        res = []
        for d, sd in enumerate(seeds):
            outs = []
            for s in seats:
                for j, r in enumerate(robots):
                    r.begin_deal(robot_seed(sd, j, s))
                outs += play_games(robots, states[d:d + 1], np.array([s]), rules, True)
            res.append((idx[d], outs))
        return res
    for j, r in enumerate(robots):
        r.begin_deal(batch_seed(seeds[0], j))
    k = len(seats)
    outs = play_games(robots, np.repeat(states, k, axis=0),
                      np.tile(np.array(seats), (len(seeds), 1)), rules)
    return [(i, outs[d * k:(d + 1) * k]) for d, i in enumerate(idx)]


# --- results ---------------------------------------------------------------------------------


@dataclass
class MatchResult:
    """Outcome of :func:`duplicate_match`; ``per_deal[i, r]`` = robot ``r``'s mean groše
    (desetníky under licitovaný rules: :attr:`unit`) over its seats on deal ``i``."""

    names: list[str]
    seatings: list[tuple[int, ...]]
    per_deal: np.ndarray
    seeds: np.ndarray
    stats: list[dict[str, float]]
    seconds: float = 0.0
    n_boot: int = 2000
    outcomes: list[list[dict[str, Any]]] = field(default_factory=list, repr=False)
    """Per deal, the outcome of each seating's game (:func:`play_games`)."""
    rules: str = "voleny"
    """The game played (a registered game's name: ``voleny``, ``licitovany``, ``lizany``)."""
    _ci: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def deals(self) -> int:
        return int(self.per_deal.shape[0])

    @property
    def unit(self) -> str:
        """What the scores count: ``groše`` (volený), ``desetníky`` (licitovaný) or
        ``reward`` (lízaný's ±1, ±2)."""
        return game_kind(self.rules).units

    def means(self) -> np.ndarray:
        return self.per_deal.mean(axis=0)

    def by_role(self, r: int) -> dict[str, float]:
        """Robot ``r``'s mean groše per game in each role (``dealer``, ``forehand``,
        ``middlehand``; deal ``i`` is dealt by seat ``i % 3``; at four :data:`ROLES4`,
        deal ``i`` dealt by seat ``i % 4``; lízaný: ``leader``, the seat leading the
        first trick, and ``second``)."""
        own = own_arena(self.rules)  # its roles are its seats
        n = len(self.seatings[0])
        roles = own.roles if own else ROLES4 if n == 4 else ROLES
        tot = np.zeros(len(roles))
        cnt = np.zeros(len(roles))
        for i, deal in enumerate(self.outcomes):
            for seating, o in zip(self.seatings, deal):
                for s in range(n):
                    if seating[s] == r:
                        role = s if own else (s - i % n) % n
                        tot[role] += o["payments"][s]
                        cnt[role] += 1
        return {name: float(tot[k] / cnt[k]) if cnt[k] else float("nan")
                for k, name in enumerate(roles)}

    def contributions(self) -> tuple[list[tuple[str, str]], np.ndarray]:
        """Where the scores come from: the games of each deal split by who was actor (the
        actor's robot) and the contract as played (:data:`CONTRACT_KEYS`; ``("-", "none")``:
        no actor).  Returns the categories and ``c[i, r, j]``, robot ``r``'s groše on deal
        ``i`` from the games of category ``j``, divided by the seats ``r`` filled on the
        deal, so that ``c.sum(axis=2) == per_deal`` (an exact split of the scores)."""
        cats, c, _ = self._split()
        return cats, c

    def _split(self) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray]:
        """:meth:`contributions` and the number of games in each category, in one pass."""
        own = own_arena(self.rules)
        if own:
            raise ValueError(f"{own.title} has no actor and no contracts: no contract "
                             "breakdown")
        nk = len(CONTRACT_KEYS)
        cats = [(n, key) for n in self.names for key in CONTRACT_KEYS] + [("-", "none")]
        c = np.zeros((self.deals, len(self.names), len(cats)))
        cnt = np.zeros((self.deals, len(self.names)))
        games = np.zeros(len(cats))
        for i, deal in enumerate(self.outcomes):
            for seating, o in zip(self.seatings, deal):
                a = o["actor"]
                j = seating[a] * nk + contract_key(o) if a >= 0 else len(cats) - 1
                games[j] += 1
                for s, r in enumerate(seating):
                    c[i, r, j] += o["payments"][s]
                    cnt[i, r] += 1
        return cats, c / np.maximum(cnt, 1)[:, :, None], games

    def breakdown(self) -> list[dict[str, Any]]:
        """Each pair's difference (``a - b`` per deal, as :meth:`pairwise`) split over the
        categories of :meth:`contributions` (games by the actor's robot and contract), with
        a paired bootstrap CI per category; the rows of a pair add up to its difference.
        ``share``: the category's share of all games.  Categories no game fell in are left
        out.  Computed once (the bootstraps), then kept."""
        if "breakdown" in self._ci:
            return self._ci["breakdown"]
        cats, c, games = self._split()
        share = games / max(games.sum(), 1)
        rows = []
        for a, b in itertools.combinations(range(len(self.names)), 2):
            for j, (actor, key) in enumerate(cats):
                if not games[j]:
                    continue
                d = c[:, a, j] - c[:, b, j]
                lo, hi = bootstrap_ci(d, self.n_boot, seed=pair_seed(a, b) + 977 * j)
                rows.append({
                    "robot_a": self.names[a], "robot_b": self.names[b], "actor": actor,
                    "contract": key, "share": float(share[j]),
                    "a": float(c[:, a, j].mean()), "b": float(c[:, b, j].mean()),
                    "diff": float(d.mean()), "ci_low": float(lo), "ci_high": float(hi),
                })
        self._ci["breakdown"] = rows
        return rows

    def breakdown_table(self) -> str:
        """:meth:`breakdown` as text, a block per pair."""
        lines: list[str] = []
        pair = None
        wide = max(len("actor"), *(len(n) for n in self.names)) + 2
        for row in self.breakdown():
            if (row["robot_a"], row["robot_b"]) != pair:
                pair = (row["robot_a"], row["robot_b"])
                lines += [f"{pair[0]} - {pair[1]} by the actor's robot and the contract "
                          f"({self.unit} per deal; the rows add up to the difference):",
                          f"  {'actor':<{wide}}{'contract':<18}{'games':>7}{'a':>9}{'b':>9}"
                          f"{'a - b':>9}{'95% CI':>20}"]
            ci = f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
            mark = "*" if row["ci_low"] > 0 or row["ci_high"] < 0 else " "
            lines.append(f"  {row['actor']:<{wide}}{row['contract']:<18}"
                         f"{100 * row['share']:>6.1f}%{row['a']:>+9.3f}{row['b']:>+9.3f}"
                         f"{row['diff']:>+9.3f}{ci:>20} {mark}")
        return "\n".join(lines)

    def company(self) -> list[dict[str, Any]]:
        """A two-robot match's difference ``a - b`` split by the company each robot keeps:
        the seatings grouped by how many seats ``a`` fills (three seats: ``a`` alone
        against two copies of ``b``, or two copies of ``a`` against one ``b``).  Each row:
        the group's part of the difference (the rows add up to it: an exact split), with a
        paired bootstrap CI, and ``a_takes`` / ``b_takes``, what each robot's seats win in
        a game of the group (``a`` alone: its own score; two copies: their sum, what the
        lone ``b`` lost).  A robot that gains only beside its own copy -- a defender's flek
        that raises the stakes of a game his copy is the favourite of -- shows here.
        Computed once, then kept."""
        if len(self.names) != 2:
            raise ValueError(f"the split by company is of a two-robot match; this one has "
                             f"{len(self.names)} robots ({', '.join(self.names)})")
        if not self.has_company:
            raise ValueError("the split by company needs seatings where a robot sits "
                             "beside its own copy; this match seats one against one")
        if "company" in self._ci:
            return self._ci["company"]
        seats = len(self.seatings[0])
        # the seats each robot fills on one deal, and each seating's group: a's seats in it
        slots = np.array([sum(s.count(r) for s in self.seatings) for r in (0, 1)])
        of = [s.count(0) for s in self.seatings]
        groups = sorted(set(of))
        per_deal = np.array([of.count(k) for k in groups])  # the group's seatings a deal
        part = np.zeros((self.deals, len(groups)))
        takes = np.zeros((self.deals, len(groups), 2))
        for i, deal in enumerate(self.outcomes):
            for seating, o in zip(self.seatings, deal):
                g = groups.index(seating.count(0))
                won = np.zeros(2)
                for s, r in enumerate(seating):
                    won[r] += o["payments"][s]
                part[i, g] += won[0] / slots[0] - won[1] / slots[1]
                takes[i, g] += won
        rows = []
        for g, k in enumerate(groups):
            lo, hi = bootstrap_ci(part[:, g], self.n_boot, seed=pair_seed(0, 1) + 991 * k)
            rows.append({
                "robot_a": self.names[0], "robot_b": self.names[1], "seats_a": k,
                "seats_b": seats - k, "games": int(per_deal[g]) * self.deals,
                "a_takes": float(takes[:, g, 0].mean() / per_deal[g]),
                "b_takes": float(takes[:, g, 1].mean() / per_deal[g]),
                "diff": float(part[:, g].mean()), "ci_low": float(lo), "ci_high": float(hi),
            })
        self._ci["company"] = rows
        return rows

    def company_table(self) -> str:
        """:meth:`company` as text."""
        a, b = self.names
        lines = [f"{a} - {b} by company ({self.unit} per deal; the rows add up to the "
                 "difference):",
                 f"  {'seats (a/b)':<13}{'games':>6}{'a takes':>10}{'b takes':>10}"
                 f"{'part of a - b':>15}{'95% CI':>20}"]
        for row in self.company():
            ci = f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
            mark = "*" if row["ci_low"] > 0 or row["ci_high"] < 0 else " "
            lines.append(f"  {str(row['seats_a']) + '/' + str(row['seats_b']):<13}"
                         f"{row['games']:>6}{row['a_takes']:>+10.3f}{row['b_takes']:>+10.3f}"
                         f"{row['diff']:>+15.3f}{ci:>20} {mark}")
        lines.append("  (a takes / b takes: what each robot's seats win in a game of the "
                     "seating, per game)")
        return "\n".join(lines)

    @property
    def has_company(self) -> bool:
        """Whether :meth:`company` splits anything: two robots whose seatings put a robot
        beside its own copy in some of them (three or four seats).  In a two-seat game
        (lízaný) every seating is one against one: its one row would be the pair's
        difference again."""
        return len(self.names) == 2 and len({s.count(0) for s in self.seatings}) > 1

    @property
    def has_contracts(self) -> bool:
        """Whether the game has actors and contracts (:meth:`contributions`): a game of
        the compiled core, not one with its own arena."""
        return own_arena(self.rules) is None

    def ci(self) -> tuple[np.ndarray, np.ndarray]:
        if "ci" not in self._ci:
            self._ci["ci"] = bootstrap_ci(self.per_deal, self.n_boot)
        return self._ci["ci"]

    def summary(self) -> list[dict[str, Any]]:
        lo, hi = self.ci()
        rows = []
        for r, name in enumerate(self.names):
            st = self.stats[r]
            row: dict[str, Any] = {
                "robot": name,
                "deals": self.deals,
                f"{self.unit}_per_deal": float(self.means()[r]),
                "ci_low": float(lo[r]),
                "ci_high": float(hi[r]),
            }
            row.update(st)
            rows.append(row)
        return rows

    def pairwise(self) -> list[dict[str, Any]]:
        rows = []
        for a, b in itertools.combinations(range(len(self.names)), 2):
            d = self.per_deal[:, a] - self.per_deal[:, b]
            lo, hi = bootstrap_ci(d, self.n_boot, seed=pair_seed(a, b))
            rows.append({
                "robot_a": self.names[a], "robot_b": self.names[b],
                "diff": float(d.mean()), "ci_low": float(lo), "ci_high": float(hi),
                "significant": bool(lo > 0 or hi < 0),
            })
        return rows

    def table(self) -> str:
        own = own_arena(self.rules)
        if own:
            lines = own.table(self).split("\n")
        else:
            lines = self._rows()
        lines.append(f"pairwise differences (a - b, {self.unit} per deal):")
        for p in self.pairwise():
            mark = "*" if p["significant"] else " "
            lines.append(
                f"  {p['robot_a']} - {p['robot_b']}: {p['diff']:+.3f} "
                f"[{p['ci_low']:+.3f}, {p['ci_high']:+.3f}] {mark}"
            )
        tt = [f"{n}: {1000 * self.stats[r]['seconds_per_decision']:.2f} ms"
              for r, n in enumerate(self.names)]
        lines.append("mean time per decision: " + ", ".join(tt))
        return "\n".join(lines)

    def _rows(self) -> list[str]:
        """The table's head and a line per robot (the three-player games)."""
        lines = [
            f"duplicate match: {self.deals} deals x {len(self.seatings)} seatings "
            f"({self.seconds:.0f} s)",
            f"{'robot':<28}{self.unit + '/deal':>11}{'95% CI':>20}{'actor%':>8}"
            f"{'win as actor':>13}{'win in def.':>12}  contracts as actor "
            + f"({game_kind(self.rules).arena_contracts} %)",
        ]
        for row in self.summary():
            mix = "/".join(f"{100 * row[k]:.0f}" for k in CONTRACT_KEYS)
            ci = f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"
            lines.append(
                f"{row['robot']:<28}{row[self.unit + '_per_deal']:>+11.3f}"
                f"{ci:>20}"
                f"{100 * row['actor_share']:>7.1f}%{100 * row['actor_win_rate']:>12.1f}%"
                f"{100 * row['defence_win_rate']:>11.1f}%  {mix}"
            )
        return lines

    def save(self, out: str | os.PathLike, plot: bool = True) -> list[Path]:
        """Write the CSVs (each atomically: a temporary file, then a rename) and the plot
        (matplotlib; without it the CSVs are written, then :meth:`plot` raises
        :class:`~mariash_env.extras.MissingExtraError`).  An output this match does not
        write (:data:`OUTPUTS`, a chart) is removed from ``out``: left there by an earlier
        match (its contract split, another game's chart), it would read as this one's."""
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        paths = []
        p = d / "deals.csv"  # first: it holds the raw results
        with atomic_open(p, newline="") as f:
            w = csv.writer(f)
            w.writerow(["deal", "seed", *self.names])
            for i in range(self.deals):
                w.writerow([i, int(self.seeds[i]), *(f"{x:.4f}" for x in self.per_deal[i])])
        paths.append(p)
        tables = [("summary.csv", self.summary(), None),
                  ("pairwise.csv", self.pairwise(),
                   ["robot_a", "robot_b", "diff", "ci_low", "ci_high", "significant"])]
        if self.has_contracts and len(self.names) > 1 and self.outcomes:
            tables.append(("contracts.csv", self.breakdown(), None))
        if self.has_company and self.outcomes:
            tables.append(("company.csv", self.company(), None))
        for name, rows, fields in tables:
            p = d / name
            with atomic_open(p, newline="") as f:
                w = csv.DictWriter(f, fieldnames=fields or list(rows[0]))
                w.writeheader()
                w.writerows(rows)
            paths.append(p)
        written = {p.name for p in paths}
        for name in _output_names():
            if name not in written:  # this match's chart too: redrawn below, or not at all
                (d / name).unlink(missing_ok=True)
        if plot:
            paths.append(self.plot(d / plot_name(self.unit)))
        return paths

    def plot(self, path: str | os.PathLike) -> Path:
        """The bar chart of every robot's mean with its CI (matplotlib: the ``research``
        extra; :class:`~mariash_env.extras.MissingExtraError` without it)."""
        plt = pyplot("the arena's plot")
        m = self.means()
        lo, hi = self.ci()
        fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(self.names), 4))
        x = np.arange(len(self.names))
        colors = ["tab:green" if v > 0 else "tab:red" for v in m]
        ax.bar(x, m, color=colors, alpha=0.8,
               yerr=np.vstack([m - lo, hi - m]), capsize=6)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(x, self.names, rotation=15)
        ax.set_ylabel(f"{self.unit} per deal (mean, 95% bootstrap CI)")
        ax.set_title(f"duplicate match, {self.deals} deals × {len(self.seatings)} seatings")
        fig.tight_layout()
        p = Path(path)
        fig.savefig(p, dpi=110)
        plt.close(fig)
        return p


def contract_key(outcome: Mapping[str, Any]) -> int:
    """The index in :data:`CONTRACT_KEYS` of a finished game (:func:`play_games`): its
    contract as played -- a suit game played out or conceded (licitovaný: folded), a
    sedma announced without a trump game to play it in (void), betl, durch."""
    con, end = outcome["contract"], outcome["end"]
    if con == S.C_BETL:
        return 3
    if con == S.C_DURCH:
        return 4
    if end in (S.END_CONCEDED, S.END_FOLD):
        return 1
    if end == S.END_SEDMA_VOID:
        return 2
    return 0


def _stats(names: list[str], seats: list[tuple[int, ...]],
           outcomes: list[list[dict[str, Any]]]) -> list[dict[str, float]]:
    k = len(names)
    seat_n = np.zeros(k)
    actor_n = np.zeros(k)
    actor_win = np.zeros(k)
    def_n = np.zeros(k)
    def_win = np.zeros(k)
    mix = np.zeros((k, len(CONTRACT_KEYS)))
    dec = np.zeros(k)
    think = np.zeros(k)
    for deal in outcomes:
        for seating, o in zip(seats, deal):
            pay = o["payments"]
            actor = o["actor"]
            for s in range(len(seating)):
                r = seating[s]
                seat_n[r] += 1
                dec[r] += o["decisions"][s]
                think[r] += o["think"][s]
                if s == actor:
                    actor_n[r] += 1
                    actor_win[r] += pay[s] > 0
                    mix[r, contract_key(o)] += 1
                else:
                    def_n[r] += 1
                    def_win[r] += pay[s] > 0
    out = []
    for r in range(k):
        a = max(actor_n[r], 1)
        row = {
            "seats_played": int(seat_n[r]),
            "actor_share": float(actor_n[r] / max(seat_n[r], 1)),
            "actor_win_rate": float(actor_win[r] / a),
            "defence_win_rate": float(def_win[r] / max(def_n[r], 1)),
        }
        for j, key in enumerate(CONTRACT_KEYS):
            row[key] = float(mix[r, j] / a)
        row["seconds_per_decision"] = float(think[r] / max(dec[r], 1))
        out.append(row)
    return out


def single_deal_rules(options: Mapping[str, Any], what: str) -> None:
    """ValueError when rule ``options`` name a ``deals`` other than 1: a match plays single
    deals (how many is the match's ``deals``), so any other value would be ignored."""
    if "deals" in options:
        v = options["deals"]
        if not (is_int(v) and v == 1):
            raise ValueError(f"invalid {what}={v!r}: a match plays single deals, so only "
                             "deals=1 is accepted; the number of deals is the match's "
                             "--deals (duplicate_match(deals=N))")


def check_match_args(deals: Any, jobs: Any, seed: Any) -> None:
    """ValueError naming a bad ``deals``, ``jobs`` or ``seed`` and what is accepted."""
    if not is_int(deals) or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"invalid deals={deals!r}: expected an int 1..{MAX_DEALS}")
    if not is_int(jobs) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"invalid jobs={jobs!r}: expected an int 1..{MAX_JOBS} (processes)")
    if not is_int(seed):
        raise ValueError(f"invalid seed={seed!r}: expected an int")


BACKENDS = ("process", "ray")


def check_backend(backend: Any, address: Any) -> None:
    """ValueError naming a bad ``backend`` or an ``address`` without the ray backend."""
    if backend not in BACKENDS:
        raise ValueError(f"invalid backend={backend!r}: expected one of {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError(f"address={address!r} needs backend 'ray'")
    if backend == "ray":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ValueError(f"backend 'ray' needs Ray: {install_hint('ray')}")


class _DealWriter:
    """``deals.csv`` written row by row as deals finish (flushed), so that a late failure
    loses no finished deal; :meth:`MatchResult.save` rewrites it in deal order."""

    def __init__(self, out: str | os.PathLike, names: list[str]) -> None:
        self.path = Path(out) / "deals.csv"
        self._fh = self.path.open("w", newline="", encoding="utf-8")
        self._w = csv.writer(self._fh)
        self._w.writerow(["deal", "seed", *names])
        self._fh.flush()

    def write(self, i: int, seed: int, row: np.ndarray) -> None:
        self._w.writerow([i, seed, *(f"{x:.4f}" for x in row)])
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def _deal_means(k: int, seats: list[tuple[int, ...]],
                deal: list[dict[str, Any]]) -> np.ndarray:
    """Each robot's mean groše over the seats it filled on one deal."""
    tot = np.zeros(k)
    cnt = np.zeros(k)
    for seating, o in zip(seats, deal):
        for s in range(len(seating)):
            tot[seating[s]] += o["payments"][s]
            cnt[seating[s]] += 1
    return tot / cnt


def duplicate_match(robots: Mapping[str, RobotFactory], deals: int = 1000, seed: int = 0,
                    jobs: int = 1, rules: Rules | Mapping[str, Any] | None = None,
                    progress: bool = True, n_boot: int = 2000,
                    out: str | os.PathLike | None = None, batch: int = 1,
                    backend: str = "process", address: str | None = None,
                    on_deal: Callable[[], Any] | None = None) -> MatchResult:
    """Play a duplicate match (module docstring).

    ``robots``: display name -> factory (a class or any callable returning a robot); each
    worker process builds its own robots.  ``rules``: a :class:`Rules` or rule keywords
    (``deals`` is forced to 1).  ``jobs > 1`` plays deals in that many processes.  It calls
    each factory once more, in this process before the workers fork (the robots' warm-up),
    so a factory whose product depends on how often it was called gives the workers its
    second robot where ``jobs=1`` plays its first: only what ``begin_deal`` does not reseed
    or reset (a policy picked by a call counter; not a fresh seed per call) can differ.
    ``out``: a directory that receives ``deals.csv`` row by row as deals finish.
    ``batch``: deals whose games (all seatings) are played together in one batched engine
    when no robot wants a view; robots are reseeded per batch, so a match depends on
    ``batch`` (through the random robots' draws) but never on ``jobs``.
    ``jobs`` above the cores this process may use (:func:`mariash_env.pools.process_jobs`:
    its affinity mask) run that many processes, one a core (one core: no pool, this
    process plays), the chunks of deals sized for them; the result is the same.
    ``backend="ray"``: the ``jobs`` workers are Ray actors (:mod:`mariash_env.ray_pool`)
    on the cluster at ``address`` (None: a local one), likewise at most one per CPU of the
    cluster; the result is the same.
    ``on_deal``: called in this process as each deal finishes (the progress of a caller
    that plays many matches: the ladder's).
    """
    check_match_args(deals, jobs, seed)
    if not is_int(batch) or not 1 <= batch <= MAX_DEALS:
        raise ValueError(f"invalid batch={batch!r}: expected an int 1..{MAX_DEALS} (deals)")
    check_backend(backend, address)
    if not robots:
        raise ValueError("a match needs at least one robot")
    names = list(robots)
    factories = [robots[n] for n in names]
    if isinstance(rules, Rules):
        rdict = rules.to_dict()  # its deals (12 by default) is no choice: forced to 1
    else:
        rdict = dict(rules or {})
        single_deal_rules(rdict, "rule option deals")
    own = own_arena(rdict.get("rules", "voleny"))  # a game with its own engine
    if own:
        own_rules = own.rules(rdict)
        if backend != "process":  # its own engine: this machine's processes, no Ray
            raise ValueError(f"a {own.title} match plays on this machine: expected backend "
                             "'process'")
        players = game_kind(rdict["rules"]).players[0]
    else:
        rdict["deals"] = 1
        rules_obj = make_rules(**rdict)
        players = rules_obj.players
    seats = seatings(len(names), players)
    deals, seed = int(deals), int(seed)
    seeds = np.array([deal_seed(seed, i) for i in range(deals)], dtype=np.int64)
    batch = int(batch)
    tasks = ((list(range(b, min(b + batch, deals))),
              [int(x) for x in seeds[b:b + batch]],
              [i % players for i in range(b, min(b + batch, deals))])
             for b in range(0, deals, batch))
    results: list[list[dict[str, Any]] | None] = [None] * deals
    k = len(names)
    per_deal = np.zeros((deals, k))
    writer = _DealWriter(out, names) if out is not None else None
    t0 = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals, desc="deals", unit="deal", file=sys.stderr)

    def done(i: int, outcome: list[dict[str, Any]]) -> None:
        results[i] = outcome
        per_deal[i] = _deal_means(k, seats, outcome)
        if writer is not None:
            writer.write(i, int(seeds[i]), per_deal[i])
        if bar is not None:
            bar.update(1)
        if on_deal is not None:
            on_deal()

    if backend == "process":
        from .pools import process_jobs

        # a process a core: more only share them (as the Ray actors, at most one per CPU
        # of the cluster), and the chunks below are sized for the processes that run
        jobs = process_jobs(jobs)
    try:
        if own and jobs <= 1:
            bots = [build_robot(f, own_rules) for f in factories]
            for i, sd in enumerate(seeds):
                done(i, own.play_seatings(bots, seats, int(sd)))
        elif own:  # every robot reseeded per deal and seating: the same match as one job
            from .pools import worker_pool

            _warm_before_fork(factories, own_rules, seats, own)
            with worker_pool(jobs, "fork", _init_own_worker,
                             (factories, own_rules, rdict["rules"], seats)) as pool:
                chunk = max(1, min(8, deals // (4 * jobs)))
                for i, outcome in pool.imap_unordered(
                        _play_own, [(i, int(sd)) for i, sd in enumerate(seeds)],
                        chunksize=chunk):
                    done(i, outcome)
        elif backend == "ray":
            from .ray_pool import ray_imap_unordered

            n_tasks = -(-deals // batch)
            # closed here: an interrupt (SIGTERM too, ray_pool) kills the actors at once;
            # the chunks sized for the actors the pool runs (jobs capped at the cluster's
            # CPUs), as the processes' below (capped at the cores above): about four chunks
            # an actor, at most 8 tasks
            with closing(ray_imap_unordered(
                _play_batch, tasks, jobs, _init_worker, (factories, rules_obj),
                chunksize=lambda actors: max(1, min(8, n_tasks // (4 * actors))),
                address=address,
            )) as pool:
                for res in pool:
                    for i, outcome in res:
                        done(i, outcome)
        elif jobs <= 1:
            _init_worker(factories, rules_obj)
            for t in tasks:
                for i, outcome in _play_batch(t):
                    done(i, outcome)
        else:
            from .pools import worker_pool

            _warm_before_fork(factories, rules_obj, seats, None)
            with worker_pool(jobs, "fork", _init_worker, (factories, rules_obj)) as pool:
                n_tasks = -(-deals // batch)
                chunk = max(1, min(8, n_tasks // (4 * jobs)))
                for res in pool.imap_unordered(_play_batch, tasks, chunksize=chunk):
                    for i, outcome in res:
                        done(i, outcome)
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
    return MatchResult(
        names=names, seatings=seats, per_deal=per_deal, seeds=seeds,  # type: ignore[arg-type]
        stats=(own.stats(k, seats, results) if own  # type: ignore[arg-type]
               else _stats(names, seats, results)),  # type: ignore[arg-type]
        seconds=time.perf_counter() - t0, n_boot=n_boot,
        outcomes=results,  # type: ignore[arg-type]
        rules=rdict["rules"] if own else rules_obj.rules,
    )


def _factory(spec: str, pimc_kw: dict[str, Any],
             rules: Rules | dict[str, Any] | None = None) -> RobotFactory:
    from .robots import make_robot, parse_spec, robot_args

    base, _ = parse_spec(spec)
    # --worlds / --time-limit reach the robots that take both (the searching ones: pimc,
    # nnpimc, a game's strong), no other
    kw = dict(pimc_kw) if {"worlds", "time_limit"} <= robot_args(base, rules) else {}

    def make() -> Any:
        return make_robot(spec, rules=rules, **kw)

    return make


def parse_rule_options(game: str | None, options: list[str]) -> dict[str, Any]:
    """Rule keywords from ``--rules NAME`` and ``--rule KEY=VALUE`` options (VALUE a Python
    or JSON literal, else a string); ValueError naming a malformed one, and one whose dict
    gives a key twice (:class:`~mariash_env.jsonio.DuplicateKeyError`: which is meant?)."""
    from . import jsonio

    out: dict[str, Any] = {}
    if game is not None:
        out["rules"] = game
    for opt in options:
        key, eq, text = opt.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise ValueError(f"invalid --rule {opt!r}: expected KEY=VALUE (e.g. deals=1)")
        text = text.strip()
        try:
            value: Any = jsonio.literal(text)
        except jsonio.DuplicateKeyError as e:  # not the last value, silently
            raise ValueError(f"invalid --rule {opt!r}: {e}") from None
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            # no Python literal (the parser's RecursionError and MemoryError: nested too
            # deeply, as robots.parse_spec takes them): JSON, else a string
            try:
                value = jsonio.loads(text)
            except jsonio.DuplicateKeyError as e:  # not the last value, silently
                raise ValueError(f"invalid --rule {opt!r}: {e}") from None
            except ValueError:
                value = text
        out[key] = value
    return out


OUTPUTS = ("deals.csv", "summary.csv", "pairwise.csv", "contracts.csv", "company.csv")


def plot_name(unit: str) -> str:
    """The file of the arena's chart: named for what it shows (``groše.png``)."""
    return f"{unit}.png"


def _output_names() -> tuple[str, ...]:
    """Every file a save writes into its folder or removes from it (every game's chart)."""
    return (*OUTPUTS, *sorted({plot_name(k.units) for k in games()}))


def check_out(out: str | os.PathLike, unit: str = "groše") -> Path:
    """Create ``out`` and make sure every output (the chart of ``unit``'s game too) can be
    written there, and every other game's chart that the save removes can be removed
    (OSError if not), before any deal is played."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    probe = d / f".write-test-{os.getpid()}"
    probe.write_bytes(b"")
    probe.unlink()
    for name in (*_output_names(), plot_name(unit)):
        p = d / name
        if p.exists() and (not p.is_file() or not os.access(p, os.W_OK)):
            raise PermissionError(f"cannot write {p}: it exists and is not a writable file")
    return d


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(
        prog="python -m mariash_env.arena",
        description="Duplicate match of robots over the same deals in every seating.")
    from .pools import jobs_above_cores
    from .robots import ROBOT_NAMES

    ap.add_argument("--robots", default="table,random",
                    help=f"comma-separated robots ({', '.join(ROBOT_NAMES)}) with their "
                         "arguments, e.g. pimc(worlds=8) (default: table,random)")
    ap.add_argument("--deals", type=int, default=500, help=f"1..{MAX_DEALS} (default 500)")
    ap.add_argument("--jobs", type=int, default=1,
                    help=f"processes (or Ray actors), 1..{MAX_JOBS} (default 1); "
                         f"{jobs_above_cores()}, the same match")
    ap.add_argument("--backend", default="process",
                    help="where the jobs run: 'process' (this machine) or 'ray' (Ray actors)")
    add_ray_arguments(ap, "it goes on with fewer")
    ap.add_argument("--seed", type=int, default=0, help="the decks (default 0)")
    ap.add_argument("--batch", type=int, default=1,
                    help="deals played together in one batched engine (robots without a "
                         "view; faster for network robots; reseeded per batch)")
    ap.add_argument("--out", default=None,
                    help="directory for the CSVs and the plot (checked before playing; "
                         "deals.csv is written as deals finish; default "
                         "runs/arena/YYYYmmdd-HHMMSS)")
    ap.add_argument("--worlds", type=int, default=None,
                    help="worlds per decision of the searching robots, pimc, nnpimc and a "
                         "game's strong (overrides the spec's)")
    ap.add_argument("--time-limit", type=float, default=None,
                    help="seconds per decision of the searching robots, pimc, nnpimc and "
                         "a game's strong (> 0; overrides the spec's)")
    ap.add_argument("--rules", default=None,
                    help="the game: voleny (default), licitovany or lizany (two players)")
    ap.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option (RULES.md / LICITOVANY.md §11), repeatable, e.g. "
                         "--rule tariff=csm")
    ap.add_argument("--by-contract", action="store_true",
                    help="print each pair's difference split by the actor's robot and the "
                         "contract played (always saved in contracts.csv)")
    ap.add_argument("--by-company", action="store_true",
                    help="two robots: print their difference split by the seatings where "
                         "the first sits alone and where it sits beside its own copy "
                         "(always saved in company.csv)")
    ap.add_argument("--no-plot", action="store_true",
                    help="write no chart (the unit's .png, groše.png in volený; without "
                         "matplotlib it is left out with a note)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    from .compile import announce_anywhere
    from .robots import check_robot, robot_entry, split_robot_specs
    from .rules import RulesError

    announce_anywhere()  # a log too: the robots' and engine's kernels compile on a cold cache

    # Every argument, robot and output is checked before the first deal.
    try:
        check_match_args(args.deals, args.jobs, args.seed)
        if not 1 <= args.batch <= MAX_DEALS:
            raise ValueError(f"invalid --batch {args.batch}: expected an int 1..{MAX_DEALS}")
        check_backend(args.backend, args.address)
        pimc_kw: dict[str, Any] = {}
        pimc_args = robot_entry("pimc")[0].args
        # pimc's checks, named as the options whichever robots play (not as the
        # argument of a robot 'pimc' the match may not have)
        for option, key, value, what, expected in (
                ("--worlds", "worlds", args.worlds, "worlds", pimc_args["worlds"][1]),
                ("--time-limit", "time_limit", args.time_limit, "seconds",
                 "a finite number > 0")):
            if value is None:
                continue
            if not pimc_args[key][0](value):
                raise ValueError(f"invalid {option} {value} ({what} per decision of "
                                 f"pimc, nnpimc and strong): expected {expected}")
            pimc_kw[key] = value
        check_robot("pimc", **pimc_kw)  # every check of make_robot, the entry's own too
        rule_opts = parse_rule_options(args.rules, args.rule)
        single_deal_rules(rule_opts, "--rule deals")
        rule_opts["deals"] = 1
        try:
            own = own_arena(rule_opts.get("rules", "voleny"))
            if own:
                rules_obj: Rules | dict[str, Any] = own.rules(rule_opts)
            else:
                rules_obj = make_rules(**rule_opts)
        except (RulesError, TypeError, ValueError) as e:
            raise ValueError(f"--rules/--rule: {e}") from None
        if own:  # what a game of its own engine cannot do, refused before Ray starts
            if args.backend != "process":
                raise ValueError(f"--backend {args.backend}: a {own.title} match plays on "
                                 "this machine (its own engine): expected --backend process")
            if args.by_contract:
                raise ValueError(f"--by-contract: {own.title} has no contracts to split by")
            if args.by_company:
                raise ValueError(f"--by-company: {own.title} seats two, so no robot sits "
                                 "beside its own copy")
        specs = split_robot_specs(args.robots)
        if not all(specs):
            raise ValueError(f"invalid --robots {args.robots!r}: an empty robot name")
        if args.by_company and len(specs) != 2:  # else the match played, nothing printed
            raise ValueError(f"--by-company splits a match of two robots: got {len(specs)} "
                             f"({args.robots})")
        if args.by_contract and len(specs) < 2:
            raise ValueError("--by-contract splits each pair's difference: expected two or "
                             f"more robots, got 1 ({args.robots})")
        robots: dict[str, RobotFactory] = {}
        for spec in specs:
            name = spec
            k = 2
            while name in robots:
                name = f"{spec}#{k}"
                k += 1
            robots[name] = _factory(spec, pimc_kw, rules_obj)
        for f in robots.values():
            f()  # fail early on a bad spec
    except (ValueError, MissingExtraError) as e:  # a robot of an extra not installed
        fail(e)
    except OSError as e:  # a robot's model file that cannot be read (name too long, …)
        fail(f"--robots: {path_error(e, 'read')}")
    if args.backend == "ray":  # joined before --out is made: a bad cluster fails in seconds
        from .ray_pool import RayClusterError, join

        try:
            join(args.address, args.ray_timeout)
        except (RayClusterError, ValueError) as e:
            fail(e)
    out = args.out or os.path.join("runs", "arena", time.strftime("%Y%m%d-%H%M%S"))
    unit = game_kind(rule_opts.get("rules", "voleny")).units
    try:
        check_out(out, unit)
    except OSError as e:
        fail(f"cannot write the results to --out {out}: {e.strerror or e}")
    plot_or_note(args, f"plot ({plot_name(unit)})")  # said before the match
    plot = not args.no_plot
    try:
        res = duplicate_match(robots, deals=args.deals, seed=args.seed, jobs=args.jobs,
                              rules=rules_obj, progress=not args.quiet, out=out,
                              batch=args.batch,
                              backend=args.backend, address=args.address)
        try:
            print(res.table())
            if args.by_contract and res.has_contracts and len(res.names) > 1:
                print(res.breakdown_table())
            if args.by_company and res.has_company:
                print(res.company_table())
        finally:  # saved also when the tables' reader has gone (| head)
            paths = res.save(out, plot=plot)
    except Exception as e:  # a robot or the disk failing mid-match: one line, keep the rows
        if closed_stdout(e):
            raise  # no failure: quiet_on_closed_pipe ends it, the results saved
        print(f"error: the match failed ({type(e).__name__}: {e}); the deals finished so far "
              f"are in {Path(out) / 'deals.csv'}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the workers are gone, the rows kept
        print(f"error: interrupted; the deals finished so far are in {Path(out) / 'deals.csv'}",
              file=sys.stderr)
        return 130
    print("saved: " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
