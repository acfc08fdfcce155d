"""The runner's efficiency on a real server: labkit's threads vs the raw driver's best loop.

    .venv/bin/python benchmarks/runner_vs_driver.py

One local Cassandra node, 1,000 rows, primary-key reads. For each in-flight count C the runner runs C
workers doing synchronous `session.execute` (what pattern code does), as C threads in one process and,
for C >= 2, as C/2 threads in each of 2 processes; the raw driver keeps C requests in flight with
`execute_concurrent_with_args` (its own callback loop, no threads). The ratio runner/raw says how much
of the driver's best throughput the runner's thread-per-request model keeps.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

import report
from cassandra.concurrent import execute_concurrent_with_args

from labkit import __version__
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.engines import cassandra as cql
from labkit.runner import BaseWorkload, run

ROWS = 1000


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
        self.stmt = self.session.prepare("SELECT v FROM bench.kv WHERE k = ?")

    def close_process(self):
        self.session.cluster.shutdown()

    def transaction(self, tx):
        tx.call("read", self.session.execute, self.stmt, (tx.rng.randrange(ROWS),))


def runner_tps(addresses, threads: int, processes: int, operations: int) -> tuple[float, bool]:
    w = PkRead(addresses)
    try:
        r = run(w, threads=threads, processes=processes, operations=operations, verify=False)
    finally:
        if w.session is not None:
            w.close_process()
    assert r.count == operations and r.errors == 0, r.summary()
    return r.throughput, r.client_saturated


def raw_driver(session, stmt, inflight: int, operations: int) -> float:
    import random

    rng = random.Random(1)
    params = [(rng.randrange(ROWS),) for _ in range(operations)]
    t0 = time.perf_counter()
    results = execute_concurrent_with_args(session, stmt, params, concurrency=inflight, raise_on_first_error=True, results_generator=True)
    n = sum(1 for ok, _ in results if ok)
    return n / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inflight", type=lambda s: [int(x) for x in s.split(",")], default=[1, 4, 16])
    parser.add_argument("--operations", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()

    rows = []
    with LocalCassandraCluster(nodes=1) as cluster:
        session = cluster.session()
        cql.create_keyspace(session, "bench", 1)
        cql.execute_ddl(session, "CREATE TABLE IF NOT EXISTS bench.kv (k int PRIMARY KEY, v text)")
        ins = session.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)")
        execute_concurrent_with_args(session, ins, [(k, "x" * 100) for k in range(ROWS)], concurrency=32)
        stmt = session.prepare("SELECT v FROM bench.kv WHERE k = ?")
        version = cluster.info().server_version
        raw_driver(session, stmt, 8, 3000)  # warm both paths
        runner_tps(cluster.addresses, 8, 1, 3000)
        for c in args.inflight:
            shapes = [(c, 1)] + ([(c // 2, 2)] if c >= 2 else [])
            for threads, processes in shapes:
                runner, raw, saturated = [], [], []
                for _ in range(args.repeats):  # interleaved so drift in the shared VM hits both alike
                    tps, sat = runner_tps(cluster.addresses, threads, processes, args.operations)
                    runner.append(tps)
                    saturated.append(sat)
                    raw.append(raw_driver(session, stmt, c, args.operations))
                row = {
                    "in_flight": c,
                    "runner_threads": threads,
                    "runner_processes": processes,
                    "operations": args.operations,
                    "repeats": args.repeats,
                    "runner_tx_s_median": round(statistics.median(runner)),
                    "raw_driver_tx_s_median": round(statistics.median(raw)),
                    "ratio": round(statistics.median(runner) / statistics.median(raw), 2),
                    "runner_client_saturated": any(saturated),
                }
                rows.append(row)
                print(row, flush=True)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Cassandra {version} (local, 1 node), labkit {__version__}"
    report.write(
        pd.DataFrame(rows), args.out, "runner_vs_driver", "Runner vs raw driver (primary-key reads)", machine,
        f".venv/bin/python benchmarks/runner_vs_driver.py --inflight {','.join(map(str, args.inflight))} "
        f"--operations {args.operations} --repeats {args.repeats}",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
