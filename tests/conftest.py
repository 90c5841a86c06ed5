"""How the suite splits over pytest-xdist's workers (``make test`` runs two).

Each test module runs whole on one worker (its module fixtures are built once, as in a
plain run), and the modules that start Ray share one worker, one after the other: two Ray
runtimes at once on a two-core machine starve each other's health checks and timeouts.
That group, the longest, is handed out first, so that the other worker is not left idle
at the end while it runs.  Without xdist (a bare ``pytest``) nothing changes.
"""

from __future__ import annotations

import pytest

RAY_MODULES = frozenset({"test_ray_backend.py", "test_ray_cluster.py", "test_rllib.py"})


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (``--dist loadgroup``)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):
        return
    items.sort(key=lambda item: item.path.name not in RAY_MODULES)  # stable: Ray first
    for item in items:
        name = item.path.name
        item.add_marker(pytest.mark.xdist_group("ray" if name in RAY_MODULES else name))
