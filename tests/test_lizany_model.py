"""The shipped lízaný robots (``models/robot_lizany.onnx``, card ``models/ROBOT_LIZANY.md``,
DMC self-play; ``models/robot_lizany_distilled.onnx``, card
``models/ROBOT_LIZANY_DISTILLED.md``, that network distilled from lízaný's exact endgame
search: the network of its ``strong``; ``models/robot_lizany_endgame.onnx``, card
``models/ROBOT_LIZANY_ENDGAME.md``, that one taught the open deal's exact values: the
game's ``net``): exported policies of lízaný that load without torch, read
lízaný's observation and play legal cards in the lízaný arena (docs/games/lizany.md, *Its
rules*)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from mariash_env import lizany  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.robots.onnx_robot import OnnxRobot, OnnxRobotError  # noqa: E402
from tests.helpers import step_cap  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.mark.parametrize("name", ["robot_lizany", "robot_lizany_distilled",
                                  "robot_lizany_endgame"])
def test_shipped_lizany_robot_loads_and_plays_legally(name: str) -> None:
    MODEL = MODELS / f"{name}.onnx"
    robot = OnnxRobot(MODEL)
    assert robot.game.name == "lizany" and robot.rules == {"rules": "lizany"}
    g = lizany.LizanyGame(seed=5)
    tick = step_cap("lizany")
    while not g.over:  # every decision legal
        tick()
        s = g.to_move
        g.play(robot.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)}))
    res = duplicate_match({"model": lambda: OnnxRobot(MODEL), "table": "table"}, deals=20,
                          seed=3, rules={"rules": "lizany"}, progress=False, n_boot=100)
    assert res.seatings == [(0, 1), (1, 0)] and np.isfinite(res.means()).all()
    with pytest.raises(OnnxRobotError, match="robot of lizany mariáš but the game here is"):
        OnnxRobot(MODEL, game="voleny")


def test_the_endgame_network_is_the_games_net() -> None:
    from mariash_env.games.registry import game_kind

    assert game_kind("lizany").net == "onnx:models/robot_lizany_endgame.onnx"
