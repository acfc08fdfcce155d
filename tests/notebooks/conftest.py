"""The exercises and nbgrader's autograde share one Cassandra node that `labkit up` started (fixture `one_node_up`):
started for the first test that asks for it, kept while the next test asks for it too, and stopped with `labkit down`
before one that does not. A lesson run after it would otherwise find the node up, and a lesson whose sweep needs
another shape replaces it, as the lesson's slot does for a student."""

from __future__ import annotations

import pytest

from labkit_up_node import NodeUp

NODE_UP = NodeUp()


@pytest.fixture
def one_node_up() -> set[int]:
    """The PID of the JVM of the node `labkit up cassandra --nodes 1` started (what a student may start first)."""
    return NODE_UP.start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    if nextitem is None or "one_node_up" not in getattr(nextitem, "fixturenames", ()):
        NODE_UP.stop()


def pytest_sessionfinish(session, exitstatus):
    NODE_UP.stop()
