"""The workers of one process: warm-up, one barrier that releases them all, the measured loop.

Workers are threads (one blocking call in flight each) or greenlets on a hub (runner.tasks: many calls in
flight in one thread); both run the same worker body below, so every guarantee holds for both."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import greenlet

from .gil_probe import GilProbe
from .measurements import INTENDED, Measurements, merged
from .pacing import Pacer
from .tasks import GreenletBarrier, Hub
from .timeline import Stamps, Timeline
from .retry import Retrier, RetryPolicy
from .workload import Transaction, Workload

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
    workers: str = "threads"  # "threads" or "greenlets" (runner.tasks)
    client_settings: dict[str, str] = field(default_factory=dict)  # the run's client settings, applied in every client process


CLIENT_SETTINGS: list[str] = []
"""Environment variables that choose how a client process talks to the database (e.g. LABKIT_CQL_DRIVER):
engine modules name theirs (`client_setting`); every run carries their values into each of its client
processes, spawned here or on Dask workers elsewhere."""


def client_setting(name: str) -> None:
    if name not in CLIENT_SETTINGS:
        CLIENT_SETTINGS.append(name)


def current_client_settings() -> dict[str, str]:
    return {name: os.environ.get(name, "") for name in CLIENT_SETTINGS}  # "": the setting's default


def apply_client_settings(spec: PoolSpec) -> None:
    """In a client process: take on the settings of the run that started it."""
    os.environ.update(spec.client_settings)


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
    timeline: Timeline = field(default_factory=Timeline)  # per-second counts and latency
    hub_held_s: float | None = None  # greenlets: time one worker kept the others waiting (runner.tasks.HELD_S)
    client_calls: dict[str, int] = field(default_factory=dict)  # greenlets: measured calls per client path (runner.tasks.Hub.calls)

    def to_wire(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["measurements"] = self.measurements.to_wire()
        data["timeline"] = self.timeline.to_wire()
        return data

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> "PoolOutcome":
        data = dict(wire)
        data["measurements"] = Measurements.from_wire(wire["measurements"])
        data["timeline"] = Timeline.from_wire(wire["timeline"])
        return cls(**data)


@dataclass
class _Clock:
    release: float | None = None
    cpu_at_release: float = 0.0
    probe: GilProbe | None = None
    ends: list[float] = field(default_factory=list)


def run_pool(
    workload: Workload,
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
    stamps = [Stamps() for _ in range(n)]
    done = [0] * n
    crashes: list[BaseException] = []
    interrupted_in_worker: list[bool] = []
    hub = Hub(cancel, helper_threads=n) if spec.workers == "greenlets" else None

    def release() -> None:
        if release_gate is not None:
            release_gate()
        clock.cpu_at_release = time.process_time()
        clock.release = time.monotonic()
        clock.probe = GilProbe().start()
        if hub is not None:
            hub.restart_held_clock()

    if hub is None:
        barrier: Any = threading.Barrier(n, action=release)
        sleep: Callable[[float], bool] = lambda seconds: not cancel.wait(seconds)  # noqa: E731
    else:
        barrier, sleep = GreenletBarrier(n, hub, action=release), hub.sleep
    rate_per_worker = spec.target_rate / spec.workers_total if spec.target_rate else None

    def work(slot: int) -> None:
        worker = spec.first_worker + slot
        try:
            warm = Measurements()
            retrier = Retrier(spec.policy, cancel, retry_sleep or (None if hub is None else hub.sleep))
            tx = Transaction(worker, spec.workers_total, spec.seed, warm, retrier, None if hub is None else hub.invoke)
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
            if release_at is None:  # the barrier's action notes it before any worker goes on
                raise RuntimeError("the barrier released the workers without noting when")
            series = m.transactions
            intended = m.op(INTENDED) if pacer is not None else None
            note = stamps[slot].note
            transaction = workload.transaction
            perf = time.perf_counter_ns
            now = time.monotonic
            for k in range(spec.shares[slot]):
                if cancel.is_set():
                    break
                due = pacer.wait_turn(k, release_at, sleep) if pacer is not None else None
                if pacer is not None and due is None:
                    break
                tx.seq = k
                start = perf()
                try:
                    transaction(tx)
                except Exception as exc:
                    series.errors += 1
                    m.note_error(exc)
                    note(now(), -1)
                else:
                    micros = (perf() - start) // 1000
                    series.record(micros)
                    end = now()
                    if intended is not None and due is not None:  # paced: from when it was due, a stalled server shows, not a lower rate
                        late = int((end - due) * 1_000_000)
                        intended.record(late)
                        note(end, micros, late)
                    else:
                        note(end, micros)
                done[slot] = k + 1
        except threading.BrokenBarrierError:
            pass  # another worker crashed before the start; its crash is reported
        except KeyboardInterrupt:  # Ctrl-C reached a greenlet worker: stop everyone, keep what was measured
            interrupted_in_worker.append(True)
            cancel.set()
            barrier.abort()  # workers still warming up must not wait for this one
        except BaseException as exc:  # a bug in the workload or runner: stop everyone, report it
            crashes.append(exc)
            cancel.set()
            barrier.abort()
        finally:
            clock.ends.append(time.monotonic())

    tick = lambda: on_tick(sum(done)) if on_tick else None  # noqa: E731
    if hub is None:
        interrupted = _run_threads(work, n, spec, tick, cancel)
    else:
        interrupted = _run_greenlets(work, n, hub, tick)
    interrupted = interrupted or bool(interrupted_in_worker)
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
        timeline=Timeline.of(clock.release, stamps),
        hub_held_s=hub.held_s if hub is not None and clock.release is not None else None,
        client_calls=dict(hub.calls) if hub is not None else {},
    )


def _run_threads(work: Callable[[int], None], n: int, spec: PoolSpec, tick: Callable[[], None], cancel: threading.Event) -> bool:
    """One thread per worker; this thread watches them and takes Ctrl-C. True when interrupted."""
    threads = [threading.Thread(target=work, args=(i,), name=f"labkit-worker-{spec.first_worker + i}", daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    interrupted = False
    for t in threads:
        while t.is_alive():
            try:
                t.join(TICK_SECONDS)
                tick()
            except KeyboardInterrupt:
                interrupted = True
                cancel.set()
    return interrupted


def _run_greenlets(work: Callable[[int], None], n: int, hub: Hub, tick: Callable[[], None]) -> bool:
    """One greenlet per worker, all on a hub in this thread. True when interrupted."""
    workers = [greenlet.greenlet(lambda *_first_switch, slot=i: work(slot)) for i in range(n)]
    return hub.run(workers, on_tick=tick, tick_s=TICK_SECONDS)
