"""What a robot may see besides its observation: :class:`SeatView`, the seat's view of the
state at its turn (observation, legal actions and worlds sampled from the seat's own
knowledge, never the hidden cards).  Harnesses hand it to robots that declare
``wants_view = True`` (:class:`~mariash_env.robots.base.Robot`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import actions as A
from ..core import state as S
from ..core.engine import legal_actions
from ..core.observe import OBS_SIZE, encode
from ..rules import Rules, make_rules

__all__ = ["SeatView", "SearchUnavailableError"]


class SearchUnavailableError(RuntimeError):
    """The robot needs a state (a :class:`SeatView` or a Game) it was not given."""


def _search_module():
    try:
        from .. import search
    except ImportError:  # pragma: no cover - the search package is optional at runtime
        return None
    return search


class SeatView:
    """What a searching robot may use at its turn, and nothing more.

    It keeps a private copy of the full state, but exposes only the seat's observation,
    its legal actions and worlds sampled from the seat's own knowledge
    (:func:`mariash_env.search.sample_worlds`): the hidden cards themselves are never
    handed out.
    """

    def __init__(self, st: np.ndarray, seat: int, rules: Rules | None = None) -> None:
        self._st = np.array(st, dtype=np.int32, copy=True)
        self.seat = int(seat)
        self.rules = rules if rules is not None else make_rules()
        self.rules_vector = self.rules.vector()
        self._obs: np.ndarray | None = None

    @classmethod
    def from_game(cls, game: Any, seat: int | None = None) -> SeatView:
        return cls(game.st, game.to_move if seat is None else seat, game.rules)

    @property
    def to_move(self) -> bool:
        return int(self._st[S.TO_MOVE]) == self.seat

    @property
    def phase(self) -> int:
        return int(self._st[S.PHASE])

    def action_mask(self) -> np.ndarray:
        m = np.zeros(A.N_ACTIONS, dtype=np.int8)
        if self.to_move:
            legal_actions(self._st, self.rules_vector, m)
        return m

    def observation(self) -> np.ndarray:
        if self._obs is None:
            self._obs = np.zeros(OBS_SIZE, dtype=np.float32)
            encode(self._st, self.seat, self._obs, False)
        return self._obs

    def observation_dict(self) -> dict[str, np.ndarray]:
        return {"observation": self.observation(), "action_mask": self.action_mask()}

    def sample_worlds(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """``n`` full states consistent with what the seat knows (``int32[n, STATE_SIZE]``)."""
        search = _search_module()
        if search is None or not hasattr(search, "sample_worlds"):
            raise SearchUnavailableError("mariash_env.search.sample_worlds is not available")
        return search.sample_worlds(self._st, self.seat, n, rng, rules=self.rules)
