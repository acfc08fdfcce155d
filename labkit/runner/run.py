"""`run()`: drive one workload at one thread count, YCSB-style, and return a RunResult."""

from __future__ import annotations

from collections import Counter

import contextlib
import threading
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping

from ..errors import ConfigError, LabkitError, refuse_unknown_names
from .cpu import AUTO, MachineCpu, client_layout, saturation
from .division import split_evenly
from .limits import limit_of
from .measurements import merged
from .pool import PoolOutcome, PoolSpec, current_client_settings, run_pool
from .processes import run_processes
from .workload import Workload, hooks
from .result import LatencyStats, RunResult, intended_stats, op_stats
from .retry import RetryPolicy
from .server_cpu import ServerMeter
from .timeline import Timeline
from .unmeasured import budgets_lifted, cleaned_up, verified

ProgressCallback = Callable[[int, int], None]
"""progress(done, total): called about every 0.1 s from the thread that called run()."""


def _check_int(name: str, value: Any, minimum: int, hint: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number; got {value!r}. {hint}")
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}; got {value}. {hint}")


WORKERS = ("threads", "greenlets")
DEFAULT_WORKERS = "threads"
"""run()'s default. Greenlets interleave only where a worker waits in `tx.call`; code that calls the driver
directly (an exercise's first attempt, say) runs one worker at a time there, which would hide the very
races a check looks for. Sweeps, which run the library's pattern code, default to greenlets (sweeps.plan.SWEEP_WORKERS)."""


def validate(threads: Any, operations: Any, processes: Any, target_rate: Any, warmup: Any, workers: Any = DEFAULT_WORKERS) -> None:
    """Reject arguments that cannot describe a run, with a message that says what to pass instead."""
    if workers not in WORKERS:
        raise ConfigError(
            f"workers must be 'threads' (one blocking call in flight per thread) or 'greenlets' (many calls in flight "
            f"in one thread, through the driver's asynchronous API); got {workers!r}"
        )
    _check_int("threads", threads, 1, "Use threads=1 or more client threads (in all, over every client process).")
    _check_int("operations", operations, 1, "Use operations=1 or more transactions to measure.")
    if processes != AUTO:
        _check_int("processes", processes, 1, "Use processes=1 (the default), more client processes, or processes='auto'.")
    _check_int("warmup", warmup, 0, "Use warmup=0 to skip the warm-up.")
    if target_rate is not None:
        if isinstance(target_rate, bool) or not isinstance(target_rate, (int, float)) or target_rate <= 0:
            raise ConfigError(
                f"target_rate must be a positive number of transactions per second, or None for "
                f"'as fast as possible'; got {target_rate!r}"
            )


def _growth(before: dict[str, float] | None, after: dict[str, float] | None) -> dict[str, float]:
    """How much each server counter grew during the run; nothing when the server reports none."""
    if before is None or after is None:
        return {}
    return {name: after[name] - before.get(name, 0) for name in after}


@dataclass(frozen=True)
class RunOptions:
    """What a run does besides its threads and operations: how the client is built (processes, workers, Dask
    clients, retry, seed), how it is paced (target_rate, warmup) and which unmeasured phases run around it. Why
    one object: a sweep, a panel and a benchmark each pass the same settings on, and a plan keeps them as a
    mapping (`RunOptions.of(mapping)` refuses a key it does not know)."""

    processes: int | str = 1
    workers: str = DEFAULT_WORKERS
    clients: Any = None
    """A distributed.Client: each client process is a task on a Dask worker (runner.remote)."""
    target_rate: float | None = None
    warmup: int = 0
    retry: RetryPolicy | None = None
    seed: int = 0
    setup: bool = True
    load: bool = True
    verify: bool = True
    cleanup: bool = False

    @classmethod
    def of(cls, options: Mapping[str, Any] | None = None, **more: Any) -> RunOptions:
        """From a plan's or a caller's mapping (and keyword overrides), naming any key that is not an option."""
        merged = {**dict(options or {}), **more}
        refuse_unknown_names(merged, (f.name for f in fields(cls)), "run option")
        return cls(**merged)


@dataclass(frozen=True)
class Watch:
    """Who watches a run: `progress(done, total)` about every 0.1 s, `cancel` to stop it early, the servers'
    CPU meter around the measured window, and `on_release()` just before the workers are released."""

    progress: ProgressCallback | None = None
    cancel: threading.Event | None = None
    server_meter: ServerMeter | None = None
    on_release: Callable[[], None] | None = None


def run(workload: Workload, *, threads: int, operations: int, options: RunOptions | None = None, watch: Watch | None = None) -> RunResult:
    """Run `operations` transactions of `workload` on `threads` workers in all (transactions in flight),
    spread as evenly as whole workers allow over `options.processes` client processes, or, with "auto",
    over as many as runner.cpu.auto_processes finds useful (the workload's `max_processes` attribute caps
    it); the result's `threads` is the workers in all processes, `threads_per_process` how they were spread.

    Phases: setup, load (not measured), warm-up (`options.warmup` transactions, not measured), then every
    worker is released by one barrier and runs its exact share; wall time runs from the release to the
    last completion. `options.target_rate` (transactions/s for the whole client) paces the workers. Ctrl-C or
    `watch.cancel.set()` ends the run promptly and returns what was measured with `complete=False` (verify
    is skipped then). With processes > 1 the workload is pickled into each spawned process.
    A workload with a `max_processes` attribute is refused more processes than that (auto stays within it).
    Optional hook `check_run(threads=, processes=, operations=)` runs first and raises ConfigError for
    a run the workload cannot do, before setup touches the database. Optional hook `open_process()`
    runs once in every client process before its workers start (connect there, so connecting is not
    measured); spawned processes call `close_process()` when done, in this process that is the
    caller's job (sweep() does it after verify and cleanup). Optional hook `server_counters()` returns
    the server's own cumulative counters (e.g. write conflicts) as {name: number}, or None where the
    server does not report them; the result's `server` holds how much each grew while the workers ran.
    `watch.server_meter` (from the cluster, e.g. `cluster.cpu_meter()`) measures each node's CPU around the
    measured window (it starts when every worker has warmed up, just before the release): the result
    gets server CPU per transaction, and `limit` says what limited the run; a meter with `unbudgeted()`
    lifts node CPU budgets while setup, load, warm-up, verify and cleanup run (none is measured), so a
    freshly started JVM compiles its hot code at full speed instead of inside a budget of a fraction of
    a core, and a full-table verification does not time out on nodes held to 0.1 core. A verify() or
    cleanup() that raises does not lose the run: the result's verification is then `unfinished` (ok None,
    with the reason) and `cleanup_problem` says what cleanup could not do.
    `options.workers="greenlets"` keeps the `threads` transactions of a process in flight as greenlets on one
    thread (runner.tasks), so a process is not held back by handing the interpreter lock between threads;
    they interleave at `tx.call`, so every database call must go through it. The workload's code is the same. A paced run (`options.target_rate`) also records each transaction's latency
    from its scheduled start (`intended`), which a stalled server cannot hide.
    `watch.on_release()` is called once, just before the workers are released (labkit.tactics starts its clock
    there); the result's `released_at` is the release's time.monotonic(), the zero of its timeline.
    """
    opts, watching = options or RunOptions(), watch or Watch()
    processes, workers, clients, target_rate, warmup = opts.processes, opts.workers, opts.clients, opts.target_rate, opts.warmup
    progress, cancel, server_meter, on_release = watching.progress, watching.cancel, watching.server_meter, watching.on_release
    validate(threads, operations, processes, target_rate, warmup, workers)
    hooked = hooks(workload)
    most = hooked.max_processes
    layout = client_layout(threads, processes, workers, most)
    processes = len(layout)
    if most is not None and processes > most:
        raise ConfigError(f"{hooked.name} keeps what it checks in one client process's memory "
                          f"(max_processes={most}): run it with processes={most} or processes='auto'")
    if clients is not None and most is not None:
        raise ConfigError(f"{hooked.name} keeps what it checks in its client process's memory "
                          f"(max_processes={most}), which on a Dask worker would stay on that worker: run it without --clients")
    hooked.check_run(threads=sum(layout), processes=processes, operations=operations)
    retry = opts.retry or RetryPolicy()
    cancel = cancel or threading.Event()
    name = hooked.name

    worker_count = sum(layout)
    shares = split_evenly(operations, worker_count)
    warmups = split_evenly(warmup, worker_count)
    firsts = [sum(layout[:p]) for p in range(processes)]
    specs = [
        PoolSpec(
            first_worker=first,
            workers_total=worker_count,
            shares=shares[first : first + count],
            warmups=warmups[first : first + count],
            seed=opts.seed,
            policy=retry,
            target_rate=target_rate,
            workers=workers,
            client_settings=current_client_settings(),
        )
        for first, count in zip(firsts, layout)
    ]
    tick = (lambda done: progress(done, operations)) if progress else None

    unmeasured = contextlib.ExitStack()  # budgets lifted from setup to the end of warm-up: none of it is measured
    unmeasured.enter_context(budgets_lifted(server_meter))
    try:
        if opts.setup:
            workload.setup()
        load_s = None
        if opts.load:
            began = time.monotonic()
            workload.load()
            load_s = time.monotonic() - began

        counters_before = hooked.server_counters()
        machine = MachineCpu()

        def measured_window_opens() -> None:
            """Every worker has warmed up and none is released yet: budgets back on, meters start."""
            unmeasured.close()
            machine.start()
            if server_meter is not None:
                server_meter.start()
            if on_release is not None:
                on_release()

        outcomes: list[PoolOutcome]
        remote = None
        if clients is not None:  # a distributed.Client: each client process is a task on a Dask worker (runner.remote)
            from .remote import require_remote_ok, run_remote

            remote = run_remote(clients, workload, specs, cancel, on_warmed=measured_window_opens)
            require_remote_ok(remote)
            outcomes, interrupted = remote.outcomes, bool(remote.lost)
        elif processes == 1:
            hooked.open_process()  # close_process is left to the caller: verify still needs it
            outcome = run_pool(workload, specs[0], cancel, release_gate=measured_window_opens, on_tick=tick)
            outcomes, interrupted = [outcome], outcome.interrupted
        else:
            outcomes, interrupted = run_processes(workload, specs, cancel, tick, on_warmed=measured_window_opens)
    finally:
        unmeasured.close()
    opened = any(o.release is not None for o in outcomes)
    machine_busy = machine.stop() if opened else None
    server_cpu = server_meter.stop() if (server_meter is not None and opened) else None
    server = _growth(counters_before, hooked.server_counters())

    crashes = [o.crash for o in outcomes if o.crash]
    if crashes:
        raise LabkitError("a client worker crashed, so the run was abandoned:\n" + "\n".join(crashes))

    releases = [o.release for o in outcomes if o.release is not None]
    ends = [o.end for o in outcomes if o.end is not None]
    if clients is not None:  # monotonic clocks of different hosts do not compare: each process's own window, the longest
        wall = max((o.end - o.release for o in outcomes if o.release is not None and o.end is not None), default=0.0)
    else:
        wall = max(ends) - min(releases) if releases and ends else 0.0
    total = merged([o.measurements for o in outcomes])
    timeline = Timeline()
    for o in outcomes:
        timeline.merge(o.timeline)
    stats = LatencyStats.of(total.transactions)
    complete = not interrupted and not cancel.is_set() and stats.count + stats.errors == operations
    used, available, saturated, note = saturation([o.cpu_seconds for o in outcomes], wall, processes)
    hosts_used, host_limit = [], ""
    if remote is not None:  # each host's processes against that host's cores, not this machine's
        from .remote import host_saturation, host_use

        hosts_used = host_use(outcomes, remote.hosts, remote.cores, wall)
        available = sum(u.cores_available for u in hosts_used)
        saturated, host_limit, note = host_saturation(hosts_used)
    waits = [o.gil_wait_ms for o in outcomes if o.gil_wait_ms is not None]
    gil_wait = max(waits) if waits else None
    queued = [o.run_queue_ms for o in outcomes if o.run_queue_ms is not None]
    held = [o.hub_held_s / wall for o in outcomes if o.hub_held_s is not None and wall > 0]
    client_calls: Counter[str] = Counter()
    for o in outcomes:
        client_calls.update(o.client_calls)
    limit, limit_note = limit_of(
        client_saturated=saturated,
        hub_held=max(held) if held else None,
        gil_wait_ms=gil_wait,
        transaction_ms=stats.mean_us / 1000 if stats.count and stats.mean_us is not None else None,
        server=server_cpu,
        machine_busy=machine_busy,
        threads=worker_count,
        throughput=stats.count / wall if wall > 0 else None,
        target_rate=target_rate,
    )
    if host_limit and limit == "client":
        limit, limit_note = host_limit, note

    verification, cleanup_problem = None, ""
    if (opts.verify and complete) or opts.cleanup:
        with budgets_lifted(server_meter, settle=False):  # verify and cleanup are not measured either
            verification = verified(workload) if (opts.verify and complete) else None
            cleanup_problem = cleaned_up(workload) if opts.cleanup else ""

    return RunResult(
        workload=name,
        complete=complete,
        threads=worker_count,
        processes=processes,
        threads_per_process=layout,
        operations=operations,
        warmup=warmup,
        target_rate=target_rate,
        wall_s=wall,
        stats=stats,
        ops=op_stats(total),
        client_cpu_cores=used,
        client_cores_available=available,
        client_saturated=saturated,
        saturation_note=note,
        machine_cpu_busy=machine_busy,
        machine_parts=machine.parts if opened else {},
        client_gil_wait_ms=gil_wait,
        client_run_queue_ms=max(queued) if queued else None,
        workers=workers,
        client_calls=dict(client_calls),
        intended=intended_stats(total),
        timeline=timeline,
        server_cpu=server_cpu,
        load_s=load_s,
        limit=limit,
        limit_note=limit_note,
        verification=verification,
        cleanup_problem=cleanup_problem,
        server=server,
        error_kinds=dict(total.error_kinds),
        error_samples=dict(total.error_samples),
        measurements=total,
        parts=[o.measurements for o in outcomes],
        released_at=min(releases) if releases else None,
        client_hosts=[(u.host, u.processes, u.cores_used) for u in hosts_used],
        client_problems=list(remote.lost) if remote is not None else [],
        client_barrier_slack_s=remote.barrier_slack_s if remote is not None else None,
    )
