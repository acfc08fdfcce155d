"""Each Cassandra tactic under load on a real 3-node budgeted cluster: the server confirms it took
effect (index built on every node, node Up/Normal owning ranges and a one-replica keyspace
keeping every row through the bootstrap and the decommission, replication changed and repaired,
budgets in the control groups, statements at the new level), and the workload running through it loses
no write (exact verify afterwards)."""

from __future__ import annotations

import pytest
from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

from labkit.clusters.local import budgets
from labkit.engines import cassandra as cql
from labkit.tactics import cassandra as tactics
from labkit.tactics import run_under_load
from labkit.tactics.workloads import workload_for

BUDGET = 0.3
QUICK = dict(threads=16, before_s=2, after_s=2, warmup=50)

pytestmark = pytest.mark.skipif(not budgets.cgroups_writable(), reason="node CPU budgets need a cgroup cpu controller (root)")


SHARED_CLUSTERS = ("three_nodes",)


@pytest.fixture(scope="module")
def cluster(shared_clusters):
    """The shared 3-node cluster (tests/integration/conftest.py) with every node budgeted in place, the budget lifted after."""
    c = shared_clusters.get("three_nodes", __name__)
    c.set_node_cpu(BUDGET)
    yield c
    if shared_clusters.cluster is c and c.live_nodes():
        c.set_node_cpu(None)


def _ran_cleanly(r):
    assert r.error is None, r.error
    assert r.started_s is not None and r.effective_s is not None and r.effective_s >= r.started_s
    assert r.result.complete and r.result.verification.ok, r.result.verification
    assert r.evidence_after  # the server still confirms it after the load stopped (evidence() raises otherwise)
    return r.row()


@pytest.mark.full  # full tier: both index kinds built under load (53 s); notebook 06 builds SAI at smoke size
@pytest.mark.parametrize("kind", ["sai", "2i"])
def test_create_index_is_built_on_every_node_and_queries_by_tag_stay_exact(cluster, kind):
    w = workload_for("query-by-tag", cluster, records=1000, tags=50)
    r = run_under_load(cluster, w, tactics.CreateIndex(kind), kind="query-by-tag", rate=20, expect_s=8, **QUICK)
    _ran_cleanly(r)
    assert r.evidence["built_on"] == sorted(n.address for n in cluster.live_nodes())
    # a query the index answers (not a filtering scan) after it: the trace says so
    trace = cluster.trace(f"SELECT y_id FROM ycsb.{w.table} WHERE tag = 7")
    assert trace.rows == 20 and any("index" in activity.lower() for _src, activity in trace.activities)


@pytest.mark.full  # full tier: lesson 06 at smoke changes the consistency on 3 nodes, and the tactic's evidence raises unless every statement took it
def test_consistency_change_reaches_the_statements_and_a_traced_read_asks_two_replicas(cluster):
    w = workload_for("read-heavy", cluster, records=1000, replication=3)
    r = run_under_load(cluster, w, tactics.ChangeConsistency("QUORUM"), kind="read-heavy", rate=100, expect_s=2, **QUICK)
    _ran_cleanly(r)
    assert r.evidence["consistency"] == "QUORUM" and r.evidence["traced_read_nodes"] >= 2


@pytest.mark.full  # full tier: lesson 06 at smoke re-budgets its nodes, and the tactic's evidence raises unless every control group took the quota
def test_node_cpu_budget_changes_in_every_nodes_control_group(cluster):
    w = workload_for("read-heavy", cluster, records=1000, replication=3)
    try:
        r = run_under_load(cluster, w, tactics.SetNodeCpu(0.6), kind="read-heavy", rate=100, expect_s=2, **QUICK)
        row = _ran_cleanly(r)
        assert r.evidence == {"node_cpu": 0.6, "nodes": 3}
        assert row["node_cpu_before"] == BUDGET and row["node_cpu_after"] == 0.6
    finally:
        cluster.set_node_cpu(BUDGET)


@pytest.mark.full  # full tier: a replication change with repair (62 s); notebook 06 runs it at smoke size
def test_raise_replication_repairs_every_record_onto_every_node_without_losing_a_write(cluster):
    w = workload_for("write-heavy", cluster, records=2000, replication=1)
    r = run_under_load(cluster, w, tactics.RaiseReplication(3), kind="write-heavy", rate=100, expect_s=30, **QUICK)
    _ran_cleanly(r)
    assert r.evidence["replication_factor"] == 3 and r.evidence["nodes_agreeing"] == 3
    inserted = r.result.verification.checks["inserted"]
    assert inserted > 0
    for node in cluster.live_nodes():  # each node's own SSTables now hold (about) every record: RF 3 on 3 nodes
        cluster.nodetool(node.name, "flush", "ycsb")
        stats = cluster.nodetool(node.name, "tablestats", "ycsb.usertable")
        estimate = int(next(line for line in stats.splitlines() if "Number of partitions (estimate)" in line).split(":")[1])
        assert estimate >= 0.9 * (2000 + inserted), (node.name, estimate)


def _rows_at_all(session) -> dict[int, int]:
    return {r.k: r.v for r in session.execute(SimpleStatement("SELECT k, v FROM it_ring.kv", consistency_level=ConsistencyLevel.ALL))}


@pytest.mark.full  # full tier: membership change (142 s)
def test_add_node_then_decommission_under_writes_lose_nothing(cluster):
    """Also the ring's own bookkeeping: the new node is node4 on the next loopback address and streams its
    share during bootstrap, and a keyspace with one replica (no second copy to fall back on) keeps every row
    through the bootstrap and the decommission."""
    session = cluster.session()
    cql.create_keyspace(session, "it_ring", 1)
    cql.execute_ddl(session, "CREATE TABLE IF NOT EXISTS it_ring.kv (k int PRIMARY KEY, v int)")
    insert = session.prepare("INSERT INTO it_ring.kv (k, v) VALUES (?, ?)")
    for k in range(500):
        session.execute(insert, (k, k * k))
    assert _rows_at_all(session) == {k: k * k for k in range(500)}

    w = workload_for("write-heavy", cluster, records=2000, replication=2)
    r = run_under_load(cluster, w, tactics.AddNode(), kind="write-heavy", rate=100, expect_s=40, **QUICK)
    row = _ran_cleanly(r)
    assert row["nodes_before"] == 3 and row["nodes_after"] == 4
    assert r.evidence["state"] == "UN" and r.evidence["owns_pct"] > 0 and r.evidence["nodes"] == 4
    fourth = cluster.loopback.address(4)
    assert cluster.nodes[-1].name == "node4" and cluster.nodes[-1].address == fourth
    ring = cluster.nodetool(1, "status")
    assert ring.count("UN ") == 4, ring
    assert "0 bytes" not in next(line for line in ring.splitlines() if f"{fourth} " in line)  # it streamed its share
    assert _rows_at_all(session) == {k: k * k for k in range(500)}

    w = workload_for("write-heavy", cluster, records=2000, replication=2)
    r = run_under_load(cluster, w, tactics.Decommission(), kind="write-heavy", rate=100, expect_s=40, **QUICK)
    row = _ran_cleanly(r)
    assert row["nodes_after"] == 3 and r.evidence["nodes"] == 3 and r.evidence["owned_pct_total"] == pytest.approx(200, abs=0.5)
    assert [n.name for n in cluster.nodes] == ["node1", "node2", "node3"]
    ring = cluster.nodetool(1, "status")
    assert ring.count("UN ") == 3 and f"{fourth} " not in ring, ring
    assert _rows_at_all(session) == {k: k * k for k in range(500)}  # the leaving node handed its ranges on
