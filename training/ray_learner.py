"""The learner on a GPU node of a Ray cluster: ``python -m training.train --backend ray
--learner-on-gpu``.

:func:`train_on_gpu_node` runs the learner itself in a Ray actor that holds one GPU of
the cluster, so the updates run on a GPU node while the driver only waits, relays the log
and forwards SIGTERM / Ctrl-C; without a GPU in the cluster it returns None and the
caller trains in the driver (on its CPU or GPU, ``run.device``).

A module of its own beside :mod:`training.ray_actors` (the rollout workers): the learner
actor runs the trainer, which reaches the rollout workers through
:mod:`training.backends`, so the workers' module must not import the trainer.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from mariash_env.ray_pool import timeout_s

from .ray_actors import _ray

__all__ = ["train_on_gpu_node"]


class _Relay:
    """A text stream that also keeps each whole line written to it (for the driver)."""

    def __init__(self, lines: list[str], stream: Any) -> None:
        self._lines, self._stream, self._part = lines, stream, ""

    def write(self, text: str) -> int:
        self._stream.write(text)
        *whole, self._part = (self._part + text).split("\n")
        self._lines.extend(w for w in whole if w.startswith("[ray]"))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Learner:
    """The body of the learner actor of :func:`train_on_gpu_node` (a threaded actor: the
    run in one thread, ``stop`` and ``log`` answered beside it)."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._stop = threading.Event()

    def train(self, cfg_dict: dict[str, Any] | None, out: str, resume: bool,
              timeout: float) -> dict[str, Any]:
        from mariash_env.ray_pool import join

        from .config import Config
        from .trainer import Trainer

        join(None, timeout)  # connected already; sets this process's --ray-timeout
        sys.stderr = _Relay(self._lines, sys.stderr)  # the [ray] lines of RayActors too
        ray = _ray()
        node = ray.get_runtime_context().get_node_id()
        self._lines.append(f"[ray] learner on node {node[:12]} with GPU(s) {ray.get_gpu_ids()}")
        cfg = None if cfg_dict is None else Config.from_dict(cfg_dict, "the learner's config")
        trainer = Trainer(cfg, out, resume=resume, log=self._lines.append, backend="ray")
        done = threading.Event()

        def relay_stop() -> None:  # train() clears the flag when it starts: keep setting it
            while not done.wait(0.2):
                if self._stop.is_set():
                    trainer._stop_requested = True

        threading.Thread(target=relay_stop, daemon=True).start()
        try:
            return trainer.train()
        finally:
            done.set()

    def stop(self) -> None:
        self._stop.set()

    def log(self, since: int) -> list[str]:
        return self._lines[since:]


def train_on_gpu_node(cfg: Any, out: str, resume: bool = False,
                      log: Callable[[str], None] = print) -> dict[str, Any] | None:
    """Train in a Ray actor holding one of the cluster's GPUs (module documentation); the
    run's summary, or None when the cluster has no GPU (nothing was started).  The run
    directory ``out`` (made absolute here) is written on the learner's node.  Call after
    :func:`mariash_env.ray_pool.join`."""
    ray = _ray()
    if ray.cluster_resources().get("GPU", 0) < 1:
        return None
    remote = ray.remote(num_cpus=0, num_gpus=1, max_restarts=0, max_concurrency=3)(_Learner)
    learner = remote.remote()
    # An absolute path: the actor's working directory is not the driver's.
    ref = learner.train.remote(None if cfg is None else cfg.to_dict(),
                               os.path.abspath(out), resume, timeout_s())
    stops = 0

    def handler(signum: int, frame: Any) -> None:
        nonlocal stops
        stops += 1
        if stops > 1:
            raise KeyboardInterrupt
        learner.stop.remote()
        log(f"\n[train] {signal.Signals(signum).name}: stopping after this iteration with a "
            "checkpoint (again to abort at once)")

    main = threading.current_thread() is threading.main_thread()
    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)} \
        if main else {}
    seen = 0
    try:
        while True:
            ready, _ = ray.wait([ref], timeout=0.5)
            lines = ray.get(learner.log.remote(seen))
            seen += len(lines)
            for line in lines:
                log(line)
            if ready:
                try:
                    return ray.get(ref)
                except ray.exceptions.RayTaskError as e:  # the run's own error, unwrapped
                    raise (e.cause if isinstance(e.cause, BaseException) else e) from None
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        ray.kill(learner, no_restart=True)
