"""The robot shipped in models/ loads without torch and plays only legal actions."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mariash_env.robots import make_robot
from mariash_env.vector import VectorEnv

MODEL = Path(__file__).resolve().parent.parent / "models" / "robot.onnx"


def test_shipped_robot_plays_legal_actions():
    robot = make_robot(f"onnx:{MODEL}")
    env = VectorEnv(64, seed=5)
    step = env.reset()
    for _ in range(300):
        actions = robot.act_batch(step.obs, step.mask)
        assert step.mask[np.arange(64), actions].all()
        step = env.step(actions)
