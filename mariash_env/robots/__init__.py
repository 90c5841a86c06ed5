"""Robot opponents: random, the table robot of seed 001, PIMC search, and exported
neural policies (ONNX, no torch needed).

``make_robot(spec, **kw)`` builds one from a name:

* ``"random"`` -- :class:`RandomRobot` (uniform over the legal actions);
* ``"table"`` -- :class:`TableRobot` (the deterministic rule-based robot, seeds 001/003);
* ``"pimc"`` -- :class:`PIMCRobot` (sampled worlds + solver / rollouts);
* ``"onnx:PATH"`` -- :class:`OnnxRobot` playing an exported policy (imported lazily).

Keyword arguments may also be written into the spec, ``"pimc(worlds=8, time_limit=0.5)"``.
"""

from __future__ import annotations

import ast
from typing import Any

from .base import RandomRobot, Robot
from .pimc import PIMCRobot, SeatView
from .table import TableRobot

__all__ = [
    "Robot", "RandomRobot", "TableRobot", "PIMCRobot", "SeatView", "OnnxRobot",
    "OnnxRobotError", "make_robot", "ROBOT_NAMES",
]

ROBOT_NAMES = ("random", "table", "pimc", "onnx:PATH")


def __getattr__(name: str) -> Any:
    if name in ("OnnxRobot", "OnnxRobotError"):
        from . import onnx_robot

        return getattr(onnx_robot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc(worlds=8)"`` -> ``("pimc", {"worlds": 8})``; ``"onnx:m.onnx"`` unchanged."""
    spec = spec.strip()
    if spec.startswith("onnx:") or "(" not in spec:
        return spec, {}
    if not spec.endswith(")"):
        raise ValueError(f"bad robot spec {spec!r}: expected NAME or NAME(key=value, ...)")
    name, _, args = spec[:-1].partition("(")
    kw: dict[str, Any] = {}
    if args.strip():
        try:
            call = ast.parse(f"f({args})", mode="eval").body
            assert isinstance(call, ast.Call) and not call.args
            for k in call.keywords:
                kw[str(k.arg)] = ast.literal_eval(k.value)
        except (SyntaxError, ValueError, AssertionError) as e:
            raise ValueError(
                f"bad robot spec {spec!r}: arguments must be key=literal pairs"
            ) from e
    return name.strip(), kw


def make_robot(name: str, **kw: Any) -> Robot:
    """A robot from its registry name (module docstring); ``kw`` go to its constructor."""
    base, extra = parse_spec(name)
    kw = {**extra, **kw}
    if base == "random":
        return RandomRobot(**kw)
    if base == "table":
        return TableRobot(**kw)
    if base == "pimc":
        return PIMCRobot(**kw)
    if base.startswith("onnx:"):
        path = base[len("onnx:"):]
        if not path:
            raise ValueError("robot 'onnx:PATH' needs the path of an exported .onnx model")
        from .onnx_robot import OnnxRobot

        return OnnxRobot(path, **kw)
    raise ValueError(f"unknown robot {name!r}: expected one of {', '.join(ROBOT_NAMES)}")
