"""``copy.copy`` of the objects that hold a game's state: an independent copy.

Python's shallow copy of an environment, a :class:`~mariash_env.game.Game` or a batched
engine made a second object over the *same* state record, with bookkeeping of its own
(the agent to move, rewards, seeds): stepping either changed the other's game behind its
back, silently (a search that "copied" the environment played its moves in the real
game).  These objects answer ``copy.copy`` as ``copy.deepcopy``, as OpenSpiel's states
answer it with a clone (docs/environment.md, *Copies*).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["independent_copy"]


def independent_copy(obj: Any) -> Any:
    """``obj.__copy__``: ``copy.deepcopy(obj)``, a copy that shares no state with it."""
    return copy.deepcopy(obj)
