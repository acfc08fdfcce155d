"""Growing and shrinking a real ring: a bootstrapped node takes over ranges, a decommissioned one
hands them back, and no row is lost either way."""

from __future__ import annotations

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

from conftest import labkit_jvms
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.engines import cassandra as cql


def count_all(session) -> int:
    return session.execute(SimpleStatement("SELECT count(*) FROM it_ring.kv", consistency_level=ConsistencyLevel.ALL)).one()[0]


def test_add_node_then_decommission_keeps_every_row():
    with LocalCassandraCluster(nodes=2) as cluster:
        session = cluster.session()
        cql.create_keyspace(session, "it_ring", 1)
        cql.execute_ddl(session, "CREATE TABLE IF NOT EXISTS it_ring.kv (k int PRIMARY KEY, v int)")
        insert = session.prepare("INSERT INTO it_ring.kv (k, v) VALUES (?, ?)")
        for k in range(500):
            session.execute(insert, (k, k * k))
        assert count_all(session) == 500

        new = cluster.add_node(dc="dc1")
        third = cluster.loopback.address(3)
        assert new.name == "node3" and new.address == third
        assert [n["state"] for n in cluster.status()["nodes"]] == ["UP", "UP", "UP"]
        ring = cluster.nodetool(1, "status")
        assert ring.count("UN ") == 3, ring
        owner_line = next(line for line in ring.splitlines() if f"{third} " in line)
        assert "0 bytes" not in owner_line  # it streamed its share of the data during bootstrap
        assert count_all(session) == 500

        cluster.decommission(3)
        assert [n.name for n in cluster.nodes] == ["node1", "node2"]
        ring = cluster.nodetool(1, "status")
        assert ring.count("UN ") == 2 and f"{third} " not in ring, ring
        assert count_all(session) == 500
        values = {r.k: r.v for r in session.execute(SimpleStatement("SELECT k, v FROM it_ring.kv", consistency_level=ConsistencyLevel.ALL))}
        assert values == {k: k * k for k in range(500)}
    assert labkit_jvms() == []
