"""YCSB C (read only, uniform keys) on budgeted Cassandra nodes whose chunk cache the data fits or does not.

    .venv/bin/python benchmarks/ycsb_cache.py            # classroom: 4,000 vs 40,000 records, 16 MiB chunk cache, 1/2/4 nodes at 0.25 core
    .venv/bin/python benchmarks/ycsb_cache.py --quick    # the notebook's small version: checks the script, claims nothing

Both data sets run on the same cluster at each node count, one after the other in alternating order
(ABBA over node counts), so drift between runs falls on both alike. Each row carries the chunk-cache and
key-cache hits and requests of the measured window, summed over the nodes (system_views.caches), and the
hit ratios derived from them. Writes results/ycsb_cache.csv and results/ycsb_cache.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import profile_run, write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns.pattern_sweep import run_pattern_sweep  # noqa: E402
from labkit.workloads.ycsb import WORKLOAD  # noqa: E402
from labkit.workloads.ycsb.cassandra import cluster_options, hit_ratios  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
CLIENT_PROCESSES = 2
"""One client process was the limit at 4 nodes (0.79 core busy, flagged `client`); two leave it room."""
COLUMNS = ["engine", "server_version", "provider", "nodes", "node_cpu", "approach", "records", "chunk_cache_mb", "threads", "processes",
           "operations", "throughput", "p50_us", "p95_us", "chunk_cache_hit_ratio", "key_cache_hit_ratio", "server_cpu_ms_per_tx_net",
           "client_cpu_cores", "machine_cpu_busy", "limit", "verify_ok"]


def main() -> None:
    profile, stem, command = profile_run(__file__, __doc__)
    spills, fits = WORKLOAD.named_sweep(profile, "cache"), WORKLOAD.named_sweep(profile, "cache-fits")
    slot = ClusterSlot.for_engine("cassandra", "local", node_cpu=spills.node_cpu, **cluster_options("cache", dict(spills.settings)))
    rows = []
    try:
        for i, nodes in enumerate(spills.nodes):
            order = ("cache-fits", "cache") if i % 2 == 0 else ("cache", "cache-fits")
            for name in order:
                rows += run_pattern_sweep(WORKLOAD, WORKLOAD.sweep_plan(profile, name, nodes=[nodes], processes=CLIENT_PROCESSES), slot=slot)
    finally:
        slot.stop()
    df = hit_ratios(rows)
    write(df[COLUMNS].copy(), OUT, stem, f"YCSB C, uniform keys: data that fits each node's {spills.settings['chunk_cache_mb']} MiB chunk cache "
          f"({fits.settings['records']} records) vs data that does not ({spills.settings['records']}), {spills.node_cpu} core per node", machine(), command)
    print(df[COLUMNS].to_string(index=False))


if __name__ == "__main__":
    main()
