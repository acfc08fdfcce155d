"""The register workload's history on real Cassandra (#72): on one node every operation is recorded with its
outcome and the checker finds the history at QUORUM linearizable (a single replica orders every operation); on
three nodes, with node 3 cut off from the others, a write at ONE through node 1 and then a read at ONE through
node 3 give a stale read, and the checker names it."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from labkit.consistency import check_history
from labkit.consistency.cassandra import CassandraRegister
from labkit.consistency.history import read_history
from labkit.errors import ConfigError
from labkit.runner import RunOptions, run

SHARED_CLUSTERS = ("one_node", "three_nodes")
NO_GO = pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: make test installs it (labkit/system-deps.sh)")


@pytest.fixture(scope="module")
def one_node(shared_clusters):
    return shared_clusters.get("one_node", __name__)


@NO_GO
def test_a_one_node_history_of_reads_writes_and_compare_and_set_is_whole_and_linearizable(one_node, tmp_path):
    workload = CassandraRegister.on(one_node, tmp_path / "history.jsonl", keys=3, consistency="QUORUM")
    try:
        result = run(workload, threads=4, operations=240, options=RunOptions(processes=1))
    finally:
        workload.close_process()
    ops = read_history(tmp_path / "history.jsonl")
    assert result.verification.ok and result.verification.checks["operations"] == 3 + 240 == len(ops)  # the 3 keys' seeds, then the run
    assert not [op for op in ops if op["outcome"] == "fail"]  # a healthy node refuses nothing
    assert sum(op["outcome"] == "ok" for op in ops) >= 0.9 * len(ops)  # contended rounds may time out: unknown, not failed
    assert {op["op"] for op in ops} == {"read", "write", "cas"}
    assert all(op["call"] <= op["return"] for op in ops if op["outcome"] == "ok")
    assert sum(op["op"] == "cas" and op["result"] is True for op in ops) > 3  # compare-and-sets applied beyond the seeds
    verdict = check_history(tmp_path / "history.jsonl", page=tmp_path / "history.html")
    assert verdict.linearizable, verdict.text()
    assert verdict.page is not None and verdict.page.stat().st_size > 1000


def test_a_register_workload_refuses_a_level_cassandra_does_not_have(tmp_path):
    with pytest.raises(ConfigError, match="consistency must be one of"):
        CassandraRegister(["127.0.0.1"], tmp_path / "h.jsonl", consistency="TWO_THIRDS")
    with pytest.raises(ConfigError, match="serial must be one of"):
        CassandraRegister(["127.0.0.1"], tmp_path / "h.jsonl", serial="QUORUM")


def session_through(address: str):
    """A session whose every request goes to `address` as coordinator (no token-aware routing elsewhere)."""
    from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
    from cassandra.policies import WhiteListRoundRobinPolicy

    profile = ExecutionProfile(load_balancing_policy=WhiteListRoundRobinPolicy([address]), request_timeout=5)
    return Cluster([address], execution_profiles={EXEC_PROFILE_DEFAULT: profile}).connect()


@NO_GO
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("iptables") is None, reason="a partition needs root and iptables")
def test_a_stale_read_at_one_behind_a_partition_is_found_and_named(shared_clusters, tmp_path):
    from cassandra import ConsistencyLevel
    from cassandra.query import SimpleStatement

    from cassandra import OperationTimedOut

    from labkit.consistency.history import OK, UNKNOWN, HistoryRecorder
    from labkit.engines import cassandra as cql
    from labkit.faults.partition import heal_all, partition

    cluster = shared_clusters.get("three_nodes", __name__)
    first, third = cluster.addresses[0], cluster.addresses[2]
    setup = cluster.session()
    cql.create_keyspace(setup, "consistency_stale", 3)
    cql.execute_ddl(setup, "CREATE TABLE IF NOT EXISTS consistency_stale.reg (k text PRIMARY KEY, v bigint)")
    write = "UPDATE consistency_stale.reg SET v = %s WHERE k = 'x'"
    via_first, via_third = session_through(first), session_through(third)
    try:
        with HistoryRecorder(tmp_path / "history.jsonl") as recorder:
            pending = recorder.invoke(0, "x", "write", value=1)
            via_first.execute(SimpleStatement(write, consistency_level=ConsistencyLevel.ALL), (1,))  # every replica holds 1
            pending.done(OK)
            with partition(cluster.addresses[:2], [third]):  # node 3 hears nothing from nodes 1 and 2, nor they from it
                pending = recorder.invoke(0, "x", "write", value=2)
                via_first.execute(SimpleStatement(write, consistency_level=ConsistencyLevel.ONE), (2,))  # nodes 1 and 2 only
                pending.done(OK)
                read = SimpleStatement("SELECT v FROM consistency_stale.reg WHERE k = 'x'", consistency_level=ConsistencyLevel.ONE)
                deadline, row = time.monotonic() + 90, None
                while row is None and time.monotonic() < deadline:
                    # until node 3 convicts nodes 1 and 2 (about 18 heartbeat intervals) it may send the read to one of
                    # them and time out: an unknown read, recorded as such; then it reads its own copy
                    pending = recorder.invoke(1, "x", "read")
                    try:
                        found = via_third.execute(read, timeout=1).one()
                    except OperationTimedOut as exc:
                        pending.done(UNKNOWN, error=type(exc).__name__)
                        continue
                    pending.done(OK, None if found is None else found[0])
                    row = found
    finally:
        heal_all()
        for session in (via_first, via_third):
            session.cluster.shutdown()
        cql.execute_ddl(setup, "DROP KEYSPACE IF EXISTS consistency_stale")
    assert row is not None and row[0] == 1  # node 3 answered from its own copy, which missed the write of 2
    verdict = check_history(tmp_path / "history.jsonl")
    assert not verdict.linearizable and verdict.failing_key == "x"
    assert verdict.failing().unplaced == ("read x -> 1",)  # the stale read (the reads that timed out constrain nothing)
    assert verdict.failing().lines == (len(read_history(tmp_path / "history.jsonl")),)  # the last line: the read that answered


@pytest.mark.full  # full tier: a three-node run with a replica cut off for a few seconds (contended Paxos rounds time out)
@NO_GO
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("iptables") is None, reason="a partition needs root and iptables")
def test_at_quorum_with_serial_reads_a_replica_cut_off_mid_run_leaves_a_linearizable_history(shared_clusters, tmp_path):
    """What the workload records under a fault, end to end: requests through the cut-off node time out (unknown) or
    are refused (fail), the others carry on, and the history the run left is linearizable. One run's history, not a
    proof that QUORUM with SERIAL reads always is."""
    import threading

    from labkit.faults.partition import heal_all, partition

    cluster = shared_clusters.get("three_nodes", __name__)
    workload = CassandraRegister.on(cluster, tmp_path / "history.jsonl", keys=6, consistency="QUORUM", replication=3,
                                 keyspace="consistency_quorum")
    outcome = {}
    paced = RunOptions(processes=1, target_rate=40)  # 400 operations over about 10 s: the cut falls inside the run
    runner = threading.Thread(target=lambda: outcome.update(result=run(workload, threads=4, operations=400, options=paced)))
    try:
        runner.start()
        time.sleep(3)
        with partition(cluster.addresses[:2], cluster.addresses[2:]):
            cut = time.monotonic_ns()
            time.sleep(5)
            healed = time.monotonic_ns()
        runner.join(300)
    finally:
        heal_all()
        workload.close_process()
    assert not runner.is_alive() and outcome["result"].verification.ok, outcome
    ops = read_history(tmp_path / "history.jsonl")
    assert len(ops) == 6 + 400
    during = [op for op in ops if cut <= op["call"] <= healed]
    assert len(during) >= 8 and any(op["outcome"] == "ok" for op in during) and max(op["call"] for op in ops) > healed  # on through the cut
    verdict = check_history(tmp_path / "history.jsonl", timeout_s=120)
    assert verdict.result == "Ok", verdict.text()
    print({outcome: sum(op["outcome"] == outcome for op in during) for outcome in ("ok", "fail", "unknown")}, "during the cut")
