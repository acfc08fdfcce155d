"""The client's CPU per primary-key read, and what it leaves the database: the driver's best loop and
labkit's runner, on each client path the lab can take.

    .venv/bin/python benchmarks/runner_vs_driver.py              # 1/16/64 in flight, 3 repeats (about 6 min)
    .venv/bin/python benchmarks/runner_vs_driver.py --quick      # checks the script, claims nothing

Why: on one machine the client and the nodes share the cores, so every microsecond of client CPU per read
is one the database does not get. One local Cassandra node (no CPU budget), 10,000 rows, primary-key reads,
one client process. Client paths:
- `driver v5, driver rows`: cassandra-driver as the lab used it until 2026-11-27 (protocol 5, whose frames
  carry checksums computed in Python; the driver's default row factory, which builds a namedtuple class for
  every result);
- `driver v4, cached rows`: cassandra-driver with the lab's settings (engines.cassandra: protocol 4, one row
  class per column list), the fallback where acsylla has no wheel (LABKIT_CQL_DRIVER=cassandra-driver);
- `acsylla, native core`: the lab's default where acsylla is installed (engines.cassandra_calls): the same
  prepared statement sent through acsylla 1.2.0 (ScyllaDB's C++ driver), greenlets parked on its futures.
For each path: the fastest loop the driver allows (cassandra-driver: `execute_async`, each reply's callback
issuing the next request in the driver's I/O thread; acsylla: asyncio tasks, each awaiting its next read)
and the runner with the same reads as pattern code writes them
(`tx.call("read", session.execute, ...)`, greenlet workers, what sweeps use). Measured per run: reads/s,
client CPU per read (the whole process's user+sys over the measured window) and the node's CPU per read
(its process, from /proc, over the same window). Every shape runs once per repeat, in order on even repeats
and reversed on odd ones; ratios pair the shapes of one repeat, and their intervals come from those pairs.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import os
import platform
import random
import resource
import statistics
import sys
import threading
import time
from pathlib import Path

import pandas as pd

import report
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import named_tuple_factory

from labkit import __version__
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.engines import cassandra as cql
from labkit.engines import cassandra_calls as cql_calls
from labkit.results.intervals import ratio_interval
from labkit.runner import BaseWorkload, RunOptions, Watch, run

ROWS = 10_000
WARMUP = 1_000
READ = "SELECT v FROM bench.kv WHERE k = ?"
OLD, NEW, NATIVE = "driver v5, driver rows", "driver v4, cached rows", "acsylla, native core"
PATHS = (OLD, NEW, NATIVE)


def open_session(addresses, path: str):
    """A cassandra-driver session as the lab opened it on `path` (the native path mirrors the v4 one)."""
    if path == OLD:
        session = cql.connect(addresses, protocol_version=5)
        session.cluster.profile_manager.default.row_factory = named_tuple_factory
        return session
    return cql.connect(addresses)


def process_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class PkRead(BaseWorkload):
    """Primary-key reads on one client path; connects before the barrier (open_process)."""

    name = "pk-read"

    def __init__(self, addresses, path: str):
        self.addresses, self.path = addresses, path
        self.session = self.stmt = None

    def open_process(self):
        self.session = open_session(self.addresses, self.path)
        self.stmt = self.session.prepare(READ)

    def close_process(self):
        self.session.cluster.shutdown()

    def transaction(self, tx):
        tx.call("read", self.session.execute, self.stmt, (tx.rng.randrange(ROWS),))


def runner_point(cluster, path: str, in_flight: int, operations: int) -> dict:
    os.environ[cql_calls.DRIVER_VARIABLE] = "acsylla" if path == NATIVE else "cassandra-driver"
    w = PkRead(cluster.addresses, path)
    try:
        r = run(w, threads=in_flight, operations=operations,
            options=RunOptions(processes=1, verify=False, workers="greenlets", warmup=WARMUP),
            watch=Watch(server_meter=cluster.cpu_meter()))  # unmeasured: acsylla's session opens and prepares during it (engines.cassandra_calls)
    finally:
        if w.session is not None:
            w.close_process()
    assert r.count == operations and r.errors == 0, r.summary()
    expected_path = cql_calls.native_path_name() if path == NATIVE else "driver async"
    assert r.to_row()["client_path"] == expected_path, (path, r.to_row()["client_path"])
    server = r.server_cpu.per_transaction_ms(r.count)["total"] * 1000 if r.server_cpu else None
    return {"reads_s": r.throughput, "client_us": r.client_cpu_cores * r.wall_s / r.count * 1e6, "server_us": server}


def best_loop(session, stmt, in_flight: int, operations: int, seed: int = 1) -> None:
    """`operations` reads with `in_flight` outstanding, each reply's callback issuing the next request."""
    rng = random.Random(seed)
    issued = replied = 0
    lock = threading.Lock()
    finished = threading.Event()
    failures: list[BaseException] = []

    def issue() -> None:
        session.execute_async(stmt, (rng.randrange(ROWS),)).add_callbacks(on_reply, on_error)

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

    with lock:
        issued = min(in_flight, operations)
    for _ in range(min(in_flight, operations)):
        issue()
    finished.wait()
    if failures:
        raise failures[0]


class NativeLoop:
    """acsylla's own fastest loop: `in_flight` asyncio tasks on one event loop, each awaiting its next read."""

    def __init__(self, addresses):
        import acsylla

        self.loop = asyncio.new_event_loop()
        self.session = self.loop.run_until_complete(self._open(acsylla, list(addresses)))

    async def _open(self, acsylla, addresses):
        session = await acsylla.create_cluster(addresses, protocol_version=4, log_level="disabled").create_session()
        self.prepared = await session.create_prepared(READ)
        return session

    async def _reads(self, in_flight: int, operations: int, seed: int) -> None:
        rng = random.Random(seed)
        left = operations

        async def reader() -> None:
            nonlocal left
            while left > 0:
                left -= 1
                statement = self.prepared.bind()
                statement.bind_list([rng.randrange(ROWS)])
                await self.session.execute(statement)

        await asyncio.gather(*(reader() for _ in range(min(in_flight, operations))))

    def reads(self, in_flight: int, operations: int, seed: int = 1) -> None:
        self.loop.run_until_complete(self._reads(in_flight, operations, seed))

    def close(self) -> None:
        self.loop.run_until_complete(self.session.close())
        self.loop.close()


def best_loop_point(cluster, session, stmt, in_flight: int, operations: int, seed: int) -> dict:
    meter = cluster.cpu_meter()
    meter.start()
    cpu0, t0 = process_cpu_s(), time.monotonic()
    if isinstance(session, NativeLoop):
        session.reads(in_flight, operations, seed)
    else:
        best_loop(session, stmt, in_flight, operations, seed)
    wall, cpu = time.monotonic() - t0, process_cpu_s() - cpu0
    server = meter.stop()
    return {"reads_s": operations / wall, "client_us": cpu / operations * 1e6,
            "server_us": server.per_transaction_ms(operations)["total"] * 1000 if server else None}


def interval_text(ratios: list[float]) -> str:
    i = ratio_interval(ratios)
    return i.text() if i else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inflight", type=lambda s: [int(x) for x in s.split(",")], default=[1, 16, 64])
    parser.add_argument("--operations", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if args.quick:
        args.inflight, args.operations, args.repeats = [1, 16], 1000, 1

    samples: dict[tuple, dict[int, dict]] = {}
    with LocalCassandraCluster(nodes=1) as cluster:
        setup = cluster.session()
        cql.create_keyspace(setup, "bench", 1)
        cql.execute_ddl(setup, "CREATE TABLE IF NOT EXISTS bench.kv (k int PRIMARY KEY, v text)")
        ins = setup.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)")
        execute_concurrent_with_args(setup, ins, [(k, "x" * 100) for k in range(ROWS)], concurrency=32)
        version = cluster.info().server_version
        sessions = {path: open_session(cluster.addresses, path) for path in PATHS if path != NATIVE}
        stmts = {path: s.prepare(READ) for path, s in sessions.items()}
        sessions[NATIVE], stmts[NATIVE] = NativeLoop(cluster.addresses), None
        for path in PATHS:  # warm the server and every path
            best_loop_point(cluster, sessions[path], stmts[path], 16, 5000, seed=0)
            runner_point(cluster, path, 16, 3000)
        shapes = [(c, path, client) for c in args.inflight for path in PATHS for client in ("best loop", "runner")]
        for repeat in range(args.repeats):
            for c, path, client in (shapes if repeat % 2 == 0 else list(reversed(shapes))):
                if client == "best loop":
                    point = best_loop_point(cluster, sessions[path], stmts[path], c, args.operations, seed=repeat + 1)
                else:
                    point = runner_point(cluster, path, c, args.operations)
                samples.setdefault((c, path, client), {})[repeat] = point
                print(f"repeat {repeat}  in flight {c:3d}  {path:24s} {client:10s} {point['reads_s']:8.0f} reads/s  "
                      f"client {point['client_us']:6.0f} us/read  server {point['server_us'] or float('nan'):6.0f} us/read", flush=True)
        for s in sessions.values():
            s.close() if isinstance(s, NativeLoop) else s.cluster.shutdown()

    rows = []
    for (c, path, client), by_repeat in sorted(samples.items(), key=lambda kv: (kv[0][0], PATHS.index(kv[0][1]), kv[0][2])):
        keys = sorted(by_repeat)
        med = lambda name: statistics.median(by_repeat[k][name] for k in keys if by_repeat[k][name] is not None)  # noqa: E731
        best = samples[(c, path, "best loop")]
        old = samples[(c, OLD, client)]
        stock = samples[(c, OLD, "best loop")]
        rows.append({
            "in_flight": c, "path": path, "client": client, "repeats": len(keys),
            "reads_s": round(med("reads_s")), "client_us_per_read": round(med("client_us")), "server_us_per_read": round(med("server_us")),
            "client_over_server_cpu": round(med("client_us") / med("server_us"), 2),
            "reads_s_of_best_loop": interval_text([by_repeat[k]["reads_s"] / best[k]["reads_s"] for k in keys]) if client != "best loop" else "",
            "reads_s_over_v5_path": interval_text([by_repeat[k]["reads_s"] / old[k]["reads_s"] for k in keys]) if path != OLD else "",
            "client_cpu_over_v5_path": interval_text([by_repeat[k]["client_us"] / old[k]["client_us"] for k in keys]) if path != OLD else "",
            "client_cpu_over_stock_loop": interval_text([by_repeat[k]["client_us"] / stock[k]["client_us"] for k in keys]),
        })
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, Cassandra {version} (local, 1 node, no CPU budget), one client process, "
               f"{args.operations:,} reads per point, cassandra-driver {importlib.metadata.version('cassandra-driver')}, "
               f"{cql_calls.native_path_name()}, labkit {__version__}")
    name = "runner_vs_driver" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/runner_vs_driver.py" + (" --quick" if args.quick else
                                                                  f" --inflight {','.join(map(str, args.inflight))} --operations {args.operations} --repeats {args.repeats}")
    report.write(table, args.out, name, "Client CPU per primary-key read: the driver's best loop and the runner on each client path", machine, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
