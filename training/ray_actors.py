"""Rollout actors on Ray: self-play on one machine or a cluster of them.

``python -m training.train --backend ray [--address auto]`` runs the
``cfg.env.workers`` rollout workers as ``@ray.remote`` actors, each the same
:class:`~training.rollout.SelfPlayActor` (a batched engine of ``num_envs``
games) as a worker process of :mod:`training.actors`, with the same interface
(``begin_segment``, ``set_pool``, ``start_collect``/``finish_collect``,
``pending``, ``close``).  Worker ``w`` is seeded as process worker ``w``, and the
batches are joined in worker order, so a seeded run gives the same checkpoint
on either backend.

The learner's weights go into Ray's object store once per iteration
(``ray.put``) and every actor reads that one copy.  A worker that dies (its
node lost, the process killed) is replaced by a fresh actor which redoes the
segment: every command since the segment began (the pool, the segment's seed,
each collection with the weights of its iteration) is replayed on it in order,
so the batch it returns is the one the lost actor would have returned; nothing
is lost and the run stays reproducible.  Keeping the weights of a segment's
iterations for that costs one weight copy per iteration until the next
checkpoint (``run.checkpoint_every``) starts a new segment.  An exception raised
by the rollout code itself is a bug, not a lost worker: it is raised at once.

Each actor reserves ``num_cpus = env.actor_threads``; a cluster with fewer than
``workers x actor_threads`` CPUs in all is refused at the start (its actors would
wait for CPUs forever).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .actors import _from_numpy, _merge_stats, _to_numpy, worker_actor, worker_collect
from .rollout import Batch

MAX_RESTARTS = 3  # per worker and command: a worker that keeps dying is an error


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise RuntimeError(
            "the ray backend needs Ray: pip install -e '.[ray]'"
        ) from e
    return ray


class _Worker:
    """The body of one Ray actor (wrapped with ``ray.remote`` in :class:`RayActors`)."""

    def __init__(self, cfg_dict: dict[str, Any], worker: int, threads: int) -> None:
        self.actor = worker_actor(cfg_dict, worker, threads)

    def begin_segment(self, iteration: int) -> None:
        self.actor.begin_segment(iteration)

    def set_pool(self, snapshots: list[tuple[int, dict[str, np.ndarray]]]) -> None:
        self.actor.set_pool([(i, _from_numpy(_writable(sd))) for i, sd in snapshots])

    def collect(self, params: dict[str, Any],
                weights: dict[str, np.ndarray]) -> tuple[Batch, dict]:
        return worker_collect(self.actor, params, _writable(weights))


def _writable(sd: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    # Arrays from the object store are read-only views; torch wants writable memory.
    return {k: np.array(v) for k, v in sd.items()}


class RayActors:
    """``cfg.env.workers`` rollout workers as Ray actors (see the module documentation)."""

    def __init__(self, cfg: Any, address: str | None = None) -> None:
        ray = self._ray = _ray()
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self._cfg_dict = cfg.to_dict()
        self._threads = int(cfg.env.actor_threads)
        need = cfg.env.workers * self._threads
        have = ray.cluster_resources().get("CPU", 0)
        if have < need:
            if self._owns_ray:
                ray.shutdown()
            raise RuntimeError(
                f"env.workers = {cfg.env.workers} Ray actors of env.actor_threads = "
                f"{self._threads} CPUs need {need} CPUs; the Ray cluster has {have:g}: "
                "use fewer workers or add machines (ray start --address)")
        self._remote = ray.remote(num_cpus=self._threads, max_restarts=0)(_Worker)
        self.workers = [self._spawn(w) for w in range(cfg.env.workers)]
        self.restarts = 0
        # Every command sent to all workers since the segment began, in order: what a
        # replacement worker replays.  ("pool", ref) | ("segment", it) | ("collect", p, ref)
        self._log: list[tuple[Any, ...]] = []
        self._pool_ref: Any = None  # the pool the workers hold now
        self._pool_later: Any = None
        self._pending: list[Any] | None = None

    def _spawn(self, w: int) -> Any:
        return self._remote.remote(self._cfg_dict, w, self._threads)

    @staticmethod
    def _submit(worker: Any, cmd: tuple[Any, ...]) -> Any:
        if cmd[0] == "segment":
            return worker.begin_segment.remote(cmd[1])
        if cmd[0] == "pool":
            return worker.set_pool.remote(cmd[1])
        return worker.collect.remote(cmd[1], cmd[2])

    def _get(self, w: int, ref: Any) -> Any:
        """The result of worker ``w``'s last command; a dead worker is replaced and redoes
        the segment (the replay ends with that same command)."""
        ray = self._ray
        for _ in range(MAX_RESTARTS + 1):
            try:
                return ray.get(ref)
            except ray.exceptions.RayTaskError as e:  # the rollout code raised: a bug
                raise RuntimeError(f"rollout worker {w} failed:\n{e}") from None
            except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as e:
                last = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                ray.kill(self.workers[w], no_restart=True)
                self.workers[w] = self._spawn(w)
                self.restarts += 1
                for cmd in self._log:
                    ref = self._submit(self.workers[w], cmd)  # executed in order
        raise RuntimeError(f"rollout worker {w} died {MAX_RESTARTS + 1} times in a row; "
                           f"the last time: {last}")

    def _all(self, cmd: tuple[Any, ...]) -> list[Any]:
        self._log.append(cmd)
        refs = [self._submit(wk, cmd) for wk in self.workers]
        return [self._get(w, r) for w, r in enumerate(refs)]

    def _send_pool(self, ref: Any) -> None:
        self._pool_ref = ref
        self._all(("pool", ref))

    # --- the actor interface of training.actors ---------------------------------------
    @property
    def pending(self) -> bool:
        return self._pending is not None

    def begin_segment(self, iteration: int) -> None:
        if self.pending:
            raise RuntimeError("begin_segment() while a collection is running")
        # A new segment: the old log (and the weights it holds) is no longer needed.
        self._log = [("pool", self._pool_ref)] if self._pool_ref is not None else []
        self._all(("segment", int(iteration)))

    def set_pool(self, snapshots: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        ref = self._ray.put([(i, _to_numpy(sd)) for i, sd in snapshots])
        if self.pending:
            self._pool_later = ref  # applies from the next collection, as with processes
        else:
            self._pool_later = None
            self._send_pool(ref)

    def start_collect(self, params: dict[str, Any], state_dict: Any = None) -> None:
        if self.pending:
            raise RuntimeError("start_collect() while a collection is running")
        if state_dict is None:
            raise ValueError("the ray backend needs the learner's state_dict")
        if self._pool_later is not None:
            ref, self._pool_later = self._pool_later, None
            self._send_pool(ref)
        cmd = ("collect", params, self._ray.put(_to_numpy(state_dict)))  # once for all
        self._log.append(cmd)
        self._pending = [self._submit(wk, cmd) for wk in self.workers]

    def finish_collect(self) -> tuple[Batch, dict]:
        if self._pending is None:
            raise RuntimeError("finish_collect() without start_collect()")
        refs, self._pending = self._pending, None
        results = [self._get(w, r) for w, r in enumerate(refs)]  # in worker order
        batch = Batch.concat([b for b, _ in results])
        return batch, _merge_stats([s for _, s in results])

    def close(self) -> None:
        ray = self._ray
        for wk in self.workers:
            try:
                ray.kill(wk, no_restart=True)
            except Exception:  # pragma: no cover - already gone
                pass
        self.workers, self._log, self._pending = [], [], None
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
