"""Runner semantics: exact division, barrier start, pacing, histograms, processes, cancellation."""

from __future__ import annotations

import threading
import time

import pytest

from fakes import CountingWorkload, NoopWorkload
from labkit.errors import ConfigError, LabkitError
from labkit.runner import BaseWorkload, RetryPolicy, RunOptions, Watch, run, split_evenly

WORKERS = pytest.mark.parametrize("workers", ["threads", "greenlets"])
"""Every runner guarantee holds for both ways of keeping transactions in flight."""


@pytest.mark.parametrize("total,parts", [(1000, 7), (10, 3), (5, 8), (1, 1), (100, 100)])
def test_split_evenly_is_exact_and_fair(total, parts):
    shares = split_evenly(total, parts)
    assert len(shares) == parts
    assert sum(shares) == total
    assert max(shares) - min(shares) <= 1


@WORKERS
def test_thousand_over_seven_threads_runs_exactly_the_shares(workers):
    w = CountingWorkload()
    r = run(w, threads=7, operations=1000, options=RunOptions(workers=workers))
    assert r.complete and r.count == 1000 and r.errors == 0
    assert sorted(w.per_worker.values()) == [142] + [143] * 6
    assert r.ops["noop"].count == 1000
    assert r.verification is not None and r.verification.ok


def test_phases_run_in_order_and_can_be_skipped():
    w = CountingWorkload()
    run(w, threads=2, operations=10, options=RunOptions(cleanup=True))
    assert w.phases == ["setup", "load", "verify", "cleanup"]
    w2 = CountingWorkload()
    run(w2, threads=2, operations=10, options=RunOptions(setup=False, load=False, verify=False))
    assert w2.phases == []


class SlowLoad(CountingWorkload):
    def load(self):
        time.sleep(0.2)
        super().load()


def test_the_load_phase_is_timed_and_a_run_without_one_says_none():
    """document 004 times YCSB's load phase on each engine: a run that loads says how long it took."""
    loaded = run(SlowLoad(), threads=2, operations=10)
    assert 0.2 <= loaded.load_s < 2.0 and loaded.to_row()["load_s"] == round(loaded.load_s, 3)
    assert run(SlowLoad(), threads=2, operations=10, options=RunOptions(load=False)).to_row()["load_s"] is None


class SlowWarmup(CountingWorkload):
    """Worker 0's single warm-up transaction takes 0.3 s; nobody may start measuring before it ends."""

    def transaction(self, tx):
        if tx.seq < 0 and tx.worker == 0:
            time.sleep(0.3)
            self.warm_done = time.monotonic()
        super().transaction(tx)


@WORKERS
def test_barrier_releases_all_workers_together_after_warmup(workers):
    w = SlowWarmup()
    r = run(w, threads=4, operations=40, options=RunOptions(workers=workers, warmup=4))
    assert r.count == 40
    starts = list(w.first_start.values())
    assert len(starts) == 4
    assert min(starts) >= w.warm_done  # nobody started before the slowest warm-up finished
    assert max(starts) - min(starts) < 0.05  # released together
    assert r.wall_s < 0.3  # the warm-up is not in the measured window


@WORKERS
def test_target_rate_is_kept_within_ten_percent(workers):
    r = run(CountingWorkload(), threads=4, operations=300, options=RunOptions(workers=workers, target_rate=200))
    assert r.count == 300
    assert r.throughput == pytest.approx(200, rel=0.10)


def test_two_millisecond_transactions_give_p50_near_two_ms():
    r = run(CountingWorkload(sleep_s=0.002), threads=2, operations=200)
    assert 1900 <= r.stats.p50_us <= 2600
    assert 1900 <= r.ops["noop"].p50_us <= 2600
    assert r.stats.p50_us <= r.stats.p95_us <= r.stats.p99_us <= r.stats.max_us
    assert r.stats.mean_us == pytest.approx(r.measurements.transactions.sum_us / 200)


@WORKERS
def test_processes_merge_exactly_to_the_sum_of_their_parts(workers):
    r = run(CountingWorkload(sleep_s=0.0005), threads=2, operations=101, options=RunOptions(workers=workers, processes=2))
    assert r.complete and r.count == 101 and len(r.parts) == 2
    assert sorted(p.transactions.count for p in r.parts) == [50, 51]
    assert sum(p.op("noop").count for p in r.parts) == r.ops["noop"].count == 101
    assert sum(p.transactions.sum_us for p in r.parts) == r.measurements.transactions.sum_us
    from hdrh.histogram import HdrHistogram

    rebuilt = HdrHistogram(1, 3_600_000_000, 3)
    for p in r.parts:
        rebuilt.add(p.transactions.histogram)
    for q in (50, 95, 99, 100):
        assert rebuilt.get_value_at_percentile(q) == r.measurements.transactions.histogram.get_value_at_percentile(q)


@WORKERS
def test_cancellation_returns_partial_result_promptly(workers):
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    t0 = time.monotonic()
    r = run(CountingWorkload(sleep_s=0.01), threads=2, operations=10_000, options=RunOptions(workers=workers), watch=Watch(cancel=cancel))
    assert time.monotonic() - t0 < 1.5
    assert not r.complete
    assert 0 < r.count < 10_000
    assert r.verification is None  # a partial run is not verified


@WORKERS
def test_cancellation_stops_a_paced_run_waiting_for_its_turn(workers):
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    t0 = time.monotonic()
    r = run(CountingWorkload(), threads=1, operations=100, options=RunOptions(workers=workers, target_rate=1), watch=Watch(cancel=cancel))
    assert time.monotonic() - t0 < 1.0
    assert not r.complete and r.count == 1


@WORKERS
def test_cancellation_of_processes_returns_partial_result(workers):
    cancel = threading.Event()
    # cancel once transactions are being measured (spawning processes can take seconds on a busy machine)
    r = run(CountingWorkload(sleep_s=0.01), threads=2, operations=100_000,
        options=RunOptions(workers=workers, processes=2),
        watch=Watch(cancel=cancel, progress=lambda done, _total: cancel.set() if done > 0 else None))
    assert not r.complete and 0 < r.count < 100_000


@WORKERS
def test_keyboard_interrupt_returns_partial_result(workers):
    ticks = []

    def progress(done, total):
        ticks.append(done)
        if len(ticks) == 3:
            raise KeyboardInterrupt  # what Ctrl-C does in the thread that called run()

    r = run(CountingWorkload(sleep_s=0.01), threads=2, operations=10_000, options=RunOptions(workers=workers), watch=Watch(progress=progress))
    assert not r.complete and 0 < r.count < 10_000


@WORKERS
def test_progress_reports_reach_the_total(workers):
    seen = []
    run(CountingWorkload(sleep_s=0.001), threads=2, operations=300,
        options=RunOptions(workers=workers),
        watch=Watch(progress=lambda d, t: seen.append((d, t))))
    assert seen[-1] == (300, 300)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


class Failing(BaseWorkload):
    name = "failing"

    def transaction(self, tx):
        tx.call("write", self._boom)

    def _boom(self):
        raise ConnectionError("node down")


@WORKERS
def test_failed_transactions_are_counted_with_their_cause(workers):
    r = run(Failing(), threads=2, operations=20,
        options=RunOptions(workers=workers, retry=RetryPolicy(max_tries=2, initial_backoff=0, max_backoff=0)))
    assert r.count == 0 and r.errors == 20
    assert r.ops["write"].errors == 20 and r.ops["write"].retries == 20
    assert r.error_kinds == {"ConnectionError": 20}
    assert "node down" in r.error_samples["ConnectionError"]
    assert r.complete  # every transaction was attempted


class Crashing(BaseWorkload):
    def transaction(self, tx):
        raise SystemExit("workload bug")


@WORKERS
def test_a_worker_crash_is_reported_not_hidden(workers):
    with pytest.raises(LabkitError, match="workload bug"):
        run(Crashing(), threads=3, operations=30, options=RunOptions(workers=workers))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(threads=0, operations=10), "threads must be at least 1"),
        (dict(threads=-3, operations=10), "threads must be at least 1"),
        (dict(threads=2.5, operations=10), "threads must be a whole number"),
        (dict(threads=1, operations=0), "operations must be at least 1"),
        (dict(threads=1, operations=10, options=RunOptions(processes=0)), "processes must be at least 1"),
        (dict(threads=1, operations=10, options=RunOptions(target_rate=-5)), "target_rate must be a positive number"),
        (dict(threads=1, operations=10, options=RunOptions(target_rate=0)), "target_rate must be a positive number"),
        (dict(threads=1, operations=10, options=RunOptions(warmup=-1)), "warmup must be at least 0"),
        (dict(threads=1, operations=10, options=RunOptions(workers="fibers")), "workers must be 'threads'.*or 'greenlets'"),
    ],
)
def test_bad_arguments_say_what_to_do(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        run(NoopWorkload(), **kwargs)


def test_something_that_is_not_a_workload_is_rejected():
    with pytest.raises(ConfigError, match="needs a transaction"):
        run(object(), threads=1, operations=1)


def test_saturation_rule_counts_one_core_per_python_process(monkeypatch):
    from labkit.runner import cpu
    from labkit.runner.cpu import saturation

    monkeypatch.setattr(cpu, "cores_available", lambda: 2)

    used, available, saturated, note = saturation([0.95], 1.0, processes=1)
    assert (used, available, saturated) == (0.95, 1, True) and "client" in note
    assert saturation([0.5], 1.0, processes=1)[2] is False
    assert saturation([0.95, 0.2], 1.0, processes=2)[2] is False  # 1.15 of 2 usable cores
    assert saturation([0.0], 0.0, processes=1)[2] is False


def test_noop_run_reports_its_client_cpu_and_applies_the_rule():
    r = run(NoopWorkload(), threads=1, operations=200_000)
    assert r.client_cpu_cores > 0.3  # a no-op loop does nothing but use the client's CPU
    assert r.client_saturated == (r.client_cpu_cores >= 0.9 * r.client_cores_available)
    assert r.to_row()["client_saturated"] is r.client_saturated


def test_sleeping_client_is_not_called_saturated():
    r = run(CountingWorkload(sleep_s=0.005), threads=2, operations=100)
    assert not r.client_saturated


def test_row_is_flat_and_names_each_operation():
    r = run(CountingWorkload(), threads=2, operations=10)
    row = r.to_row()
    assert row["count"] == 10 and row["noop_count"] == 10 and row["threads"] == 2
    assert all(not isinstance(v, (dict, list)) for v in row.values())


def test_open_process_runs_before_the_measured_transactions():
    from fakes import HookedWorkload

    w = HookedWorkload()
    run(w, threads=2, operations=10, options=RunOptions(warmup=2))
    assert w.phases[:3] == ["setup", "load", "open_process"]
    assert w.phases.index("open_process") < w.phases.index("measuring") < w.phases.index("verify")
    assert "close_process" not in w.phases  # the caller (sweep) closes after verify/cleanup


class CountedByServer(CountingWorkload):
    """A server that reports a cumulative counter: one 'conflict' per transaction, plus 5 from before."""

    def __init__(self, reports: bool = True):
        super().__init__()
        self.reports = reports

    def server_counters(self):
        if not self.reports:
            return None
        with self._lock:
            return {"conflicts": 5 + sum(self.per_worker.values())}


def test_server_counters_report_their_growth_during_the_run_only():
    r = run(CountedByServer(), threads=3, operations=30, options=RunOptions(warmup=0))
    assert r.server == {"conflicts": 30}
    assert r.to_row()["server_counter_conflicts"] == 30


def test_a_server_without_counters_adds_no_columns():
    r = run(CountedByServer(reports=False), threads=2, operations=10)
    assert r.server == {} and not any(k.startswith("server_counter_") for k in r.to_row())
