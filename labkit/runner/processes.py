"""Several client processes, each with its own worker threads and driver connections.

One Python process drives only about one core's worth of Python (the GIL), so a client that must push
more than that needs processes. Each process runs the same pool as a single-process run; their local
barriers wait on one cross-process barrier, so every thread of every process starts together.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import signal
import threading
import traceback
from typing import Any, Callable

from .pool import TICK_SECONDS, PoolOutcome, PoolSpec, run_pool
from .measurements import Measurements


def _child_main(index: int, workload: Any, spec: PoolSpec, start_barrier: Any, cancel: Any, progress: Any, results: Any) -> None:
    """Entry point of one worker process (spawned, so it must stay importable and top level)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides about Ctrl-C and tells us via `cancel`
    try:
        open_process = getattr(workload, "open_process", None)
        if callable(open_process):
            open_process()

        def tick(n: int) -> None:
            progress[index] = n

        outcome = run_pool(workload, spec, cancel, release_gate=start_barrier.wait, on_tick=tick)
        results.put((index, outcome.to_wire()))
    except BaseException:
        start_barrier.abort()
        cancel.set()
        failed = PoolOutcome(Measurements(), None, None, 0.0, 0, crash=traceback.format_exc(limit=8))
        results.put((index, failed.to_wire()))
    finally:
        close_process = getattr(workload, "close_process", None)
        if callable(close_process):
            try:
                close_process()
            except Exception:
                pass


def run_processes(
    workload: Any,
    specs: list[PoolSpec],
    user_cancel: threading.Event,
    on_tick: Callable[[int], None] | None,
) -> tuple[list[PoolOutcome], bool]:
    """Run one pool per spec in its own spawned process; return their outcomes and whether Ctrl-C came."""
    ctx = mp.get_context("spawn")  # fork is unsafe once driver threads exist
    start_barrier = ctx.Barrier(len(specs))
    cancel = ctx.Event()
    progress = ctx.Array("q", len(specs), lock=False)
    results = ctx.Queue()
    procs = [
        ctx.Process(
            target=_child_main,
            args=(i, workload, spec, start_barrier, cancel, progress, results),
            name=f"labkit-client-{i}",
            daemon=True,
        )
        for i, spec in enumerate(specs)
    ]
    for p in procs:
        p.start()
    outcomes: dict[int, PoolOutcome] = {}
    interrupted = False
    while len(outcomes) < len(procs):
        try:
            try:
                index, wire = results.get(timeout=TICK_SECONDS)
                outcomes[index] = PoolOutcome.from_wire(wire)
            except queue.Empty:
                pass
            if user_cancel.is_set():
                cancel.set()
            for i, p in enumerate(procs):
                if i not in outcomes and not p.is_alive() and p.exitcode is not None:
                    try:  # it may have posted just before exiting
                        index, wire = results.get(timeout=0.5)
                        outcomes[index] = PoolOutcome.from_wire(wire)
                        continue
                    except queue.Empty:
                        pass
                    start_barrier.abort()
                    cancel.set()
                    outcomes[i] = PoolOutcome(Measurements(), None, None, 0.0, 0, crash=f"client process {i} died with exit code {p.exitcode}")
            if on_tick is not None:
                on_tick(sum(progress))
        except KeyboardInterrupt:
            interrupted = True
            cancel.set()
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
            p.join()
    if on_tick is not None:
        on_tick(sum(o.completed for o in outcomes.values()))
    return [outcomes[i] for i in range(len(procs))], interrupted
