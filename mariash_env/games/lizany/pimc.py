"""Lízaný's PIMC robot: ``make_robot("pimc", rules="lizany")`` (``pimc(worlds=8,
time_limit=0.5, seed=None, endgame=8)``).

Perfect-information Monte Carlo from the observation alone (lízaný has no game view):

* **Worlds.**  The cards the seat has not seen — neither in its hand, played, the card on
  the table, the trump card (public, the stock's last card while the stock lasts) nor the
  opponent's cards known from play (the trump card it drew, a marriage partner it showed)
  — are dealt uniformly to the opponent's unknown places and to the stock in a random
  drawing order (:func:`draw_world`).  Once the stock is empty every unseen card is the
  opponent's: the world is the real deal.  (While the stock lasts a world does not read
  what the opponent's unannounced K or Q says of its hand then: it may have drawn the
  partner later.)
* **Values.**  In each world every legal card is played and the deal finished by the
  rule robot (``table``) for both seats while the stock lasts, then solved exactly
  (:mod:`mariash_env.games.lizany.solve`); from trick ``endgame`` on (0-8) each world is
  solved to its end instead.  A card's value is its mean reward over the worlds.  The
  best card is played, ties going to the rule robot's own choice.  A decision keeps to
  ``time_limit`` seconds: a world the time ends inside is dropped, and with none valued
  the rule robot's card is played; a single legal card is played at once.
* **Once the stock is gone** the deal is open: the robot plays the card of the best
  exact value (the rule robot's on a tie).

The compiled core (:class:`~mariash_env.games.lizany.game.LizanyGame`) plays every world
and the solver searches on it: no rule is written here.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...cards import NCARDS, cards_of
from ...robots.base import ObservationError, Robot, legal_of, observation_arrays
from ...robots.registry import SEED, TIME_LIMIT, WORLDS
from ...rules import is_int
from ..base import step_bound
from .actions import N_ACTIONS, OBS_SIZE
from .core import DEAL_DECISIONS, HAND_SIZE, N_TRICKS, STOCK_POS, STOCK_SIZE
from .game import OBS, LizanyGame, mask_from
from .solve import Solver, warm_up
from .table_robot import LizanyRuleRobot

__all__ = ["LizanyPIMCRobot", "ARGS", "read_position", "draw_world"]

ARGS = {"worlds": WORLDS, "time_limit": TIME_LIMIT, "seed": SEED,
        "endgame": (lambda v: is_int(v) and 0 <= v <= N_TRICKS // 2, "a trick 0..8")}
"""The keyword arguments lízaný's ``pimc`` takes, each with its check."""

_SC = OBS["scalars"][0]


class LizanyPIMCRobot(Robot):
    """Lízaný's PIMC robot (module docstring)."""

    name = "pimc"
    games = ("lizany",)
    args = ARGS

    rollouts = True  # the worlds before ``endgame`` are valued by rule-robot play

    def __init__(self, worlds: int = 8, time_limit: float | None = 0.5,
                 seed: int | None = None, endgame: int = 8) -> None:
        self.worlds = int(worlds)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.endgame = int(endgame)
        self.rng = np.random.default_rng(seed)
        self.rule = LizanyRuleRobot()
        self.solver = Solver()
        warm_up()  # no decision compiles the solver
        self.stats = {"decisions": 0, "searched": 0, "worlds": 0, "solved": 0}

    def begin_deal(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def first_choice(self, observation: dict[str, Any]) -> int:
        """The card played without a search, and on every tie: the rule robot's."""
        return int(self.rule.act(observation))

    def act(self, observation: dict[str, Any]) -> int:
        start = time.perf_counter()
        o, mask = observation_arrays(observation)
        if o.shape != (OBS_SIZE,) or mask.shape != (N_ACTIONS,):
            raise ObservationError(f"a lízaný observation is {OBS_SIZE} floats and its mask "
                                   f"{N_ACTIONS} values, got shapes {o.shape} and {mask.shape}")
        first = self.first_choice(observation)  # checks the observation's values too
        self.stats["decisions"] += 1
        legal = [int(a) for a in legal_of(observation)]
        if len(legal) == 1:
            return legal[0]
        position = self._searched(o, legal)
        if position is None:
            return first
        means, n = self.candidate_values(position, legal, start)
        if not n:  # out of time before one world was valued
            return first
        best = means.max()
        return first if means[legal.index(first)] == best else legal[int(means.argmax())]

    def _searched(self, o: np.ndarray, legal: list[int]) -> dict[str, Any] | None:
        """The position of observation ``o`` if the robot searches it, else None: a single
        legal card, counts that are no position of the game, a trick before ``endgame``
        while the stock lasts when ``rollouts`` is off."""
        position = read_position(o) if len(legal) > 1 and o.shape == (OBS_SIZE,) else None
        if position is None or (position["stock"] and position["trick_no"] < self.endgame
                                and not self.rollouts):
            return None
        return position

    def action_values(self, observation: dict[str, Any]) -> np.ndarray | None:
        """Each legal card's value as the search sees it (float32[N_ACTIONS], NaN for the
        other actions): the mean reward over the worlds of :meth:`candidate_values`.  None
        where the robot would not search (:meth:`_searched`) or no world was valued in
        time.  The teacher of lízaný's label sets (``training.pimc_labels``)."""
        o, _ = observation_arrays(observation)
        legal = [int(a) for a in legal_of(observation)]
        position = self._searched(o, legal)
        if position is None:
            return None
        means, n = self.candidate_values(position, legal, time.perf_counter())
        if not n:
            return None
        out = np.full(N_ACTIONS, np.nan, np.float32)
        out[legal] = means
        return out

    def candidate_values(self, position: dict[str, Any], cands: list[int],
                         start: float) -> tuple[np.ndarray, int]:
        """``(means, n)``: each of ``cands``' (the legal cards') mean reward for the seat
        over the ``n`` worlds valued within the time limit counted from ``start`` -- the
        values the robot maximises (``mariash_env.research.dataset`` records them).  Once
        the stock is gone the one world is the real deal and the values are exact."""
        solve = not position["stock"] or position["trick_no"] >= self.endgame
        worlds = self.worlds if position["stock"] else 1
        self.stats["searched" if position["stock"] else "solved"] += 1
        total = np.zeros(NCARDS)
        n = 0
        while n < worlds and (n == 0 or self._left(start) != 0.0):
            world = draw_world(position, self.rng)
            if not n and not _legal_in(world, position["me"], cands):
                break  # the mask is not the position's: its cards cannot be played here
            if solve:
                values = self.solver.card_values(world.st, self._left(start))
            else:
                values = self._rollouts(world, cands, position["me"], start)
            if values is None:  # out of time: the unfinished world is dropped
                break
            total += values
            n += 1
        self.stats["worlds"] += n
        return total[cands] / max(n, 1), n

    def _left(self, start: float) -> float | None:
        """Seconds left of the decision's time limit (None: no limit)."""
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - (time.perf_counter() - start))

    def _rollouts(self, world: LizanyGame, legal: list[int], me: int,
                  start: float) -> np.ndarray | None:
        """Seat ``me``'s reward after each legal card in ``world``: the rule robot plays
        both seats while the stock lasts, the rest is solved (None: out of time)."""
        out = np.zeros(NCARDS)
        for c in legal:
            g = LizanyGame.__new__(LizanyGame)
            g.st, g.history = world.st.copy(), []
            g.play(c)
            tick = step_bound("a lízaný rollout's play while the stock lasts", DEAL_DECISIONS)
            while not g.over and g.st[STOCK_POS] < STOCK_SIZE:
                tick()
                s = g.to_move
                g.play(self.rule.act({"observation": g.observe(s),
                                      "action_mask": g.legal_mask(s)}))
            if g.over:
                out[c] = g.rewards[me]
                continue
            v = self.solver.value(g.st, self._left(start))
            if v is None:
                return None
            out[c] = v if g.to_move == me else -v
        return out


def read_position(o: np.ndarray) -> dict[str, Any] | None:
    """What the observation says of the deal (the seat to move is the observer), or None
    when its counts do not add up to a position of the game."""
    sc = o[_SC:_SC + 17]
    me = int(round(float(sc[12])))
    hand = mask_from(o[OBS["hand"][0]:])
    played = (mask_from(o[OBS["played_me"][0]:]), mask_from(o[OBS["played_opp"][0]:]))
    table = mask_from(o[OBS["table"][0]:])
    known = mask_from(o[OBS["opp_known"][0]:]) & ~played[1]
    trump_card = int(np.argmax(o[OBS["trump_card"][0]:OBS["trump_card"][0] + NCARDS]))
    stock = int(round(float(sc[0]) * STOCK_SIZE))
    opp_size = bin(hand).count("1") - (1 if table else 0)
    seen = hand | played[0] | played[1] | table | known
    if stock:
        seen |= 1 << trump_card
    unseen = ((1 << NCARDS) - 1) & ~seen
    opp_unknown = opp_size - bin(known).count("1")
    stock_unknown = max(stock - 1, 0)
    if me not in (0, 1) or opp_unknown < 0 or bin(unseen).count("1") != (
            opp_unknown + stock_unknown) or (stock and (hand | known) >> trump_card & 1):
        return None
    # the sets and counts of a real position: the world must be a record the core and
    # the solver accept (a perturbed observation is none)
    trick_no = int(round(float(sc[11]) * N_TRICKS))
    size = bin(played[0]).count("1") + bin(played[1]).count("1")
    if (bin(table).count("1") > 1 or table & ~played[1] or hand & (played[0] | played[1])
            or played[0] & played[1] or known & (hand | played[0])
            or not 0 <= trick_no < N_TRICKS or size != 2 * trick_no + (1 if table else 0)
            or stock != max(0, STOCK_SIZE - 2 * trick_no)
            or bin(hand).count("1") != (HAND_SIZE if stock else N_TRICKS - trick_no)):
        return None
    marriages = o[OBS["marriages"][0]:OBS["marriages"][0] + 8]
    by = [-1 if max(marriages[2 * s], marriages[2 * s + 1]) < 0.5
          else (me if marriages[2 * s] > 0.5 else 1 - me) for s in range(4)]
    # What the opponent knows of the seat's hand: the trump card it drew, the partner
    # left in hand of a marriage it announced.
    shown = hand & (1 << trump_card) if not stock else 0
    for s in range(4):
        if by[s] == me:
            shown |= hand & (0b11 << (8 * s + 5))

    def scaled(i: int, scale: int) -> int:
        return int(round(float(sc[i]) * scale))

    return {"me": me, "hand": hand, "played": played, "table": table, "known": known,
            "shown": shown, "trump_card": trump_card, "stock": stock, "unseen": unseen,
            "opp_unknown": opp_unknown, "marriage_by": by,
            "points": (scaled(2, 90), scaled(3, 90)),
            "marriages": (scaled(4, 100), scaled(5, 100)),
            "tricks": (scaled(6, N_TRICKS), scaled(7, N_TRICKS)),
            "trick_no": trick_no}


def _legal_in(world: LizanyGame, me: int, cards: list[int]) -> bool:
    """Whether ``cards`` (a mask's) are seat ``me``'s legal cards in ``world``: they are the
    same in every world of a position (they depend on the seat's own hand only)."""
    return set(np.flatnonzero(world.legal_mask(me)).tolist()) == set(cards)


def draw_world(p: dict[str, Any], rng: np.random.Generator) -> LizanyGame:
    """A deal consistent with the position ``p``: the unseen cards dealt uniformly to the
    opponent's unknown places and the stock (module docstring), in the core's record."""
    me, opp = p["me"], 1 - p["me"]
    cards = [int(c) for c in rng.permutation(cards_of(p["unseen"]))]
    opp_hand = p["known"] | sum(1 << c for c in cards[:p["opp_unknown"]])
    g = LizanyGame(seed=0)  # a record to overwrite: every field below is the world's
    for field_, mine, theirs in (("hands", p["hand"], opp_hand), ("played", *p["played"]),
                                 ("known", p["shown"], p["known"]), ("points", *p["points"]),
                                 ("marriages", *p["marriages"]), ("tricks", *p["tricks"])):
        slots = getattr(g, field_)
        slots[me], slots[opp] = mine, theirs
    for s in range(4):
        g.marriage_by[s] = p["marriage_by"][s]
    table = cards_of(p["table"])
    g.table = table[0] if table else -1
    g.to_move = me
    g.trump_card = p["trump_card"]
    g.trick_no = p["trick_no"]
    g.last_winner = -1 if p["trick_no"] == 0 else (opp if table else me)
    g.stock = cards[p["opp_unknown"]:] + ([p["trump_card"]] if p["stock"] else [])
    return g
