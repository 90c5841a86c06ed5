"""What a robot may see besides its observation: :class:`SeatView`, the seat's view of the
state at its turn (observation, legal actions and worlds sampled from the seat's own
knowledge, never the hidden cards).  Harnesses hand it to robots that declare
``wants_view = True`` (:class:`~mariash_env.robots.base.Robot`).  It serves every game of
the compiled core: the mask and observation sizes are those of the rules' game
(:func:`mariash_env.kinds.kind_of`), the worlds come from that game's sampler (its
:class:`~mariash_env.games.base.HiddenInfo`, the kind's ``hidden_info``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import state as S
from ..core.engine import apply_action, legal_actions
from ..core.jit import compile_for
from ..core.validate import check_seat_view
from ..kinds import kind_of
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
        self.rules = rules if rules is not None else make_rules()
        self.rules_vector = self.rules.vector()
        # every method hands the record to compiled code: a crafted one is refused here
        self.seat = check_seat_view(self._st, seat, self.rules_vector, "SeatView")
        self.kind = kind_of(self.rules)
        self._obs: np.ndarray | None = None

    @staticmethod
    def warm_up(rules: Rules) -> None:
        """Compile (or load) the kernels :meth:`observation_dict` calls in ``rules``' game
        (the legal actions, the observation's encoder) for the types it calls them with,
        without running them: a robot that reads observations warms them when built."""
        kind = kind_of(rules)
        st = np.zeros(S.STATE_SIZE, np.int32)
        compile_for(legal_actions, st, rules.vector(), np.zeros(kind.n_actions, np.int8))
        compile_for(kind.encode, st, 0, np.zeros(kind.obs_size, np.float32), False)

    @classmethod
    def from_game(cls, game: Any, seat: int | None = None) -> SeatView:
        """The view of ``seat`` (default: the player to move) of a
        :class:`~mariash_env.game.Game`; at four (RULES.md §11.3) ``seat`` is a player and
        the view is of the seat it holds in the deal."""
        player = game.to_move if seat is None else seat
        return cls(game.st, game.core_seat(player), game.rules)

    @property
    def to_move(self) -> bool:
        return int(self._st[S.TO_MOVE]) == self.seat

    @property
    def phase(self) -> int:
        return int(self._st[S.PHASE])

    @property
    def trick(self) -> int:
        """The trick being played, 0..9 (public, like the phase)."""
        return int(self._st[S.TRICK_NO])

    @property
    def contract(self) -> int:
        """The contract named so far (``S.C_NONE``, ``C_SUIT``, ``C_BETL``, ``C_DURCH``):
        public, every seat hears it."""
        return int(self._st[S.CONTRACT])

    def action_mask(self) -> np.ndarray:
        m = np.zeros(self.kind.n_actions, dtype=np.int8)
        if self.to_move:
            legal_actions(self._st, self.rules_vector, m)
        return m

    def observation(self) -> np.ndarray:
        if self._obs is None:
            self._obs = np.zeros(self.kind.obs_size, dtype=np.float32)
            self.kind.encode(self._st, self.seat, self._obs, False)
        return self._obs

    def observation_dict(self) -> dict[str, np.ndarray]:
        return {"observation": self.observation(), "action_mask": self.action_mask()}

    @property
    def world_errors(self) -> tuple[type[Exception], ...]:
        """What the game's sampler raises when it draws no world (``hidden_info``):
        licitovaný's rejection sampler after its tries, for one."""
        return self.kind.load("hidden_info").world_errors

    def sample_worlds(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """``n`` full states consistent with what the seat knows (``int32[n, STATE_SIZE]``):
        the game's sampler (``hidden_info.sample_worlds``: volený's
        :func:`mariash_env.search.sample_worlds`, licitovaný's
        :func:`mariash_env.games.licitovany.worlds.sample_licit_worlds`)."""
        search = _search_module()
        if search is None or not hasattr(search, "sample_worlds"):
            raise SearchUnavailableError("mariash_env.search.sample_worlds is not available")
        sample = self.kind.load("hidden_info").sample_worlds
        return sample(self._st, self.seat, n, rng, rules=self.rules)

    def shows_hidden(self, action: int, worlds: int = 8,
                     rng: np.random.Generator | int | None = None) -> bool:
        """Whether playing ``action`` shows the seat something it has not seen: the rest of
        its hand after a trump choice, a talon it takes, licitovaný's face-down lead turned
        up, an open contract's hand (RULES.md §3, §5, §11.1).  Read from the engine, not a
        list of cases: the seat's observation after ``action`` in ``worlds`` worlds drawn
        from what it knows, against the real one; a world where they differ means the
        action shows something hidden.  True as well when the sampler draws no world (the
        safe answer for a table that offers undo only when nothing was shown)."""
        try:
            drawn = self.sample_worlds(worlds, rng)
        except self.world_errors:
            return True
        real = self._observation_after(self._st, action)
        return any(not np.array_equal(self._observation_after(w, action), real)
                   for w in drawn)

    def _observation_after(self, st: np.ndarray, action: int) -> np.ndarray:
        st = np.array(st, dtype=np.int32, copy=True)
        apply_action(st, self.rules_vector, int(action))
        out = np.zeros(self.kind.obs_size, dtype=np.float32)
        self.kind.encode(st, self.seat, out, False)
        return out
