"""Client processes on Dask workers (runner.remote): --clients parsing, the refusals, per-host CPU and rows, and a
LocalCluster of 2 workers running a fake workload (the runner only; tests/integration drives a real cluster)."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.runner.remote import check_reachable, parse_clients, version_mismatches


def test_local_and_dask_forms_parse():
    assert parse_clients("local:2").local_workers == 2
    assert parse_clients("dask://10.0.0.5:8786").address == "tcp://10.0.0.5:8786"


@pytest.mark.parametrize("text", ["local:0", "local:x", "dask://nohost", "dask://:8786", "tcp://h:1", ""])
def test_bad_forms_say_what_is_expected(text):
    with pytest.raises(ConfigError, match="local:|dask://"):
        parse_clients(text)


def test_version_mismatches_list_both_sides():
    lines = version_mismatches({"labkit": "0.1.0", "python": "3.11.7"}, {"tcp://h2:1": {"labkit": "0.0.9", "python": "3.11.7"},
                                                                         "tcp://h3:1": {"labkit": "0.1.0", "python": "3.11.7"}})
    assert lines == ["tcp://h2:1: labkit 0.1.0 here, 0.0.9 there"]


def test_a_loopback_cluster_is_refused_with_workers_elsewhere(monkeypatch):
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "laptop")
    with pytest.raises(ConfigError, match="cannot reach"):
        check_reachable(["127.0.0.1"], {"tcp://10.0.0.7:4032": "host2"})
    check_reachable(["127.0.0.1"], {"tcp://127.0.0.1:4032": "laptop"})
    check_reachable(["10.0.0.9"], {"tcp://10.0.0.7:4032": "host2"})


@pytest.mark.full  # full tier: a slow unit test (4.6 s of make test's unit run on 2026-12-03)
@pytest.mark.timeout(120)
def test_two_dask_workers_run_the_exact_operations_and_merge_exactly():
    """A LocalCluster of 2 worker processes, each one client process of the run (a fake workload: the runner only)."""
    from fakes import CountingWorkload

    from labkit.runner import RunOptions, run
    from labkit.runner.remote import check_workers, connected

    with connected(parse_clients("local:2")) as client:
        assert len(check_workers(client)) == 2
        r = run(CountingWorkload(sleep_s=0.001), threads=8, operations=2000, options=RunOptions(processes=2, clients=client, verify=False))
    assert r.complete and r.stats.count == 2000 and r.stats.errors == 0
    assert r.processes == 2 and sum(part.transactions.histogram.get_total_count() for part in r.parts) == r.measurements.transactions.histogram.get_total_count() == 2000
    assert sum(n for _, n, _ in r.client_hosts) == 2 and r.client_problems == []
    assert r.client_barrier_slack_s is not None and r.client_barrier_slack_s >= 0  # no process released before the last one was ready


def test_each_host_is_held_to_its_own_cores_and_a_full_one_is_named():
    from labkit.runner.measurements import Measurements
    from labkit.runner.pool import PoolOutcome
    from labkit.runner.remote import host_saturation, host_use

    def used(cpu_s):
        return PoolOutcome(Measurements(), 0.0, 10.0, cpu_s, 100)

    uses = host_use([used(9.8), used(3.0), used(2.0)], ["h1", "h2", "h2"], {"h1": 8, "h2": 8}, wall_s=10.0)
    assert [(u.host, u.processes, round(u.cores_used, 2), u.cores_available) for u in uses] == [("h1", 1, 0.98, 1), ("h2", 2, 0.5, 2)]
    saturated, limit, note = host_saturation(uses)
    assert saturated and limit == "client h1" and "h1" in note
    assert host_saturation(host_use([used(2.0)], ["h2"], {"h2": 8}, wall_s=10.0)) == (False, "", "")


def test_rows_of_a_dask_run_say_where_the_clients_ran():
    from labkit.runner.result import RunResult

    r = RunResult(workload="w", complete=True, threads=4, processes=2, operations=10, warmup=0, target_rate=None, wall_s=1.0,
                  stats=_empty_stats(), ops={}, client_cpu_cores=0.5, client_cores_available=2,
                  client_saturated=False, saturation_note="", machine_cpu_busy=None, verification=None,
                  client_hosts=[("h1", 1, 0.25), ("h2", 1, 0.3)], client_problems=["client process 1 on h2: its Dask worker was lost (error)"])
    row = r.to_row()
    assert row["client_hosts"] == "h1 x1, h2 x1" and row["client_host_cpu_cores"] == "h1 0.25, h2 0.30"
    assert "on h2" in row["client_problems"]


def _empty_stats():
    from labkit.runner.measurements import Measurements
    from labkit.runner.result import LatencyStats

    return LatencyStats.of(Measurements().transactions)


def test_a_sweep_refuses_a_bad_clients_form_when_it_is_made():
    from labkit.catalogue import describe
    from labkit.sweeps import SweepPlan, SweepRequest, resolve

    plan = SweepPlan(pattern="index-table", approaches=["pattern"], threads=[2], operations=10)
    with pytest.raises(ConfigError, match="dask://HOST:PORT"):
        resolve(SweepRequest(describe("index-table"), plan, phase="login", clients="tcp://10.0.0.5:8786"))


def test_an_unreachable_scheduler_is_refused_before_any_cluster_starts(monkeypatch):
    from labkit.clusters.slot import ClusterSlot
    from labkit.catalogue import describe
    from labkit.sweeps import SweepPlan, SweepRequest, run_sweep
    from labkit.runner import remote

    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was asked for before the scheduler was reached")

    monkeypatch.setattr(ClusterSlot, "ensure", no_cluster)
    monkeypatch.setattr(remote, "CONNECT_TIMEOUT_S", 1)
    plan = SweepPlan(pattern="index-table", approaches=["pattern"], threads=[2], operations=10)
    request = SweepRequest(describe("index-table"), plan, phase="login", clients="dask://127.0.0.1:9")  # port 9 (discard): nothing listens
    with pytest.raises(ConfigError, match="cannot reach the Dask scheduler at dask://127.0.0.1:9"):
        run_sweep(request, echo=lambda line: None)


def test_the_cli_says_what_a_clients_value_should_look_like(tmp_path):
    from typer.testing import CliRunner

    from labkit.cli import app

    result = CliRunner().invoke(app, ["run", "index-table", "--phase", "login", "--clients", "local:0", "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 2 and "local:" in result.output and "at least 1" in result.output


def test_the_panel_hands_its_clients_to_the_sweep_whose_auto_processes_become_one_per_worker():
    from labkit.clusters.slot import ClusterSlot
    from labkit.catalogue import describe
    from labkit.sweeps import request_for
    from labkit.widgets import ControlPanel

    pattern = describe("index-table")
    panel = ControlPanel(request_for(pattern, phase="login", clients="local:2"), slot=ClusterSlot.for_engine("cassandra", "local"))
    chosen = panel.sweep()
    assert chosen.clients is not None and chosen.clients.local_workers == 2 and chosen.plan.processes == "auto"
    with pytest.raises(ConfigError, match="local:"):
        ControlPanel(request_for(pattern, phase="login", clients="local:"), slot=ClusterSlot.for_engine("cassandra", "local")).sweep()


@pytest.mark.timeout(120)
def test_the_students_namespace_travels_inside_the_workload_not_from_a_workers_environment():
    import os

    from labkit.namespace import ENV, namespaced
    from labkit.patterns.index_table.cassandra import IndexTable
    from labkit.runner.remote import connected

    workload = IndexTable(["127.0.0.1"], "pattern", "login", users=10)
    workload.namespace = "s07"
    with connected(parse_clients("local:1")) as client:
        client.run(os.environ.__setitem__, ENV, "someone-else")  # a worker started by another user's shell
        there = client.submit(lambda w: w.keyspace, workload, pure=False).result()
    assert there == namespaced(workload.base_keyspace, "s07") != namespaced(workload.base_keyspace, "someone-else")


def test_a_workload_that_checks_what_one_process_remembers_is_refused_on_dask_workers():
    from fakes import CountingWorkload

    from labkit.runner import RunOptions, run

    workload = CountingWorkload()
    workload.max_processes = 1
    with pytest.raises(ConfigError, match="without --clients"):
        run(workload, threads=2, operations=10, options=RunOptions(clients=object()))  # refused before any task is sent
