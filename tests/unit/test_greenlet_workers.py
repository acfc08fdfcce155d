"""Greenlet workers (runner.tasks): many calls in flight in one thread through a driver's asynchronous
form, the same workload code, and latency from the intended start for paced runs. The server here is a
fake that replies from a timer thread, as a driver's IO thread does; unit tests only."""

from __future__ import annotations

import threading
import time

import pytest

from labkit.runner import BaseWorkload, RetryPolicy, RunOptions, Watch, run
from labkit.runner.tasks import register_async_form


class FakeAsyncServer:
    """`execute(key)` blocks for `delay` s; its asynchronous form replies after `delay` from another thread.
    Counts how many requests were outstanding at once, and can stall one request or fail first tries."""

    def __init__(self, delay: float = 0.005, stall_at: int | None = None, stall_s: float = 0.0, fail_first: int = 0):
        self.delay = delay
        self.stall_at = stall_at
        self.stall_s = stall_s
        self.fail_first = fail_first
        self.started = 0
        self.outstanding = 0
        self.most_outstanding = 0
        self.blocking_calls = 0
        self._lock = threading.Lock()

    def execute(self, key: int) -> int:
        with self._lock:
            self.blocking_calls += 1
            self.started += 1
            n = self.started
        time.sleep(self.delay + (self.stall_s if n == self.stall_at else 0.0))
        if n <= self.fail_first:
            raise ConnectionError(f"request {n} refused")
        return key * 2

    def start(self, key: int, on_result, on_error) -> None:
        with self._lock:
            self.started += 1
            n = self.started
            self.outstanding += 1
            self.most_outstanding = max(self.most_outstanding, self.outstanding)
        delay = self.delay + (self.stall_s if n == self.stall_at else 0.0)

        def reply() -> None:
            with self._lock:
                self.outstanding -= 1
            if n <= self.fail_first:
                on_error(ConnectionError(f"request {n} refused"))
            else:
                on_result(key * 2)

        threading.Timer(delay, reply).start()


def _fake_async_form(fn):
    server = getattr(fn, "__self__", None)
    if isinstance(server, FakeAsyncServer) and fn.__name__ == "execute":
        return lambda args, kwargs, on_result, on_error: server.start(*args, on_result, on_error)
    return None


register_async_form(_fake_async_form)


class KeyReads(BaseWorkload):
    """Reads key (worker, seq) and checks the reply; records which thread ran each transaction."""

    name = "key-reads"

    def __init__(self, server: FakeAsyncServer):
        self.server = server
        self.seen: set[tuple[int, int]] = set()
        self.threads: set[int] = set()

    def transaction(self, tx):
        key = tx.worker * 1_000_000 + tx.seq
        assert tx.call("read", self.server.execute, key) == key * 2
        if tx.seq >= 0:
            self.seen.add((tx.worker, tx.seq))
            self.threads.add(threading.get_ident())


def test_one_thread_keeps_every_worker_in_flight_and_runs_each_share_exactly():
    server = FakeAsyncServer(delay=0.1)  # the hub issues all fifty within a reply's delay even on a loaded machine (at 0.02 s: 47 of 50 once)
    w = KeyReads(server)
    r = run(w, threads=50, operations=1003, options=RunOptions(warmup=50, workers="greenlets"))
    assert r.complete and r.count == 1003 and r.errors == 0
    assert len(w.seen) == 1003  # every (worker, seq) once: 1003 split over 50 workers, none lost or repeated
    assert sorted({seq for worker, seq in w.seen if worker == 0}) == list(range(21))  # 1003 = 3 x 21 + 47 x 20
    assert len(w.threads) == 1  # all transactions ran in the hub's one thread ...
    assert server.most_outstanding == 50  # ... with all fifty requests outstanding at once
    assert server.blocking_calls == 0  # every call took the asynchronous form
    assert r.to_row()["workers"] == "greenlets"


def test_failed_first_tries_are_retried_through_the_hub():
    server = FakeAsyncServer(delay=0.001, fail_first=5)
    r = run(KeyReads(server), threads=4, operations=40,
        options=RunOptions(workers="greenlets", retry=RetryPolicy(max_tries=3, initial_backoff=0.001, max_backoff=0.002)))
    assert r.count == 40 and r.errors == 0
    assert r.ops["read"].retries == 5


def test_a_call_without_an_asynchronous_form_still_overlaps_on_helper_threads():
    class Sleeps(BaseWorkload):
        def __init__(self):
            self.inside = 0
            self.most = 0
            self._lock = threading.Lock()

        def _wait(self):
            with self._lock:
                self.inside += 1
                self.most = max(self.most, self.inside)
            time.sleep(0.01)
            with self._lock:
                self.inside -= 1

        def transaction(self, tx):
            tx.call("wait", self._wait)

    w = Sleeps()
    r = run(w, threads=8, operations=80, options=RunOptions(workers="greenlets"))
    assert r.count == 80 and w.most == 8


@pytest.mark.full  # full tier: a slow unit test (4.0 s of make test's unit run on 2026-12-03)
def test_a_paced_run_shows_a_stall_in_latency_from_the_intended_start_not_in_service_time():
    """One request stalls 200 ms: the transactions scheduled behind it start late. Service time sees one
    slow transaction (below p99 of 400); latency from the intended start sees every late one."""
    server = FakeAsyncServer(delay=0.001, stall_at=100, stall_s=0.2)
    r = run(KeyReads(server), threads=1, operations=400, options=RunOptions(target_rate=100, workers="greenlets"))
    assert r.count == 400
    assert r.stats.p99_us < 100_000
    assert r.intended is not None and r.intended.p99_us >= 100_000
    assert r.intended.max_us >= 190_000
    row = r.to_row()
    assert row["intended_p99_us"] == r.intended.p99_us and "scheduled start" in row["latency_measured_as"]


@pytest.mark.parametrize("workers", ["threads", "greenlets"])
def test_an_unpaced_run_has_no_intended_latency(workers):
    r = run(KeyReads(FakeAsyncServer(delay=0.001)), threads=2, operations=20, options=RunOptions(workers=workers))
    assert r.intended is None and "intended_p99_us" not in r.to_row()


@pytest.mark.full  # full tier: a slow unit test (4.0 s of make test's unit run on 2026-12-03)
def test_thread_workers_record_the_intended_start_too():
    server = FakeAsyncServer(delay=0.001, stall_at=100, stall_s=0.2)
    r = run(KeyReads(server), threads=1, operations=400, options=RunOptions(target_rate=100))
    assert r.intended is not None and r.intended.p99_us >= 100_000 and r.stats.p99_us < 100_000


@pytest.mark.parametrize("workers", ["threads", "greenlets"])
def test_the_per_second_timeline_sums_to_the_run(workers):
    """A paced run of about 2.5 s: one entry per second, summing to the run's transactions and errors."""
    import json

    class SomeFail(KeyReads):
        def transaction(self, tx):
            if tx.seq % 10 == 9:
                raise ValueError("every tenth fails")
            super().transaction(tx)

    r = run(SomeFail(FakeAsyncServer(delay=0.001)), threads=2, operations=200, options=RunOptions(target_rate=80, workers=workers, processes=1))
    rows = r.timeline_rows()
    assert [x["second"] for x in rows] == list(range(len(rows))) and len(rows) >= 3  # the schedule spans 2.5 s
    assert sum(x["transactions"] for x in rows) == r.count == 180
    assert sum(x["errors"] for x in rows) == r.errors == 20
    assert all(x["p50_us"] <= x["p95_us"] <= x["p99_us"] for x in rows if x["transactions"])
    assert all(x["throughput"] is None or x["throughput"] > 0 for x in rows)
    stored = json.loads(r.to_row()["timeline"])
    assert [s[2] for s in stored] == [x["transactions"] for x in rows]


def test_the_timeline_of_two_processes_merges_second_by_second():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fakes import CountingWorkload

    r = run(CountingWorkload(sleep_s=0.002), threads=2, operations=400, options=RunOptions(processes=2, workers="greenlets"))
    assert r.complete and sum(x["transactions"] for x in r.timeline_rows()) == r.count == 400


def test_a_timeline_figure_draws_a_row_and_says_so_when_a_row_has_none():
    from labkit.errors import ConfigError
    from labkit.results import timeline_figure

    r = run(KeyReads(FakeAsyncServer(delay=0.001)), threads=2, operations=150, options=RunOptions(target_rate=100, workers="greenlets"))
    row = r.to_row() | {"pattern": "fake", "approach": "baseline", "engine": "fake", "server_version": "0", "provider": "unit-test", "nodes": 1}
    fig = timeline_figure(row, marks=[(1.0, "something changed")])
    assert sum(v for v in fig.data[0].y if v == v) > 0
    assert "unit-test" in fig.layout.title.text and "2 threads" in fig.layout.title.text
    with pytest.raises(ConfigError, match="no per-second timeline"):
        timeline_figure({"pattern": "old"})


@pytest.mark.parametrize("workers", ["threads", "greenlets"])
def test_a_worker_lock_held_across_calls_keeps_order_without_deadlock(workers):
    """Eight workers share four counters, each read-then-written under its lock with a call in between:
    no update is lost. (A threading.Lock held across tx.call would stop a greenlet hub for good.)"""
    from labkit.runner import WorkerLock

    class SharedCounters(BaseWorkload):
        def __init__(self, server):
            self.server = server
            self.counts = [0] * 4
            self.locks = [WorkerLock() for _ in range(4)]

        def transaction(self, tx):
            i = tx.rng.randrange(4)
            with self.locks[i]:
                before = self.counts[i]
                tx.call("read", self.server.execute, i)
                self.counts[i] = before + 1

    w = SharedCounters(FakeAsyncServer(delay=0.002))
    r = run(w, threads=8, operations=400, options=RunOptions(workers=workers))
    assert r.count == 400 and sum(w.counts) == 400


@pytest.mark.timeout(60)
@pytest.mark.parametrize("workers", ["threads", "greenlets"])
@pytest.mark.parametrize("when", [-1, 5])  # during the warm-up, and once measuring
def test_ctrl_c_inside_a_worker_stops_the_run_with_what_was_measured(workers, when):
    """With greenlets, Ctrl-C can land in a worker's own code (all run in the thread that takes signals)."""

    class InterruptedOnce(KeyReads):
        def transaction(self, tx):
            if tx.worker == 0 and tx.seq == when:
                raise KeyboardInterrupt
            super().transaction(tx)

    r = run(InterruptedOnce(FakeAsyncServer(delay=0.002)), threads=4, operations=4000, options=RunOptions(warmup=8, workers=workers))
    assert not r.complete and r.count < 4000
    if when >= 0:
        assert r.count > 0


@pytest.mark.timeout(60)
def test_cancelling_while_workers_wait_for_a_worker_lock_ends_the_run():
    """The lock's holder waits for a reply while the others nap for the lock; cancelling must not spin
    the hub on the nappers before it hands the holder its reply."""
    from labkit.runner import WorkerLock

    class OneLock(BaseWorkload):
        def __init__(self, server):
            self.server = server
            self.lock = WorkerLock()

        def transaction(self, tx):
            with self.lock:
                tx.call("read", self.server.execute, 1)

    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    r = run(OneLock(FakeAsyncServer(delay=0.05)), threads=8, operations=10_000, options=RunOptions(workers="greenlets"), watch=Watch(cancel=cancel))
    assert not r.complete and 0 < r.count < 10_000


def test_a_driver_call_outside_tx_call_is_named_as_the_client_limit():
    """Greenlets overlap only inside tx.call; a blocking call made directly holds every other worker."""

    class Direct(BaseWorkload):
        def transaction(self, tx):
            time.sleep(0.01)  # stands for session.execute(...) called directly

    class Through(BaseWorkload):
        def transaction(self, tx):
            tx.call("wait", time.sleep, 0.01)

    r = run(Direct(), threads=8, operations=80, options=RunOptions(workers="greenlets"))
    assert r.limit == "client" and "outside tx.call" in r.limit_note, (r.limit, r.limit_note)
    r = run(Through(), threads=8, operations=80, options=RunOptions(workers="greenlets"))
    assert "outside tx.call" not in r.limit_note
    assert run(Direct(), threads=8, operations=80, options=RunOptions(workers="threads")).limit_note.find("outside tx.call") < 0


@pytest.mark.timeout(120)
def test_a_real_ctrl_c_at_any_moment_ends_a_greenlet_run_with_what_was_measured():
    """SIGINT, as a terminal's Ctrl-C sends it, at random moments of many runs: every run ends promptly
    and partial, and the SIGINT handler found before is back afterwards (the usual one from a terminal; a job
    started in the background by a shell without job control inherits SIGINT ignored, and keeps it). (With the real driver, a Ctrl-C raised
    as KeyboardInterrupt inside the hub's thread left `labkit run` waiting for ever: see
    tests/integration/test_cli_cluster.py.)"""
    import os
    import random
    import signal

    class SignalledOnce(KeyReads):
        def __init__(self, server, after_s):
            super().__init__(server)
            self.after_s = after_s
            self.timer = None

        def transaction(self, tx):
            if tx.seq == 0 and self.timer is None:  # the measured window has begun: the hub is running
                self.timer = threading.Timer(self.after_s, os.kill, (os.getpid(), signal.SIGINT))
                self.timer.start()
            super().transaction(tx)

    found = signal.getsignal(signal.SIGINT)
    rng = random.Random(7)
    for _ in range(12):
        w = SignalledOnce(FakeAsyncServer(delay=0.0005), after_s=rng.uniform(0.02, 0.3))
        started = time.monotonic()
        r = run(w, threads=16, operations=400_000, options=RunOptions(workers="greenlets", verify=False))
        w.timer.join()
        assert not r.complete and 0 < r.count < 400_000
        assert time.monotonic() - started < 10
    assert signal.getsignal(signal.SIGINT) is found  # the run put back the handler it found


class FakeLoopServer:
    """A driver whose replies arrive on the hub's asyncio loop (as acsylla's do), `delay` s after the call;
    its session is closed on that loop after the run (Hub.close_when_done)."""

    def __init__(self, delay: float = 0.005):
        self.delay = delay
        self.loop_threads: set[int] = set()
        self.closed = 0

    def execute(self, key: int) -> int:
        raise AssertionError("the loop form is always used in greenlet runs")

    def start(self, key: int, on_result, on_error) -> str:
        from labkit.runner.tasks import current_hub

        hub = current_hub()
        loop = hub.event_loop()
        if not getattr(hub, "_fake_closer", False):
            hub._fake_closer = True

            async def close() -> None:
                self.closed += 1

            hub.close_when_done(close)

        def reply() -> None:
            self.loop_threads.add(threading.get_ident())
            on_result(key * 2)

        loop.call_later(self.delay, reply)
        return "fake loop driver"


def _fake_loop_form(fn):
    server = getattr(fn, "__self__", None)
    if isinstance(server, FakeLoopServer) and fn.__name__ == "execute":
        return lambda args, kwargs, on_result, on_error: server.start(*args, on_result, on_error)
    return None


register_async_form(_fake_loop_form)


class MixedReads(KeyReads):
    """Every other call on a driver whose replies come from its own thread: they must still wake a hub that
    waits inside its event loop."""

    def __init__(self, loop_server: FakeLoopServer, thread_server: FakeAsyncServer):
        super().__init__(loop_server)
        self.thread_server = thread_server

    def transaction(self, tx):
        super().transaction(tx)
        assert tx.call("read_other", self.thread_server.execute, 7) == 14


def test_replies_on_the_hubs_event_loop_resume_workers_in_its_thread_and_other_threads_still_wake_it():
    loop_server, thread_server = FakeLoopServer(delay=0.01), FakeAsyncServer(delay=0.01)
    w = MixedReads(loop_server, thread_server)
    started = time.monotonic()
    r = run(w, threads=20, operations=400, options=RunOptions(warmup=20, workers="greenlets"))
    assert r.complete and r.count == 400 and r.errors == 0 and len(w.seen) == 400
    assert w.threads == loop_server.loop_threads  # replies were handed over in the hub's own thread
    assert time.monotonic() - started < 5  # 20 per round trip of 2 x 10 ms: about 0.4 s; a missed wake-up costs a 0.1 s tick each
    assert loop_server.closed == 1  # the driver's session closed on the loop after the run
    assert r.client_calls == {"fake loop driver": 400, "driver async": 400}  # the measured window's calls, not the warm-up's
    assert r.to_row()["client_path"] == "fake loop driver 50%, driver async 50%"


def test_the_hubs_event_loop_runs_where_a_kernels_loop_is_already_running():
    import asyncio

    async def cell() -> int:  # a Jupyter cell runs inside the kernel's running loop and calls run() synchronously
        r = run(KeyReads(FakeLoopServer()), threads=4, operations=40, options=RunOptions(workers="greenlets"))
        assert asyncio.get_running_loop() is outer  # the kernel's loop is put back
        return r.count

    outer = asyncio.new_event_loop()
    try:
        assert outer.run_until_complete(cell()) == 40
    finally:
        outer.close()


def test_thread_workers_say_their_calls_are_blocking():
    r = run(KeyReads(FakeAsyncServer()), threads=2, operations=10, options=RunOptions(workers="threads"))
    assert r.to_row()["client_path"] == "blocking calls (threads)"


def test_a_paced_run_on_a_loop_driver_starts_each_transaction_on_time():
    """Workers resumed inside the hub's event loop schedule their next start there: the loop's wait must end
    for that timer (not at the next 0.1 s tick), or every paced start would be late."""
    r = run(KeyReads(FakeLoopServer(delay=0.002)), threads=1, operations=60, options=RunOptions(target_rate=100, workers="greenlets"))
    assert r.count == 60 and r.intended is not None
    assert r.intended.p50_us < 20_000  # on time: a few ms of service time; late by a tick: 50-100 ms
