"""Integration tests start real Cassandra JVMs; one cluster at a time (2 cores are easily swamped).

Modules that need the same plain cluster share it instead of each starting its own: a module names the
shapes it uses in `SHARED_CLUSTERS` (keys of SHAPES) and gets them from the `shared_clusters` fixture.
The modules are ordered so that those sharing a shape follow one another, the cluster is stopped as soon
as the next test does not name its shape, and each module starts from no user keyspaces."""

from __future__ import annotations

from typing import Any

import pytest

from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.host.processes import processes_under
from labkit.clusters.registry import clusters_dir
from labkit.engines import cassandra as cql

SHAPES: dict[str, dict[str, Any]] = {  # in the order the modules run: a module naming two shapes sits between their groups
    "three_nodes": {"nodes": 3},  # a module that budgets it does so in place and lifts the budget when it is done
    "one_node": {"nodes": 1},
    "two_datacenters": {"nodes": 2, "dcs": 2},
}


class SharedClusters:
    """At most one running cluster, of one of SHAPES, kept while consecutive tests name its shape."""

    def __init__(self) -> None:
        self.shape: str | None = None
        self.cluster: LocalCassandraCluster | None = None
        self.module: str | None = None  # the module it was last handed to (a new module gets it without keyspaces)

    def get(self, shape: str, module: str) -> LocalCassandraCluster:
        if shape not in SHAPES:
            raise KeyError(f"no shared cluster shape {shape!r}; there are {', '.join(SHAPES)}")
        running = self.cluster is not None and len(self.cluster.live_nodes()) == len(self.cluster.nodes)
        if not running or self.shape != shape:
            self.stop()
            self.cluster = LocalCassandraCluster(**SHAPES[shape]).start()
            self.shape, self.module = shape, module
        elif self.module != module:
            session = self.cluster.session()
            try:
                cql.reset(session)  # what an earlier module wrote is not this module's business
            finally:
                session.cluster.shutdown()
            self.module = module
        return self.cluster

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
        self.cluster, self.shape, self.module = None, None, None

    def pids(self) -> set[int]:
        if self.cluster is None:
            return set()
        return {p.pid for p in (n.process() for n in self.cluster.nodes) if p is not None}


SHARED = SharedClusters()


def shapes_of(item: pytest.Item | None) -> tuple[str, ...]:
    return tuple(getattr(getattr(item, "module", None), "SHARED_CLUSTERS", ())) if item is not None else ()


@pytest.fixture(scope="session")
def shared_clusters():
    yield SHARED
    SHARED.stop()


@pytest.fixture(scope="module", autouse=True)
def no_labkit_jvm_survives_a_test_module():
    """Set up first, torn down last: after each module's own clusters stopped, none may be left (but the
    shared cluster the next module uses)."""
    yield
    leftovers = [p for p in labkit_jvms() if p.pid not in SHARED.pids()]
    assert leftovers == [], f"labkit JVMs left behind: {[p.pid for p in leftovers]}"


def pytest_collection_modifyitems(items):
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)
    # modules sharing a shape run one after another (a stable sort: each module's tests keep their order)
    places = [i for i, item in enumerate(items) if "integration" in str(item.fspath)]
    ordered = sorted((items[i] for i in places), key=lambda item: [list(SHAPES).index(shape) for shape in shapes_of(item)])
    for i, item in zip(places, ordered):
        items[i] = item


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    """Before the module's own teardown (and its leftover check): stop the shared cluster when the next
    test does not use its shape."""
    if SHARED.shape is not None and SHARED.shape not in shapes_of(nextitem):
        SHARED.stop()


def labkit_jvms():
    return [p for p in processes_under(clusters_dir()) if "java" in p.name()]
