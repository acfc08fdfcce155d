"""What limited a run: the `limit` column's rules, on fake workloads and fake server readings."""

import time

import pytest

from labkit.runner import BaseWorkload, RunOptions, Watch, run
from labkit.runner.limits import limit_of
from labkit.runner.server_cpu import MeterWithoutBudgets, NodeCpu, ServerCpu


class BurnClientCpu(BaseWorkload):
    """Pure Python work: nothing but the client can be the limit."""

    name = "burn"

    def transaction(self, tx):
        deadline = time.process_time() + 0.002
        while time.process_time() < deadline:
            pass


class ManyThreadsShortWaits(BaseWorkload):
    """Python work between short waits, as a driver call does: many threads queue for the GIL."""

    name = "gil"

    def transaction(self, tx):
        total = 0
        for i in range(3000):
            total += i
        time.sleep(0.0002)


class FakeMeter(MeterWithoutBudgets):
    """A server meter that reports node2 pinned at its 0.15-core budget."""

    def __init__(self):
        self.lifted = False

    def start(self):
        self.t0 = time.monotonic()

    def stop(self):
        wall = time.monotonic() - self.t0
        return ServerCpu(wall, {"node1": NodeCpu(0.05 * wall, 0.15), "node2": NodeCpu(0.149 * wall, 0.15)})


def test_a_workload_that_only_burns_client_cpu_is_client_limited():
    r = run(BurnClientCpu(), threads=2, operations=300)
    assert r.limit == "client"
    assert r.to_row()["limit"] == "client"


def test_a_gil_bound_many_thread_run_is_client_limited():
    r = run(ManyThreadsShortWaits(), threads=16, operations=3000, options=RunOptions(workers="threads"))
    assert r.limit == "client", (r.client_cpu_cores, r.client_gil_wait_ms, r.limit_note)


def test_a_waiting_client_with_a_node_at_its_budget_is_server_limited():
    class Waits(BaseWorkload):
        name = "waits"

        def transaction(self, tx):
            time.sleep(0.005)

    r = run(Waits(), threads=2, operations=200, watch=Watch(server_meter=FakeMeter()))
    assert r.limit == "server node2", (r.limit, r.limit_note, r.client_gil_wait_ms)
    row = r.to_row()
    assert row["node_busy_max"] >= 0.9
    assert row["server_cpu_ms_per_tx"] > row["server_cpu_ms_per_tx_node2"] > row["server_cpu_ms_per_tx_node1"] > 0


def test_rules_in_order():
    busy = ServerCpu(10.0, {"node1": NodeCpu(1.45, 0.15)})
    idle = ServerCpu(10.0, {"node1": NodeCpu(0.2, 0.15)})
    unbudgeted = ServerCpu(10.0, {"node1": NodeCpu(9.0, None)})
    common = dict(gil_wait_ms=0.2, transaction_ms=5.0)
    assert limit_of(client_saturated=True, gil_wait_ms=0.1, transaction_ms=5.0, server=busy, machine_busy=1.0)[0] == "client"
    # the measured case: 3.4 ms of lock wait on 8 ms transactions is the client's doing ...
    assert limit_of(client_saturated=False, gil_wait_ms=3.4, transaction_ms=8.0, server=busy, machine_busy=0.5)[0] == "client"
    # ... 1.8 ms on 78 ms transactions (a budgeted cluster's pages) is not
    assert limit_of(client_saturated=False, gil_wait_ms=1.8, transaction_ms=78.0, server=busy, machine_busy=0.5)[0] == "server node1"
    assert limit_of(client_saturated=False, gil_wait_ms=0.5, transaction_ms=2.0, server=busy, machine_busy=0.5)[0] == "server node1"
    assert limit_of(client_saturated=False, gil_wait_ms=3.4, transaction_ms=None, server=idle, machine_busy=0.5)[0] == "none"
    assert limit_of(client_saturated=False, server=busy, machine_busy=0.95, **common)[0] == "server node1"
    assert limit_of(client_saturated=False, server=idle, machine_busy=0.95, **common)[0] == "machine"
    assert limit_of(client_saturated=False, server=idle, machine_busy=0.5, **common)[0] == "none"
    assert limit_of(client_saturated=False, server=unbudgeted, machine_busy=0.95, **common)[0] == "machine"
    assert limit_of(client_saturated=False, server=None, machine_busy=0.5, **common)[0] == "none"
    assert busy.per_transaction_ms(100) == {"total": 14.5, "node1": 14.5}


def test_a_paced_run_short_of_its_target_with_every_request_in_flight_names_the_client_in_flight_cap():
    from labkit.results.figures import limit_kind

    idle = ServerCpu(10.0, {"node1": NodeCpu(0.2, None)})
    common = dict(client_saturated=False, gil_wait_ms=0.2, server=idle, machine_busy=0.5, threads=64)
    # YCSB A offered 3,200/s, 64 in flight at 20 ms: at most 3,200/s; it made 2,950/s
    limit, note = limit_of(transaction_ms=20.0, throughput=2950.0, target_rate=3600.0, **common)
    assert limit == "client-inflight" and "3,200 transactions/s" in note and "raise the threads" in note
    assert limit_kind(limit) == "client"
    assert limit_of(transaction_ms=20.0, throughput=3100.0, target_rate=3200.0, **common)[0] == "none"  # it kept up (within 10%)
    assert limit_of(transaction_ms=40.0, throughput=800.0, target_rate=3200.0, **common)[0] == "none"  # slots were idle: not the cap
    assert limit_of(transaction_ms=20.0, throughput=2950.0, target_rate=None, **common)[0] == "none"  # a closed loop is always at its cap
    busy = ServerCpu(10.0, {"node1": NodeCpu(1.45, 0.15)})
    assert limit_of(**{**common, "server": busy}, transaction_ms=20.0, throughput=2950.0, target_rate=3600.0)[0] == "server node1"


@pytest.mark.full  # full tier: loads the machine for 15 s
def test_the_lock_probe_does_not_count_waiting_for_a_busy_machine_as_waiting_for_the_lock():
    """With every core taken by other processes the probe wakes late because no core is free; the
    kernel's run-queue delay takes that out, so only the interpreter lock's share is left."""
    import multiprocessing as mp

    from labkit.runner.gil_probe import GilProbe, run_queue_delay_s

    import threading

    if run_queue_delay_s(threading.get_native_id()) is None:
        import pytest

        pytest.skip("this kernel does not report per-thread run-queue delay")
    ctx = mp.get_context("spawn")
    hogs = [ctx.Process(target=_burn, args=(3.0,), daemon=True) for _ in range(3 * (mp.cpu_count() or 1))]
    for h in hogs:
        h.start()
    try:
        time.sleep(0.5)
        probe = GilProbe().start()
        time.sleep(1.5)
        lock_wait = probe.stop()
    finally:
        for h in hogs:
            h.join(timeout=5)
            if h.is_alive():
                h.kill()
    assert probe.run_queue_ms is not None and probe.run_queue_ms > 0
    assert lock_wait is not None and lock_wait < 1.0  # GIL_WAIT_MS: a busy machine alone never reads as the client


def _burn(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_budgets_on_a_machine_without_cgroups_say_what_works_instead(monkeypatch, tmp_path):
    import sys

    import pytest

    from labkit.clusters.local import budgets
    from labkit.clusters.local.cassandra import LocalCassandraCluster
    from labkit.errors import ConfigError, NotAvailableError

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LABKIT_CGROUP_CPU_ROOT", str(tmp_path / "no-cgroups-here"))
    monkeypatch.delenv("LABKIT_BUDGETS", raising=False)
    assert not budgets.cgroups_writable() and budgets.detect()[0].version == "signals"  # Linux: the signal helper instead
    LocalCassandraCluster(nodes=1, node_cpu=0.15)
    with monkeypatch.context() as darwin:  # neither control groups nor /proc: say what works instead
        darwin.setattr(sys, "platform", "darwin")
        with pytest.raises(NotAvailableError, match="run as root.*compose provider"):
            LocalCassandraCluster(nodes=1, node_cpu=0.15)
    with pytest.raises(ConfigError, match="cores"):
        LocalCassandraCluster(nodes=1, node_cpu=0)
    LocalCassandraCluster(nodes=1)  # no budget asked: nothing to refuse


def test_a_plan_that_crowds_one_client_process_says_so_before_running(monkeypatch):
    import importlib

    plan_module = importlib.import_module("labkit.sweeps.plan")
    from fakes import sweep
    from labkit.sweeps import SweepPlan

    def plan(threads, processes, workers="threads"):
        return SweepPlan(pattern="p", approaches=["naive"], threads=threads, operations=1000, processes=processes,
                         run_options={"workers": workers})

    def cores(n):  # what the sweep reads, and what auto_processes reads
        monkeypatch.setattr(plan_module, "cores_available", lambda: n)
        monkeypatch.setattr(importlib.import_module("labkit.runner.cpu"), "cores_available", lambda: n)

    cores(4)
    assert plan([4, 16], 1).client_advice() is None
    advice = plan([8, 48], 1).client_advice()
    assert "48 client threads over 1 process(es) is 48 per process" in advice and "processes=3" in advice
    assert "processes=4" in plan([128], 2).client_advice()
    assert plan([8, 48], 1, "greenlets").client_advice() is None  # one thread carries many greenlets
    assert "96 per process" in plan([96], 1, "greenlets").client_advice()
    assert plan([96], "auto", "greenlets").client_advice() is None  # auto: two processes of 48
    assert plan([48], "auto").client_advice() is None  # auto: three processes of 16 threads
    cores(2)
    assert "would not help" in plan([96], 2).client_advice()
    assert "would not help" in plan([96], "auto").client_advice()
    echoed = []
    list(sweep(plan([96], 2), cluster_for=lambda n: None, workload_for=None, echo=echoed.append, cancel=_set_event()))
    assert echoed and "would not help" in echoed[0]


def _set_event():
    import threading

    event = threading.Event()
    event.set()
    return event


def test_cpu_per_transaction_above_the_idle_background():
    reading = ServerCpu(10.0, {"node1": NodeCpu(1.0, 0.15), "node2": NodeCpu(0.6, 0.15)}, idle_cores={"node1": 0.04, "node2": 0.04})
    assert reading.per_transaction_ms(100)["total"] == 16.0
    assert abs(reading.net_per_transaction_ms(100) - 8.0) < 1e-9  # 1.6 s used, 0.8 s of it idle background
    assert ServerCpu(10.0, {"node1": NodeCpu(1.0, 0.15)}).net_per_transaction_ms(100) is None  # no idle reading: no guess
    assert ServerCpu(10.0, {"node1": NodeCpu(0.1, 0.15)}, idle_cores={"node1": 0.05}).net_per_transaction_ms(100) == 0.0


def test_the_machine_cpu_no_process_accounts_for_is_named():
    from fakes import CountingWorkload, sweep
    from labkit.runner import run

    class Meter(MeterWithoutBudgets):
        def start(self):
            pass

        def stop(self):
            return ServerCpu(1.0, {"node1": NodeCpu(0.3, None)})

    for processes in (1, 2):
        row = run(CountingWorkload(sleep_s=0.002), threads=2, operations=200,
            options=RunOptions(processes=processes),
            watch=Watch(server_meter=Meter())).to_row()
        for column in ("machine_cpu_cores", "kernel_interrupt_cores", "coordinator_cpu_cores", "server_cpu_cores", "machine_cpu_other_cores"):
            assert row[column] is not None, column
        assert row["server_cpu_cores"] == 0.3 and row["kernel_interrupt_cores"] >= 0 and row["coordinator_cpu_cores"] >= 0
        explained = row["client_cpu_cores"] + row["server_cpu_cores"] + row["kernel_interrupt_cores"] + row["coordinator_cpu_cores"]
        assert row["machine_cpu_other_cores"] == pytest.approx(row["machine_cpu_cores"] - explained, abs=0.01)


def test_a_node_at_its_budget_is_named_with_its_wake_ups_and_the_row_carries_them():
    """A budget filled by an idle pool's wait-spin looks like one filled by serving; the wake-ups tell them apart."""
    spinning = ServerCpu(10.0, {"node1": NodeCpu(1.45, 0.15, wakeups=160_000)})
    limit, note = limit_of(client_saturated=False, gil_wait_ms=None, transaction_ms=2.0, server=spinning, machine_busy=0.5)
    assert limit == "server node1"
    assert "16,000 times/s" in note, note
    assert spinning.wakeups_per_s() == 16_000
    assert ServerCpu(10.0, {"node1": NodeCpu(1.45, 0.15)}).wakeups_per_s() is None  # not read: no figure, not zero
