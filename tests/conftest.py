"""How the suite splits over pytest-xdist's workers (``make test`` runs two).

Each test module runs whole on one worker (its module fixtures are built once, as in a
plain run) -- but for the long leak checks, whose tests go out one by one -- and the
modules that start Ray share one worker, one after the other: two Ray runtimes at once
on a two-core machine starve each other's health checks and timeouts. That group, the
longest, is handed out first (``make test`` passes ``--no-loadscope-reorder``, so the
units go out in collection order, Ray's first), so that the other worker is not left
idle at the end while it runs. Without xdist (a bare ``pytest``) nothing changes.

The units are made by a scheduler of our own (:class:`ModuleScheduling`), not by
``xdist_group`` marks: pytest-xdist 3.8 carries a mark's group in the test's id, which
pytest 9 no longer reads back, so under ``--dist loadgroup`` the marks split nothing
(pytest-dev/pytest-xdist#1386) and the Ray modules ran on both workers at once.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

# Its import gives numba a cache folder (NUMBA_CACHE_DIR) where the checkout cannot be
# written: done here, before any test, so that _numba_environment_kept below sees that as
# the environment the tests start in.
import mariash_env.core.jit  # noqa: F401

RAY_MODULES = frozenset({"test_ray_backend.py", "test_ray_cluster.py", "test_rllib.py"})
# Modules whose tests share no module fixture and are long together (the leak checks:
# ~10 min of one CI worker): each test is a unit of its own, so that the two workers
# share them instead of one running them all, perhaps last and alone.
SPLIT_MODULES = frozenset({"test_no_leaks.py"})

try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pragma: no cover - xdist is a dev dependency; plain pytest runs
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:

    class ModuleScheduling(LoadScopeScheduling):
        """One work unit per test module; the Ray modules together are one unit; each
        test of ``SPLIT_MODULES`` is one."""

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            name = module.rsplit("/", 1)[-1]
            if name in SPLIT_MODULES:
                return nodeid
            return "ray" if name in RAY_MODULES else module

    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") == "loadgroup":
            return ModuleScheduling(config, log)
        return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):  # stable sort: the Ray unit first in collection order
        items.sort(key=lambda item: item.path.name not in RAY_MODULES)


def _numba_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("NUMBA_")}


@pytest.fixture(autouse=True)
def _compile_notices_quiet_again():
    """A command's main (the arena's, ``mariash play``'s) turns on compile notices for the
    whole process (``compile.announce_anywhere``): off again after each test, or a later
    test of the worker that compiles on an empty cache finds the notice in the stderr it
    checks (``test_script_clis_name_a_path_the_system_refuses`` did, after an arena test)."""
    yield
    from mariash_env.compile import announce_anywhere

    announce_anywhere(False)


@pytest.fixture(autouse=True)
def _numba_environment_kept():
    """No test may leave numba's environment changed: the processes every later test of
    the worker starts inherit it.  (test_jit's private-cache test left NUMBA_CACHE_DIR set
    to an empty folder of its own, so every later subprocess of that worker compiled every
    kernel again: the OpenSpiel example and bench_apis took a minute each instead of
    seconds.)  What was changed is put back, and the test fails, naming it."""
    before = _numba_environment()
    yield
    after = _numba_environment()
    if after != before:
        for k in before.keys() | after.keys():
            if k in before:
                os.environ[k] = before[k]
            else:
                del os.environ[k]
        pytest.fail(f"the test left numba's environment changed: {before} -> {after}",
                    pytrace=False)


# What the test process's forkserver imports once, at its start: multiprocessing starts one
# forkserver a process, on first use, and its list is fixed then, so every test that forks
# its workers from it (forkserver_context) gives the same list, whichever of them comes
# first.  A module that is not installed is left out by the forkserver itself.
FORKSERVER_PRELOAD = [
    "training.actors",  # training's rollout workers (forkserver_workers)
    "torchrl.envs", "mariash_env.torchrl_env",  # TorchRL's ParallelEnv workers (test_torchrl_env)
]


def forkserver_context() -> Any:
    """multiprocessing's forkserver context with :data:`FORKSERVER_PRELOAD`: its workers
    are forked from a fresh process of its own that imported those modules once for the
    whole test process (no fresh Python importing torch and the package for each) and runs
    no torch operation (see tests/forking.py), for tests of what the workers compute, not
    of how they start."""
    import multiprocessing as mp

    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(FORKSERVER_PRELOAD)
    return ctx


@pytest.fixture
def forkserver_start() -> str:
    """``"forkserver"`` as the ``mp_start_method`` of a library that takes one (TorchRL's
    ``ParallelEnv``, whose default spawns a fresh Python a worker), its forkserver's
    preload set first (:func:`forkserver_context`)."""
    forkserver_context()
    return "forkserver"


@pytest.fixture
def forkserver_workers(monkeypatch):
    """training's rollout worker processes (``ProcessActors``: ``spawn``, a fresh Python
    each, ~2.5 s of CPU importing torch and the package) started instead by
    multiprocessing's forkserver (:func:`forkserver_context`), which imported
    ``training.actors`` once for the whole test process: for tests of what the workers
    compute, not of how they start (the others spawn theirs: test_ray_cluster's
    command-line training run with two workers, the pipelined run of test_training_faults
    that does not fit in memory...)."""
    from types import SimpleNamespace

    import training.actors

    ctx = forkserver_context()
    monkeypatch.setattr(training.actors, "mp", SimpleNamespace(get_context=lambda _: ctx))
