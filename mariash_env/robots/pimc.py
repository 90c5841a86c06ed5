"""Perfect-Information Monte Carlo (PIMC): sample the hidden cards, solve each world.

A searching robot needs more than the observation: it must draw *worlds* -- full
states that agree with everything its seat knows, the hidden cards redealt
(:func:`mariash_env.search.sample_worlds`).  It never sees the real hidden cards.  The
arena therefore hands such robots a :class:`SeatView` (the seat's observation plus a
world sampler over a private copy of the state) through :meth:`PIMCRobot.act_view`, as
the robot protocol has every harness do for ``wants_view`` robots
(:mod:`mariash_env.robots.base`);
``act_state(st, seat)`` does the same from a raw state, and a robot constructed with
``game=`` can also be driven through the plain ``act(observation)``.

Decisions:

* **card play** -- for each sampled world and each legal card: play the card in the
  world, then value the rest of the deal exactly with the double-dummy solver
  :func:`mariash_env.search.solve` when that exists (otherwise by a rollout, below);
  take the card with the best mean groše for the seat;
* **bidding** (trump -- one candidate per suit plus *z lidu* --, contract, Barva?, betl
  answers, announcement, flek) -- simulation: apply each candidate in each world and
  play the deal out with a fast policy, the
  :class:`~mariash_env.games.voleny.table_robot.TableRobot` at every seat (with
  ``solve_bidding=True`` the card play of that simulation is valued by the solver
  instead: exact, but about a hundred times slower); average the seat's settlement.
  The discards are the table robot's unless ``simulate_discards=True``.

Licitovaný mariáš (``rules="licitovany"``) is played the same way: the worlds come from
:func:`mariash_env.games.licitovany.worlds.sample_licit_worlds`, the card play is valued by
the solver (every licitovaný contract, desetníky), and the other decisions (auction,
game, trumps, helping suit, face-down lead, flek and show) are simulated with the
:class:`~mariash_env.games.licitovany.table_robot.LicitTableRobot` at every seat, whose own choice
breaks ties and makes the discards.

``worlds`` (default 20) worlds per decision; ``time_limit`` (seconds, optional) stops
sampling further worlds once spent (at least one world is always used).  The robot lays
the cards down whenever that is offered, and a single legal action is taken at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import state as S
from ..core.engine import apply_action, legal_actions
from ..core.tricks import strength_py as strength
from ..games.licitovany.table_robot import LicitTableRobot
from ..games.voleny import actions as A
from ..games.voleny.table_robot import TableRobot
from ..kinds import kind_of
from ..rules import G_LICIT, Rules
from .base import Robot
from .features import decode
from .registry import ANY_GAME, FLAG, SEED, TIME_LIMIT, int_at_least, one_of, register_robot
from .view import SearchUnavailableError, SeatView, _search_module

__all__ = ["PIMCRobot", "SeatView", "SearchUnavailableError", "solver_available"]


def solver_available() -> bool:
    s = _search_module()
    return s is not None and hasattr(s, "solve")


def _payoff(st: np.ndarray, seat: int) -> float:
    return float(S.get64(st, S.PAY + 2 * seat))


def seat_share(w: np.ndarray, seat: int) -> float:
    """What ``seat`` gets per unit of the solver's amount ``A`` (each defender pays the
    actor ``A``): 2 for the actor, -1 for a defender."""
    return 2.0 if int(w[S.ACTOR]) == seat else -1.0


class _Rollout:
    """Plays a world to the end of the deal with the table robot of the rules' game at every
    seat (bidding and card play), or -- with ``solver`` -- with the table robot up to the
    card play, which the double-dummy solver then values exactly."""

    def __init__(self, rules: Rules, solver: Callable | None) -> None:
        self.rules = rules
        self.rv = rules.vector()
        self.kind = kind_of(rules)
        self.licit = self.kind.game == G_LICIT
        self.table = TableRobot()
        self.licit_table = LicitTableRobot()
        self.mask = np.zeros(self.kind.n_actions, dtype=np.int8)
        self.obs = np.zeros(self.kind.obs_size, dtype=np.float32)
        self.solve = solver

    def table_action(self, w: np.ndarray) -> int:
        seat = int(w[S.TO_MOVE])
        self.mask[:] = 0
        legal_actions(w, self.rv, self.mask)
        if not self.licit and self.mask[A.LAY_DOWN]:
            return A.LAY_DOWN
        nz = np.flatnonzero(self.mask)
        if nz.size == 1:
            return int(nz[0])
        self.kind.encode(w, seat, self.obs, False)
        if self.licit:
            return self.licit_table.act({"observation": self.obs, "action_mask": self.mask})
        return self.table.decide(decode(self.obs, self.mask))

    def value(self, w: np.ndarray, seat: int) -> float:
        """The seat's groše at the end of the deal from world ``w`` (modified in place)."""
        while w[S.PHASE] != S.PH_DONE:
            if w[S.PHASE] == S.PH_PLAY and self.solve is not None:
                amount = float(self.solve(w, self.rules, pv=False).value)
                return seat_share(w, seat) * amount
            apply_action(w, self.rv, self.table_action(w))
        return _payoff(w, seat)


class PIMCRobot(Robot):
    """Perfect-Information Monte Carlo robot (module docstring).

    ``worlds``: worlds sampled per decision; ``time_limit``: optional seconds per
    decision; ``seed``: its generator; ``game``: a :class:`~mariash_env.game.Game` to
    draw worlds from when driven through ``act(observation)``; ``use_solver``: value
    card play with :func:`mariash_env.search.solve` when it exists (else rollouts);
    ``bidding``: ``"simulate"`` (default) or ``"table"`` (the table robot's bidding,
    search only for the card play); ``solve_bidding``: value the bidding simulations
    with the solver from the first trick on instead of table-robot play (exact but
    about a hundred times slower); ``simulate_discards``: also simulate the discards
    (default: the table robot's discards, which the simulation's noise rarely beats).
    """

    name = "pimc"
    wants_view = True
    games = ("voleny", "licitovany")  # the games with a world sampler and the solver

    def __init__(self, worlds: int = 20, time_limit: float | None = None,
                 seed: int | None = None, game: Any = None, use_solver: bool = True,
                 bidding: str = "simulate", solve_bidding: bool = False,
                 simulate_discards: bool = False) -> None:
        if worlds < 1:
            raise ValueError(f"worlds must be >= 1, got {worlds}")
        if bidding not in ("simulate", "table"):
            raise ValueError(f"bidding must be 'simulate' or 'table', got {bidding!r}")
        self.worlds = int(worlds)
        self.time_limit = time_limit
        self.rng = np.random.default_rng(seed)
        self.game = game
        self.use_solver = use_solver
        self.bidding = bidding
        self.solve_bidding = solve_bidding
        self.simulate_discards = simulate_discards
        self.table = TableRobot()
        self.licit_table = LicitTableRobot()
        self._rollouts: dict[tuple[Rules, bool], _Rollout] = {}
        self.stats = {"decisions": 0, "searched": 0, "seconds": 0.0, "worlds": 0}

    def reset(self) -> None:
        self.table.reset()
        self.licit_table.reset()

    def begin_deal(self, seed: int) -> None:
        """Reset and reseed the generator (every harness does it per deal and seating, so
        a match does not depend on how its deals are spread over processes)."""
        super().begin_deal(seed)
        self.rng = np.random.default_rng(seed)

    def seed_deal(self, seed: int) -> None:
        """Reseed the generator only (the name of :meth:`begin_deal` before the protocol)."""
        self.rng = np.random.default_rng(seed)

    # --- entry points ---------------------------------------------------------------------
    def act(self, observation: dict[str, Any]) -> int:
        """Harnesses call :meth:`act_view` (``wants_view``); a bare observation is enough
        only for a robot built with ``game=``, whose state it then reads."""
        if self.game is None:
            raise SearchUnavailableError(
                "PIMCRobot needs the state to sample worlds: harnesses pass it through "
                "act_view(SeatView) (the robot protocol, wants_view = True); to call act(obs) "
                "directly construct it with game=<Game>, or call act_state(st, seat)"
            )
        view = SeatView.from_game(self.game)
        if not np.array_equal(np.asarray(observation["observation"]), view.observation()):
            raise SearchUnavailableError(
                "the observation is not that of the seat to move in the robot's game"
            )
        return self.act_view(view)

    def act_state(self, st: np.ndarray, seat: int, rules: Rules | None = None) -> int:
        return self.act_view(SeatView(st, seat, rules))

    def act_view(self, view: SeatView) -> int:
        mask = view.action_mask()
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} is not to move")
        self.stats["decisions"] += 1
        licit = view.kind.game == G_LICIT
        if not licit and mask[A.LAY_DOWN]:
            return A.LAY_DOWN
        if legal.size == 1:
            return int(legal[0])
        if licit:
            fallback = self.licit_table.act(view.observation_dict())
        else:
            fallback = self.table.decide(decode(view.observation(), mask))
        ph = view.phase
        if ph != S.PH_PLAY and (self.bidding == "table"
                                or (ph == S.PH_DISCARD and not self.simulate_discards)):
            return fallback
        cands = [int(a) for a in legal]
        if not licit and ph == S.PH_TRUMP:
            cands = self._trump_candidates(cands, fallback)
        return self.search(view, cands, fallback)

    @staticmethod
    def _lowest_per_suit(legal: list[int]) -> dict[int, int]:
        """Suit -> the trump action of its lowest legal card (trump order)."""
        low: dict[int, int] = {}
        for a in legal:
            if a == A.TRUMP_BLIND:
                continue
            c = a - A.TRUMP0
            s = c >> 3
            if s not in low or strength(c, s) < strength(low[s] - A.TRUMP0, s):
                low[s] = a
        return low

    @staticmethod
    def _trump_candidates(legal: list[int], fallback: int) -> list[int]:
        """Trump choice: one card per suit (its lowest, trump order), z lidu, and the table
        robot's choice -- which card of a suit becomes the trump card matters little."""
        out = list(PIMCRobot._lowest_per_suit(legal).values())
        for a in (A.TRUMP_BLIND, fallback):
            if a not in out and a in legal:
                out.append(a)
        return out

    # --- search --------------------------------------------------------------------------
    def _rollout(self, rules: Rules, solver: Callable | None) -> _Rollout:
        key = (rules, solver is not None)
        r = self._rollouts.get(key)
        if r is None:
            r = self._rollouts[key] = _Rollout(rules, solver)
        return r

    def search(self, view: SeatView, cands: list[int], fallback: int,
               worlds: np.ndarray | None = None, weights: np.ndarray | None = None,
               t0: float | None = None) -> int:
        """Mean groše of each candidate over the sampled worlds; the best one (ties: the
        table robot's choice, else the first).  A subclass may hand in the ``worlds`` (and
        their ``weights``: a weighted mean then) and the time ``t0`` its decision began,
        from which ``time_limit`` counts."""
        t0 = time.perf_counter() if t0 is None else t0
        if worlds is None:
            worlds = view.sample_worlds(self.worlds, self.rng)
        means, n = self.candidate_values(view, cands, worlds, weights, t0)
        self.stats["searched"] += 1
        self.stats["worlds"] += n
        self.stats["seconds"] += time.perf_counter() - t0
        best = float(means.max())
        ties = [a for a, m in zip(cands, means) if m >= best - 1e-9]
        return fallback if fallback in ties else ties[0]

    def candidate_values(self, view: SeatView, cands: list[int], worlds: np.ndarray,
                         weights: np.ndarray | None = None,
                         t0: float | None = None) -> tuple[np.ndarray, int]:
        """``(means, n)``: each candidate's mean groše for the seat over the first ``n`` of
        ``worlds`` (all of them, or those searched before ``time_limit`` counted from
        ``t0`` ran out) -- the values :meth:`search` maximises, and the labels of
        :mod:`training.pimc_labels`.  Card play: the solver's exact value of each card in
        each world; the other decisions: the candidate applied, the deal played out by
        :class:`_Rollout`."""
        search = _search_module()
        solve = search.solve if self.use_solver and solver_available() else None  # type: ignore[union-attr]
        seat = view.seat
        play = view.phase == S.PH_PLAY
        roll = self._rollout(view.rules, solve if self.solve_bidding else None)
        totals = np.zeros(len(cands))
        n = 0
        mass = 0.0
        for k, w0 in enumerate(worlds):
            wt = 1.0 if weights is None else float(weights[k])
            if play and solve is not None:
                mv = solve(w0, view.rules, pv=False, all_moves=True).move_values
                share = wt * seat_share(w0, seat)
                for i, a in enumerate(cands):
                    totals[i] += share * mv[a]
            else:
                for i, a in enumerate(cands):
                    w = w0.copy()
                    apply_action(w, roll.rv, a)
                    totals[i] += wt * roll.value(w, seat)
            n += 1
            mass += wt
            if (self.time_limit is not None and t0 is not None
                    and time.perf_counter() - t0 > self.time_limit):
                break
        return totals / mass, n


register_robot("pimc", PIMCRobot, games=PIMCRobot.games, needs_view=True, args={
    "worlds": int_at_least(1), "time_limit": TIME_LIMIT, "seed": SEED, "game": ANY_GAME,
    "use_solver": FLAG, "bidding": one_of("simulate", "table"), "solve_bidding": FLAG,
    "simulate_discards": FLAG})
