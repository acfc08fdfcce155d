"""The worker threads of one process: warm-up, one barrier that releases them all, the measured loop."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .gil_probe import GilProbe
from .measurements import Measurements, merged
from .pacing import Pacer
from .retry import Retrier, RetryPolicy
from .workload import Transaction

TICK_SECONDS = 0.1


@dataclass
class PoolSpec:
    """What one process's pool must do; plain data so it pickles into worker processes."""

    first_worker: int  # global index of this pool's first worker
    workers_total: int  # workers across all processes
    shares: list[int]  # measured transactions per local worker
    warmups: list[int]  # warm-up transactions per local worker
    seed: int
    policy: RetryPolicy
    target_rate: float | None  # transactions per second for the whole run


@dataclass
class PoolOutcome:
    """What one process measured: merged measurements plus the clock and CPU readings around them."""

    measurements: Measurements
    release: float | None  # time.monotonic() at barrier release (system-wide clock on Linux)
    end: float | None  # time.monotonic() when the last worker finished
    cpu_seconds: float  # this process's CPU time between release and end
    completed: int
    interrupted: bool = False
    crash: str | None = None
    gil_wait_ms: float | None = None  # mean wait of a probe thread for the interpreter lock (gil_probe)
    run_queue_ms: float | None = None  # mean wait of the probe thread for a free core

    def to_wire(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["measurements"] = self.measurements.to_wire()
        return data

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> "PoolOutcome":
        data = dict(wire)
        data["measurements"] = Measurements.from_wire(wire["measurements"])
        return cls(**data)


@dataclass
class _Clock:
    release: float | None = None
    cpu_at_release: float = 0.0
    probe: GilProbe | None = None
    ends: list[float] = field(default_factory=list)


def run_pool(
    workload: Any,
    spec: PoolSpec,
    cancel: threading.Event,
    *,
    release_gate: Callable[[], None] | None = None,
    on_tick: Callable[[int], None] | None = None,
    retry_sleep: Callable[[float], Any] | None = None,
) -> PoolOutcome:
    """Run this process's workers to completion (or cancellation) and return what they measured.

    `release_gate` is called once, after every local worker has warmed up and before any is released:
    the multi-process runner uses it to wait for the other processes. `on_tick(completed)` is called
    from this thread about every 0.1 s.
    """
    n = len(spec.shares)
    clock = _Clock()
    per_worker = [Measurements() for _ in range(n)]
    done = [0] * n
    crashes: list[BaseException] = []
    ends_lock = threading.Lock()

    def release() -> None:
        if release_gate is not None:
            release_gate()
        clock.cpu_at_release = time.process_time()
        clock.release = time.monotonic()
        clock.probe = GilProbe().start()

    barrier = threading.Barrier(n, action=release)
    rate_per_worker = spec.target_rate / spec.workers_total if spec.target_rate else None

    def work(slot: int) -> None:
        worker = spec.first_worker + slot
        try:
            warm = Measurements()
            tx = Transaction(worker, spec.workers_total, spec.seed, warm, Retrier(spec.policy, cancel, retry_sleep))
            for k in range(spec.warmups[slot]):
                if cancel.is_set():
                    break
                tx.seq = k - spec.warmups[slot]
                try:
                    workload.transaction(tx)
                except Exception:
                    pass  # warm-up failures are not measured; the measured phase will show them
            barrier.wait()
            m = per_worker[slot]
            tx.measurements = m
            pacer = Pacer(rate_per_worker, worker, spec.workers_total) if rate_per_worker else None
            release_at = clock.release
            series = m.transactions
            transaction = workload.transaction
            perf = time.perf_counter_ns
            for k in range(spec.shares[slot]):
                if cancel.is_set() or (pacer is not None and not pacer.wait_turn(k, release_at, cancel)):
                    break
                tx.seq = k
                start = perf()
                try:
                    transaction(tx)
                except Exception as exc:
                    series.errors += 1
                    m.note_error(exc)
                else:
                    series.record((perf() - start) // 1000)
                done[slot] = k + 1
        except threading.BrokenBarrierError:
            pass  # another worker crashed before the start; its crash is reported
        except BaseException as exc:  # a bug in the workload or runner: stop everyone, report it
            crashes.append(exc)
            cancel.set()
            barrier.abort()
        finally:
            with ends_lock:
                clock.ends.append(time.monotonic())

    threads = [threading.Thread(target=work, args=(i,), name=f"labkit-worker-{spec.first_worker + i}", daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    interrupted = False
    for t in threads:
        while t.is_alive():
            try:
                t.join(TICK_SECONDS)
                if on_tick is not None:
                    on_tick(sum(done))
            except KeyboardInterrupt:
                interrupted = True
                cancel.set()
    cpu_seconds = time.process_time() - clock.cpu_at_release if clock.release is not None else 0.0
    gil_wait_ms = clock.probe.stop() if clock.probe is not None else None
    run_queue_ms = clock.probe.run_queue_ms if clock.probe is not None else None
    if on_tick is not None:
        on_tick(sum(done))
    crash = None
    if crashes:
        crash = f"{type(crashes[0]).__name__}: {crashes[0]}"
    return PoolOutcome(
        measurements=merged(per_worker),
        release=clock.release,
        end=max(clock.ends) if clock.release is not None and clock.ends else None,
        cpu_seconds=cpu_seconds,
        completed=sum(done),
        interrupted=interrupted,
        crash=crash,
        gil_wait_ms=gil_wait_ms,
        run_queue_ms=run_queue_ms,
    )
