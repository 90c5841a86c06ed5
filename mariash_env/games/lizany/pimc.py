"""Lízaný's PIMC robot: ``make_robot("pimc", rules="lizany")`` (``pimc(worlds=8,
time_limit=0.5, seed=None)``).

Perfect-information Monte Carlo from the observation alone (lízaný has no game view):

* **Worlds.**  The cards the seat has not seen — neither in its hand, played, the card on
  the table, the trump card (public, the stock's last card while the stock lasts) nor the
  opponent's cards known from play (the trump card it drew, a marriage partner it showed)
  — are dealt uniformly to the opponent's unknown places and to the stock in a random
  drawing order.  Once the stock is empty every unseen card is the opponent's: the world
  is the real deal.  (While the stock lasts a world does not read what the opponent's
  unannounced K or Q says of its hand then: it may have drawn the partner later.)
* **Values.**  In each world every legal card is played and the deal finished by the
  rule robot (``table``) for both seats, on the world's own observations; a card's value
  is its mean reward over the worlds.  The best card is played, ties going to the rule
  robot's own choice.  A decision stops drawing worlds at ``time_limit`` seconds (at
  least one world is valued); a single legal card is played at once.

The compiled core (:class:`~mariash_env.games.lizany.game.LizanyGame`) plays every world:
no rule is written here.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...cards import NCARDS, cards_of
from ...robots.base import ObservationError, Robot, legal_of, observation_arrays
from ...robots.registry import SEED, TIME_LIMIT, WORLDS
from .actions import N_ACTIONS, OBS_SIZE
from .core import N_TRICKS, STOCK_SIZE
from .game import OBS, LizanyGame, mask_from
from .table_robot import LizanyRuleRobot

__all__ = ["LizanyPIMCRobot", "ARGS"]

ARGS = {"worlds": WORLDS, "time_limit": TIME_LIMIT, "seed": SEED}
"""The keyword arguments lízaný's ``pimc`` takes, each with its check."""

_SC = OBS["scalars"][0]


class LizanyPIMCRobot(Robot):
    """Lízaný's PIMC robot (module docstring)."""

    name = "pimc"
    games = ("lizany",)
    args = ARGS

    def __init__(self, worlds: int = 8, time_limit: float = 0.5,
                 seed: int | None = None) -> None:
        self.worlds = int(worlds)
        self.time_limit = float(time_limit)
        self.rng = np.random.default_rng(seed)
        self.rule = LizanyRuleRobot()
        self.stats = {"decisions": 0, "worlds": 0}

    def begin_deal(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any]) -> int:
        o, mask = observation_arrays(observation)
        if o.shape != (OBS_SIZE,) or mask.shape != (N_ACTIONS,):
            raise ObservationError(f"a lízaný observation is {OBS_SIZE} floats and its mask "
                                   f"{N_ACTIONS} values, got shapes {o.shape} and {mask.shape}")
        legal = [int(a) for a in legal_of(observation)]
        fallback = int(self.rule.act(observation))  # checks the observation's values too
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        position = _position(o)
        if position is None:  # not a position of the game: the rule robot's card
            return fallback
        me = position["me"]
        total = dict.fromkeys(legal, 0.0)
        n = 0
        while n < self.worlds and (n == 0 or time.perf_counter() - start < self.time_limit):
            world = _world(position, self.rng)
            for c in legal:
                g = LizanyGame.__new__(LizanyGame)
                g.st, g.history = world.st.copy(), []
                g.play(c)
                total[c] += self._finish(g)[me]
            n += 1
        self.stats["decisions"] += 1
        self.stats["worlds"] += n
        best = max(total.values())
        ties = [c for c in legal if total[c] == best]
        return fallback if fallback in ties else ties[0]

    def _finish(self, g: LizanyGame) -> tuple[int, int]:
        """The rewards of ``g`` played to its end by the rule robot for both seats."""
        while not g.over:
            s = g.to_move
            g.play(self.rule.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)}))
        return g.rewards


def _position(o: np.ndarray) -> dict[str, Any] | None:
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
            "trick_no": scaled(11, N_TRICKS)}


def _world(p: dict[str, Any], rng: np.random.Generator) -> LizanyGame:
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
