"""How long a measured run's settle window must be: an idle budgeted node's CPU read over 0.5 s and 1 s
windows, and how long the settle waits after a burst of unmeasured writes, each window size in turn.

Why: before every budgeted run the runner waits until each node is quiet (node_cpu.settle) and takes the
last window's rate as the node's idle background, which the measured window's net CPU subtracts. The
window is paid once per budgeted run (about 30 times in `make run`); this shows whether half a second
reads the same idle background and settles as surely as a second. Measured 2026-11-26: both settled every
burst in one window, but the half-second readings of an idle node scattered four times as widely (sd
0.032 vs 0.008 core, one window at 0.16), which the net CPU per transaction would inherit, so the window
stays 1 s (results/settle_window.md).

    .venv/bin/python benchmarks/settle_window.py            # one 1-node cluster at 0.25 core, about 1 minute
    .venv/bin/python benchmarks/settle_window.py --windows 12 --bursts 3

Writes results/settle_window.md (the table and the machine it ran on).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labkit.clusters.local.node_cpu import SETTLED_CORES, cpu_seconds  # noqa: E402
from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.engines import cassandra as cql  # noqa: E402

SIZES = (0.5, 1.0)
NODE_CPU = 0.25


def idle_rates(proc, window_s: float, count: int) -> list[float]:
    rates = []
    for _ in range(count):
        before = cpu_seconds(proc)
        time.sleep(window_s)
        rates.append((cpu_seconds(proc) - before) / window_s)
    return rates


def burst(session, rows: int) -> None:
    """Unmeasured work like a load: `rows` inserts, 64 in flight."""
    from cassandra.concurrent import execute_concurrent_with_args

    cql.create_keyspace(session, "settle_probe", 1)
    cql.execute_ddl(session, "CREATE TABLE IF NOT EXISTS settle_probe.t (k int PRIMARY KEY, v text)")
    insert = session.prepare("INSERT INTO settle_probe.t (k, v) VALUES (?, ?)")
    execute_concurrent_with_args(session, insert, [(i, "x" * 100) for i in range(rows)], concurrency=64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=8, help="idle windows read per size and round")
    parser.add_argument("--bursts", type=int, default=2, help="bursts of writes settled per size")
    parser.add_argument("--rows", type=int, default=20000, help="inserts per burst")
    args = parser.parse_args()
    if args.windows < 2 or args.bursts < 1 or args.rows < 1:
        parser.error("--windows must be at least 2, --bursts and --rows at least 1")

    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print)
    slot.node_cpu = NODE_CPU
    cluster = slot.ensure(1)
    idle: dict[float, list[float]] = {size: [] for size in SIZES}
    settled: dict[float, list[tuple[float, float]]] = {size: [] for size in SIZES}
    try:
        meter = cluster.cpu_meter()
        proc = next(iter(meter.nodes.values()))[0]
        time.sleep(5)  # past the start-up's own compilation
        for _round in range(2):  # the sizes interleaved: drift falls on both
            for size in SIZES:
                idle[size] += idle_rates(proc, size, args.windows)
        session = cql.connect(cluster.addresses)
        try:
            for _round in range(args.bursts):
                for size in SIZES:
                    with meter.unbudgeted(settle=False):
                        burst(session, args.rows)
                        waited = meter.settle(window_s=size)
                        settled[size].append((waited, max(meter.idle_cores.values(), default=0.0)))
        finally:
            session.cluster.shutdown()
    finally:
        slot.stop()

    info = cluster.info()
    lines = [
        f"# Settle window: idle reading and wait, {info.engine} {info.server_version} · {info.provider} · 1 node · {NODE_CPU} core",
        "",
        f"Machine: {platform.node()} · {platform.processor() or platform.machine()} · "
        f"{__import__('os').cpu_count()} cores · {time.strftime('%Y-%m-%d')}. Quiet means at most {SETTLED_CORES} core in a window.",
        "Command: `.venv/bin/python benchmarks/settle_window.py "
        f"--windows {args.windows} --bursts {args.bursts} --rows {args.rows}`",
        "",
        "| window, s | idle windows | idle cores mean | sd | max | bursts settled | wait after a burst, s (each) | idle read at the end (each) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size in SIZES:
        rates = idle[size]
        waits = ", ".join(f"{w:.2f}" for w, _ in settled[size])
        ends = ", ".join(f"{r:.3f}" for _, r in settled[size])
        lines.append(f"| {size} | {len(rates)} | {statistics.mean(rates):.3f} | {statistics.stdev(rates):.3f} | {max(rates):.3f} | "
                     f"{len(settled[size])} | {waits} | {ends} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(__file__).resolve().parent / "results" / "settle_window.md"
    out.write_text(text)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
