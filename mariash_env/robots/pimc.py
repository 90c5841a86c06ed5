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

At volený's four-player table (``players=4``, RULES.md §11.3) the robot plays the
three-seat deal its player sits in and values it in the four-player settlement: the dealer
who sits out pays the actor too, so the actor's share of the solver's amount is 3 (2 at
three) and a simulation ends in :func:`~mariash_env.games.voleny.four.seat_payment4`.
Only the decisions that weigh the actor's seat against a defender's can differ (the card
play scales every outcome of the seat alike).

Licitovaný mariáš (``rules="licitovany"``) is played the same way: the worlds come from
:func:`mariash_env.games.licitovany.worlds.sample_licit_worlds`, the card play is valued by
the solver (every licitovaný contract, desetníky), and the other decisions (auction,
game, trumps, helping suit, face-down lead, flek and show) are simulated with the
:class:`~mariash_env.games.licitovany.table_robot.LicitTableRobot` at every seat, whose own choice
breaks ties and makes the discards.  The table robots of a simulation read the
encoder's own observations, so they skip the input check of
:func:`~mariash_env.robots.features.decode` (the same moves, in licitovaný 2.6x less
time), and their card play is compiled: once a simulation reaches it, the rest of the
deal (up to the solver's trick) is one call of the game's ``GameKind.table_playout``
(:mod:`mariash_env.robots.table_playout`; the same moves, issue #35).
``race=k`` prunes the candidates every ``k`` worlds (:func:`beaten`) and stops
once the race is :func:`decided`; ``endgame=t`` values a simulation's card play from
trick ``t`` on with the solver.  Both are off by default: measured in issue #35 (see
:data:`RACE`, :data:`ENDGAME`).

``worlds`` (default 20) worlds per decision; ``time_limit`` (seconds, optional) is a hard
budget per decision, counted from the call: a world is searched only while the longest
world of the decision so far still fits in what is left (the first is always searched
when it is one solver call), and a simulated world is dropped when the budget runs out
while its candidates are played out -- with no world complete the table robot's choice
is taken.  A decision thus overruns its ``time_limit`` by at most one solver call or one
playout.  The robot lays the cards down whenever that is offered, and a single legal
action is taken at once.  Where the game's sampler gives up after its tries (licitovaný's
rejection sampler, in rare positions) the worlds it found are searched, counted in
``stats["few_worlds"]``; with none found the table robot's choice is taken, counted in
``stats["no_worlds"]``: a match never stops on it.

Construction compiles the search kernels (:func:`mariash_env.compile.warmup`, once per
process; a progress line on stderr when that takes more than a second), so that no
decision, the first included, compiles them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import state as S
from ..core.engine import apply_action
from ..games.base import GameKind
from ..games.voleny.candidates import lowest_per_suit, trump_candidates
from ..rules import Rules
from .base import Robot
from .playouts import _Rollout, seat_share
from .registry import (
    ANY_GAME,
    FLAG,
    SEED,
    TIME_LIMIT,
    WORLDS,
    game_own_class,
    game_own_robot,
    int_at_least,
    one_of,
    register_robot,
)
from .view import SearchUnavailableError, SeatView, _search_module

__all__ = ["PIMCRobot", "SeatView", "SearchUnavailableError", "solver_available", "beaten",
           "decided", "RACE", "ENDGAME"]


def solver_available() -> bool:
    s = _search_module()
    return s is not None and hasattr(s, "solve")


RACE = 4
"""The race measured in issue #35 (``pimc(race=4)``): the candidates pruned every 4
worlds.  Not the default: in licitovaný it changed 1.7% of the decisions for 3.4x less
time, and its match against the full search leaned to a loss (docs/benchmarks.md)."""
ENDGAME = 10
"""The default: no trick of a simulation valued by the solver.  Solving the last six in
licitovaný (``endgame=4``) was 20% faster but changed 18% of the bidding decisions and
lost (issue #35, docs/benchmarks.md): the double-dummy endgame is no estimate of the
table robots' play that the rest of a simulation assumes."""
RACE_Z = 2.0
"""How many standard errors behind the leader a pruned candidate is."""


def beaten(values: np.ndarray, alive: np.ndarray, z: float = RACE_Z) -> np.ndarray:
    """The candidates (columns of ``values``, one row per world searched, the same worlds
    for all) clearly behind the leader: among those ``alive``, each whose mean shortfall
    against the leader's value in the same worlds exceeds ``z`` standard errors of that
    shortfall (a candidate behind in every world, by the same amount, is beaten too).
    The leader is never beaten."""
    n = len(values)
    means = np.where(alive, values.mean(axis=0), -np.inf)
    lead = int(np.argmax(means))
    d = values[:, [lead]] - values  # shortfall per world
    se = d.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(values.shape[1], np.inf)
    out = alive & (d.mean(axis=0) > z * se) & (d.mean(axis=0) > 0)
    out[lead] = False
    return out


SAME_WORLDS = 8
"""Worlds in which the candidates left must have had equal values, varying from world to
world, before the race is :func:`decided` (equivalent cards)."""


def decided(values: np.ndarray, alive: np.ndarray) -> bool:
    """Whether the race is over: one candidate ``alive`` is left, or those left have had
    the same value in each of at least :data:`SAME_WORLDS` worlds searched while that value
    varied between worlds (equivalent cards such as neighbours in a suit; equal values
    that never vary, e.g. a deal already decided in the worlds seen so far, prove
    nothing)."""
    v = values[:, alive]
    if v.shape[1] == 1:
        return True
    return bool(len(v) >= SAME_WORLDS and (v == v[:, :1]).all() and np.ptp(v[:, 0]) > 0)


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
    (default: the table robot's discards, which the simulation's noise rarely beats);
    ``race``: prune the candidates every ``race`` worlds (:func:`beaten`; default 0:
    never; :data:`RACE` is the measured setting); ``endgame``: the simulations' card
    play from this trick (0-9) on is valued by the solver (10 or None: never, the
    default); ``warm``: compile the
    search kernels now (default; module docstring).
    """

    _warm_network = False  # nnpimc also warms its inference over worlds

    name = "pimc"
    wants_view = True
    games = ("voleny", "licitovany")  # the games with a world sampler and the solver

    def __init__(self, worlds: int = 20, time_limit: float | None = None,
                 seed: int | None = None, game: Any = None, use_solver: bool = True,
                 bidding: str = "simulate", solve_bidding: bool = False,
                 simulate_discards: bool = False, race: int = 0,
                 endgame: int | None = None, warm: bool = True) -> None:
        if not WORLDS[0](worlds):
            raise ValueError(f"worlds must be {WORLDS[1]}, got {worlds!r}")
        if bidding not in ("simulate", "table"):
            raise ValueError(f"bidding must be 'simulate' or 'table', got {bidding!r}")
        if isinstance(race, bool) or not (isinstance(race, (int, np.integer)) and race >= 0):
            raise ValueError(f"race must be an int >= 0 (worlds between prunings, 0: "
                             f"none), got {race!r}")
        self.race = int(race)
        if endgame is not None and not (isinstance(endgame, (int, np.integer))
                                        and 0 <= endgame <= 10):
            raise ValueError(f"endgame must be a trick 0..10 (10 or None: none), got "
                             f"{endgame!r}")
        self.endgame = None if endgame is None else int(endgame)
        self.worlds = int(worlds)
        self.time_limit = time_limit
        self.rng = np.random.default_rng(seed)
        self.game = game
        self.use_solver = use_solver
        self.bidding = bidding
        self.solve_bidding = solve_bidding
        self.simulate_discards = simulate_discards
        self._tables: dict[str, Robot] = {}  # per game, its table robot (the fallback)
        self._rollouts: dict[tuple[Rules, bool], _Rollout] = {}
        self.stats = {"decisions": 0, "searched": 0, "seconds": 0.0, "worlds": 0,
                      "few_worlds": 0, "no_worlds": 0}
        self.clock: Callable[[], float] = time.perf_counter  # the budget's clock
        if warm:
            self.warm_up()

    def warm_up(self) -> float:
        """Compile (or load from the disk cache) the kernels this robot's decisions call,
        once per process (:func:`mariash_env.compile.warmup`); the seconds it took."""
        from ..compile import warmup

        t0 = time.perf_counter()
        warmup(type(self).games, network=self._warm_network)  # warm_playouts too
        return time.perf_counter() - t0

    def reset(self) -> None:
        for t in self._tables.values():
            t.reset()

    def _table(self, kind: GameKind) -> Robot:
        """The table robot of ``kind``'s game (made on first use)."""
        t = self._tables.get(kind.name)
        if t is None:
            t = self._tables[kind.name] = kind.load("table_robot")()
        return t

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
        t0 = self.clock()  # time_limit counts from here
        mask = view.action_mask()
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} is not to move")
        self.stats["decisions"] += 1
        kind = view.kind
        for a in kind.claim_actions:  # volený's lay-down: bundled robots always use it
            if mask[a]:
                return a
        if legal.size == 1:
            return int(legal[0])
        fallback = self._table(kind).act(view.observation_dict())
        ph = view.phase
        if ph != S.PH_PLAY and (self.bidding == "table"
                                or (ph == S.PH_DISCARD and not self.simulate_discards)):
            return fallback
        cands = [int(a) for a in legal]
        if kind.search_candidates:  # the game's narrowing (volený's trump choice)
            cands = kind.load("search_candidates")(ph, cands, fallback)
        return self.search(view, cands, fallback, t0=t0)

    # volený's trump candidates (games/voleny/candidates.py), kept here for their callers
    _lowest_per_suit = staticmethod(lowest_per_suit)
    _trump_candidates = staticmethod(trump_candidates)

    # --- search --------------------------------------------------------------------------
    def _rollout(self, rules: Rules, solver: Callable | None, from_trick: int = 0) -> _Rollout:
        key = (rules, solver is not None, from_trick)
        r = self._rollouts.get(key)
        if r is None:
            r = self._rollouts[key] = _Rollout(rules, solver, from_trick)
        return r

    def endgame_from(self, view: SeatView) -> int:
        """The first trick of a simulation's card play valued by the solver (10: none):
        0 with ``solve_bidding``, else ``endgame`` (default :data:`ENDGAME`: none)."""
        if self.solve_bidding:
            return 0
        return ENDGAME if self.endgame is None else self.endgame

    def search(self, view: SeatView, cands: list[int], fallback: int,
               worlds: np.ndarray | None = None, weights: np.ndarray | None = None,
               t0: float | None = None) -> int:
        """Mean groše of each candidate over the sampled worlds; the best one (ties: the
        table robot's choice, else the first).  A subclass may hand in the ``worlds`` (and
        their ``weights``: a weighted mean then) and the time ``t0`` its decision began,
        from which ``time_limit`` counts."""
        t0 = self.clock() if t0 is None else t0
        if worlds is None:
            worlds = self.draw_worlds(view, self.worlds)
            if worlds is None:
                return fallback
        race = self.race if weights is None else 0
        means, n = self.candidate_values(view, cands, worlds, weights, t0, race)
        self.stats["searched"] += 1
        self.stats["worlds"] += n
        self.stats["seconds"] += self.clock() - t0
        if n == 0:  # the budget ran out inside the first simulated world
            return fallback
        best = float(means.max())
        ties = [a for a, m in zip(cands, means) if m >= best - 1e-9]
        return fallback if fallback in ties else ties[0]

    def draw_worlds(self, view: SeatView, n: int) -> np.ndarray | None:
        """``n`` worlds of the view; fewer when the game's sampler gives up after finding
        some (licitovaný's rejection sampler: issue #35 saw it once in a 600-deal match,
        none in 32,634 positions since the plays narrow its masks), counted in
        ``stats["few_worlds"]``; None when it found none (``stats["no_worlds"]``), and
        the decision then takes the robot's fallback instead of stopping the match."""
        try:
            return view.sample_worlds(n, self.rng)
        except view.world_errors as e:
            found = getattr(e, "worlds", None)
            if found is not None and len(found):
                self.stats["few_worlds"] += 1
                return found
            self.stats["no_worlds"] += 1
            return None

    def candidate_values(self, view: SeatView, cands: list[int], worlds: np.ndarray,
                         weights: np.ndarray | None = None,
                         t0: float | None = None, race: int = 0) -> tuple[np.ndarray, int]:
        """``(means, n)``: each candidate's mean groše for the seat over the first ``n`` of
        ``worlds`` (all of them, or those the budget ``time_limit`` counted from ``t0``
        allowed: module docstring; ``n == 0``, means 0, when not even the first simulated
        world was complete) -- the values :meth:`search` maximises, and the labels of
        :mod:`training.pimc_labels`.  Card play: the solver's exact value of each card in
        each world; the other decisions: the candidate applied, the deal played out by
        :class:`_Rollout`.  With ``race`` > 0 (unweighted worlds only) the candidates are
        pruned every ``race`` worlds (:func:`beaten`; a pruned one's mean is ``-inf`` and
        it is simulated no more), and the search stops when the race is
        :func:`decided`."""
        search = _search_module()
        solve = search.solve if self.use_solver and solver_available() else None  # type: ignore[union-attr]
        seat = view.seat
        play = view.phase == S.PH_PLAY
        endgame = self.endgame_from(view)
        roll = self._rollout(view.rules, solve if endgame < 10 else None, endgame)
        totals = np.zeros(len(cands))
        row = np.zeros(len(cands))
        alive = np.ones(len(cands), dtype=bool)
        race = race if race > 0 and weights is None else 0
        seen = np.zeros((len(worlds) if race else 0, len(cands)))  # values per world
        n = 0
        mass = 0.0
        deadline = (math.inf if self.time_limit is None or t0 is None
                    else t0 + self.time_limit)
        longest = 0.0  # the longest world of this decision so far
        for k, w0 in enumerate(worlds):
            start = self.clock()
            if n and start + longest > deadline:  # the next world would not fit
                break
            wt = 1.0 if weights is None else float(weights[k])
            if play and solve is not None:  # one solver call: never cut
                mv = solve(w0, view.rules, pv=False, all_moves=True, check=False).move_values
                share = wt * seat_share(w0, seat, view.rules.players)
                for i, a in enumerate(cands):
                    row[i] = share * mv[a]
            else:
                first = True
                for i, a in enumerate(cands):
                    if not alive[i]:
                        continue
                    if not first and self.clock() > deadline:
                        return self._means(totals, mass, n, alive)  # this world dropped
                    first = False
                    w = w0.copy()
                    apply_action(w, roll.rv, a)
                    row[i] = wt * roll.value(w, seat)
            totals += row
            n += 1
            mass += wt
            longest = max(longest, self.clock() - start)
            if race:
                seen[n - 1] = row
                if n % race == 0 and n < len(worlds):
                    alive &= ~beaten(seen[:n], alive)
                    if decided(seen[:n], alive):
                        break
        return self._means(totals, mass, n, alive)

    @staticmethod
    def _means(totals: np.ndarray, mass: float, n: int,
               alive: np.ndarray) -> tuple[np.ndarray, int]:
        """Means of the candidates still in the race, ``-inf`` for the pruned ones."""
        return np.where(alive, totals / mass if n else totals, -np.inf), n


def make_pimc(kind: Any, players: int, **kw: Any) -> Robot:
    """Robot ``"pimc"``: :class:`PIMCRobot` (the game view and the solver) for the games it
    plays, else the game's own PIMC robot (its kind's ``pimc``: lízaný's decides from the
    observation, :mod:`mariash_env.games.lizany.pimc`) with the arguments it takes."""
    if kind.name in PIMCRobot.games:
        return PIMCRobot(**kw)
    return game_own_robot(kind, "pimc", kw)


def _check_pimc(kind: Any, players: int, kw: Any) -> None:
    """What :func:`make_pimc` refuses before it builds: a game's own PIMC's arguments."""
    if kind.name not in PIMCRobot.games:
        game_own_class(kind, "pimc", kw)


register_robot("pimc", make_pimc, needs_view=PIMCRobot.games, check=_check_pimc, args={
    "worlds": WORLDS, "time_limit": TIME_LIMIT, "seed": SEED, "game": ANY_GAME,
    "use_solver": FLAG, "bidding": one_of("simulate", "table"), "solve_bidding": FLAG,
    "simulate_discards": FLAG,
    "race": int_at_least(0),
    "endgame": (lambda v: v is None or (int_at_least(0)[0](v) and v <= 10),
                "a trick 0..10 or None")})
