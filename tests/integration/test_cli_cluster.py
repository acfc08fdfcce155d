"""The `labkit` CLI against a real cluster: up (with node CPU budgets where this machine lets labkit set them),
status --json, down, and nothing left behind; an interrupted `labkit run` keeps its rows."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from conftest import labkit_jvms
from labkit.clusters.local import budgets
from labkit.home import clusters_dir
from labkit.clusters.local.cassandra_config import BUDGETED_TIMER_SLACK_NS
from labkit.host import loopback, timer_slack

BUDGET = 0.15  # each node's CPU budget in cores, where budgets can be set (root with a writable cgroup cpu controller)


def cpu_s(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


def cores_used_while_busy(address: str, pid: int) -> float:
    """Keep the node at `address` busy (64 cheap reads in flight, sent to it alone) and return the cores its JVM used
    over 4 s. Reads of system.local change no schema (on 2 nodes at 0.15 core each, schema agreement was once not
    reached within the driver's wait, and a CREATE TABLE then reached a node that did not yet have the new keyspace);
    the driver is held to that one node, as a load balanced over both once left it half idle (0.075 of 0.15 core)."""
    from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
    from cassandra.policies import WhiteListRoundRobinPolicy

    from labkit.engines import cassandra as cql

    only_it = ExecutionProfile(load_balancing_policy=WhiteListRoundRobinPolicy([address]), request_timeout=30)
    driver = Cluster([address], protocol_version=cql.PROTOCOL_VERSION, execution_profiles={EXEC_PROFILE_DEFAULT: only_it})
    session = driver.connect()
    stop = threading.Event()

    def hammer():
        while not stop.is_set():
            for future in [session.execute_async("SELECT * FROM system.local") for _ in range(32)]:
                try:
                    future.result()
                except Exception:
                    pass

    workers = [threading.Thread(target=hammer, daemon=True) for _ in range(2)]
    try:
        for t in workers:
            t.start()
        time.sleep(1.0)
        before, t0 = cpu_s(pid), time.monotonic()
        time.sleep(4.0)
        return (cpu_s(pid) - before) / (time.monotonic() - t0)
    finally:
        stop.set()
        for t in workers:
            t.join(30)
        driver.shutdown()


def test_labkit_up_status_down_leave_no_jvm_and_budgeted_nodes_keep_to_their_quota(tmp_path):
    """The one `labkit up` of make test's CLI: two nodes, each held to 0.15 core where budgets can be set. Status names
    them on the home's own loopback range with their budgets, every thread of each JVM is inside its node's group, a node
    kept busy uses its quota and no more, and `labkit down` leaves no JVM and no group behind."""
    labkit = str(Path(sys.executable).with_name("labkit"))
    budgeted = budgets.cgroups_writable()
    up = subprocess.run([labkit, "up", "cassandra", "--nodes", "2", *(["--node-cpu", str(BUDGET)] if budgeted else [])],
                        capture_output=True, text=True, timeout=300)
    assert up.returncode == 0, up.stderr
    assert ("0.15 core per node" in up.stdout) == budgeted, up.stdout
    try:
        status = subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60)
        clusters = json.loads(status.stdout)["clusters"]
        assert len(clusters) == 1 and clusters[0]["server_version"].startswith("5.0")
        nodes = clusters[0]["nodes"]
        own = loopback.own_range()
        assert [(n["address"], n["state"]) for n in nodes] == [(own.address(1), "UP"), (own.address(2), "UP")]
        assert len(labkit_jvms()) == 2
        if budgeted:
            assert [n["node_cpu"] for n in nodes] == [BUDGET, BUDGET]
            for n in nodes:
                assert budgets.threads_outside(clusters_dir() / "cassandra", n["name"], n["pid"]) == []
                assert len(psutil.Process(n["pid"]).threads()) > 20  # a JVM: many threads, all of them inside
                slack = {timer_slack.of_thread(tid) for tid in timer_slack.thread_ids(n["pid"])}
                assert slack == {BUDGETED_TIMER_SLACK_NS}, f"{n['name']}'s threads' timer slack: {slack}"  # host.timer_slack: why
            used = cores_used_while_busy(nodes[0]["address"], nodes[0]["pid"])
            assert used <= BUDGET * 1.15, f"node1 used {used:.3f} cores under a {BUDGET}-core budget"
            assert used >= BUDGET * 0.5, f"node1 was not busy ({used:.3f} cores): the test did not load it"
    finally:
        down = subprocess.run([labkit, "down"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 0 and "stopped: cassandra" in down.stdout
    assert labkit_jvms() == []
    assert budgets.leftover_groups() == []
    again = subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60)
    after = json.loads(again.stdout)
    assert after["clusters"] == [] and not any(r["yours"] and r["serving"] for r in after["loopback_ranges"])


def test_an_interrupted_labkit_run_keeps_its_rows_and_exits_130(tmp_path):
    """Ctrl-C in the middle of a sweep: the rows measured so far (the last one partial) are in the file,
    the command says so and exits 130 like any interrupted command, and its cluster is stopped."""
    import os
    import signal
    import time

    import pandas as pd

    labkit = str(Path(sys.executable).with_name("labkit"))
    out = tmp_path / "r.csv"
    proc = subprocess.Popen([labkit, "run", "index-table", "--phase", "login", "--nodes", "1", "--threads", "2,4,6,8",
                             "--operations", "4000", "--set", "users=300", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        deadline = time.monotonic() + 300
        while not (out.exists() and len(pd.read_csv(out)) >= 1) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        time.sleep(1.0)  # into the next run's measured window
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (stdout, stderr)
    assert "interrupted" in stderr
    rows = pd.read_csv(out)
    assert len(rows) >= 1 and rows["complete"].iloc[:-1].all()
    assert labkit_jvms() == []
