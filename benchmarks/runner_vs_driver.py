"""The runner's efficiency on a real server: labkit's threads vs the raw driver's best loop.

    .venv/bin/python benchmarks/runner_vs_driver.py

One local Cassandra node, 1,000 rows, primary-key reads. For each in-flight count C the runner runs C
threads doing synchronous `session.execute` (what pattern code does), and the raw driver keeps C
requests in flight with `execute_concurrent_with_args` (its own asynchronous loop, no threads). The
ratio runner/raw says how much of the driver's throughput the runner's convenience costs.
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
from cassandra.concurrent import execute_concurrent_with_args

from labkit import __version__
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.engines import cassandra as cql
from labkit.runner import BaseWorkload, run

ROWS = 1000


class PkRead(BaseWorkload):
    name = "pk-read"

    def __init__(self, session, stmt):
        self.session, self.stmt = session, stmt

    def transaction(self, tx):
        tx.call("read", self.session.execute, self.stmt, (tx.rng.randrange(ROWS),))


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
    parser.add_argument("--operations", type=int, default=20000)
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
        run(PkRead(session, stmt), threads=8, operations=3000, verify=False)
        for c in args.inflight:
            runner_tps, raw_tps, saturated = [], [], []
            for _ in range(args.repeats):  # interleaved so drift in the shared VM hits both alike
                r = run(PkRead(session, stmt), threads=c, operations=args.operations, verify=False)
                assert r.count == args.operations and r.errors == 0
                runner_tps.append(r.throughput)
                saturated.append(r.client_saturated)
                raw_tps.append(raw_driver(session, stmt, c, args.operations))
            row = {
                "in_flight": c,
                "operations": args.operations,
                "repeats": args.repeats,
                "runner_tx_s_median": round(statistics.median(runner_tps)),
                "raw_driver_tx_s_median": round(statistics.median(raw_tps)),
                "ratio": round(statistics.median(runner_tps) / statistics.median(raw_tps), 2),
                "runner_client_saturated": any(saturated),
            }
            rows.append(row)
            print(row, flush=True)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Cassandra {version} (local, 1 node), labkit {__version__}"
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    df.insert(0, "machine", machine)
    df.to_csv(args.out / "runner_vs_driver.csv", index=False)
    (args.out / "runner_vs_driver.md").write_text(
        f"# Runner vs raw driver (primary-key reads)\n\nMachine: {machine}\n\nCommand: `.venv/bin/python benchmarks/runner_vs_driver.py "
        f"--inflight {','.join(map(str, args.inflight))} --operations {args.operations} --repeats {args.repeats}`\n\n"
        f"{df.drop(columns=['machine']).to_markdown(index=False)}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
