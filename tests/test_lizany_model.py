"""The shipped lízaný robot (``models/robot_lizany.onnx``, card ``models/ROBOT_LIZANY.md``):
an exported DMC policy of lízaný that loads without torch, reads lízaný's observation and
plays legal cards in the lízaný arena (docs/games/lizany.md, *Its rules*)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from mariash_env import lizany  # noqa: E402
from mariash_env.arena import duplicate_match  # noqa: E402
from mariash_env.robots.onnx_robot import OnnxRobot, OnnxRobotError  # noqa: E402

MODEL = Path(__file__).resolve().parents[1] / "models" / "robot_lizany.onnx"


def test_shipped_lizany_robot_loads_and_plays_legally():
    robot = OnnxRobot(MODEL)
    assert robot.game.name == "lizany" and robot.rules == {"rules": "lizany"}
    g = lizany.LizanyGame(seed=5)
    while not g.over:  # every decision legal
        s = g.to_move
        g.play(robot.act({"observation": g.observe(s), "action_mask": g.legal_mask(s)}))
    res = duplicate_match({"model": lambda: OnnxRobot(MODEL), "table": "table"}, deals=20,
                          seed=3, rules={"rules": "lizany"}, progress=False, n_boot=100)
    assert res.seatings == [(0, 1), (1, 0)] and np.isfinite(res.means()).all()
    with pytest.raises(OnnxRobotError, match="robot of lizany mariáš but the game here is"):
        OnnxRobot(MODEL, game="voleny")
