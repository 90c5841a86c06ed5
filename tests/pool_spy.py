"""A spy on the arena's worker pools, for tests of how a match spreads its deals."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def pools_seen(monkeypatch: pytest.MonkeyPatch, cores: int = 2
               ) -> Iterator[list[tuple[int, int, int]]]:
    """The arena's worker pools, each as (processes, chunk size, tasks), on ``cores``
    usable cores (the arena caps its jobs there)."""
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
