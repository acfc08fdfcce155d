"""Integration tests start real Cassandra JVMs; one cluster at a time (2 cores are easily swamped).

Modules that need the same plain cluster share it instead of each starting its own: a module names the
shapes it uses in `SHARED_CLUSTERS` (keys of tests/shared_clusters.py's SHAPES) and gets them from the
`shared_clusters` fixture. The modules sharing a shape run one after another, before the notebooks that run on
it (tests/conftest.py orders them), the cluster is stopped as soon as the next test does not name its shape,
and each module starts from no user keyspaces."""

from __future__ import annotations

from pathlib import Path

import pytest

from labkit.home import clusters_dir
from labkit.host.processes import processes_under
from shared_clusters import SHARED, jvms


@pytest.fixture(scope="session")
def shared_clusters():
    yield SHARED
    SHARED.stop()


@pytest.fixture(scope="module", autouse=True)
def no_labkit_jvm_survives_a_test_module():
    """Set up first, torn down last: after each module's own clusters stopped, none may be left (but the
    shared cluster the next module uses)."""
    yield
    leftovers = jvms() - SHARED.pids()
    assert leftovers == set(), f"labkit JVMs left behind: {sorted(leftovers)}"


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).parent.name == "integration":  # the folder, not a checkout path that happens to say it
            item.add_marker(pytest.mark.integration)


def labkit_jvms():
    return [p for p in processes_under(clusters_dir()) if "java" in p.name()]
