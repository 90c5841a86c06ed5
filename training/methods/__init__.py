"""Training methods behind one interface, chosen by name (``method = "dmc"`` in the config).

A method owns its network(s), optimizer and update rule, and decides how the learner
acts in rollouts; everything else (the batched self-play actors, the opponent pool,
evaluation, checkpoints, logs) is shared and lives in :mod:`training.trainer`.  To add
e.g. PPO, write ``training/methods/ppo.py`` with a :class:`~.base.Method` subclass decorated
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

from . import dmc  # noqa: F401  (registers "dmc")
from .base import METHODS, Method, get_method, register_method

__all__ = ["METHODS", "Method", "get_method", "register_method"]
