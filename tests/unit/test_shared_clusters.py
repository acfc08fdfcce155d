"""The order make test runs the shared clusters' tests in (tests/shared_clusters.py): each shape's tests as one
block, integration modules first, a notebook that replaces the cluster last, a module of two shapes between their
blocks; and the check a notebook on a shared cluster must pass (it said it used it, and left it as it was)."""

from __future__ import annotations

import types

import pytest

import shared_clusters
from shared_clusters import SharedClusters, in_blocks


class Item:
    def __init__(self, name: str, path: str, shapes: tuple[str, ...] = (), fixtures: tuple[str, ...] = (), replaces: bool = False):
        self.name, self.fspath = name, path
        self.module = types.SimpleNamespace(SHARED_CLUSTERS=shapes) if shapes else None
        self.fixturenames = fixtures
        self.replaces = replaces

    def get_closest_marker(self, name: str):
        return object() if name == "replaces_shared_cluster" and self.replaces else None


def test_each_shape_runs_as_one_block_integration_first_and_the_replacing_notebook_last():
    items = [
        Item("browser", "tests/browser/test_b.py"),
        Item("lesson00", "tests/lessons/test_lessons.py", fixtures=("three_nodes_up",), replaces=True),
        Item("lesson03", "tests/lessons/test_lessons.py", fixtures=("one_node_up",)),
        Item("lesson05", "tests/lessons/test_lessons.py"),
        Item("both", "tests/integration/test_both.py", shapes=("one_node", "two_datacenters")),
        Item("dcs", "tests/integration/test_dcs.py", shapes=("two_datacenters",)),
        Item("ex00", "tests/notebooks/test_exercises.py", fixtures=("three_nodes_up",)),
        Item("ex01", "tests/notebooks/test_exercises.py", fixtures=("two_datacenters_up",)),
        Item("lesson02", "tests/notebooks/test_nbgrader.py", fixtures=("one_node_up",), replaces=True),
        Item("three", "tests/integration/test_three.py", shapes=("three_nodes",)),
        Item("one", "tests/integration/test_one.py", shapes=("one_node",)),
        Item("cli", "tests/integration/test_cli.py"),
    ]
    assert [i.name for i in in_blocks(items)] == [
        "browser", "lesson05", "cli",  # no shared shape: first, in their order
        "three", "ex00", "lesson00",
        "one", "lesson03", "lesson02", "both",
        "dcs", "ex01",
    ]


@pytest.fixture
def one_shared_node(monkeypatch):
    node = types.SimpleNamespace(process=lambda: types.SimpleNamespace(pid=41))
    shared = SharedClusters()
    shared.cluster = types.SimpleNamespace(nodes=[node], live_nodes=lambda: [node])
    monkeypatch.setattr(shared_clusters, "jvms", lambda: {41})
    return shared


def test_a_notebook_that_used_the_shared_cluster_and_left_it_up_passes(one_shared_node):
    one_shared_node.still_up("using the cluster `labkit up` started: cassandra 5.0.9 · local · 1 node")


def test_a_notebook_that_started_its_own_cluster_or_left_one_running_fails(one_shared_node, monkeypatch):
    with pytest.raises(AssertionError, match="started a cluster of its own"):
        one_shared_node.still_up("starting a 1-node cluster (about 10 s)")
    monkeypatch.setattr(shared_clusters, "jvms", lambda: {41, 42})
    with pytest.raises(AssertionError, match="left servers of its own running"):
        one_shared_node.still_up("using the cluster `labkit up` started")
    one_shared_node.cluster.live_nodes = lambda: []
    with pytest.raises(AssertionError, match="with a node down"):
        one_shared_node.still_up("using the cluster `labkit up` started")
