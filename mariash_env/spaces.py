"""Action spaces whose ``sample()`` draws a legal action, and the agents' map of spaces.

Generic tools (Gymnasium's ``check_env``, RLlib's env checker and random
exploration) call ``action_space.sample()`` without a mask; on mariáš almost
every such action is illegal.  :class:`LegalDiscrete` is a ``Discrete(n)``
(equal to one, and pickled as one) that asks its environment for the current
legal mask when ``sample()`` gets no mask of its own; :class:`LegalMultiDiscrete` is the
batch of them a vector environment's ``action_space`` is (one legal action per game).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["AgentSpaces", "LegalDiscrete", "LegalMultiDiscrete"]


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` sampling from ``legal()`` (an int8/bool mask, or None: no state)."""

    def __init__(
        self, n: int, legal: Callable[[], np.ndarray | None], seed: int | None = None
    ) -> None:
        super().__init__(n, seed=seed)
        self._legal = legal

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._legal()
            if legal is not None and np.any(legal):
                mask = legal
        if mask is not None:
            mask = np.asarray(mask).astype(np.int8, copy=False)  # float masks (RLlib) too
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy sent elsewhere (pickle, deepcopy) is a plain Discrete, with the same
        # generator: the callback would drag the whole environment along.  An environment
        # copied whole makes its copy's space sample legal actions again (:meth:`bound`).
        return (spaces.Discrete, (int(self.n), None, int(self.start)),
                {"start": self.start, "_np_random": self._np_random})

    @classmethod
    def bound(cls, space: spaces.Discrete, legal: Callable[[], np.ndarray | None]
              ) -> LegalDiscrete:
        """``space`` (the plain ``Discrete`` a copied LegalDiscrete is) sampling from
        ``legal`` again, with its generator: what an environment's ``__setstate__`` makes
        of its copied action space."""
        out = cls(int(space.n), legal)
        out._np_random = space._np_random
        return out


class LegalMultiDiscrete(spaces.MultiDiscrete):
    """``MultiDiscrete([n] * num)``, one ``Discrete(n)`` a game of a vector env, sampling
    each game's action from its row of ``legal()`` (int8/bool[num, n], or None: no state)."""

    def __init__(self, n: int, num: int, legal: Callable[[], np.ndarray | None],
                 seed: int | None = None) -> None:
        super().__init__([n] * num, seed=seed)
        self._legal = legal

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        legal = self._legal() if mask is None and probability is None else None
        if legal is None:
            return super().sample(mask=mask, probability=probability)
        # The k-th legal action of each row, k uniform (vectorised: MultiDiscrete's own
        # masked sample loops over the games in Python, ~0.1 ms each); none legal: 0.
        legal = np.asarray(legal) != 0
        rank = np.cumsum(legal, axis=1)
        k = (self.np_random.random(len(legal)) * rank[:, -1]).astype(np.int64)
        return (np.argmax(rank > k[:, None], axis=1) + self.start).astype(self.dtype)

    def __reduce__(self) -> tuple[Any, ...]:
        # As LegalDiscrete's: a copy sent elsewhere is a plain MultiDiscrete.
        return (spaces.MultiDiscrete, (self.nvec, self.dtype, None, self.start),
                {"start": self.start, "_np_random": self._np_random})

    @classmethod
    def bound(cls, space: spaces.MultiDiscrete, legal: Callable[[], np.ndarray | None]
              ) -> LegalMultiDiscrete:
        """``space`` (a copied LegalMultiDiscrete) sampling from ``legal`` again."""
        out = cls(int(space.nvec[0]), len(space.nvec), legal)
        out._np_random = space._np_random
        return out


class AgentSpaces(dict):
    """An agent's space by name (``observation_spaces``, ``action_spaces``): a dict whose
    unknown agent is a KeyError naming the agents, as ``observe`` names them."""

    def __missing__(self, agent: Any) -> Any:
        raise KeyError(f"unknown agent {agent!r}: expected one of {list(self)}")
