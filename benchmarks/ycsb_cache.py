"""YCSB C (read only, uniform keys) on budgeted Cassandra nodes whose chunk cache the data fits or does not.

    .venv/bin/python benchmarks/ycsb_cache.py            # classroom: 4,000 vs 40,000 records, 16 MiB chunk cache, 1/2/4 nodes at 0.25 core
    .venv/bin/python benchmarks/ycsb_cache.py --quick    # the notebook's small version: checks the script, claims nothing

Both data sets run on the same cluster at each node count in 3 interleaved blocks (classroom), one after the
other in alternating order (ABBA over blocks and node counts), so drift between runs falls on both alike.
Each row carries the chunk-cache and key-cache hits and requests of the measured window, summed over the
nodes (system_views.caches), and the hit ratios derived from them. Writes results/ycsb_cache.csv/.md (one
row per run) and results/ycsb_cache_ratios.csv/.md: spilling vs fitting data per node count (runs of one
block pair) and each data set's gain from 1 node (independent clusters: a Welch interval), with 95% intervals.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import profile_run, write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns.description import CLASSROOM_REPEATS  # noqa: E402
from labkit.results.intervals import interval_of  # noqa: E402
from labkit.sweeps import run_pattern_sweep  # noqa: E402
from labkit.workloads.ycsb import WORKLOAD  # noqa: E402
from labkit.workloads.ycsb.cassandra import cluster_options, hit_ratios  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
CLIENT_PROCESSES = 2
"""One client process was the limit at 4 nodes (0.79 core busy, flagged `client`); two leave it room."""
COLUMNS = ["engine", "server_version", "provider", "nodes", "node_cpu", "approach", "records", "repeat", "order", "chunk_cache_mb", "threads", "processes",
           "operations", "throughput", "p50_us", "p95_us", "chunk_cache_hit_ratio", "key_cache_hit_ratio", "server_cpu_ms_per_tx_net",
           "client_cpu_cores", "machine_cpu_busy", "limit", "verify_ok"]


def main() -> None:
    profile, stem, command, _ = profile_run(__file__, __doc__)
    spills, fits = WORKLOAD.named_sweep(profile, "cache"), WORKLOAD.named_sweep(profile, "cache-fits")
    slot = ClusterSlot.for_engine("cassandra", "local", node_cpu=spills.node_cpu, **cluster_options("cache", dict(spills.settings)))
    repeats = 1 if profile == "quick" else CLASSROOM_REPEATS
    rows = []
    try:
        block = 0
        for nodes in spills.nodes:
            for repeat in range(repeats):
                order = ("cache-fits", "cache") if block % 2 == 0 else ("cache", "cache-fits")
                block += 1
                for position, name in enumerate(order):
                    plan = WORKLOAD.sweep_plan(profile, name, nodes=[nodes], processes=CLIENT_PROCESSES, repeats=1)
                    rows += [{**row, "repeat": repeat, "order": position} for row in run_pattern_sweep(WORKLOAD, plan, slot=slot)]
    finally:
        slot.stop()
    df = hit_ratios(rows)
    title = (f"YCSB C, uniform keys: data that fits each node's {spills.settings['chunk_cache_mb']} MiB chunk cache ({fits.settings['records']} "
             f"records) vs data that does not ({spills.settings['records']}), {spills.node_cpu} core per node, {repeats} interleaved blocks")
    write(df[COLUMNS].copy(), OUT, stem, title, machine(), command)
    print(df[COLUMNS].to_string(index=False))
    table = cache_ratios(df, fits.settings["records"], spills.settings["records"])
    write(table, OUT, f"{stem}_ratios", title + ": ratios with 95% intervals", machine(), command)
    print(table.to_string(index=False))


def cache_ratios(df: pd.DataFrame, fitting: int, spilling: int) -> pd.DataFrame:
    """Throughput of the spilling data over the fitting data per node count (the two ran in the same blocks
    on one cluster: paired by block), and each data set's throughput at n nodes over 1 node (clusters started
    apart: unpaired, Welch)."""
    out = []
    for nodes, group in df.groupby("nodes"):
        paired = group.assign(approach=group["records"].map({fitting: "fits", spilling: "spills"}))
        spill = interval_of(paired, "throughput", "spills", "fits")
        row = {"nodes": nodes, "spills / fits": spill.text()}
        for records, name in ((spilling, "spills"), (fitting, "fits")):
            one = df[(df["records"] == records) & (df["nodes"].isin([1, nodes]))]
            row[f"{name}: these nodes / 1 node"] = interval_of(one, "throughput", nodes, 1, between="nodes").text() if nodes != 1 else ""
        out.append(row)
    return pd.DataFrame(out)


if __name__ == "__main__":
    main()
