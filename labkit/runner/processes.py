"""Several client processes, each with its own worker threads and driver connections.

One Python process drives only about one core's worth of Python (the GIL), so a client that must push
more than that needs processes. Each process runs the same pool as a single-process run; their local
barriers wait on cross-process barriers, so every thread of every process starts together. The parent
takes part too: once every process has warmed up it opens the measured window (budgets back on, meters
started), and only then are the workers released.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import signal
import threading
import traceback
from typing import Any, Callable

from .pool import TICK_SECONDS, PoolOutcome, PoolSpec, apply_client_settings, run_pool
from .measurements import Measurements
from .workload import Workload, hooks


def _child_main(index: int, workload: Workload, spec: PoolSpec, barriers: tuple[Any, Any], cancel: Any, progress: Any, results: Any) -> None:
    """Entry point of one worker process (spawned, so it must stay importable and top level)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides about Ctrl-C and tells us via `cancel`
    apply_client_settings(spec)
    try:
        hooks(workload).open_process()

        def tick(n: int) -> None:
            progress[index] = n

        warmed, start = barriers

        def gate() -> None:
            warmed.wait()  # every process has warmed up; the parent now opens the measured window
            start.wait()

        outcome = run_pool(workload, spec, cancel, release_gate=gate, on_tick=tick)
        results.put((index, outcome.to_wire()))
    except BaseException:
        for barrier in barriers:
            barrier.abort()
        cancel.set()
        failed = PoolOutcome(Measurements(), None, None, 0.0, 0, crash=traceback.format_exc(limit=8))
        results.put((index, failed.to_wire()))
    finally:
        try:
            hooks(workload).close_process()
        except Exception:
            pass


def run_processes(
    workload: Workload,
    specs: list[PoolSpec],
    user_cancel: threading.Event,
    on_tick: Callable[[int], None] | None,
    on_warmed: Callable[[], None] | None = None,
) -> tuple[list[PoolOutcome], bool]:
    """Run one pool per spec in its own spawned process; return their outcomes and whether Ctrl-C came.
    `on_warmed` runs here once every process has warmed up, before any worker is released."""
    ctx = mp.get_context("spawn")  # fork is unsafe once driver threads exist
    barriers = (ctx.Barrier(len(specs) + 1), ctx.Barrier(len(specs) + 1))  # warmed, start: the parent is a party
    cancel = ctx.Event()
    progress = ctx.Array("q", len(specs), lock=False)
    results = ctx.Queue()
    gate_errors: list[BaseException] = []

    def abort() -> None:
        for barrier in barriers:
            barrier.abort()

    def parent_gate() -> None:
        try:
            barriers[0].wait()
            if on_warmed is not None:
                on_warmed()
            barriers[1].wait()
        except threading.BrokenBarrierError:
            pass  # a child failed or the run was cancelled; the loop below reports it
        except BaseException as exc:  # opening the window failed: release nobody, stop the children
            gate_errors.append(exc)
            abort()
            cancel.set()

    procs = [
        ctx.Process(
            target=_child_main,
            args=(i, workload, spec, barriers, cancel, progress, results),
            name=f"labkit-client-{i}",
            daemon=True,
        )
        for i, spec in enumerate(specs)
    ]
    for p in procs:
        p.start()
    gate_thread = threading.Thread(target=parent_gate, name="labkit-window-gate", daemon=True)
    gate_thread.start()
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
                    abort()
                    cancel.set()
                    outcomes[i] = PoolOutcome(Measurements(), None, None, 0.0, 0, crash=f"client process {i} died with exit code {p.exitcode}")
            if on_tick is not None:
                on_tick(sum(progress))
        except KeyboardInterrupt:
            interrupted = True
            cancel.set()  # the children finish warming up, are released and stop at once
    abort()  # frees the gate thread if the children never reached it
    gate_thread.join(timeout=10)
    if gate_errors:
        raise gate_errors[0]
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
            p.join()
    if on_tick is not None:
        on_tick(sum(o.completed for o in outcomes.values()))
    return [outcomes[i] for i in range(len(procs))], interrupted
