"""What every test directory shares: the fake workloads on the import path, and the clusters `make test` shares
(tests/shared_clusters.py): one of three shapes at a time, started as `labkit up` starts one, for the integration
modules that name the shape and the notebooks that run on it as a student who started one does.

On one node: the dropped-write test, lessons 03 and 08, the one-node exercises, nbgrader's autograde and, last,
lesson 02 released through nbgrader (which replaces it for its 2-node budgeted sweep, as its slot does for a
student). On three nodes: exercise 00, then lesson 00 (which replaces it for its one-node budget sweep). On two
datacenters: lesson 01 and exercise 01."""

import sys
from pathlib import Path

import pytest

# the fake workloads must be importable by name in spawned client processes too
sys.path.insert(0, str(Path(__file__).parent))

from shared_clusters import SHARED, in_blocks, shapes_of  # noqa: E402 (needs the path above)


def _up(request: pytest.FixtureRequest, shape: str) -> set[int]:
    SHARED.get(shape, request.node.module.__name__)
    return SHARED.pids()


@pytest.fixture
def one_node_up(request) -> set[int]:
    """The PID of the JVM of the one node `labkit up cassandra --nodes 1` would have started (what a student may start first)."""
    return _up(request, "one_node")


@pytest.fixture
def three_nodes_up(request) -> set[int]:
    """The PIDs of the three nodes `labkit up cassandra --nodes 3` would have started."""
    return _up(request, "three_nodes")


@pytest.fixture
def two_datacenters_up(request) -> set[int]:
    """The PIDs of the two nodes, one per datacenter, `labkit up cassandra --nodes 2 --dcs 2` would have started."""
    return _up(request, "two_datacenters")


def pytest_configure(config):
    config.addinivalue_line("markers", "replaces_shared_cluster: a notebook test that replaces the shared cluster of its "
                            "shape for another (it runs last in that shape's block: tests/shared_clusters.py)")


def pytest_collection_modifyitems(items):
    items[:] = in_blocks(items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    """Before the module's own teardown (and its leftover check): stop the shared cluster when the next test does
    not use its shape."""
    if SHARED.shape is not None and SHARED.shape not in shapes_of(nextitem):
        SHARED.stop()


def pytest_sessionfinish(session, exitstatus):
    SHARED.stop()
