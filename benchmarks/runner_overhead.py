"""Runner overhead: what the labkit runner itself costs per transaction, measured on no-op workloads.

    .venv/bin/python benchmarks/runner_overhead.py            # writes benchmarks/results/runner_overhead.{csv,md}

Two no-op workloads: `empty` (the transaction does nothing) and `one-op` (the transaction makes one
timed `tx.call`, as every real workload does). Wall time per transaction at 1 worker is the runner's
overhead; at 8 and 64 workers the GIL serialises them, so the figure shows contention cost. Both kinds
of worker are measured: threads, and greenlets (runner.tasks), whose one-op call goes through an
asynchronous form that replies at once, so a transaction costs a park on the hub and a resume.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path

import pandas as pd

import report

from labkit import __version__
from labkit.runner import BaseWorkload, RunOptions, run
from labkit.runner.tasks import register_async_form


class Empty(BaseWorkload):
    name = "empty"

    def transaction(self, tx):
        pass


def _nothing():
    return None


def _nothing_async(fn):
    """The asynchronous form of `_nothing` for greenlet workers: the reply is posted at once."""
    if fn is _nothing:
        return lambda args, kwargs, on_result, on_error: on_result(None)
    return None


register_async_form(_nothing_async)


class OneOp(BaseWorkload):
    name = "one-op"

    def transaction(self, tx):
        tx.call("noop", _nothing)


def measure(workload, threads: int, processes: int, operations: int, repeats: int, workers: str) -> dict:
    runs = [run(workload, threads=threads, operations=operations, options=RunOptions(processes=processes, workers=workers)) for _ in range(repeats)]
    walls = [r.wall_s / r.count * 1e6 for r in runs]
    best = min(runs, key=lambda r: r.wall_s)
    return {
        "workload": workload.name,
        "workers": workers,
        "threads": threads,
        "processes": processes,
        "operations": operations,
        "repeats": repeats,
        "wall_us_per_tx_median": round(statistics.median(walls), 3),
        "wall_us_per_tx_best": round(min(walls), 3),
        "tx_per_s_median": round(statistics.median(r.throughput for r in runs)),
        "client_cpu_cores": round(best.client_cpu_cores, 2),
        "client_saturated": best.client_saturated,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--operations", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()

    rows = []
    for workers in ("threads", "greenlets"):
        for workload in (Empty(), OneOp()):
            for threads in (1, 8, 64):
                rows.append(measure(workload, threads, 1, args.operations, args.repeats, workers))
                print(rows[-1], flush=True)
            for processes in (1, 2):
                rows.append(measure(workload, 1, processes, args.operations * 2, args.repeats, workers))
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, labkit {__version__}"
    report.write(
        df, args.out, "runner_overhead", "Runner overhead", machine,
        f".venv/bin/python benchmarks/runner_overhead.py --operations {args.operations} --repeats {args.repeats}",
    )
    for workers in ("threads", "greenlets"):
        one = df[(df.workload == "one-op") & (df.workers == workers) & (df.threads == 1) & (df.processes == 1)].iloc[0]
        print(f"one-op overhead at 1 {workers[:-1]}: {one.wall_us_per_tx_median} us/tx (target <= 15)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
