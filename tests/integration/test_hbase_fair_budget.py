"""HBase under the same total as Cassandra: the Thrift gateway shares the region servers' cap, every budgeted
process gets the budgeted timer slack, the block cache is the share asked for, and the flush setting leaves the
loaded records in store files.

Why: notebook 05's side by side once ran HBase's gateway outside the budget (0.45-0.58 core for free, about half of
HBase's CPU per request) while Cassandra's coordinator work was inside its nodes' budgets, and read a table small
enough to sit in HBase's block cache or memstore (#68 item 3)."""

from __future__ import annotations


import pytest

from labkit.clusters.local import budgets
from labkit.clusters.local.hbase import LocalHBaseCluster
from labkit.host import timer_slack
from labkit.workloads.ycsb import WORKLOAD

pytestmark = [pytest.mark.full, pytest.mark.timeout(600),  # full tier: an HBase start of its own (about 40 s)
              pytest.mark.skipif(not budgets.cgroups_writable(), reason=f"no writable cgroup cpu controller here: {budgets.detect()[1]}")]


def slacks(pid: int) -> set[int | None]:
    return {timer_slack.of_thread(tid) for tid in timer_slack.thread_ids(pid)}


def test_the_gateway_shares_the_region_servers_total_and_a_flushed_load_is_in_store_files():
    with LocalHBaseCluster(nodes=1, node_cpu=0.3, gateway_in_budget=True, block_cache_fraction=0.1) as cluster:
        assert budgets.cluster_cap(cluster.directory)[0] == pytest.approx(0.3)  # one region server x 0.3 core: the whole cluster's total
        gateway = cluster._process(cluster.gateway)
        assert budgets.threads_outside(cluster.directory, "thrift", gateway.pid) == []  # the gateway's group is under that cap
        region_server = cluster.node_processes()["rs1"]
        assert slacks(region_server.pid) == slacks(gateway.pid) == {timer_slack.BUDGETED_NS}
        site = cluster.nodes[0].conf_dir / "hbase-site.xml"
        assert "<name>hfile.block.cache.size</name><value>0.1</value>" in site.read_text()
        meter = cluster.cpu_meter()
        assert meter.nodes["thrift"][2] is not None and meter.cap is not None  # its group, and the cap's own throttling
        with meter.unbudgeted(settle=False):  # outside the measured window the cap is lifted, as the nodes' budgets are
            assert budgets.cluster_cap(cluster.directory) is None
        assert budgets.cluster_cap(cluster.directory)[0] == pytest.approx(0.3)
        cluster.set_node_cpu(0.5)  # raised in place (cgroup v1 refuses a child's quota above its parent's: the cap is lifted first)
        assert budgets.cluster_cap(cluster.directory)[0] == pytest.approx(0.5)
        cluster.set_node_cpu(0.3)

        workload = WORKLOAD.workload("baseline/c", cluster, 100, phase="offered-load", records=500, flush="yes")
        try:
            workload.setup()
            workload.load()
            table = workload.table_name
            store_files = [f for f in (cluster.directory / "data" / "data" / "default" / table).rglob("*")
                           if f.is_file() and f.parent.name == "f" and not f.name.startswith(".")]
            assert store_files, f"no store file for {table}: the load stayed in the memstore"
            assert workload.count() == 500
        finally:
            workload.cleanup()
            workload.close_process()
    assert budgets.leftover_groups() == []
