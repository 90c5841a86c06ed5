"""The :class:`Method` interface and the registry of methods (see :mod:`training.methods`)."""

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
    METRICS: ClassVar[tuple[str, ...]] = ()
    """The method's own columns of ``metrics.csv`` (and TensorBoard ``train/`` scalars),
    each taken from :meth:`update`'s statistics or else from :meth:`rollout_params`
    (NaN when neither has it); ``loss`` and ``updates`` are the trainer's own."""
    PROGRESS: ClassVar[tuple[str, ...]] = ()
    """Which of :attr:`METRICS` the progress bar shows besides the loss."""

    def __init__(self, cfg: Config, device: torch.device) -> None:
        self.cfg = cfg
        self.device = device

    @property
    @abc.abstractmethod
    def net(self) -> PolicyNet:
        """The learner's network (on the learner device)."""

    @staticmethod
    def wants_masks(cfg: Config) -> bool:
        """Whether this run's rows keep their masks although :attr:`needs_masks` is false
        (an option of the method that needs them)."""
        return False

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

