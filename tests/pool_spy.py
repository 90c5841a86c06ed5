"""A spy on the worker pools (mariash_env.pools), for tests of how a match spreads its
deals, the label generator its shards and the ladder its pairs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def pools_seen(monkeypatch: pytest.MonkeyPatch, cores: int = 2
               ) -> Iterator[list[tuple[int, int, int]]]:
    """The worker pools started, each as (processes, chunk size, tasks), on ``cores``
    usable cores (where the arena, the label generator and the ladder cap their jobs)."""
    from mariash_env import pools

    seen = []
    real = pools.worker_pool

    @contextmanager
    def spy(jobs, *args, **kw):
        with real(jobs, *args, **kw) as pool:
            imap = pool.imap_unordered

            def imap_unordered(fn, tasks, chunksize=1):
                tasks = list(tasks)
                seen.append((jobs, chunksize, len(tasks)))
                return imap(fn, tasks, chunksize=chunksize)

            pool.imap_unordered = imap_unordered
            yield pool

    monkeypatch.setattr(pools, "worker_pool", spy)
    monkeypatch.setattr(pools, "usable_cores", lambda: cores)
    yield seen
