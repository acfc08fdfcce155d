"""Integration tests start real Cassandra JVMs; one cluster at a time (2 cores are easily swamped)."""

import pytest

from labkit.clusters.local.processes import processes_under
from labkit.clusters.registry import clusters_dir


@pytest.fixture(scope="module", autouse=True)
def no_labkit_jvm_survives_a_test_module():
    """Set up first, torn down last: after each module's own clusters stopped, none may be left."""
    yield
    leftovers = labkit_jvms()
    assert leftovers == [], f"labkit JVMs left behind: {[p.pid for p in leftovers]}"


def pytest_collection_modifyitems(items):
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


def labkit_jvms():
    return [p for p in processes_under(clusters_dir()) if "java" in p.name()]
