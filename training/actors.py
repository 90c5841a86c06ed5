"""Rollout actors in the learner process (``workers = 1``) or in worker processes.

Both kinds have the same interface: ``begin_segment(iteration)``, ``set_pool(snapshots)``,
``start_collect(params, state_dict)`` then ``finish_collect() -> (Batch, stats)``, and
``close()``.  With worker processes the learner sends its current weights, each worker
steps its own :class:`~training.rollout.SelfPlayActor` (its engine seeded by its worker
index), and the batches are joined in worker order, so a run is as reproducible as with
one process (given the same number of workers and threads).

``env.pipeline = true`` overlaps the two halves of an iteration: the workers already
collect iteration ``i + 1`` (with the weights from before update ``i``, a policy lag of
one iteration) while the learner trains on iteration ``i``.  The schedule is fixed by
the iteration number (no prefetch across a checkpoint, where the engines are
reseeded), so pipelined runs are deterministic and resume exactly too.  A pool change
requested while a collection is running applies from the next collection on.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import traceback
from typing import Any

import torch

from .rollout import Batch, SelfPlayActor


def _merge_stats(all_stats: list[dict[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for s in all_stats:
        for k, v in s.items():
            if k.endswith("_s"):
                out[k] = max(out.get(k, 0.0), v)  # parallel wall time
            else:
                out[k] = out.get(k, 0.0) + v
    return out


class LocalActors:
    """One actor in this process, acting with the learner's own network."""

    def __init__(self, cfg: Any, method: Any) -> None:
        self.actor = SelfPlayActor(cfg, type(method), net=method.net, device=method.device,
                                   worker=0)

    def begin_segment(self, iteration: int) -> None:
        self.actor.begin_segment(iteration)

    def set_pool(self, snapshots: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        self.actor.set_pool(snapshots)

    def start_collect(self, params: dict[str, Any], state_dict: Any = None) -> None:
        self._params = params

    def finish_collect(self) -> tuple[Batch, dict]:
        return self.actor.collect(self._params)

    @property
    def pending(self) -> bool:
        return False

    def close(self) -> None:
        pass


def _to_numpy(sd: dict[str, torch.Tensor]) -> dict[str, Any]:
    """Weights as numpy copies.  Never send torch tensors through a pipe: torch's pickler
    moves their storage into shared memory, and the learner would then overwrite the
    weights a worker is still reading (a race that breaks determinism)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in sd.items()}


def _from_numpy(sd: dict[str, Any]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(v) for k, v in sd.items()}


def worker_actor(cfg_dict: dict[str, Any], worker: int, threads: int) -> SelfPlayActor:
    """The :class:`SelfPlayActor` of remote worker ``worker`` (a process or a Ray actor)."""
    torch.set_num_threads(max(1, threads))
    from .config import Config
    from .methods import get_method

    cfg = Config.from_dict(cfg_dict, "worker config")
    return SelfPlayActor(cfg, get_method(cfg.method), device="cpu", worker=worker)


def worker_collect(actor: SelfPlayActor, params: dict[str, Any],
                   weights: dict[str, Any]) -> tuple[Batch, dict]:
    """One collection of a remote worker with the learner's weights (numpy copies)."""
    actor.net.load_state_dict(_from_numpy(weights))
    return actor.collect(params)


def _worker_main(conn: Any, cfg_dict: dict[str, Any], worker: int, threads: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle
    try:
        actor = worker_actor(cfg_dict, worker, threads)
        while True:
            cmd, arg = conn.recv()
            if cmd == "close":
                break
            if cmd == "segment":
                actor.begin_segment(arg)
                conn.send(("ok", None))
            elif cmd == "pool":
                actor.set_pool([(i, _from_numpy(sd)) for i, sd in arg])
                conn.send(("ok", None))
            elif cmd == "collect":
                conn.send(("ok", worker_collect(actor, *arg)))
            else:  # pragma: no cover
                conn.send(("error", f"unknown command {cmd!r}"))
    except (EOFError, KeyboardInterrupt):  # pragma: no cover - parent went away
        pass
    except MemoryError as e:  # its games do not fit: the parent names it as a setting
        try:
            conn.send(("memory", str(e)))
        except Exception:
            pass
    except Exception:  # pragma: no cover - reported to the parent
        try:
            conn.send(("error", traceback.format_exc()))
        except Exception:
            pass


class ProcessActors:
    """``cfg.env.workers`` worker processes, each with its own engine of ``num_envs`` games."""

    def __init__(self, cfg: Any, method: Any) -> None:
        ctx = mp.get_context("spawn")
        self.conns = []
        self.procs = []
        self._pending = False
        self._pool_later: list | None = None
        for w in range(cfg.env.workers):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_worker_main, args=(child, cfg.to_dict(), w,
                                                       cfg.env.actor_threads), daemon=True)
            p.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(p)

    def _all(self, cmd: str, arg: Any) -> list[Any]:
        self._send_all(cmd, arg)
        return self._recv_all()

    def _send_all(self, cmd: str, arg: Any) -> None:
        for c in self.conns:
            c.send((cmd, arg))

    def _recv_all(self) -> list[Any]:
        out = []
        for w, c in enumerate(self.conns):
            try:
                status, value = c.recv()
            except EOFError:
                raise RuntimeError(f"rollout worker {w} died") from None
            if status == "memory":
                raise MemoryError(f"rollout worker {w}: {value}")
            if status != "ok":
                raise RuntimeError(f"rollout worker {w} failed:\n{value}")
            out.append(value)
        return out

    @property
    def pending(self) -> bool:
        return self._pending

    def begin_segment(self, iteration: int) -> None:
        if self._pending:
            raise RuntimeError("begin_segment() while a collection is running")
        self._all("segment", iteration)

    def set_pool(self, snapshots: list[tuple[int, dict[str, torch.Tensor]]]) -> None:
        snaps = [(i, _to_numpy(sd)) for i, sd in snapshots]
        if self._pending:
            self._pool_later = snaps
        else:
            self._pool_later = None
            self._all("pool", snaps)

    def start_collect(self, params: dict[str, Any], state_dict: Any = None) -> None:
        if self._pending:
            raise RuntimeError("start_collect() while a collection is running")
        if self._pool_later is not None:
            self._all("pool", self._pool_later)
            self._pool_later = None
        self._send_all("collect", (params, _to_numpy(state_dict)))
        self._pending = True

    def finish_collect(self) -> tuple[Batch, dict]:
        if not self._pending:
            raise RuntimeError("finish_collect() without start_collect()")
        results = self._recv_all()
        self._pending = False
        batch = Batch.concat([b for b, _ in results])
        return batch, _merge_stats([s for _, s in results])

    def close(self) -> None:
        if self._pending:
            try:
                self.finish_collect()  # drain: the worker may be blocked sending its batch
            except RuntimeError:
                pass
        for c in self.conns:
            try:
                c.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():  # pragma: no cover
                p.terminate()
        self.conns, self.procs = [], []
