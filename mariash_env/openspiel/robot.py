"""OpenSpiel bots as robots of the project's harnesses: :class:`OpenSpielRobot`
(``make_robot("os_random")`` / ``make_robot("os_ismcts(...)")``), in volený (at three and
four) and licitovaný."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..games.registry import games as registered
from ..robots.base import Robot
from ..robots.view import SeatView
from ..rules import Rules
from .game import MariashGame, load_game
from .state import MariashState, state_from_record


class OpenSpielRobot(Robot):
    """An OpenSpiel bot (``pyspiel.Bot``) playing through the robot protocol.

    The robot sees a :class:`SeatView`; it builds the OpenSpiel state from one world
    sampled from the seat's knowledge (every such world has the seat's information state,
    so a bot that only reads the seat's view or resamples, as IS-MCTS does, decides as on
    the real state) and asks the bot for one step.  It searches the game of the view's
    rules itself: at four (RULES.md §11.3) the four-player OpenSpiel game, the robot as
    the player holding its seat, the returns the four-player payments (the dealer sitting
    out pays with the defence).

    ``kind``: ``"random"`` (``UniformRandomBot``) or ``"ismcts"`` (``ISMCTSBot`` with the
    project's resampler and random-rollout evaluation); ``simulations``, ``rollouts``,
    ``uct_c`` (in groše: the exploration constant of UCT), ``seed``.
    """

    wants_view = True
    # The games whose SeatView it reads: OpenSpiel's games of the compiled core, those
    # that say what a seat knows (``hidden_info``; lízaný's OpenSpiel game, lizany.py, is
    # played by OpenSpiel's own bots on its states, not through this robot).
    games = tuple(k.name for k in registered("openspiel") if k.hidden_info)

    def __init__(self, kind: str = "ismcts", simulations: int = 200, rollouts: int = 1,
                 uct_c: float = 4.0, seed: int | None = None) -> None:
        if kind not in ("random", "ismcts"):
            raise ValueError(f"invalid kind {kind!r}: expected 'random' or 'ismcts'")
        self.kind = kind
        self.name = f"os_{kind}"
        self.simulations = int(simulations)
        self.rollouts = int(rollouts)
        self.uct_c = float(uct_c)
        self._games: dict[Rules, MariashGame] = {}
        self._reseed(seed)

    def _reseed(self, seed: int | None) -> None:
        self.rng = np.random.RandomState(None if seed is None else seed % 2**32)

    def begin_deal(self, seed: int) -> None:
        super().begin_deal(seed)
        self._reseed(seed)

    def _game(self, rules: Rules) -> MariashGame:
        g = self._games.get(rules)
        if g is None:
            g = self._games[rules] = load_game(rules)
        return g

    def bot(self, game: MariashGame, player: int) -> pyspiel.Bot:
        """The OpenSpiel bot of this robot for ``player``."""
        if self.kind == "random":
            from open_spiel.python.bots.uniform_random import UniformRandomBot

            return UniformRandomBot(player, self.rng)
        from open_spiel.python.algorithms import ismcts, mcts

        bot = ismcts.ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(self.rollouts, self.rng), self.uct_c,
            self.simulations, random_state=self.rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(self._resample)
        return bot

    def _resample(self, state: MariashState, player: int) -> MariashState:
        return state.resample_from_infostate(player, lambda: self.rng.random_sample())

    def act_view(self, view: SeatView) -> int:
        mask = view.action_mask()
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"seat {view.seat} is not to move")
        if legal.size == 1:
            return int(legal[0])
        game = self._game(view.rules)
        world = view.sample_worlds(1, int(self.rng.randint(0, 2**31 - 1)))[0]
        state = state_from_record(game, world)
        player = game.ctx.player_at(world, view.seat)  # at four the seat's player
        a = int(self.bot(game, player).step(state))
        if not mask[a]:  # pragma: no cover - a bot is asked on the seat's own legal set
            raise RuntimeError(f"OpenSpiel bot chose illegal action {a}")
        return a

    def warm_up(self, game: str) -> None:
        """Take a bidding and a card-play decision of ``game`` (three seats) with at most two
        simulations, so that the kernels its decisions call -- the world sampler, the
        engine's calls of the OpenSpiel state and of its rollouts -- are compiled, or loaded
        from numba's disk cache, here and not in its first decision (issue #35: 42 s on an
        empty cache).  The robot's generator and settings are left as they were."""
        from ..core import state as S
        from ..playout import decision_positions

        rng, sims = self.rng, self.simulations
        self.rng, self.simulations = np.random.RandomState(0), min(sims, 2)
        try:
            bid, play, rules = decision_positions(game)
            for st in (bid, play):
                self.act_view(SeatView(st, int(st[S.TO_MOVE]), rules))
        finally:
            self.rng, self.simulations = rng, sims


def make_openspiel_robot(game: Any, players: int, /, **kw: Any) -> OpenSpielRobot:
    """``os_random`` / ``os_ismcts`` of the registry: the robot, warmed up for ``game`` (a
    GameKind) before its first decision (:meth:`OpenSpielRobot.warm_up`)."""
    from ..compile import compiling_notice
    from ..core.engine import apply_action

    robot = OpenSpielRobot(**kw)
    # announced as the searching robots' warm-ups are, unless the engine's kernels and the
    # table robot's (its positions' deals) are in the disk cache
    with compiling_notice(game.name, about="about a minute", what="OpenSpiel robot's kernels",
                          kernels=(apply_action, game.load("table_robot").decision_kernel)):
        robot.warm_up(game.name)
    return robot
