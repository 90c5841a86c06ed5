"""Sit at the table with the robots: a game session (:mod:`.session`), the browser table
(:mod:`.web`), the terminal table (:mod:`.terminal`), licitovaný's view (:mod:`.licit`),
the robot service (:mod:`.service`) and the seed-001 series table (:mod:`.series`).
``mariash play`` / ``python -m mariash_env.play``."""

from .session import PlayError, PlaySession

__all__ = ["PlaySession", "PlayError"]
