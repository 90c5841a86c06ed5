"""Rollout actors on Ray: self-play on one machine or a cluster of them.

``python -m training.train --backend ray [--address auto]`` runs the
``cfg.env.workers`` rollout workers as ``@ray.remote`` actors, each the same
:class:`~training.rollout.SelfPlayActor` (a batched engine of ``num_envs``
games) as a worker process of :mod:`training.actors`, with the same interface
(``begin_segment``, ``set_pool``, ``start_collect``/``finish_collect``,
``pending``, ``close``).  Worker ``w`` is seeded as process worker ``w``, and the
batches are joined in worker order, so a seeded run gives the same checkpoint
on either backend.

The learner's weights go into Ray's object store once per collection (``ray.put``),
every actor reads that one copy, and the reference is dropped when the collection is
done, so the store holds no weights no worker needs.  A worker that dies (its node
lost, the process killed) is replaced by a fresh actor which redoes the segment:
every command since the segment began (the pool, the segment's seed, each collection
with the weights of its iteration) is replayed on it in order, so the batch it
returns is the one the lost actor would have returned; nothing is lost and the run
stays reproducible.  The weights of a segment's iterations, kept for that replay, are
numpy copies in the learner's memory (never the object store) until the next
checkpoint (``run.checkpoint_every``) starts a new segment.  Each restart and its
cause is logged (``[ray] ...`` on stderr).

A replacement must start within the session's timeout (``--ray-timeout``,
:func:`mariash_env.ray_pool.join`): when no node has a free CPU for it (a lost node
and no spare), it is started without reserving a CPU, sharing one with another worker
(slower, the same batches); when even that cannot start, :class:`RayClusterError`
stops the run with one line, and the trainer writes a checkpoint of its last whole
iteration first.  An exception raised by the
rollout code itself is a bug, not a lost worker: it is raised at once (a MemoryError,
games that do not fit, as a MemoryError naming the worker, as worker processes do).

Each actor reserves ``num_cpus = env.actor_threads``; a cluster with fewer than
``workers x actor_threads`` CPUs in all is refused at the start (its actors would
wait for CPUs forever).

``env.max_lag = L > 0`` makes sampling asynchronous (:class:`AsyncRayActors`,
IMPALA/DouZero-style): every worker keeps ``L`` collections queued, each with the
newest weights when it was sent, so it samples on while the learner updates, saves or
evaluates.  A finished batch stays in the object store until the learner takes it; an
iteration takes the first ``workers`` batches to finish, from whichever workers, and a
batch more than ``L`` learner updates old is dropped unread.  The run is not
reproducible (which batches arrive first depends on timing); a lost worker is replaced
without a replay.  Throughput per worker, the lag and the drops are logged
(``[ray] ...``) at every checkpoint and at the end.

The learner itself on a GPU node (``--learner-on-gpu``) is
:func:`training.ray_learner.train_on_gpu_node`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from mariash_env.ray_pool import RayClusterError, join, timeout_s
from mariash_env.ray_pool import log as ray_log

from .actors import _from_numpy, _merge_stats, _to_numpy, worker_actor, worker_collect
from .rollout import Batch

MAX_RESTARTS = 3  # per worker and command: a worker that keeps dying is an error

__all__ = ["RayActors", "AsyncRayActors", "RayClusterError", "MAX_RESTARTS"]


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
        # Built on the first command, so that ``ready`` answers as soon as the actor has
        # its CPU and process (the engine may compile for a minute: not a placement fault).
        self._args = (cfg_dict, worker, threads)
        self._actor: Any = None

    @property
    def actor(self) -> Any:
        if self._actor is None:
            self._actor = worker_actor(*self._args)
        return self._actor

    def ready(self) -> bool:
        return True

    def begin_segment(self, iteration: int) -> None:
        self.actor.begin_segment(iteration)

    def set_pool(self, snapshots: list[tuple[int, dict[str, np.ndarray]]]) -> None:
        self.actor.set_pool([(i, _from_numpy(_writable(sd))) for i, sd in snapshots])

    def collect(self, params: dict[str, Any],
                weights: dict[str, np.ndarray]) -> tuple[Batch, dict]:
        t0 = time.perf_counter()
        batch, stats = worker_collect(self.actor, params, _writable(weights))
        return batch, {**stats, "worker_s": time.perf_counter() - t0}  # its own busy time


def _failed(w: int, e: Any) -> Exception:
    """The error of worker ``w``'s own code (a ``RayTaskError``), as worker processes raise
    it: a MemoryError (its games do not fit: a setting the trainer names in one line) as
    one, anything else a bug with the worker's traceback."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, MemoryError):
        return MemoryError(f"rollout worker {w}: {cause}")
    return RuntimeError(f"rollout worker {w} failed:\n{e}")


def _writable(sd: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    # Arrays from the object store are read-only views; torch wants writable memory.
    return {k: np.array(v) for k, v in sd.items()}


class RayActors:
    """``cfg.env.workers`` rollout workers as Ray actors (see the module documentation);
    ``log`` receives one line per restart (default: stderr)."""

    def __init__(self, cfg: Any, address: str | None = None,
                 log: Callable[[str], None] = ray_log) -> None:
        ray = self._ray = _ray()
        self._owns_ray = join(address, timeout_s())
        self._timeout = timeout_s()
        self._logf = log
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
        self.shared = 0  # replacements that share a CPU (none was free for them)
        # Every command sent to all workers since the segment began, in order: what a
        # replacement worker replays; weights and pools as numpy, put again on replay.
        # ("pool", snaps) | ("segment", it) | ("collect", params, weights)
        self._log: list[tuple[Any, ...]] = []
        self._pool: Any = None  # the pool the workers hold now
        self._pool_later: Any = None
        self._pending: list[Any] | None = None
        self._pending_ref: Any = None  # the weights of the running collection
        try:
            for w, wk in enumerate(self.workers):
                self._wait_ready(w, wk, "at the start")
        except BaseException:
            self.close()
            raise

    def _spawn(self, w: int, cpus: int | None = None) -> Any:
        remote = self._remote if cpus is None else self._remote.options(num_cpus=cpus)
        return remote.remote(self._cfg_dict, w, self._threads)

    def _wait_ready(self, w: int, worker: Any, when: str) -> bool:
        try:
            self._ray.get(worker.ready.remote(), timeout=self._timeout)
            return True
        except self._ray.exceptions.GetTimeoutError:
            if when == "replacement":
                return False
            raise RayClusterError(
                f"rollout worker {w} did not start within {self._timeout:g} s "
                f"(--ray-timeout) {when}: the cluster has the CPUs but no node could "
                "host it (`ray status`)") from None

    def _submit(self, worker: Any, cmd: tuple[Any, ...], ref: Any = None) -> Any:
        """Send ``cmd``; its weights or pool are ``ref`` (put now when None)."""
        if cmd[0] == "segment":
            return worker.begin_segment.remote(cmd[1])
        if cmd[0] == "pool":
            return worker.set_pool.remote(ref if ref is not None else self._ray.put(cmd[1]))
        return worker.collect.remote(cmd[1], ref if ref is not None else self._ray.put(cmd[2]))

    def _replace(self, w: int, cause: str) -> None:
        """A new worker ``w``; one without a reserved CPU when none is free in time."""
        ray = self._ray
        ray.kill(self.workers[w], no_restart=True)
        self.restarts += 1
        self.workers[w] = self._spawn(w)
        if self._wait_ready(w, self.workers[w], "replacement"):
            self._logf(f"rollout worker {w} lost ({cause}); replaced "
                       f"(restart {self.restarts})")
            return
        ray.kill(self.workers[w], no_restart=True)
        self.workers[w] = self._spawn(w, cpus=0)
        if self._wait_ready(w, self.workers[w], "replacement"):
            self.shared += 1
            self._logf(f"rollout worker {w} lost ({cause}); no free CPU within "
                       f"{self._timeout:g} s (--ray-timeout): its replacement shares a CPU "
                       f"(restart {self.restarts}; slower, the same batches)")
            return
        raise RayClusterError(
            f"rollout worker {w} lost ({cause}) and no node could start a replacement "
            f"within 2 x {self._timeout:g} s (--ray-timeout): the run stops with a "
            "checkpoint of its last whole iteration; --resume continues it once the cluster "
            "is back")

    def _get(self, w: int, ref: Any) -> Any:
        """The result of worker ``w``'s last command; a dead worker is replaced and redoes
        the segment (the replay ends with that same command)."""
        ray = self._ray
        last = ""
        for _ in range(MAX_RESTARTS + 1):
            try:
                return ray.get(ref)
            except ray.exceptions.RayTaskError as e:  # the rollout code raised: a bug
                raise _failed(w, e) from None
            except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as e:
                text = str(e).strip()
                last = text.splitlines()[0] if text else type(e).__name__
                self._replace(w, f"{type(e).__name__}: {last}")
                for cmd in self._log:
                    ref = self._submit(self.workers[w], cmd)  # executed in order
        raise RayClusterError(f"rollout worker {w} died {MAX_RESTARTS + 1} times in a row; "
                              f"the last time: {last}")

    def _all(self, cmd: tuple[Any, ...]) -> list[Any]:
        self._log.append(cmd)
        ref = self._ray.put(cmd[1]) if cmd[0] == "pool" else None  # one copy for all
        refs = [self._submit(wk, cmd, ref) for wk in self.workers]
        return [self._get(w, r) for w, r in enumerate(refs)]

    def _send_pool(self, snaps: Any) -> None:
        self._pool = snaps
        self._all(("pool", snaps))

    # --- the actor interface of training.actors ---------------------------------------
    @property
    def pending(self) -> bool:
        return self._pending is not None

    def begin_segment(self, iteration: int) -> None:
        if self.pending:
            raise RuntimeError("begin_segment() while a collection is running")
        # A new segment: the old log (and the weights it holds) is no longer needed.
        self._log = [("pool", self._pool)] if self._pool is not None else []
        self._all(("segment", int(iteration)))

    def set_pool(self, snapshots: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        snaps = [(i, _to_numpy(sd)) for i, sd in snapshots]
        if self.pending:
            self._pool_later = snaps  # applies from the next collection, as with processes
        else:
            self._pool_later = None
            self._send_pool(snaps)

    def start_collect(self, params: dict[str, Any], state_dict: Any = None) -> None:
        if self.pending:
            raise RuntimeError("start_collect() while a collection is running")
        if state_dict is None:
            raise ValueError("the ray backend needs the learner's state_dict")
        if self._pool_later is not None:
            snaps, self._pool_later = self._pool_later, None
            self._send_pool(snaps)
        cmd = ("collect", params, _to_numpy(state_dict))
        self._log.append(cmd)
        self._pending_ref = self._ray.put(cmd[2])  # once for all, dropped when done
        self._pending = [self._submit(wk, cmd, self._pending_ref) for wk in self.workers]

    def finish_collect(self) -> tuple[Batch, dict]:
        if self._pending is None:
            raise RuntimeError("finish_collect() without start_collect()")
        refs, self._pending = self._pending, None
        try:
            results = [self._get(w, r) for w, r in enumerate(refs)]  # in worker order
        finally:
            self._pending_ref = None
        del refs
        batch = Batch.concat([b for b, _ in results])
        return batch, _merge_stats([s for _, s in results])

    def close(self) -> None:
        ray = self._ray
        for wk in self.workers:
            try:
                ray.kill(wk, no_restart=True)
            except Exception:  # pragma: no cover - already gone
                pass
        self.workers, self._log, self._pending, self._pending_ref = [], [], None, None
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()


class AsyncRayActors(RayActors):
    """Asynchronous, lag-bounded sampling (``env.max_lag > 0``; the module documentation):
    the interface of :class:`RayActors`, but ``finish_collect`` returns the first
    ``workers`` batches to finish whose policy lag is at most ``max_lag``.

    The lag of a batch is the number of learner updates between the weights it was
    sampled with and the update it feeds: 0 is synchronous, 1 the lag of
    ``env.pipeline``."""

    def __init__(self, cfg: Any, address: str | None = None,
                 log: Callable[[str], None] = ray_log) -> None:
        self.max_lag = int(cfg.env.max_lag)
        if self.max_lag < 1:
            raise ValueError(f"AsyncRayActors needs env.max_lag >= 1, got {self.max_lag}")
        # What close() reads, set before the workers start: a start that fails closes them
        # and must raise its own error, not an AttributeError from close().
        self._latest: tuple[dict[str, Any], Any, int] | None = None  # params, weights, version
        self._queued: list[tuple[Any, int, int]] = []  # (batch ref, worker, version), FIFO
        self._pool_ref: Any = None
        self.taken = 0
        self._reported = 0  # batches taken at the last report line
        super().__init__(cfg, address, log)
        n = len(self.workers)
        self._version = 0  # learner weight versions sent (one per start_collect)
        self._waiting = False  # start_collect() called, finish_collect() not yet
        self._segment: int | None = None
        self._fails = [0] * n  # consecutive losses per worker
        self.dropped = 0
        self.lag_sum = 0
        self.decisions = [0.0] * n
        self.busy_s = [0.0] * n  # each worker's own time in collect

    @property
    def pending(self) -> bool:
        return self._waiting

    def begin_segment(self, iteration: int) -> None:
        # Queued behind each worker's collections (an actor runs its calls in order).
        self._segment = int(iteration)
        for wk in self.workers:
            wk.begin_segment.remote(self._segment)
        self._report()

    def set_pool(self, snapshots: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        self._pool = [(i, _to_numpy(sd)) for i, sd in snapshots]
        self._pool_ref = self._ray.put(self._pool)  # one copy; freed once all have read it
        for wk in self.workers:
            wk.set_pool.remote(self._pool_ref)

    def start_collect(self, params: dict[str, Any], state_dict: Any = None) -> None:
        if self._waiting:
            raise RuntimeError("start_collect() while a collection is running")
        if state_dict is None:
            raise ValueError("the ray backend needs the learner's state_dict")
        self._version += 1
        # The older weights stay in the store only while a queued collection reads them.
        self._latest = (params, self._ray.put(_to_numpy(state_dict)), self._version)
        self._waiting = True
        for w in range(len(self.workers)):
            self._fill(w)

    def _fill(self, w: int) -> None:
        """Queue collections on worker ``w`` with the newest weights, up to ``max_lag``."""
        params, ref, version = self._latest
        have = sum(1 for _, x, _ in self._queued if x == w)
        for _ in range(self.max_lag - have):
            self._queued.append((self.workers[w].collect.remote(params, ref), w, version))

    def _lost(self, w: int, e: BaseException) -> None:
        """Replace worker ``w`` (no replay: asynchronous runs are not reproducible)."""
        self._fails[w] += 1
        text = str(e).strip()
        cause = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"
        if self._fails[w] > MAX_RESTARTS:
            raise RayClusterError(f"rollout worker {w} died {self._fails[w]} times in a "
                                  f"row; the last time: {cause}")
        self._queued = [q for q in self._queued if q[1] != w]
        self._replace(w, cause)
        wk = self.workers[w]
        if self._pool_ref is not None:
            wk.set_pool.remote(self._pool_ref)
        if self._segment is not None:
            wk.begin_segment.remote(self._segment)
        self._fill(w)

    def finish_collect(self) -> tuple[Batch, dict]:
        if not self._waiting:
            raise RuntimeError("finish_collect() without start_collect()")
        ray = self._ray
        need = len(self.workers)
        got: list[tuple[Batch, dict]] = []
        lags: list[int] = []
        while len(got) < need:
            refs = [q[0] for q in self._queued]
            ray.wait(refs, num_returns=1)
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            done_set = set(done)
            i = next(k for k, r in enumerate(refs) if r in done_set)  # the oldest first
            ready, w, version = self._queued.pop(i)
            lag = self._version - version
            if lag > self.max_lag:
                self.dropped += 1  # never fetched: freed in the object store
            else:
                try:
                    batch, stats = ray.get(ready)
                except ray.exceptions.RayTaskError as e:  # the rollout code raised: a bug
                    raise _failed(w, e) from None
                except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as e:
                    self._lost(w, e)
                    continue
                self._fails[w] = 0
                got.append((batch, stats))
                lags.append(lag)
                self.decisions[w] += float(stats.get("decisions", 0.0))
                self.busy_s[w] += float(stats.get("worker_s", 0.0))
            self._fill(w)  # the worker samples on with the newest weights
        self._waiting = False
        self.taken += len(got)
        self.lag_sum += sum(lags)
        stats = _merge_stats([st for _, st in got])
        stats["lag_mean"] = sum(lags) / len(lags)
        return Batch.concat([b for b, _ in got]), stats

    def throughput(self) -> list[float]:
        """Decisions per second of each worker's own sampling time, so far."""
        return [d / s if s > 0 else 0.0 for d, s in zip(self.decisions, self.busy_s)]

    def report(self) -> str:
        """One line: batches taken and dropped, the mean lag, each worker's throughput."""
        per = ", ".join(f"{w}: {x:,.0f}" for w, x in enumerate(self.throughput()))
        return (f"asynchronous sampling (max lag {self.max_lag}): {self.taken} batches taken, "
                f"mean lag {self.lag_sum / max(self.taken, 1):.2f}, {self.dropped} dropped "
                f"as too old; decisions/s per worker {per}")

    def _report(self) -> None:
        if self.taken > self._reported:  # once per stretch: not again at a final checkpoint
            self._reported = self.taken
            self._logf(self.report())

    def close(self) -> None:
        if self.workers:
            self._report()
        self._queued, self._latest, self._pool_ref = [], None, None
        super().close()
