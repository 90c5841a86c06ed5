"""Which rollout actors a run gets: in the learner process, worker processes
(:mod:`training.actors`) or Ray actors (:mod:`training.ray_actors`); all share one
interface.  Kept apart from both so neither imports the other's module back."""

from __future__ import annotations

from typing import Any

from .actors import LocalActors, ProcessActors

BACKENDS = ("process", "ray")


def make_actors(cfg: Any, method: Any, backend: str = "process",
                address: str | None = None) -> Any:
    """In-process actors for ``workers = 1`` without pipelining, else worker processes;
    ``backend="ray"``: ``cfg.env.workers`` Ray actors (:mod:`training.ray_actors`) on the
    cluster at ``address`` (None: a local one), asynchronous when ``env.max_lag > 0``."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "ray":
        from .ray_actors import AsyncRayActors, RayActors  # ray is an optional extra

        if cfg.env.max_lag > 0:
            return AsyncRayActors(cfg, address=address)
        return RayActors(cfg, address=address)
    if address is not None:
        raise ValueError("--address needs --backend ray")
    if cfg.env.max_lag > 0:
        raise ValueError(f"env.max_lag = {cfg.env.max_lag} (asynchronous sampling) needs "
                         "--backend ray; 0 is synchronous")
    if cfg.env.workers <= 1 and not cfg.env.pipeline:
        return LocalActors(cfg, method)
    return ProcessActors(cfg, method)
