"""Node CPU budgets on real Cassandra JVMs after kill -9 of their owner: the next start reaps the groups left behind,
budgets change and lift in place, and a normal stop removes its own. (make test's one `labkit up`, in
test_cli_cluster.py, holds budgeted nodes to their quota and shows `labkit down` removing their groups.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import labkit_jvms
from labkit.clusters.local import budgets
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.clusters.local.cassandra_config import BUDGETED_TIMER_SLACK_NS
from labkit.host import timer_slack

def slacks(pid: int) -> set[int | None]:
    return {timer_slack.of_thread(tid) for tid in timer_slack.thread_ids(pid)}


pytestmark = pytest.mark.skipif(not budgets.cgroups_writable(), reason=f"no writable cgroup cpu controller here: {budgets.detect()[1]}")

OWNER = textwrap.dedent(
    """
    import time
    from labkit.clusters.local.cassandra import LocalCassandraCluster
    cluster = LocalCassandraCluster(nodes=1, node_cpu=0.2).start()
    print("ready", flush=True)
    time.sleep(600)
    """
)


@pytest.mark.full  # full tier: control groups of a killed owner reaped (19 s); make test starts, budgets and stops groups in test_cli_cluster.py
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
        pid = next(iter(cluster.node_processes().values())).pid
        assert slacks(pid) == {BUDGETED_TIMER_SLACK_NS}  # started budgeted: its workers' wait-spin wakes less often
        cluster.set_node_cpu(None)  # budgets can be lifted in place
        assert budgets.leftover_groups() == []
        assert slacks(pid) == {timer_slack.LINUX_DEFAULT_NS}  # unbudgeted: what an unbudgeted start gives
        cluster.set_node_cpu(0.25)
        assert budgets.budget_of(budgets.group_of(cluster.directory, "node1"))[0] == pytest.approx(0.25)
        assert slacks(pid) == {BUDGETED_TIMER_SLACK_NS}
    assert budgets.leftover_groups() == []
    assert labkit_jvms() == []
