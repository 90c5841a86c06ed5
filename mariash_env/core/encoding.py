"""The observation encoder of whichever game the rules vector names: the core's dispatch
(:func:`mariash_env.core.engine.encode_game`), under its older name here."""

from __future__ import annotations

from .engine import encode_game

__all__ = ["encode_game"]
