"""Robot opponents: random, the table robot of seed 001, PIMC search, and exported
neural policies (ONNX, no torch needed)."""

from .base import RandomRobot, Robot

__all__ = ["Robot", "RandomRobot"]
