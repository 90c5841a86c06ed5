"""Lízaný's ``nnpimc``: the network, and exact search where the deal is (nearly) open
(``make_robot("nnpimc", rules="lizany")``; ``make_robot("strong", rules="lizany")`` is
``nnpimc(from_trick=7)``).

Before trick ``from_trick`` (0-based; default 8) the network plays (the game's ``net``,
or ``model=PATH``).  From it on while the stock lasts, PIMC: ``worlds`` deals drawn from
the observation (:func:`mariash_env.games.lizany.pimc.draw_world`), each solved to its
end with the stock in the world's order (:mod:`mariash_env.games.lizany.solve`), and the
card of the best mean value is played.  Once the stock is gone (trick 9 on) every card is
placed -- the opponent holds exactly the cards the seat has not seen -- and the card of
the best exact value of the real deal is played.  The network's card wins every tie.  The
robot keeps to its ``time_limit`` as lízaný's PIMC does (a world unfinished in time is
dropped; with none finished, the network's card).

Measured (docs/robots.md): with the DMC network ``robot_lizany.onnx``, ``from_trick=8``
gained +0.29 a deal over the network alone at 0.4 ms a decision and ``from_trick=7``
+0.39 at 1.2 ms; with the network distilled from this search
(``robot_lizany_distilled.onnx``) ``strong`` gains +0.29 over it, +0.47 over lízaný's PIMC
at a tenth of its time, and +0.11 over ``strong`` with the earlier network.  The game's
``net`` since, ``robot_lizany_endgame.onnx`` (that network taught the open deal's exact
values), plays this robot's searched tricks better but not its early ones: ``strong``
with it is level (+0.03 [-0.03, +0.10]), so the default network stays.
"""

from __future__ import annotations

from typing import Any

from ...robots.onnx_robot import OnnxRobot
from ...robots.registry import SEED, TIME_LIMIT, WORLDS, int_at_least
from ...rules import is_int
from .pimc import LizanyPIMCRobot

__all__ = ["LizanyNNPIMCRobot", "ARGS", "DEFAULT_MODEL"]

DEFAULT_MODEL = "models/robot_lizany_distilled.onnx"
"""The shipped network it searches with (``strong``'s; the game's ``net`` until
``robot_lizany_endgame.onnx``, module docstring)."""

ARGS = {
    "model": (lambda v: isinstance(v, str) and bool(v), "the path of an exported .onnx model"),
    "threads": int_at_least(1),
    "from_trick": (lambda v: is_int(v) and 0 <= v <= 8, "a trick 0..8"),
    "worlds": WORLDS, "time_limit": TIME_LIMIT, "seed": SEED,
}
"""The keyword arguments lízaný's ``nnpimc`` takes, each with its check."""


class LizanyNNPIMCRobot(LizanyPIMCRobot):
    """Lízaný's network with exact search where the deal is open (module docstring)."""

    name = "nnpimc"
    games = ("lizany",)
    args = ARGS
    rollouts = False  # before ``from_trick`` the network's card, no search

    def __init__(self, model: str = DEFAULT_MODEL, threads: int = 1, from_trick: int = 8,
                 worlds: int = 8, time_limit: float | None = 0.5,
                 seed: int | None = None) -> None:
        super().__init__(worlds=worlds, time_limit=time_limit, seed=seed, endgame=from_trick)
        self.net = OnnxRobot(model, threads=threads, game="lizany")

    @property
    def from_trick(self) -> int:
        """The first trick searched (0-based): PIMC's ``endgame``."""
        return self.endgame

    def first_choice(self, observation: dict[str, Any]) -> int:
        """The network's card (checks the observation's shape and values too)."""
        return int(self.net.act(observation))
