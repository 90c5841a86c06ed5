"""Regression fixture: the robots play exactly the moves they played before a refactor.

2000 seeded single deals with the shipped ``models/robot.onnx`` in all three seats, and a
smaller set with the table robot in all seats, are played on the batched engine; the
sha256 of every deal's action sequence is compared with the value stored in
``tests/data/robot_moves.json``, made from the code at commit 2925295 (the ONNX case
made again when the network robots began to always lay down, RULES.md §8).  Any change of a
rule, of the observation a robot sees, of the deal or of a robot's decision shows here.

Regenerate (only for an intended change of play, and say why in the commit):
``python tests/test_robot_moves.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from mariash_env.robots import make_robot  # noqa: E402
from mariash_env.vector import VectorEnv  # noqa: E402

MODEL = ROOT / "models" / "robot.onnx"
STORED = ROOT / "tests" / "data" / "robot_moves.json"

# name -> (robot spec, deals, first seed)
CASES: dict[str, tuple[str, int, int]] = {
    "onnx": (f"onnx:{MODEL}", 2000, 110_000),
    "table": ("table", 600, 220_000),
}


def play_digest(robot: Any, deals: int, seed: int) -> dict[str, Any]:
    """Play ``deals`` single deals (game ``i`` seeded ``seed + i``) with ``robot`` in every
    seat; the sha256 of all action sequences (deal by deal) and the sum of |payments|."""
    env = VectorEnv(deals, seed=0, deals=1)
    step = env.reset(seed=seed)
    moves: list[list[int]] = [[] for _ in range(deals)]
    active = np.ones(deals, bool)
    pay = np.zeros((deals, 3), np.int64)
    actions = np.zeros(deals, np.int64)
    while active.any():
        rows = np.flatnonzero(active)
        actions[:] = np.argmax(step.mask, axis=1)  # finished deals: any legal action
        actions[rows] = robot.act_batch(step.obs[rows], step.mask[rows])
        for i in rows:
            moves[i].append(int(actions[i]))
        step = env.step(actions)
        ended = rows[step.deal_done[rows]]
        pay[ended] = step.rewards[ended].astype(np.int64)
        active[ended] = False
    h = hashlib.sha256()
    for m in moves:
        h.update(np.asarray(m, np.int16).tobytes())
        h.update(b"|")
    return {"deals": deals, "seed": seed, "decisions": int(sum(map(len, moves))),
            "sha256": h.hexdigest(), "abs_payments": int(np.abs(pay).sum())}


def digest(name: str) -> dict[str, Any]:
    spec, deals, seed = CASES[name]
    return play_digest(make_robot(spec), deals, seed)


def test_shipped_onnx_robot_moves_unchanged():
    assert digest("onnx") == json.loads(STORED.read_text())["onnx"]


def test_table_robot_moves_unchanged():
    assert digest("table") == json.loads(STORED.read_text())["table"]


if __name__ == "__main__":
    STORED.write_text(json.dumps({k: digest(k) for k in CASES}, indent=2) + "\n")
    print(STORED.read_text())
