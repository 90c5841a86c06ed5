"""The playouts of PIMC's simulations: a sampled world played to the end of the deal by the
game's table robot at every seat (its compiled playout where the game has one,
:mod:`mariash_env.robots.table_playout`), or up to a trick from which the double-dummy
solver values the rest; what a seat gets of the settled deal; and the warm-up of the
compiled code they call.  Below :mod:`mariash_env.robots.pimc` and
:mod:`mariash_env.compile`, which both use them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core import state as S
from ..core.engine import apply_action, deal_decisions, legal_actions
from ..games.base import step_bound
from ..games.voleny.four import seat_payment4
from ..games.voleny.table_discards import warm as warm_discards
from ..games.voleny.table_hand import warm as warm_hand
from ..games.voleny.table_play import VIEW_SIZE, choose_card
from ..kinds import kind_of
from ..rules import Rules
from .base import Robot

__all__ = ["seat_share", "warm_playouts", "warm_table_robot"]


def _payoff(st: np.ndarray, seat: int, players: int = 3) -> float:
    """The settled deal's groše for the core ``seat``, at the table of ``players``."""
    if players == 4:
        return float(seat_payment4(st, seat))
    return float(S.get64(st, S.PAY + 2 * seat))


def seat_share(w: np.ndarray, seat: int, players: int = 3) -> float:
    """What ``seat`` gets per unit of the solver's amount ``A`` (every other player pays
    the actor ``A``): 2 for the actor, 3 at the four-player table where the dealer who
    sits out pays with the defence (RULES.md §11.3), -1 for a defender."""
    return float(players - 1) if int(w[S.ACTOR]) == seat else -1.0


_PLAYOUTS_WARM: set[str] = set()


def warm_table_robot(cls: type) -> None:
    """A table robot class's ``warm_up`` (a static method compiling, or loading, the
    kernels its decisions call), where it has one: a rule robot in plain Python (lízaný's)
    has nothing to compile."""
    warm = getattr(cls, "warm_up", None)
    if warm is not None:
        warm()


def warm_playouts(games: tuple[str, ...]) -> None:
    """Compile (or load) the simulations' compiled playouts (``GameKind.table_playout``),
    the table robots' card choice and their discards once per process and game, on a card
    play of the game's table robot, and the table robot's own kernels (its ``warm_up``:
    PIMC's fallback decision checks its observation; a table robot without one, which has
    no compiled code of its own, is fine).  A game with an engine of its own (lízaný: no
    rules vector) has none of these playouts: it is skipped (its own search's kernels are
    its ``GameKind.warm_search``)."""
    from ..games.registry import game_kind
    from ..playout import decision_positions

    warm_discards()
    warm_hand()
    for g in games:
        if g in _PLAYOUTS_WARM:
            continue
        if game_kind(g).game is None:  # its own engine: nothing here plays it
            _PLAYOUTS_WARM.add(g)
            continue
        _, play, rules = decision_positions(g)
        roll = _Rollout(rules, None)
        warm_table_robot(type(roll.robot))
        if roll.play_out is not None:
            roll.value(play.copy(), 0)
            roll.table_action(play)  # the table robot's own card play, called from Python
            choose_card(roll.view)
        _PLAYOUTS_WARM.add(g)


class _Rollout:
    """Plays a world to the end of the deal with the table robot of the rules' game at every
    seat (bidding and card play), or -- with ``solver`` -- with the table robot up to
    trick ``from_trick`` of the card play, whose rest the double-dummy solver then values
    exactly."""

    def __init__(self, rules: Rules, solver: Callable | None, from_trick: int = 0) -> None:
        self.rules = rules
        self.rv = rules.vector()
        self.decisions = int(deal_decisions(self.rv))
        self.kind = kind_of(rules)
        self.robot = self.kind.load("table_robot")()  # the game's table robot
        self.robot.check = False  # the observations below are the encoder's own
        self.mask = np.zeros(self.kind.n_actions, dtype=np.int8)
        self.obs = np.zeros(self.kind.obs_size, dtype=np.float32)
        self.solve = solver
        self.from_trick = from_trick  # the solver values the card play from this trick on
        # the game's compiled playout (robots/table_playout.py), None: Python moves only
        self.play_out = self.kind.load("table_playout") if self.kind.table_playout else None
        self.view = np.zeros(VIEW_SIZE, np.int64)
        self.claim = np.array(self.kind.claim_actions, dtype=np.int64)

    @property
    def licit_table(self) -> Robot:
        """The old name of :attr:`robot` (scripts set its ``check``)."""
        return self.robot

    def table_action(self, w: np.ndarray) -> int:
        seat = int(w[S.TO_MOVE])
        self.mask[:] = 0
        legal_actions(w, self.rv, self.mask)
        for a in self.kind.claim_actions:
            if self.mask[a]:
                return a
        nz = np.flatnonzero(self.mask)
        if nz.size == 1:
            return int(nz[0])
        self.kind.encode(w, seat, self.obs, False)
        return self.robot.act({"observation": self.obs, "action_mask": self.mask})

    def value(self, w: np.ndarray, seat: int) -> float:
        """The seat's groše at the end of the deal from world ``w`` (modified in place)."""
        # each turn a decision at least (the compiled play-out's or the robot's)
        tick = step_bound("a rollout's play-out of a deal", self.decisions)
        while w[S.PHASE] != S.PH_DONE:
            tick()
            if (w[S.PHASE] == S.PH_PLAY and self.solve is not None
                    and w[S.TRICK_NO] >= self.from_trick):
                amount = float(self.solve(w, self.rules, pv=False, check=False).value)
                return seat_share(w, seat, self.rules.players) * amount
            # the table robot's moves, compiled, up to the end or the solver's trick
            if self.play_out is not None and self.play_out(
                    w, self.rv, self.obs, self.mask, self.view,
                    self.from_trick if self.solve is not None else 99, self.claim):
                continue
            apply_action(w, self.rv, self.table_action(w))
        return _payoff(w, seat, self.rules.players)
