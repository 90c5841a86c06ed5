"""The work units ``make test`` hands its two xdist workers (tests/conftest.py): a module
whole, the Ray modules together, each leak check alone."""

from __future__ import annotations

import pytest

conftest = pytest.importorskip("tests.conftest")


@pytest.mark.skipif(conftest.LoadScopeScheduling is None, reason="pytest-xdist is missing")
def test_units():
    split = conftest.ModuleScheduling._split_scope
    me = object.__new__(conftest.ModuleScheduling)  # _split_scope reads no state
    assert split(me, "tests/test_env_api.py::test_a[x]") == "tests/test_env_api.py"
    assert split(me, "tests/test_ray_cluster.py::test_b") == "ray"
    assert split(me, "tests/test_rllib.py::test_c") == "ray"
    leak = "tests/test_no_leaks.py::test_nothing_stays_per_unit[table]"
    assert split(me, leak) == leak
