"""In-memory workloads for unit tests of the runner only (never behind a notebook or a figure)."""

from __future__ import annotations

import threading
import time

from labkit.runner import BaseWorkload, Verification


class CountingWorkload(BaseWorkload):
    """Each transaction does one 'noop' operation and records which worker ran it."""

    name = "counting"

    def __init__(self, sleep_s: float = 0.0):
        self.sleep_s = sleep_s
        self._lock = threading.Lock()
        self.per_worker: dict[int, int] = {}
        self.first_start: dict[int, float] = {}
        self.phases: list[str] = []

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def setup(self):
        self.phases.append("setup")

    def load(self):
        self.phases.append("load")

    def _noop(self):
        if self.sleep_s:
            time.sleep(self.sleep_s)

    def transaction(self, tx):
        if tx.seq == 0:
            self.first_start[tx.worker] = time.monotonic()
        tx.call("noop", self._noop)
        if tx.seq >= 0:
            with self._lock:
                self.per_worker[tx.worker] = self.per_worker.get(tx.worker, 0) + 1

    def verify(self):
        self.phases.append("verify")
        total = sum(self.per_worker.values())
        return Verification(ok=True, checks={"transactions": total})

    def cleanup(self):
        self.phases.append("cleanup")


class NoopWorkload(BaseWorkload):
    """The cheapest possible transaction: measures the runner itself."""

    name = "noop"

    def transaction(self, tx):
        pass


class FlakyOp:
    """Fails the first `failures` calls with `exc`, then succeeds; thread-safe."""

    def __init__(self, failures: int, exc: type[Exception] = ConnectionError):
        self.failures = failures
        self.exc = exc
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self):
        with self._lock:
            self.calls += 1
            if self.calls <= self.failures:
                raise self.exc(f"injected failure {self.calls}")
        return "ok"


class HookedWorkload(CountingWorkload):
    """Records when the per-process hooks run relative to the measured transactions."""

    def open_process(self):
        self.phases.append("open_process")

    def close_process(self):
        self.phases.append("close_process")

    def transaction(self, tx):
        if tx.seq == 0 and tx.worker == 0:
            self.phases.append("measuring")
        super().transaction(tx)


class FunctionBench:
    """A sweep's bench made of functions (labkit.sweeps.loop.Stand): the loop's unit tests run on no cluster.
    `cluster_for(n)` describes an n-node cluster, `workload_for(approach, info)` makes a run's workload."""

    def __init__(self, plan, cluster_for, workload_for, *, cold=None, running=None, meter=None):
        self.plan = plan
        self._cluster_for, self._workload_for = cluster_for, workload_for
        self._cold, self._running, self._meter = cold, running, meter
        self._info = None

    def cluster(self, nodes):
        self._info = self._cluster_for(nodes)
        return self._info

    def workload(self, approach):
        return self._workload_for(approach, self._info)

    def meter(self):
        return self._meter() if self._meter is not None else None

    def cold(self):
        return self._cold() if self._cold is not None else True

    def running(self):
        return self._running() if self._running is not None else None


def sweep(plan, *, cluster_for, workload_for, store=None, cancel=None, progress=None, echo=None, cold=None, running=None, meter=None):
    """labkit.sweeps.measure on a FunctionBench: the loop as the unit tests drive it."""
    from labkit.sweeps import SweepWatch, measure

    bench = FunctionBench(plan, cluster_for, workload_for, cold=cold, running=running, meter=meter)
    return measure(bench, store=store, watch=SweepWatch(progress=progress, cancel=cancel, echo=echo or (lambda _text: None)))
