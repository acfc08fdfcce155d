"""Node CPU budgets on real Cassandra JVMs: every thread budgeted, a busy node held to its budget, and
no control group left after `labkit down`, a normal stop, or kill -9 of the owner and the next start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from conftest import labkit_jvms
from labkit.clusters.local import budgets
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.clusters.registry import clusters_dir

pytestmark = pytest.mark.skipif(not budgets.cgroups_writable(), reason=f"no writable cgroup cpu controller here: {budgets.detect()[1]}")

BUDGET = 0.15


def cpu_s(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


def test_up_with_budgets_holds_a_busy_node_to_its_quota_and_down_removes_the_groups():
    labkit = str(Path(sys.executable).with_name("labkit"))
    up = subprocess.run([labkit, "up", "cassandra", "--nodes", "2", "--node-cpu", str(BUDGET)], capture_output=True, text=True, timeout=300)
    assert up.returncode == 0, up.stderr
    assert "0.15 core per node" in up.stdout
    try:
        status = json.loads(subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60).stdout)
        nodes = status["clusters"][0]["nodes"]
        assert [n["node_cpu"] for n in nodes] == [BUDGET, BUDGET]
        directory = clusters_dir() / "cassandra"
        for n in nodes:
            assert budgets.threads_outside(directory, n["name"], n["pid"]) == []
            assert len(psutil.Process(n["pid"]).threads()) > 20  # a JVM: many threads, all of them inside

        # keep node1 busy (many reads in flight) and measure its CPU over a few seconds
        from labkit.engines import cassandra as cql

        session = cql.connect([nodes[0]["address"]], keyspace=None)  # the load reads system.local: no schema change (on 2 nodes
        # at 0.15 core each, schema agreement was once not reached within the driver's wait, and a CREATE TABLE then
        # reached a node that did not yet have the new keyspace)
        stop = threading.Event()

        def hammer():
            while not stop.is_set():
                futures = [session.execute_async("SELECT * FROM system.local") for _ in range(32)]
                for f in futures:
                    try:
                        f.result()
                    except Exception:
                        pass

        workers = [threading.Thread(target=hammer, daemon=True) for _ in range(2)]
        for t in workers:
            t.start()
        time.sleep(1.0)
        pid = nodes[0]["pid"]
        before, t0 = cpu_s(pid), time.monotonic()
        time.sleep(4.0)
        used = (cpu_s(pid) - before) / (time.monotonic() - t0)
        stop.set()
        for t in workers:
            t.join(30)
        session.cluster.shutdown()
        assert used <= BUDGET * 1.15, f"node1 used {used:.3f} cores under a {BUDGET}-core budget"
        assert used >= BUDGET * 0.5, f"node1 was not busy ({used:.3f} cores): the test did not load it"
    finally:
        down = subprocess.run([labkit, "down"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 0
    assert budgets.leftover_groups() == []
    assert labkit_jvms() == []


OWNER = textwrap.dedent(
    """
    import time
    from labkit.clusters.local.cassandra import LocalCassandraCluster
    cluster = LocalCassandraCluster(nodes=1, node_cpu=0.2).start()
    print("ready", flush=True)
    time.sleep(600)
    """
)


@pytest.mark.full  # full tier: control groups of a killed owner reaped (19 s); make test starts, budgets and stops groups above
def test_kill_9_of_the_owner_leaves_groups_that_the_next_start_reaps_and_a_normal_stop_removes_its_own():
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert owner.stdout.readline().strip() == "ready"
        assert budgets.leftover_groups() != []
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait(30)
    assert budgets.leftover_groups() != []  # kill -9: nothing could clean up; the JVM lives on too
    with LocalCassandraCluster(nodes=1, node_cpu=0.3) as cluster:  # the next start reaps JVM and groups
        groups = budgets.leftover_groups()
        assert [g.name for g in groups if g.name.startswith("node")] == ["node1"]
        assert budgets.budget_of(groups[-1])[0] == pytest.approx(0.3)
        assert cluster.info().node_cpu == 0.3
        cluster.set_node_cpu(None)  # budgets can be lifted in place
        assert budgets.leftover_groups() == []
        cluster.set_node_cpu(0.25)
        assert budgets.budget_of(budgets.group_of(cluster.directory, "node1"))[0] == pytest.approx(0.25)
    assert budgets.leftover_groups() == []
    assert labkit_jvms() == []
