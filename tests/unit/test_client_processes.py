"""processes="auto": a point's client threads are spread over as many client processes as help (no more
than one per core, none holding more than it drives well), exactly, and the row says what was used."""

from __future__ import annotations

import pytest

from fakes import CountingWorkload, sweep
from labkit.clusters.base import ClusterInfo
from labkit.errors import ConfigError
from labkit.sweeps import SweepPlan
from labkit.runner import RunOptions, cpu, run


@pytest.fixture
def cores(monkeypatch):
    def set_cores(n: int) -> None:
        monkeypatch.setattr(cpu, "cores_available", lambda: n)
    return set_cores


def test_auto_uses_one_process_until_one_is_not_enough_and_never_more_than_the_cores(cores):
    cores(2)
    assert cpu.auto_processes(1, "greenlets") == 1
    assert cpu.auto_processes(64, "greenlets") == 1
    assert cpu.auto_processes(65, "greenlets") == 2
    assert cpu.auto_processes(500, "greenlets") == 2  # no third process on two cores
    assert cpu.auto_processes(16, "threads") == 1
    assert cpu.auto_processes(17, "threads") == 2
    cores(8)
    assert cpu.auto_processes(100, "threads") == 7
    assert cpu.auto_processes(100, "threads", max_processes=1) == 1  # the workload keeps its checks in one process
    assert cpu.auto_processes(3, "threads") == 1


def test_auto_layout_and_a_fixed_count_both_spread_the_threads_in_all(cores):
    cores(4)
    assert cpu.client_layout(65, "auto", "greenlets") == [33, 32]
    assert cpu.client_layout(50, "auto", "threads") == [13, 13, 12, 12]
    assert cpu.client_layout(5, 3, "threads") == [2, 2, 1]


def test_an_auto_run_divides_exactly_over_uneven_processes_and_records_them(cores):
    cores(2)
    w = CountingWorkload()
    r = run(w, threads=17, operations=170, options=RunOptions(processes="auto", workers="threads", verify=False))
    assert (r.threads, r.processes, r.threads_per_process) == (17, 2, [9, 8])
    assert r.count == 170 and r.complete
    assert sum(p.transactions.count for p in r.parts) == 170
    assert [p.transactions.count for p in r.parts] == [90, 80]  # 10 transactions for each of the 17 workers
    row = r.to_row()
    assert (row["threads"], row["processes"], row["threads_per_process"]) == (17, 2, "9/8")


def test_auto_keeps_a_workload_that_checks_in_memory_in_one_process(cores):
    cores(4)
    w = CountingWorkload()
    w.max_processes = 1
    r = run(w, threads=40, operations=80, options=RunOptions(processes="auto", workers="threads"))
    assert (r.threads, r.processes, r.threads_per_process) == (40, 1, [40])
    assert r.verification.checks["transactions"] == 80


def test_a_fixed_count_above_a_workloads_max_processes_is_refused_before_setup():
    w = CountingWorkload()
    w.max_processes = 1
    with pytest.raises(ConfigError, match="max_processes=1\\): run it with processes=1 or processes='auto'"):
        run(w, threads=2, operations=10, options=RunOptions(processes=2))
    assert w.phases == []  # refused before setup touched anything


def test_threads_are_counted_in_all_over_a_fixed_process_count():
    r = run(CountingWorkload(), threads=4, operations=40, options=RunOptions(processes=2))
    assert (r.threads, r.processes, r.threads_per_process) == (4, 2, [2, 2])
    r = run(CountingWorkload(), threads=5, operations=40, options=RunOptions(processes=2))
    assert (r.threads, r.processes, r.threads_per_process, r.count) == (5, 2, [3, 2], 40)
    with pytest.raises(ConfigError, match="1 client threads cannot keep 2 client processes busy"):
        run(CountingWorkload(), threads=1, operations=40, options=RunOptions(processes=2))


def test_sweep_rows_give_threads_in_all_and_the_processes_auto_chose(cores):
    cores(2)
    plan = SweepPlan(pattern="p", approaches=["naive"], threads=[4, 17], operations=68, run_options={"workers": "threads"})
    assert plan.processes == "auto"
    rows = list(sweep(plan, cluster_for=lambda n: ClusterInfo(engine="cassandra", server_version="5.0.9", provider="local", nodes=n),
                      workload_for=lambda a, c: CountingWorkload()))
    assert [(r["threads"], r["processes"], r["threads_per_process"], r["count"]) for r in rows] == [(4, 1, "4", 68), (17, 2, "9/8", 68)]


def test_a_fixed_process_count_must_divide_each_thread_count():
    with pytest.raises(ConfigError, match="6 client threads do not divide evenly over 4 processes"):
        SweepPlan(pattern="p", approaches=["naive"], threads=[4, 6], operations=10, processes=4)


@pytest.mark.parametrize("bad", [0, -1, "many", 1.5])
def test_bad_process_counts_say_what_to_pass(bad):
    with pytest.raises(ConfigError, match="processes"):
        run(CountingWorkload(), threads=1, operations=1, options=RunOptions(processes=bad))
