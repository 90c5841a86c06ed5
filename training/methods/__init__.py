"""Training methods behind one interface, chosen by name (``method = "dmc"`` in the config).

A method owns its network(s), optimizer and update rule, and decides how the learner
acts in rollouts; everything else (the batched self-play actors, the opponent pool,
evaluation, checkpoints, logs) is shared and lives in :mod:`training.trainer`.  To add
e.g. PPO, write ``training/methods/ppo.py`` with a :class:`Method` subclass decorated
by :func:`register_method` and import it below; no other file changes.

The contract, per iteration:

1. the trainer calls :meth:`Method.rollout_params` (a small picklable dict, e.g. the
   current epsilon) and the actors call the static :meth:`Method.act` with the
   learner network on every batch of learner decisions; ``act`` may return per-row
   extras (log-probabilities, values, ...) that are stored with the rows;
2. the actors hand back a :class:`~training.rollout.Batch` of the learner's finished
   decisions: observation, action, the seat's groše from the deal (its Monte-Carlo
   return), the mask when :attr:`Method.needs_masks`, and the extras;
3. the trainer calls :meth:`Method.update` with that batch.

:attr:`Method.net` is the :class:`~training.networks.PolicyNet` that plays: its
``forward(obs, mask) -> (masked scores, greedy action)`` is what opponents'
snapshots, the evaluation and the ONNX export use.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import torch

    from ..config import Config
    from ..networks import PolicyNet
    from ..rollout import Batch

METHODS: dict[str, type[Method]] = {}


def register_method(cls: type[Method]) -> type[Method]:
    """Class decorator: make ``cls`` available as ``method = cls.name``."""
    if not getattr(cls, "name", None):
        raise ValueError(f"{cls.__name__} needs a class attribute 'name'")
    METHODS[cls.name] = cls
    return cls


def get_method(name: str) -> type[Method]:
    if name not in METHODS:
        raise KeyError(f"unknown training method {name!r}: expected one of {sorted(METHODS)}")
    return METHODS[name]


class Method(abc.ABC):
    """One training algorithm (see the module documentation)."""

    name: ClassVar[str] = ""
    config_class: ClassVar[type]
    needs_masks: ClassVar[bool] = False
    scores_kind: ClassVar[str] = "scores"

    def __init__(self, cfg: Config, device: torch.device) -> None:
        self.cfg = cfg
        self.device = device

    @property
    @abc.abstractmethod
    def net(self) -> PolicyNet:
        """The learner's network (on the learner device)."""

    @abc.abstractmethod
    def rollout_params(self, decisions: int) -> dict[str, Any]:
        """Parameters of :meth:`act` after ``decisions`` engine decisions (picklable)."""

    @staticmethod
    @abc.abstractmethod
    def act(net: PolicyNet, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
            params: dict[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Learner actions int64[B] for rollouts (plus per-row extras to store)."""

    @abc.abstractmethod
    def update(self, batch: Batch, rng: np.random.Generator) -> dict[str, float]:
        """Learn from one iteration's batch; returns statistics (``loss``, ``updates``, ...)."""

    @abc.abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue training exactly (network, optimizer, ...)."""

    @abc.abstractmethod
    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Inverse of :meth:`state_dict`."""

    def describe(self) -> dict[str, Any]:
        """Facts about the trained scores for the exported model's metadata."""
        return {"method": self.name, "scores": self.scores_kind}


from . import dmc  # noqa: E402,F401  (registers "dmc")
