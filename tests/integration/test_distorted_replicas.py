"""Distorted Replicas on a real two-datacenter Cassandra (a shard per datacenter for the route phase; statements
typed here run at ONE, like the workload's, since LOCAL_ONE finds no replica of some ranges in either datacenter): every
shape holds the same facts after reads, updates, inserts and deletions, the filters miss nobody, and the
servers' traces show what each shape costs a request."""

import pytest

from labkit.patterns.distorted_replicas import cassandra as dr
from labkit.patterns.distorted_replicas.cassandra import DistortedReplicas
from labkit.patterns.distorted_replicas.cassandra_routing import ShardRouting, shard_keyspace, trace_route
from labkit.patterns.distorted_replicas.core import GROUP_NAMES
from labkit.runner import RunOptions, run

PUBLICATIONS = 600


SHARED_CLUSTERS = ("two_datacenters",)


@pytest.fixture(scope="module")
def cluster(shared_clusters):
    return shared_clusters.get("two_datacenters", __name__)


def run_closed(workload, **kwargs):
    try:
        return run(workload, **kwargs)
    finally:
        workload.close_process()


@pytest.mark.parametrize("approach", ["naive", "pattern"])
@pytest.mark.parametrize("groups", [1, pytest.param(3, marks=pytest.mark.full)])  # full tier: three groups (lesson 07 at smoke reads 1 to 3 groups, every run verified)
def test_reads_return_the_publications_groups(cluster, approach, groups):
    r = run_closed(DistortedReplicas(cluster.addresses, approach, "read", PUBLICATIONS, groups=groups), threads=4, operations=300, options=RunOptions(warmup=20))
    assert r.complete and r.errors == 0, r.error_samples
    assert r.verification.ok, str(r.verification)
    if approach == "naive":
        assert set(r.ops) == {"read_record"} and r.ops["read_record"].count == 300
    else:
        assert set(r.ops) == {f"read_{g}" for g in GROUP_NAMES}
        assert sum(r.ops[o].count for o in r.ops) == 300 * groups  # one request per group touched


@pytest.mark.parametrize("approach", ["naive", "pattern"])
def test_updates_land_and_verify_notices_a_lost_one(cluster, approach):
    w = DistortedReplicas(cluster.addresses, approach, "update", PUBLICATIONS, groups=2, operations=200)
    r = run_closed(w, threads=4, operations=200)
    assert r.complete and r.errors == 0, r.error_samples
    assert r.verification.ok, str(r.verification)
    assert r.verification.checks["updated_groups"] >= 200
    pub, groups = w.corpus.update_target(0, 2)
    table = "publications" if approach == "naive" else dr.VERTICAL["text"]
    text_group = "text" if "text" in groups else None
    assert text_group, "transaction 0 touches the text group"
    w.session.execute(dr.at_one(f"UPDATE {dr.KEYSPACE}.{table} SET title = %s WHERE pub_id = %s"), (pub.title, pub.pub_id))  # undo one update
    v = w.verify()
    w.close_process()
    assert not v.ok and any("updates lost" in p for p in v.problems), v.problems


@pytest.mark.parametrize("approach", ["naive", "pattern"])
def test_publications_by_author_and_what_the_servers_did(cluster, approach):
    w = DistortedReplicas(cluster.addresses, approach, "by-author", PUBLICATIONS)
    r = run(w, threads=4, operations=200, options=RunOptions(warmup=20))
    assert r.complete and r.errors == 0, r.error_samples  # every answer is checked against the corpus
    assert r.verification.ok, str(r.verification)
    totals = dr.trace_transaction(w, 5)
    w.close_process()
    if approach == "naive":
        assert totals.index_scans >= 2 and len(totals.nodes) == 2  # the index is asked on every node
    else:
        assert totals.index_scans == 0 and totals.partitions_read == 1  # one partition of the author replica


@pytest.mark.parametrize("approach", [pytest.param("naive", marks=pytest.mark.full), "pattern"])  # full tier: naive (lesson 07 at smoke publishes both, every run verified); the pattern's lost-row check is only here
def test_publish_keeps_every_shape_in_step_through_inserts_and_deletions(cluster, approach):
    w = DistortedReplicas(cluster.addresses, approach, "publish", 300, operations=200)
    r = run_closed(w, threads=4, operations=200)
    assert r.complete and r.errors == 0, r.error_samples
    assert r.verification.ok, str(r.verification)
    assert r.verification.checks["expected_publications"] == 300 - 50 + 150
    if approach == "pattern":
        assert set(r.ops) == {"publish_batch", "withdraw_batch"}
        gone = next(p for kind, p in w.corpus.publish_ops(200) if kind == "insert")
        w.session.execute(dr.at_one(f"DELETE FROM {dr.WRITES_KEYSPACE}.publications_by_author WHERE author = %s AND pub_id = %s"),
                          (gone.authors[0], gone.pub_id))
        v = w.verify()
        w.close_process()
        assert not v.ok and any("by_author" in p for p in v.problems), v.problems
    else:
        assert set(r.ops) == {"insert_aggregate", "delete_aggregate"}


def test_route_asks_fewer_shards_with_filters_and_misses_nothing(cluster):
    asked = {}
    for approach in ("naive", "pattern"):
        w = ShardRouting(cluster.datacenters(), approach, PUBLICATIONS)
        r = run_closed(w, threads=4, operations=300, options=RunOptions(warmup=20))
        assert r.complete and r.errors == 0, r.error_samples  # each answer equals the author's publications
        assert r.verification.ok, str(r.verification)
        asked[approach] = sum(op.count for name, op in r.ops.items() if name.startswith("ask_shard"))
    assert asked["naive"] == 600 and asked["pattern"] < 600
    lonely = next(a for a in w.placement.authors() if sum(1 for pubs in w.placement.final().values() if any(a in p.authors for p in pubs)) == 1)
    w.filters()
    evidence = trace_route(w, lonely)
    assert evidence["shards asked"] <= 2 and evidence["rows read"] == len(w.placement.expected(lonely))
    # a publication lost from a shard behind the router's back: verify says which shard
    pub_id = w.placement.expected(lonely)[0]
    shard = w.placement.shard[pub_id]
    w.session(shard).execute(f"DELETE FROM {shard_keyspace(shard)}.publications_by_author WHERE author = %s AND pub_id = %s", (lonely, pub_id))
    v = w.verify()
    w.close_process()
    assert not v.ok and any(f"shard {shard + 1}" in p for p in v.problems), v.problems


def test_storage_cost_of_each_shape(cluster):
    rows = {r["table"]: r for r in dr.storage_cost(cluster)}
    assert set(rows) == {"publications", *dr.VERTICAL.values(), "publications_by_author"}
    assert all(r["bytes on disk"] > 0 for r in rows.values()), rows
    assert rows["publications_by_author"]["bytes on disk"] > rows["publications"]["bytes on disk"]  # a copy per author
