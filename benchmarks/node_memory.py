"""What one local Cassandra node holds in memory: the figure memory admission uses (labkit.clusters.local.memory).

    .venv/bin/python benchmarks/node_memory.py

Starts 1 and then 3 local nodes (the lab's JVM settings: 512 MiB heap, serial GC, C1 only), runs YCSB workload A
on each cluster through the sweep entry point (so the heap, memtables, caches and compiled code are warm), then
reads every node's resident memory (RSS) and proportional share (PSS, which counts shared pages such as the
class-data archive once per reader) from the kernel. Repeats each size `REPEATS` times on a fresh cluster and
writes results/node_memory.csv and .md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.local.memory import CASSANDRA_NODE_BYTES, GIB  # noqa: E402
from labkit.sweeps import pattern_slot, run_pattern_sweep  # noqa: E402
from labkit.workloads.ycsb import WORKLOAD  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
REPEATS = 2
SIZES = (1, 3)


def main() -> None:
    rows = []
    for repeat in range(REPEATS):
        for nodes in SIZES:
            slot = pattern_slot(WORKLOAD, "mix", provider="local", on_change=print)
            try:
                plan = WORKLOAD.sweep_plan("quick", "mix", approaches=["baseline/a"], nodes=[nodes], threads=[16], operations=4000)
                measured = run_pattern_sweep(WORKLOAD, plan, settings={"records": 20000}, slot=slot)
                info = slot.cluster.info()
                for name, proc in sorted(slot.cluster.node_processes().items()):
                    full = proc.memory_full_info()
                    rows.append({"engine": info.engine, "server_version": info.server_version, "provider": info.provider, "nodes": nodes,
                                 "repeat": repeat, "node": name, "records": 20000, "verify_ok": measured[-1]["verify_ok"],
                                 "rss_gib": round(full.rss / GIB, 3), "pss_gib": round(full.pss / GIB, 3), "uss_gib": round(full.uss / GIB, 3)})
            finally:
                slot.stop()
    df = pd.DataFrame(rows)
    most = df["rss_gib"].max()
    title = (f"Memory of one local Cassandra node after YCSB A (largest RSS {most:.2f} GiB; labkit admits "
             f"{CASSANDRA_NODE_BYTES / GIB:.2f} GiB per node)")
    write(df, OUT, "node_memory", title, machine(), ".venv/bin/python benchmarks/node_memory.py")
    print(df.to_string(index=False))
    print(f"host: {psutil.virtual_memory().total / GIB:.1f} GiB")


if __name__ == "__main__":
    main()
