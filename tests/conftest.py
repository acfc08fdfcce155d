"""What every test directory shares: the fake workloads on the import path, and the one Cassandra node `labkit up`
starts for the tests that run notebooks on it as a student who started one does (fixture `one_node_up`).

The node serves the lessons that begin on one node and keep it (03, 08), the one-node exercises, nbgrader's autograde
and, last, lesson 02 released through nbgrader (which replaces it for its 2-node budgeted sweep, as its slot does for
a student): those tests run as one block, in the order they were collected, the node started for the first that asks
for it and stopped with `labkit down` before the first test that does not (three starts and stops fewer than each
lesson starting its own)."""

import sys
from pathlib import Path

import pytest

# the fake workloads must be importable by name in spawned client processes too
sys.path.insert(0, str(Path(__file__).parent))

from labkit_up_node import NodeUp  # noqa: E402 (needs the path above)

NODE_UP = NodeUp()


def uses_node_up(item: pytest.Item | None) -> bool:
    return item is not None and "one_node_up" in getattr(item, "fixturenames", ())


@pytest.fixture
def one_node_up() -> set[int]:
    """The PID of the JVM of the node `labkit up cassandra --nodes 1` started (what a student may start first)."""
    return NODE_UP.start()


def pytest_collection_modifyitems(items):
    """The tests on the node run one after another, where the first of them was collected (a stable move: each
    keeps its place among them, and the others theirs)."""
    on_node = [item for item in items if uses_node_up(item)]
    if not on_node:
        return
    first = items.index(on_node[0])
    rest = [item for item in items if not uses_node_up(item)]
    items[:] = rest[:first] + on_node + rest[first:]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    if not uses_node_up(nextitem):
        NODE_UP.stop()


def pytest_sessionfinish(session, exitstatus):
    NODE_UP.stop()
