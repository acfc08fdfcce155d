"""A cluster `labkit up` left running is used by sweeps when it is exactly the one asked for, and left running."""

from __future__ import annotations

import json
import os

import pytest

from labkit.clusters.local import cassandra as local_cassandra
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.clusters.contract import Capabilities, ContractOnly
from labkit.clusters.slot import ClusterSlot


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    return tmp_path


def _record(nodes=2, dcs=1, node_cpu=None, chunk_cache_mb=None, owner_pid=None, **changes):
    """Write the state file `labkit up` would have written for such a cluster."""
    cluster = LocalCassandraCluster(nodes=nodes, dcs=dcs, node_cpu=node_cpu, chunk_cache_mb=chunk_cache_mb, detached=owner_pid is None)
    cluster.directory.mkdir(parents=True, exist_ok=True)
    state = {"engine": "cassandra", "provider": "local", "name": "cassandra", "version": cluster.version, "dcs": dcs, "owner_pid": owner_pid,
             "node_cpu": cluster.node_cpu, "chunk_cache_mb": chunk_cache_mb, "nodes": [n.spec.__dict__ for n in cluster.nodes], **changes}
    (cluster.directory / "cluster.json").write_text(json.dumps(state))


@pytest.fixture()
def serving(monkeypatch):
    """Every node answers (no JVM needed to test the matching)."""
    up = {"value": True}
    monkeypatch.setattr(local_cassandra.CassandraNode, "is_serving", lambda self: up["value"])
    return up


def test_the_cluster_labkit_up_left_is_adopted_when_it_matches(home, serving):
    _record(nodes=2)
    found = LocalCassandraCluster.adopt(nodes=2)
    assert found is not None and found.adopted and len(found.nodes) == 2


@pytest.mark.parametrize(
    "asked",
    [dict(nodes=3), dict(nodes=2, dcs=2), dict(nodes=2, node_cpu=0.5), dict(nodes=2, chunk_cache_mb=16)],
    ids=["other size", "other datacenters", "other budget", "other cache"],
)
def test_a_cluster_of_another_shape_is_not_adopted(home, serving, asked):
    _record(nodes=2)
    assert LocalCassandraCluster.adopt(**asked) is None


def test_no_cluster_a_notebook_owns_and_none_that_is_down(home, serving):
    _record(nodes=1, owner_pid=os.getpid())
    assert LocalCassandraCluster.adopt(nodes=1) is None  # a live notebook's cluster is that notebook's
    _record(nodes=1)
    serving["value"] = False
    assert LocalCassandraCluster.adopt(nodes=1) is None
    assert LocalCassandraCluster.adopt(nodes=1, version="4.1.0") is None  # another version asked for
    (home / "clusters" / "cassandra" / "cluster.json").unlink()
    assert LocalCassandraCluster.adopt(nodes=1) is None


class _Cluster(ContractOnly):
    capabilities = Capabilities(resize=True, adopt=True)

    def __init__(self, nodes, adopted=False):
        self.nodes = list(range(nodes))
        self.adopted = adopted
        self.calls = []

    def live_nodes(self):
        return self.nodes

    def info(self):
        class Info:
            display = f"fake · {len(self.nodes)} nodes"
        return Info()

    def stop(self):
        self.calls.append("stop")

    def adoption(self):
        return self  # what the slot asks before letting an adopted cluster go

    def release(self):
        self.calls.append("release")


def test_slot_uses_an_adopted_cluster_and_only_lets_it_go():
    started, said = [], []
    slot = ClusterSlot(lambda n, node_cpu=None: started.append(n) or _Cluster(n), on_change=said.append)
    up = _Cluster(2, adopted=True)
    slot.adopt = lambda n, node_cpu=None: up if n == 2 else None
    assert slot.ensure(2) is up and started == []
    assert "labkit up" in said[-1] and "stays up" in said[-1]
    slot.stop()
    assert up.calls == ["release"]  # the user's cluster keeps running


def test_slot_replacing_an_adopted_cluster_stops_it_and_says_so():
    said = []
    slot = ClusterSlot(lambda n, node_cpu=None: _Cluster(n), on_change=said.append)
    up = _Cluster(2, adopted=True)
    slot.adopt = lambda n, node_cpu=None: up if n == 2 else None
    slot.ensure(2)
    mine = slot.ensure(4)
    assert up.calls == ["stop"] and any("`labkit up` started" in s for s in said)
    slot.stop()
    assert mine.calls == ["stop"]


def test_slot_starts_its_own_when_nothing_matches():
    slot = ClusterSlot(lambda n, node_cpu=None: _Cluster(n))
    slot.adopt = lambda n, node_cpu=None: None
    own = slot.ensure(1)
    slot.stop()
    assert own.calls == ["stop"]


def test_for_engine_passes_the_shape_to_adopt(home, serving):
    _record(nodes=2, dcs=2)
    slot = ClusterSlot.for_engine("cassandra", "local", dcs=2)
    assert slot.adopt(2) is not None and slot.adopt(2, node_cpu=0.5) is None
    assert ClusterSlot.for_engine("cassandra", "local").adopt(2) is None  # one datacenter asked for


def test_slot_says_when_it_replaces_what_labkit_up_left(home, monkeypatch):
    said = []
    slot = ClusterSlot(lambda n, node_cpu=None: _Cluster(n), on_change=said.append)
    slot.adopt = lambda n, node_cpu=None: None
    slot.left_up = lambda: "1 node(s), 1 datacenter(s), no CPU budget"
    slot.ensure(2)
    assert any(s.startswith("stopping the cluster `labkit up` started (1 node(s)") for s in said)


def test_left_up_names_only_a_detached_cluster_with_processes(home, monkeypatch):
    assert LocalCassandraCluster.left_up() is None
    _record(nodes=2, node_cpu=0.5)
    monkeypatch.setattr(local_cassandra.processes, "processes_under", lambda d: [object()])
    assert LocalCassandraCluster.left_up() == "2 node(s), 1 datacenter(s), 0.5 core per node"
    monkeypatch.setattr(local_cassandra.processes, "processes_under", lambda d: [])
    assert LocalCassandraCluster.left_up() is None  # its servers are gone: nothing to replace
    _record(nodes=2, owner_pid=os.getpid())
    monkeypatch.setattr(local_cassandra.processes, "processes_under", lambda d: [object()])
    assert LocalCassandraCluster.left_up() is None
