"""The clusters `make test` shares between tests, one at a time, each started as `labkit up` starts one (detached:
a notebook's slot finds it and uses it, as a student's finds the cluster they started first, and leaves it up).

Integration modules name the shapes they use in `SHARED_CLUSTERS`; a test that runs notebooks on one asks for it by
fixture (`one_node_up`, `three_nodes_up`, `two_datacenters_up`, tests/conftest.py). The tests of one shape run as one
block (`in_blocks`): the integration modules first, then the notebooks, and last a notebook that replaces the cluster
for a sweep of another shape (marked `replaces_shared_cluster`, as lesson 00's one-node budget sweep does). The cluster
stops as soon as the next test does not use its shape, and each test module starts from no user keyspaces (the notebooks'
checks drop the tables of the designs they grade themselves).

Why: a three-node start is about 20 s and a one-node start 10 s on this machine; integration tests, lessons 00-03 and
08 and the exercises on one node or three would each start one of their own."""

from __future__ import annotations

from pathlib import Path

from typing import Any

import pytest

from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.home import clusters_dir
from labkit.engines import cassandra as cql
from labkit.host.processes import processes_under

SHAPES: dict[str, dict[str, Any]] = {  # in the order the blocks run: a module naming two shapes sits between their blocks
    "three_nodes": {"nodes": 3},  # a module that budgets it does so in place and lifts the budget when it is done
    "one_node": {"nodes": 1},
    "two_datacenters": {"nodes": 2, "dcs": 2},
}
FIXTURES = {f"{shape}_up": shape for shape in SHAPES}
"""The fixture a notebook test asks for -> the shape it runs on."""


def jvms() -> set[int]:
    """The PIDs of the JVMs running from labkit's clusters folder."""
    return {p.pid for p in processes_under(clusters_dir()) if "java" in p.name()}


def described(pids: set[int]) -> str:
    """Each PID with its state and the start of its command line (what outlived a stop, and why it might have)."""
    import psutil

    out = []
    for pid in sorted(pids):
        try:
            p = psutil.Process(pid)
            out.append(f"{pid} ({p.status()}, parent {p.ppid()}): {' '.join(p.cmdline())[:300]}")
        except psutil.Error as exc:
            out.append(f"{pid}: {type(exc).__name__}")
    return "; ".join(out)


class SharedClusters:
    """At most one running cluster, of one of SHAPES, kept while consecutive tests use its shape."""

    def __init__(self) -> None:
        self.shape: str | None = None
        self.cluster: LocalCassandraCluster | None = None
        self.user: str | None = None  # the test module it was last handed to (a new one gets it without keyspaces)

    def get(self, shape: str, user: str) -> LocalCassandraCluster:
        if shape not in SHAPES:
            raise KeyError(f"no shared cluster shape {shape!r}; there are {', '.join(SHAPES)}")
        running = self.cluster is not None and len(self.cluster.live_nodes()) == len(self.cluster.nodes)
        if not running or self.shape != shape:
            self.stop()  # gone when a notebook replaced it (its slot stopped it for another shape)
            assert jvms() == set(), "a cluster is still running before the shared one starts"
            self.cluster = LocalCassandraCluster(detached=True, **SHAPES[shape]).start()  # what `labkit up` starts
            self.shape, self.user = shape, user
        elif self.user != user:
            session = self.cluster.session()
            try:
                cql.reset(session)  # what an earlier module wrote is not this one's business
            finally:
                session.cluster.shutdown()
            self.user = user
        return self.cluster

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
            left = jvms()
            assert left == set(), f"a JVM outlived the shared cluster's stop: {described(left)}"
        self.cluster, self.shape, self.user = None, None, None

    def pids(self) -> set[int]:
        if self.cluster is None:
            return set()
        return {p.pid for p in (n.process() for n in self.cluster.nodes) if p is not None}

    def still_up(self, said: str) -> None:
        """A notebook used the shared cluster (it said so) and left it as it found it: every node serving, no JVM
        of its own beside them."""
        assert "using the cluster `labkit up` started" in said, "the notebook started a cluster of its own beside the shared one:\n" + said[:2000]
        assert self.cluster is not None and len(self.cluster.live_nodes()) == len(self.cluster.nodes), "the notebook left the shared cluster with a node down"
        assert jvms() == self.pids(), "the notebook stopped the shared cluster or left servers of its own running"


SHARED = SharedClusters()


def shapes_of(item: pytest.Item | None) -> tuple[str, ...]:
    """The shared shapes a test uses: its module's SHARED_CLUSTERS, or the shape fixture it asks for."""
    if item is None:
        return ()
    named = tuple(getattr(getattr(item, "module", None), "SHARED_CLUSTERS", ()))
    return named + tuple(shape for fixture, shape in FIXTURES.items() if fixture in getattr(item, "fixturenames", ()))


def in_blocks(items: list[pytest.Item]) -> list[pytest.Item]:
    """Tests without a shared shape first, in their order; then each shape's block in SHAPES' order: its
    integration modules, its notebook tests, then one that replaces the cluster; a module of two shapes between
    their blocks. A stable order inside each group."""
    order = list(SHAPES)

    def place(item: pytest.Item) -> tuple[Any, ...]:
        shapes = shapes_of(item)
        if not shapes:
            return (0,)
        first = min(order.index(s) for s in shapes)
        if len(set(shapes)) > 1:
            return (1, first, 4)  # after the first shape's block, before the next one's
        if Path(str(item.fspath)).parent.name == "integration":  # the folder, not a checkout path that happens to say it
            return (1, first, 1)
        return (1, first, 3 if item.get_closest_marker("replaces_shared_cluster") else 2)

    return sorted(items, key=place)


def said_in(nb: Any) -> str:
    """Everything a notebook's code cells printed."""
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "stream")
