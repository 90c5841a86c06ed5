"""Worker pools that end with the process that started them.

A process killed with SIGTERM (a job scheduler, ``kill``, a supervisor's stop) skips its
``finally`` blocks, so a :mod:`multiprocessing` pool's workers were left running their
task -- a label shard, a batch of deals -- at full CPU.  :func:`worker_pool` turns SIGTERM
into :class:`KeyboardInterrupt` while the pool is in use, so the caller's ``finally`` runs
and the workers are terminated; what the caller wrote atomically stays, and the command
resumes.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool
from typing import Any


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises :class:`KeyboardInterrupt` inside the block (main thread only: a
    signal handler can be set nowhere else); the previous handler is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        # None: a handler set outside Python (an embedding host), which Python cannot
        # set back; the default one is the nearest (passing None is a TypeError)
        signal.signal(signal.SIGTERM, signal.SIG_DFL if old is None else old)


def usable_cores() -> int:
    """The cores this process may run on: its affinity mask (``os.sched_getaffinity``: what
    ``taskset`` or a container's cpuset leaves it, which may be fewer than the machine's),
    else ``os.cpu_count()``.  A pool of more worker processes than this only shares them."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS, Windows: no affinity mask to read
        return max(1, os.cpu_count() or 1)


def jobs_above_cores(ray: bool = True) -> str:
    """What ``--jobs`` above the cores does, in the same words in the help of every command
    whose worker processes :func:`process_jobs` caps (the arena, evaluate, the label
    generator, the ladder, the data sets); ``ray``: the command takes ``--backend ray`` too,
    whose actors are at most one per CPU of the cluster."""
    where = "its affinity mask; Ray: the cluster's CPUs" if ray else "its affinity mask"
    return f"more than the cores this process may use ({where}) run one a core"


def process_jobs(jobs: int) -> int:
    """The worker processes a pool of ``jobs`` runs: at most one a core this process may
    use (:func:`usable_cores`).  More would only share those cores, and the work's chunks
    are sized for the processes that run; the result never depends on how many (the
    arena's matches, the label generator's shards, the ladder's pairs).  1: no pool, the
    calling process does the work."""
    return max(1, min(int(jobs), usable_cores()))


@contextmanager
def worker_pool(jobs: int, method: str = "fork", initializer: Callable[..., Any] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[Pool]:
    """A pool of ``jobs`` processes (start ``method``: ``fork`` or ``spawn``), terminated
    and joined when the block ends -- normally, on an error, on Ctrl-C or on SIGTERM."""
    # made before the handler is set: forked workers keep the default SIGTERM, so that
    # Pool.terminate() ends them without a traceback
    pool = mp.get_context(method).Pool(jobs, initializer, initargs)
    try:
        with sigterm_interrupts():
            yield pool
    finally:
        pool.terminate()
        pool.join()
