"""A small pool of Ray actors for independent tasks (the arena's ``--backend ray``).

:func:`ray_imap_unordered` is ``multiprocessing.Pool.imap_unordered`` on Ray: ``jobs``
actors each run ``init(*init_args)`` once, then ``fn(task)`` on chunks of tasks;
results come back as they finish.  An actor that dies (a lost node, a killed process)
is replaced and its chunk played again, so every task yields exactly one result.  The
tasks must not depend on which actor runs them (the arena reseeds its robots per deal).
Ray is imported only here and only when used: ``pip install -e '.[ray]'``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

MAX_RESTARTS = 3  # per chunk: a chunk that kills every actor it meets is an error

__all__ = ["ray_imap_unordered", "MAX_RESTARTS"]


class _Runner:
    def __init__(self, init: Callable[..., None], init_args: tuple) -> None:
        init(*init_args)

    def run(self, fn: Callable[[Any], Any], chunk: list[Any]) -> list[Any]:
        return [fn(t) for t in chunk]


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise RuntimeError("the ray backend needs Ray: pip install -e '.[ray]'") from e
    return ray


def ray_imap_unordered(
    fn: Callable[[Any], Any], tasks: Iterable[Any], jobs: int,
    init: Callable[..., None], init_args: tuple = (), chunksize: int = 1,
    address: str | None = None,
) -> Iterator[Any]:
    """``fn(task)`` for every task on ``jobs`` Ray actors (at most one per CPU of the
    cluster; module documentation); joins the cluster at ``address`` or starts a local
    one (shut down at the end)."""
    ray = _import_ray()
    owns = not ray.is_initialized()
    if owns:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    # An actor holds its CPU until the end: more actors than CPUs would never run.
    jobs = max(1, min(jobs, int(ray.cluster_resources().get("CPU", 1))))
    remote = ray.remote(num_cpus=1, max_restarts=0)(_Runner)
    actors = [remote.remote(init, init_args) for _ in range(jobs)]
    it = iter(tasks)
    fn_ref = ray.put(fn)

    def next_chunk() -> list[Any]:
        chunk = []
        for t in it:
            chunk.append(t)
            if len(chunk) >= chunksize:
                break
        return chunk

    pending: dict[Any, tuple[int, list[Any], int]] = {}  # ref -> (actor, chunk, tries)

    def submit(a: int, chunk: list[Any], tries: int = 0) -> None:
        if chunk:
            pending[actors[a].run.remote(fn_ref, chunk)] = (a, chunk, tries)

    try:
        for a in range(jobs):
            submit(a, next_chunk())
        while pending:
            [ref], _ = ray.wait(list(pending), num_returns=1)
            a, chunk, tries = pending.pop(ref)
            try:
                results = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                # fn itself raised: the caller's error (not a lost actor), as it was raised
                cause = getattr(e, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise RuntimeError(str(e).splitlines()[0]) from None
            except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as e:
                if tries >= MAX_RESTARTS:
                    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e)
                    raise RuntimeError(f"a Ray actor died {tries + 1} times on the same "
                                       f"tasks; the last time: {first}") from None
                ray.kill(actors[a], no_restart=True)
                actors[a] = remote.remote(init, init_args)
                submit(a, chunk, tries + 1)
                continue
            yield from results
            submit(a, next_chunk())
    finally:
        for actor in actors:
            ray.kill(actor, no_restart=True)
        if owns and ray.is_initialized():
            ray.shutdown()
