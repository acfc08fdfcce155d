"""Real Apache HBase 2.6.1 as local processes (ZooKeeper, a master, region servers, the Thrift 1 gateway) on the
home's loopback range: `labkit up`/`status`/`down` with one region server, then one 3-server cluster shared by the
module: each server on its own address, a pre-split table's regions spread over them, exact counts written and read
back through the gateway, sequential keys sending every write to one region (the servers' own counts say so), a login
by e-mail as a filtered scan and through a lookup table (the servers' read counts), and a killed server's regions
reassigned with no acknowledged write lost."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time

import psutil
import pytest

from labkit.home import clusters_dir
from labkit.clusters.local import hbase_config
from labkit.clusters.local.hbase import LocalHBaseCluster
from labkit.host import loopback, processes
from labkit.workloads.hbase_hot_spot import settled_region_writes

pytestmark = pytest.mark.timeout(600)


def labkit(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "labkit", *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"labkit {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def listening(proc: psutil.Process) -> set[str]:
    return {c.laddr.ip for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}


def test_one_region_server_comes_up_shows_in_status_and_goes_down_with_the_cli():
    up = labkit("up", "hbase", "--nodes", "1")
    try:
        assert "up: hbase 2.6.1 · local · 1 node" in up.stdout, up.stdout
        [cluster] = [c for c in json.loads(labkit("status", "--json").stdout)["clusters"] if c["engine"] == "hbase"]
        assert {n["name"]: n["state"] for n in cluster["nodes"]} == {"zookeeper": "UP", "master": "UP", "rs1": "UP", "thrift": "UP"}
        own = loopback.own_range()
        assert all(own.contains(n["address"]) for n in cluster["nodes"])
        text = labkit("status").stdout  # the table's columns as wide as "zookeeper" and its address
        rows = [line.split() for line in text.splitlines() if line.startswith("  ") and line.split()[0] in ("zookeeper", "rs1")]
        assert len(rows) == 2 and len({line.index(" UP ") for line in text.splitlines() if " UP " in line}) == 1, text
    finally:
        down = labkit("down")
    assert "stopped: hbase" in down.stdout, down.stdout
    assert processes.processes_under(clusters_dir() / "hbase") == []


@pytest.mark.full  # full tier: HBase budgeted by signals (30 s)
def test_region_servers_paused_by_the_signal_budget_keep_their_zookeeper_sessions(monkeypatch):
    """Without writable control groups a budget pauses a region server (SIGSTOP) for up to a period (100 ms) at a
    time; its ZooKeeper session lasts 20 s, so under load no server drops out and no region moves. Runs before the
    module's shared cluster starts (one cluster at a time)."""
    from labkit.clusters.local import budgets, signal_budgets
    from labkit.runner import RunOptions, run
    from labkit.workloads import hbase_hot_spot as hot_spot

    monkeypatch.setenv(signal_budgets.ENV, "signals")
    with LocalHBaseCluster(nodes=2, node_cpu=0.2) as budgeted:
        groups = {rs.name: budgets.group_of(budgeted.directory, rs.name) for rs in budgeted.nodes}
        assert all(g is not None and signal_budgets.group_of(budgeted.directory, name) == g for name, g in groups.items()), groups
        workload = hot_spot.hot_spot_writes(budgeted, "pattern/hashed")
        workload.setup()
        def placement() -> dict[bytes, bytes]:
            connection = budgeted.connection()
            try:
                return {r["start_key"]: r["server_name"] for r in connection.table(workload.table).regions()}
            finally:
                connection.close()

        placed = placement()
        assert len(placed) == 16 and len(set(placed.values())) == 2
        result = run(workload, threads=8, operations=1500, options=RunOptions(processes=1, setup=False))
        assert result.complete and result.errors == 0 and result.verification.ok, result.verification
        paused = {name: budgets.throttling(g)["throttled_s"] for name, g in groups.items()}
        assert max(paused.values()) > 0, paused  # the helper did pause them
        assert len(budgeted.metrics()["servers"]) == 2  # both still checked in with the master
        assert placement() == placed  # no region moved
        workload.close_process()


@pytest.fixture(scope="module")
def cluster():
    with LocalHBaseCluster(nodes=3) as started:
        yield started


def test_each_region_server_listens_only_on_its_own_address(cluster):
    assert cluster.info().display == "hbase 2.6.1 · local · 3 nodes · no node CPU budget"
    running = cluster.node_processes()
    assert sorted(running) == ["rs1", "rs2", "rs3"]
    for rs in cluster.nodes:
        assert listening(running[rs.name]) == {rs.host}, rs
    meter = cluster.cpu_meter()  # the whole cluster's CPU: the region servers, and the plumbing every request passes
    assert sorted(meter.nodes) == ["master", "rs1", "rs2", "rs3", "thrift", "zookeeper"]
    assert all(budget is None for _proc, budget, _group in meter.nodes.values())  # this cluster has no budget


def region_writes(cluster: LocalHBaseCluster, table: str, expected_total: int) -> dict[tuple[str, str], int]:
    """(start key, server) -> writes the servers counted for `table`'s regions, once they report every write."""
    return {(r["start_key"], r["server"]): r["writes"] for r in settled_region_writes(cluster, table, expected_total)}


def test_a_pre_split_table_spreads_its_regions_and_every_row_reads_back(cluster):
    cluster.create_table("spread", "f", ["2", "4", "6", "8"])
    connection = cluster.connection()
    table = connection.table("spread")
    regions = table.regions()
    assert [r["start_key"] for r in regions] == [b"", b"2", b"4", b"6", b"8"]
    assert {r["server_name"].decode() for r in regions} == set(cluster.addresses)  # the master spread them over all three
    with table.batch(batch_size=500) as batch:
        for i in range(3000):
            batch.put(f"{i % 10}-{i:05d}".encode(), {b"f:n": str(i).encode()})
    rows = dict(table.scan())
    assert len(rows) == 3000 and all(rows[f"{i % 10}-{i:05d}".encode()] == {b"f:n": str(i).encode()} for i in range(3000))
    counts = region_writes(cluster, "spread", 3000)
    assert sorted(counts.values()) == [600] * 5, counts  # two of the ten key prefixes per region, 300 rows each
    connection.close()


def test_sequential_keys_send_every_write_to_one_region_and_hashed_keys_to_all(cluster):
    """The hot spot: row keys that grow in order (a timestamp) all fall after the last split point they pass,
    into one region on one server; the same keys behind a hash prefix fall into every region."""
    connection = cluster.connection()
    for name in ("sequential", "hashed"):
        cluster.create_table(name, "f", ["4", "8", "c"])
    stamps = [str(1795000000000 + i) for i in range(2000)]
    keys = {"sequential": stamps, "hashed": [hashlib.md5(s.encode()).hexdigest()[:4] + "-" + s for s in stamps]}
    for name, names in keys.items():
        with connection.table(name).batch(batch_size=500) as batch:
            for key in names:
                batch.put(key.encode(), {b"f:v": b"1"})
    sequential = region_writes(cluster, "sequential", 2000)
    hashed = region_writes(cluster, "hashed", 2000)
    assert sorted(sequential.values()) == [0, 0, 0, 2000], sequential  # every timestamp starts with "1": the first region
    assert len(hashed) == 4 and sum(hashed.values()) == 2000 and min(hashed.values()) > 300, hashed
    connection.close()


@pytest.mark.parametrize("approach", ["baseline/a", pytest.param("baseline/d", marks=pytest.mark.full), "baseline/e"])  # full tier: D (its reads and inserts are in A and E)
def test_ycsb_mixes_run_through_the_gateway_and_verify_every_record(cluster, approach):
    """The lab's YCSB on HBase: two client processes of happybase calls on helper threads; afterwards the table holds
    exactly the loaded records plus every insert (D inserts; E scans and inserts)."""
    from labkit.runner import RunOptions, run
    from labkit.workloads.ycsb import hbase as ycsb_hbase

    workload = ycsb_hbase.workload(approach, "mix", cluster, 400, records=1000)
    try:
        result = run(workload, threads=4, operations=400, options=RunOptions(processes=2))
        assert result.complete and result.errors == 0, result
        assert result.verification.ok, result.verification
        checks = result.verification.checks
        assert checks["records"] == 1000 + checks["inserted"] and (checks["inserted"] > 0) == (approach != "baseline/a"), checks
        connection = cluster.connection()
        regions = connection.table(workload.table_name).regions()
        connection.close()
        assert len(regions) == 30 and {r["server_name"].decode() for r in regions} == set(cluster.addresses)  # ten per server
    finally:
        workload.cleanup()
        workload.close_process()


def test_a_login_by_email_scans_every_row_without_an_index_and_reads_two_rows_with_a_lookup_table(cluster):
    """Notebook 09's Index Table lesson: both approaches find every user; the servers count the scan's filtered rows
    (every stored user but the one found, per login) and the lookup's two gets (none filtered)."""
    from labkit.runner import RunOptions, run
    from labkit.workloads import hbase_index_table as index_table

    users, logins = 300, 20
    for approach in index_table.APPROACHES:
        workload = index_table.email_logins(cluster, approach, users)
        workload.setup()
        tables = (workload.users_table, workload.lookup_table)
        before = index_table.settled_reads(cluster, tables)
        result = run(workload, threads=2, operations=logins, options=RunOptions(processes=1, setup=False))
        assert result.complete and result.errors == 0 and result.verification.ok, result.verification
        assert result.verification.checks == {"logins": logins, "right": logins}
        rows = index_table.reads_between(before, index_table.settled_reads(cluster, tables), logins)
        filtered = sum(r["rows_filtered_per_login"] for r in rows)
        if approach == "naive/scan":
            assert filtered == users - 1 and index_table.regions_per_login(approach, rows) == 4, rows
        else:
            assert filtered == 0 and index_table.regions_per_login(approach, rows) == 2, rows
        workload.close_process()


@pytest.mark.full  # full tier: HBase kill and reassignment (21 s)
def test_a_killed_region_server_regions_move_to_the_others_and_no_write_is_lost(cluster):
    cluster.create_table("survive", "f", ["3", "6"])
    connection = cluster.connection()
    table = connection.table("survive")
    with table.batch(batch_size=500) as batch:
        for i in range(1500):
            batch.put(f"{i % 9}-{i:05d}".encode(), {b"f:n": str(i).encode()})
    held = {r["server_name"].decode() for r in table.regions()}
    connection.close()
    victim = next(rs for rs in cluster.nodes if rs.host in held)
    killed_at = time.monotonic()
    cluster.kill_node(victim.name)

    def all_back() -> bool:
        try:
            c = cluster.connection(timeout_ms=10_000)
            try:
                t = c.table("survive")
                return victim.host not in {r["server_name"].decode() for r in t.regions()} and sum(1 for _ in t.scan()) == 1500
            finally:
                c.close()
        except Exception:  # the gateway's reads fail while the regions are in transition
            return False

    processes.wait_until(all_back, timeout=hbase_config.ZK_SESSION_TIMEOUT_MS / 1000 + 90, interval=1.0,
                         what=f"{victim.name}'s regions to be reassigned and all 1,500 rows readable")
    moved_after = time.monotonic() - killed_at
    print(f"{victim.name} killed: its regions served again by the others after {moved_after:.1f} s "
          f"(ZooKeeper session timeout {hbase_config.ZK_SESSION_TIMEOUT_MS / 1000:g} s)")
    assert moved_after >= 5  # the master learns of a killed server from ZooKeeper, not at once (16 s here with a 20 s session timeout)
    assert [p.name for p in cluster.live_nodes()] == [rs.name for rs in cluster.nodes if rs is not victim]
