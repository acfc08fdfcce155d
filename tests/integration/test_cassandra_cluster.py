"""A real local 3-node Cassandra cluster (the shared one, tests/integration/conftest.py): the nodes see each other,
replication and consistency, traces, a node killed and restarted. What a killed run leaves behind: test_cassandra_leftovers.py."""

from __future__ import annotations

import time

import pytest
from cassandra import ConsistencyLevel, Unavailable, ReadTimeout, WriteTimeout
from cassandra.cluster import NoHostAvailable
from cassandra.query import SimpleStatement

from labkit.engines import cassandra as cql

FAILED = (Unavailable, ReadTimeout, WriteTimeout, NoHostAvailable)


SHARED_CLUSTERS = ("three_nodes",)


@pytest.fixture(scope="module")
def three_nodes(shared_clusters):
    return shared_clusters.get("three_nodes", __name__)


def test_three_nodes_see_each_other(three_nodes):
    status = three_nodes.status()
    assert [n["state"] for n in status["nodes"]] == ["UP", "UP", "UP"]
    own = three_nodes.loopback
    assert [n["address"] for n in status["nodes"]] == [own.address(1), own.address(2), own.address(3)]
    assert own.prefix != "127.0.0" and own.user == three_nodes.owner  # the home's own range, not everyone's 127.0.0.x
    out = three_nodes.nodetool(1, "status")
    assert out.count("UN ") == 3, out


@pytest.fixture(scope="module")
def rf2(three_nodes):
    """Keyspace it_rf2 (RF=2) with 1000 rows written at QUORUM."""
    session = three_nodes.session()
    cql.create_keyspace(session, "it_rf2", 2)
    cql.execute_ddl(session, "CREATE TABLE IF NOT EXISTS it_rf2.kv (k int PRIMARY KEY, v text)")
    insert = session.prepare("INSERT INTO it_rf2.kv (k, v) VALUES (?, ?)")
    insert.consistency_level = ConsistencyLevel.QUORUM
    for k in range(1000):
        session.execute(insert, (k, f"value-{k}"))
    return session


def test_rf2_quorum_writes_and_reads_back_exactly(rf2):
    session = rf2
    select = session.prepare("SELECT v FROM it_rf2.kv WHERE k = ?")
    select.consistency_level = ConsistencyLevel.QUORUM
    values = {k: session.execute(select, (k,)).one().v for k in range(1000)}
    assert values == {k: f"value-{k}" for k in range(1000)}
    count = session.execute(SimpleStatement("SELECT count(*) FROM it_rf2.kv", consistency_level=ConsistencyLevel.QUORUM)).one()[0]
    assert count == 1000


def test_trace_names_the_nodes_that_served_a_query(three_nodes, rf2):
    session = rf2
    report = three_nodes.trace("SELECT v FROM it_rf2.kv WHERE k = 7", consistency=ConsistencyLevel.ALL, session=session)
    assert report.rows == 1
    assert report.coordinator in three_nodes.addresses
    assert len(set(report.nodes) - {report.coordinator}) >= 1  # RF=2 at ALL: the other replica took part
    assert set(report.nodes) <= set(three_nodes.addresses)


@pytest.mark.full  # full tier: node kill and restart (33 s); notebook 00 kills a node at smoke size
def test_killed_node_fails_quorum_for_its_ranges_but_not_one_and_restart_recovers(three_nodes, rf2):
    session = rf2
    meta = session.cluster.metadata
    victim = three_nodes.node(3)
    keys = list(range(200))

    def replicas(k):
        routing = session.prepare("SELECT v FROM it_rf2.kv WHERE k = ?").bind((k,)).routing_key
        return {h.address for h in meta.get_replicas("it_rf2", routing)}

    affected = [k for k in keys if victim.address in replicas(k)][:15]
    unaffected = [k for k in keys if victim.address not in replicas(k)][:15]
    assert affected and unaffected

    quorum = session.prepare("SELECT v FROM it_rf2.kv WHERE k = ?")
    quorum.consistency_level = ConsistencyLevel.QUORUM
    one = session.prepare("SELECT v FROM it_rf2.kv WHERE k = ?")
    one.consistency_level = ConsistencyLevel.ONE

    three_nodes.kill_node(3)
    assert not victim.is_running()

    deadline = time.monotonic() + 60  # until gossip convicts the node, QUORUM may time out instead
    while True:
        try:
            session.execute(quorum, (affected[0],))
        except FAILED:
            break
        assert time.monotonic() < deadline, "QUORUM kept succeeding with a replica dead"
        time.sleep(1)

    for k in affected:
        with pytest.raises(FAILED):
            session.execute(quorum, (k,))
        assert session.execute(one, (k,)).one().v == f"value-{k}"
    for k in unaffected:
        assert session.execute(quorum, (k,)).one().v == f"value-{k}"

    three_nodes.restart_node(3)
    deadline = time.monotonic() + 60
    while True:
        try:
            got = [session.execute(quorum, (k,)).one().v for k in affected]
            break
        except FAILED:
            assert time.monotonic() < deadline, "QUORUM did not recover after the restart"
            time.sleep(1)
    assert got == [f"value-{k}" for k in affected]
