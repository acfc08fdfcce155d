"""What running the client processes on Dask workers costs: one point from 2 spawned local processes vs 2
Dask workers (a LocalCluster on this machine), interleaved, client CPU per transaction with its interval.

    .venv/bin/python benchmarks/dask_clients.py            # 5 blocks, 20,000 Index Table logins per run, 1 local node (about 4 min)
    .venv/bin/python benchmarks/dask_clients.py --quick    # 1 block of 2,000: checks the script, claims nothing

Both paths run the same pickled workload in two client processes of 16 greenlets each (32 in flight), after
the same warm-up, released by a barrier; only where the processes live differs: spawned by the runner
(runner.processes) or tasks on Dask worker processes (runner.remote: a Queue and an Event as the barrier,
outcomes shipped back through the scheduler). Client CPU is each process's CPU time over its measured
window (a Dask worker's own threads, its heartbeats to the scheduler, count against the Dask path). The
blocks alternate which path goes first (ABBA). Writes results/dask_clients.{csv,md} (one row per run) and
results/dask_clients_ratio.{csv,md}: Dask / local, paired within a block, with 95% intervals.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns.index_table.cassandra import IndexTable  # noqa: E402
from labkit.results.intervals import interval_of  # noqa: E402
from labkit.runner import RunOptions, Watch, run  # noqa: E402
from labkit.runner.remote import check_workers, connected, parse_clients  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
USERS = 2000
THREADS, PROCESSES = 32, 2
PATHS = ("local processes", "dask workers")
SIZES = {"classroom": {"repeats": 5, "operations": 20_000, "warmup": 2_000}, "quick": {"repeats": 1, "operations": 2_000, "warmup": 200}}


def one_run(cluster, path: str, client, size: dict, repeat: int, order: int) -> dict:
    """One measured run of Index Table logins through `path` (the first run's load registers the users, the
    others find them loaded); the row says what ran where."""
    workload = IndexTable(cluster.addresses, "pattern", "login", users=USERS)
    try:
        r = run(workload, threads=THREADS, operations=size["operations"],
            options=RunOptions(processes=PROCESSES, warmup=size["warmup"], workers="greenlets", clients=client if path == "dask workers" else None),
            watch=Watch(server_meter=cluster.cpu_meter()))
    finally:
        workload.close_process()
    info = cluster.info()
    row = {"engine": info.engine, "server_version": info.server_version, "provider": info.provider, "nodes": info.nodes,
           "approach": path, "repeat": repeat, "order": order, "threads": r.threads, "processes": r.processes, "operations": r.operations,
           "count": r.count, "errors": r.errors, "complete": r.complete, "throughput": round(r.throughput, 1), "p95_us": r.stats.p95_us,
           "client_cpu_cores": round(r.client_cpu_cores, 3),
           "client_cpu_us_per_tx": round(r.client_cpu_cores * r.wall_s / r.count * 1e6, 2) if r.count else None,
           "client_hosts": r.to_row().get("client_hosts", "spawned here"), "barrier_slack_s": r.client_barrier_slack_s,
           "client_problems": "; ".join(r.client_problems),
           "machine_cpu_busy": r.machine_cpu_busy, "limit": r.limit, "verify_ok": None if r.verification is None else r.verification.ok}
    print(row)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one small block: checks the script, claims nothing")
    args = parser.parse_args()
    profile = "quick" if args.quick else "classroom"
    size = SIZES[profile]
    stem = "dask_clients" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/dask_clients.py" + (" --quick" if args.quick else "")
    slot = ClusterSlot.for_engine("cassandra", "local")
    rows = []
    try:
        cluster = slot.ensure(1)
        with connected(parse_clients(f"local:{PROCESSES}")) as client:
            check_workers(client)
            for repeat in range(size["repeats"]):
                order = PATHS if repeat % 2 == 0 else tuple(reversed(PATHS))
                rows += [one_run(cluster, path, client, size, repeat, position) for position, path in enumerate(order)]
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    title = (f"Client processes spawned here vs on Dask workers: Index Table logins, {THREADS} in flight in {PROCESSES} processes, "
             f"{size['operations']:,} per run, {size['repeats']} ABBA blocks")
    write(df.copy(), OUT, stem, title, machine(), command)
    table = pd.DataFrame([{"figure": what, "dask workers / local processes": interval_of(df, column, "dask workers", "local processes").text(),
                           "local (median)": df[df.approach == "local processes"][column].median(),
                           "dask (median)": df[df.approach == "dask workers"][column].median()}
                          for what, column in (("client CPU per transaction (us)", "client_cpu_us_per_tx"), ("throughput (logins/s)", "throughput"),
                                               ("p95 latency (us)", "p95_us"))])
    write(table, OUT, f"{stem}_ratio", title + ": Dask / local, paired by block, 95% intervals", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
