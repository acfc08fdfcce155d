"""YCSB's core workload on a real Cassandra node (and, for mechanics only, on the MongoDB stand-in): the
load phase writes exactly `records` records, scans return at most what they ask for in token order (key
order on MongoDB), inserting mixes lose nothing, the index phases find every tagged record, the cache
phase refuses a node without its chunk cache (test_ycsb_cache.py reads through one), and `labkit run ycsb
--target` paces its runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from cassandra.query import SimpleStatement

from labkit.runner import RunOptions, run
from labkit.workloads.ycsb import WORKLOAD
from labkit.workloads.ycsb.cassandra import KEYSPACE, TABLE
from labkit.workloads.ycsb.core import key_name


SHARED_CLUSTERS = ("one_node",)


@pytest.fixture(scope="module")
def cluster(shared_clusters):
    return shared_clusters.get("one_node", __name__)


def ycsb(cluster, approach, phase="mix", **settings):
    return WORKLOAD.workload(approach, cluster, 100, phase=phase, **{"records": 500, **settings})


def test_the_load_phase_writes_exactly_the_records_asked_for(cluster):
    w = ycsb(cluster, "baseline/e", records=1234)
    try:
        w.setup()
        w.load()
        assert w.count() == 1234
        keys = {r.y_id for r in w.session.execute(SimpleStatement(f"SELECT y_id FROM {KEYSPACE}.{TABLE}", fetch_size=5000))}
        assert keys == {key_name(k) for k in range(1234)}
    finally:
        w.close_process()


def test_a_scan_returns_at_most_the_count_asked_for_in_token_order(cluster):
    w = ycsb(cluster, "baseline/e", records=800)
    try:
        w.setup()
        w.load()
        start_token = w.session.execute(f"SELECT token(y_id) FROM {KEYSPACE}.{TABLE} WHERE y_id = %s", (key_name(17),)).one()[0]
        for count in (1, 7, 100):
            rows = w.session.execute(w.statements["scan"], (key_name(17), count)).all()
            positions = [r.position for r in rows]
            assert 1 <= len(rows) <= count
            assert positions == sorted(positions) and positions[0] == start_token  # starts at the key itself, then the next tokens
            assert all(len(getattr(r, "field0")) == 100 for r in rows)
        last = max(r.position for r in w.session.execute(f"SELECT token(y_id) AS position FROM {KEYSPACE}.{TABLE}"))
        last_key = w.session.execute(f"SELECT y_id FROM {KEYSPACE}.{TABLE} WHERE token(y_id) = %s", (last,)).one().y_id
        assert len(w.session.execute(w.statements["scan"], (last_key, 50)).all()) == 1  # nothing after the last token: fewer than asked
    finally:
        w.close_process()


@pytest.mark.parametrize("mix", ["d", *(pytest.param(m, marks=pytest.mark.full) for m in ("e", "insert-mostly", "f"))])  # full tier: the other three (lesson 05 at smoke runs every mix and asserts each verified); d keeps greenlet workers in make test
def test_a_mix_that_inserts_or_rewrites_loses_nothing(cluster, mix):
    w = ycsb(cluster, f"baseline/{mix}")
    try:
        result = run(w, threads=6, operations=600, options=RunOptions(workers="greenlets", warmup=30))
    finally:
        w.close_process()
    assert result.complete and result.stats.errors == 0
    assert result.verification.ok, result.verification
    inserts = result.ops["insert"].count if "insert" in result.ops else 0
    # the warm-up's inserts are real writes too; the workers' key sequences account for every one
    assert result.verification.checks["inserted"] >= inserts and result.verification.checks["records"] == 500 + result.verification.checks["inserted"]


def test_both_client_paths_run_the_same_transactions_lose_nothing_and_say_which_path_they_took(cluster, monkeypatch):
    """The native core (acsylla) and cassandra-driver run the same seeded mix: the same operations and the same
    verify; every row names its path; with acsylla missing, `auto` falls back to cassandra-driver."""
    from labkit.engines import cassandra_calls

    rows = {}
    for driver in ("cassandra-driver", "acsylla", "fallback"):
        monkeypatch.setenv(cassandra_calls.DRIVER_VARIABLE, "auto" if driver == "fallback" else driver)
        if driver == "fallback":
            monkeypatch.setattr(cassandra_calls, "_acsylla", lambda: None)
        w = ycsb(cluster, "baseline/f")  # reads, then read-modify-writes: both kinds of call
        try:
            result = run(w, threads=6, operations=600, options=RunOptions(workers="greenlets", warmup=120, seed=7))  # acsylla opens during the warm-up
        finally:
            w.close_process()
        assert result.complete and result.stats.errors == 0 and result.verification.ok, (driver, result.verification)
        rows[driver] = result.to_row()
        rows[driver]["ops"] = {name: s.count for name, s in result.ops.items()}
    assert rows["acsylla"]["client_path"] == cassandra_calls.native_path_name()
    assert rows["cassandra-driver"]["client_path"] == rows["fallback"]["client_path"] == "driver async"
    assert rows["acsylla"]["ops"] == rows["cassandra-driver"]["ops"] == rows["fallback"]["ops"]  # the same seeded transactions
    assert rows["acsylla"]["verify_checks"] == rows["cassandra-driver"]["verify_checks"]


@pytest.mark.full  # full tier: lesson 05 at smoke queries by tag without an index, with 2i and with SAI, and asserts every run verified
@pytest.mark.parametrize("approach", ["baseline/no-index", "baseline/2i", "baseline/sai"])
def test_a_query_by_tag_finds_every_tagged_record_with_or_without_an_index(cluster, approach):
    w = ycsb(cluster, approach, phase="index-query", tags=10)
    try:
        result = run(w, threads=2, operations=20)
        assert result.stats.errors == 0 and result.verification.ok  # each query checks it saw every record of its tag
        rows = w.session.execute(w.statements["by_tag"], (3,)).all()
        assert len(rows) == 50
        if approach != "baseline/no-index":
            indexes = {r.index_name for r in w.session.execute("SELECT index_name FROM system_schema.indexes WHERE keyspace_name = %s", (KEYSPACE,))}
            assert f"{w.table}_tag" in indexes
    finally:
        w.close_process()


def test_the_cache_phase_refuses_nodes_without_the_chunk_cache_it_asks_for(cluster):
    from labkit.errors import ConfigError

    w = ycsb(cluster, "baseline/c", phase="cache", chunk_cache_mb=4)
    try:
        with pytest.raises(ConfigError, match="chunk_cache_mb=4"):
            w.setup()
    finally:
        w.close_process()


def test_an_a_a_control_measures_the_noise_floor_on_a_real_node(cluster):
    from labkit.clusters.slot import ClusterSlot
    from labkit.noise import measure_noise, noise_plan, noise_sentence

    slot = ClusterSlot(lambda n, node_cpu=None: cluster)  # the module's node, kept running by its fixture
    slot.engine, slot.options = "cassandra", {}
    plan = noise_plan(threads=4, operations=300, repeats=3, records=300)
    rows, floor = measure_noise(plan, slot=slot, echo=lambda line: None)
    assert [(r["repeat"], r["order"], r["control_copy"]) for r in rows] == [(0, 0, False), (0, 1, True), (1, 0, True), (1, 1, False),
                                                                             (2, 0, False), (2, 1, True)]
    assert all(r["verify_ok"] and r["count"] == 300 and r["warmup_block"] for r in rows)
    assert floor is not None and floor.pairs == 3 and floor.has_interval and floor.low <= floor.estimate <= floor.high
    sentence = noise_sentence(floor, rows)
    assert "noise floor on this machine (cassandra 5.0" in sentence and "3 blocks" in sentence and "4 threads" in sentence


@pytest.mark.full  # full tier: the CLI's paced sweep (20 s, a cluster of its own); lesson 05 paces offered loads at smoke size and test_cli_cluster runs `labkit run`
def test_labkit_run_ycsb_paces_each_offered_load(shared_clusters, tmp_path):
    shared_clusters.stop()  # the CLI starts its own cluster: one at a time
    labkit = str(Path(sys.executable).with_name("labkit"))
    out = tmp_path / "ycsb.csv"
    done = subprocess.run([labkit, "run", "ycsb", "--workload", "c,a", "--target", "100,300", "--seconds", "1", "--threads", "8",
                           "--set", "records=300", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = pd.read_csv(out)
    assert list(rows.approach) == ["baseline/c", "baseline/a", "baseline/c", "baseline/a"]  # both mixes at each offered load in turn
    assert list(rows.target_rate) == [100, 100, 300, 300] and list(rows.operations) == [100, 100, 300, 300]
    assert set(rows.phase) == {"offered-load"} and rows.verify_ok.all() and rows.intended_p95_us.notna().all()
    assert "offered" in done.stdout


# ---- the MongoDB binding, on the lab's MongoDB stand-in: mechanics only (no performance claim) --------


@pytest.fixture()
def mongo():
    from labkit.clusters.standin.mongodb import StandinMongo

    with StandinMongo() as server:
        yield server


def test_the_mongodb_binding_loads_scans_in_key_order_and_loses_nothing(mongo):
    w = WORKLOAD.workload("baseline/e", mongo, 100, phase="mix", engine="mongodb", records=400)
    try:
        w.setup()
        w.load()
        assert w.count() == 400
        from labkit.patterns.exercise import a_transaction

        every = sorted(key_name(k) for k in range(400))
        for start in (key_name(17), every[0], every[-3]):
            keys = [r["_id"] for r in w.scan(a_transaction(), start, 30)]
            assert keys == [k for k in every if k >= start][:30]  # key order, at most 30, fewer near the end
        for mix in ("d", "e", "f", "insert-mostly"):
            one = WORKLOAD.workload(f"baseline/{mix}", mongo, 100, phase="mix", engine="mongodb", records=400)
            result = run(one, threads=4, operations=300, options=RunOptions(workers="greenlets"))
            one.close_process()
            assert result.complete and result.stats.errors == 0 and result.verification.ok, (mix, result.verification)
    finally:
        w.close_process()


def test_the_mongodb_binding_queries_by_tag_with_and_without_an_index_and_refuses_what_it_has_not(mongo):
    from labkit.errors import ConfigError

    for approach in ("baseline/no-index", "baseline/2i"):
        w = WORKLOAD.workload(approach, mongo, 100, phase="index-query", engine="mongodb", records=300, tags=10)
        try:
            result = run(w, threads=2, operations=20)
            assert result.stats.errors == 0 and result.verification.ok
            indexes = set(w.collection.index_information())
            assert ("tag_1" in indexes) == (approach == "baseline/2i")
        finally:
            w.close_process()
    with pytest.raises(ConfigError, match="no MongoDB counterpart|MongoDB's secondary index is baseline/2i"):
        WORKLOAD.workload("baseline/sai", mongo, 100, phase="index-query", engine="mongodb")
    with pytest.raises(ConfigError, match="--engine cassandra"):
        WORKLOAD.workload("baseline/c", mongo, 100, phase="cache", engine="mongodb")
