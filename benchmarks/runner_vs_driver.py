"""The runner's efficiency on a real server: labkit's workers vs the raw driver's best loop.

    .venv/bin/python benchmarks/runner_vs_driver.py              # 1/16/32/64 in flight, 4 repeats (about 20 min)
    .venv/bin/python benchmarks/runner_vs_driver.py --quick      # checks the script, claims nothing

One local Cassandra node (no CPU budget), 10,000 rows, primary-key reads. The baseline is the fastest
loop the Python driver allows: `execute_async` with each reply's callback issuing the next request, C
requests in flight, in one process and (for C >= 2) in two processes with C/2 each. Against it, the
runner with the same workload code (`tx.call("read", session.execute, ...)`), its C workers as threads
or as greenlets (runner.tasks), in one process and in two. Between them, in one process, a bare hub:
greenlets resumed by a ten-line loop in the calling thread, which pays the same hand-over between the
driver's IO thread and the workers' thread as the runner and nothing else, so the gap best loop -> bare
hub is the cost of running the workload outside the driver's IO thread, and bare hub -> runner is the
runner's own. Every shape runs once per repeat, in order on even repeats and in reverse on odd ones
(drift in the shared VM hits all alike), and each ratio is taken against the best loop of the same repeat
and process count; the table gives the median of those paired ratios. At 1 in flight the difference of
the inverse throughputs is the time each client adds per read.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import queue
import os
import platform
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import greenlet
import pandas as pd

import report
from cassandra.concurrent import execute_concurrent_with_args

from labkit import __version__
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.engines import cassandra as cql
from labkit.runner import BaseWorkload, run

ROWS = 10_000
READ = "SELECT v FROM bench.kv WHERE k = ?"


class PkRead(BaseWorkload):
    """Primary-key reads; connects in each client process before the barrier (open_process)."""

    name = "pk-read"

    def __init__(self, addresses):
        self.addresses = addresses
        self.session = self.stmt = None

    def __getstate__(self):
        return {"addresses": self.addresses, "session": None, "stmt": None}

    def open_process(self):
        self.session = cql.connect(self.addresses)
        self.stmt = self.session.prepare(READ)

    def close_process(self):
        self.session.cluster.shutdown()

    def transaction(self, tx):
        tx.call("read", self.session.execute, self.stmt, (tx.rng.randrange(ROWS),))


def runner_tps(addresses, in_flight: int, processes: int, workers: str, operations: int) -> float:
    w = PkRead(addresses)
    try:
        r = run(w, threads=in_flight // processes, processes=processes, operations=operations, verify=False, workers=workers)
    finally:
        if w.session is not None:
            w.close_process()
    assert r.count == operations and r.errors == 0, r.summary()
    return r.throughput


def best_loop(session, stmt, in_flight: int, operations: int, seed: int = 1) -> tuple[float, float]:
    """`operations` reads with `in_flight` outstanding, each reply's callback issuing the next request
    (all in the driver's IO thread). Returns (start, end) in time.monotonic()."""
    rng = random.Random(seed)
    issued = 0
    replied = 0
    lock = threading.Lock()
    finished = threading.Event()
    failures: list[BaseException] = []

    def issue() -> None:
        future = session.execute_async(stmt, (rng.randrange(ROWS),))
        future.add_callbacks(on_reply, on_error)

    def on_reply(_rows) -> None:
        nonlocal issued, replied
        with lock:
            replied += 1
            more = issued < operations
            if more:
                issued += 1
        if more:
            issue()
        elif replied == operations:
            finished.set()

    def on_error(exc) -> None:
        failures.append(exc)
        finished.set()

    start = time.monotonic()
    with lock:
        issued = min(in_flight, operations)
    for _ in range(min(in_flight, operations)):
        issue()
    finished.wait()
    if failures:
        raise failures[0]
    return start, time.monotonic()


def bare_hub(session, stmt, in_flight: int, operations: int, seed: int = 1) -> float:
    """`in_flight` greenlets in this thread, each issuing `execute_async` and parking until the driver's
    callback posts the reply; a minimal loop resumes them. Reads/s."""
    rng = random.Random(seed)
    replies: queue.SimpleQueue = queue.SimpleQueue()
    hub = greenlet.getcurrent()
    share = operations // in_flight

    def worker() -> None:
        me = greenlet.getcurrent()
        for _ in range(share):
            future = session.execute_async(stmt, (rng.randrange(ROWS),))
            future.add_callbacks(lambda _rows: replies.put((me, None)), lambda exc: replies.put((me, exc)))
            error = hub.switch()
            if error is not None:
                raise error

    workers = [greenlet.greenlet(worker) for _ in range(in_flight)]
    start = time.perf_counter()
    for w in workers:
        w.switch()
    while any(not w.dead for w in workers):
        me, error = replies.get()
        me.switch(error)
    return share * in_flight / (time.perf_counter() - start)


def _best_loop_child(addresses, in_flight, operations, seed, barrier, results):
    session = cql.connect(addresses)
    stmt = session.prepare(READ)
    best_loop(session, stmt, in_flight, min(operations, 2000), seed)  # warm this process's connection
    barrier.wait()
    results.put(best_loop(session, stmt, in_flight, operations, seed))
    session.cluster.shutdown()


def best_loop_processes(addresses, in_flight: int, processes: int, operations: int) -> float:
    """The best loop in `processes` spawned processes at once (in_flight/processes each): total reads / wall."""
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    share = operations // processes
    procs = [ctx.Process(target=_best_loop_child, args=(addresses, in_flight // processes, share, i + 1, barrier, results)) for i in range(processes)]
    for p in procs:
        p.start()
    spans = [results.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    return share * processes / (max(e for _, e in spans) - min(s for s, _ in spans))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inflight", type=lambda s: [int(x) for x in s.split(",")], default=[1, 16, 32, 64])
    parser.add_argument("--operations", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if args.quick:
        args.inflight, args.operations, args.repeats = [1, 16], 2000, 1

    samples: dict[tuple, dict[int, float]] = {}
    with LocalCassandraCluster(nodes=1) as cluster:
        session = cluster.session()
        cql.create_keyspace(session, "bench", 1)
        cql.execute_ddl(session, "CREATE TABLE IF NOT EXISTS bench.kv (k int PRIMARY KEY, v text)")
        ins = session.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)")
        execute_concurrent_with_args(session, ins, [(k, "x" * 100) for k in range(ROWS)], concurrency=32)
        stmt = session.prepare(READ)
        version = cluster.info().server_version
        best_loop(session, stmt, 16, 5000)  # warm the server and both paths
        runner_tps(cluster.addresses, 16, 1, "greenlets", 3000)
        runner_tps(cluster.addresses, 16, 1, "threads", 3000)
        for repeat in range(args.repeats):
            shapes: list[tuple[int, int, str, object]] = []
            for c in args.inflight:
                for processes in [1] + ([2] if c >= 2 else []):
                    def best(c=c, processes=processes, repeat=repeat) -> float:
                        if processes > 1:
                            return best_loop_processes(cluster.addresses, c, processes, args.operations)
                        start, end = best_loop(session, stmt, c, args.operations, seed=repeat + 1)
                        return args.operations / (end - start)

                    shapes.append((c, processes, "best loop", best))
                    if processes == 1:
                        shapes.append((c, 1, "bare hub", lambda c=c, repeat=repeat: bare_hub(session, stmt, c, args.operations, repeat + 1)))
                    for workers in ("threads", "greenlets"):
                        shapes.append((c, processes, f"runner, {workers}",
                                       lambda c=c, processes=processes, workers=workers: runner_tps(cluster.addresses, c, processes, workers, args.operations)))
            for c, procs, client, measure in (shapes if repeat % 2 == 0 else reversed(shapes)):
                tps = measure()
                samples.setdefault((c, procs, client), {})[repeat] = tps
                print(f"repeat {repeat}  in flight {c:3d}  processes {procs}  {client:18s} {tps:8.0f} reads/s", flush=True)

    rows = []
    for (c, processes, client), by_repeat in sorted(samples.items()):
        best = samples[(c, processes, "best loop")]
        ratios = [by_repeat[k] / best[k] for k in sorted(by_repeat)]
        values = [by_repeat[k] for k in sorted(by_repeat)]
        row = {"in_flight": c, "processes": processes, "client": client, "operations": args.operations, "repeats": len(values),
               "reads_s_median": round(statistics.median(values)), "reads_s_all": ", ".join(f"{v:.0f}" for v in values),
               "of_best_loop": round(statistics.median(ratios), 2),
               "of_best_loop_range": f"{min(ratios):.2f}-{max(ratios):.2f}"}
        if c == 1 and processes == 1 and client != "best loop":
            extra = [1e6 / by_repeat[k] - 1e6 / best[k] for k in sorted(by_repeat)]
            row["extra_us_per_read"] = round(statistics.median(extra), 1)
        rows.append(row)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Cassandra {version} (local, 1 node, no CPU budget), labkit {__version__}"
    name = "runner_vs_driver" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/runner_vs_driver.py" + (" --quick" if args.quick else
                                                                  f" --inflight {','.join(map(str, args.inflight))} --operations {args.operations} --repeats {args.repeats}")
    report.write(table, args.out, name, "Runner (threads or greenlets) vs the driver's best loop (primary-key reads)", machine, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
