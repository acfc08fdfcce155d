"""Offered-load curves of YCSB workloads A, B, C and E on one budgeted Cassandra node, with their knees.

    .venv/bin/python benchmarks/ycsb_offered_load.py            # classroom: 8 offered loads per mix, 6 s each, 3 interleaved blocks
    .venv/bin/python benchmarks/ycsb_offered_load.py --quick    # the notebook's small version: checks the script, claims nothing

The node gets a CPU budget (the description's `node_cpu`, 0.5 core) so that the database, not this
2-core machine or the Python client, runs out first; the client runs in two processes; every row says
what limited it, with the client's CPU and the node's CPU per transaction. Each mix is paced
at rising target rates (the description's `targets`, each held `target_seconds`); latency is measured
from each transaction's intended start, so queueing past the knee shows. Writes
results/ycsb_offered_load.csv, the figure (.html, .png where kaleido finds a Chromium) and
results/ycsb_knees.md (each mix's knee and why the next load was too much: the middle one of the blocks'
knees, each block's knee in `knee_each`). The figure draws the median of the blocks at each offered load.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figure  # noqa: E402
from report import profile_run, write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.sweeps import run_pattern_sweep  # noqa: E402
from labkit.results import knees, offered_load_figure  # noqa: E402
from labkit.workloads.ycsb import KNEE_MIXES, WORKLOAD  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
COLUMNS = ["engine", "server_version", "provider", "pattern", "phase", "nodes", "node_cpu", "approach", "threads", "repeat", "order", "warmup_block",
           "complete", "processes", "records",
           "target_rate", "operations", "throughput", "p50_us", "p95_us", "p99_us", "intended_p50_us", "intended_p95_us", "intended_p99_us",
           "server_cpu_ms_per_tx", "server_cpu_ms_per_tx_net", "client_cpu_cores", "machine_cpu_busy", "limit", "limit_note", "errors", "verify_ok"]
CLIENT_PROCESSES = 2
"""Two client processes (32 greenlets each): one Python process queued on its interpreter lock near
2,400 offered/s here, which would put the client's limit into the read-only mixes' knees."""


def main() -> None:
    profile, stem, command, _ = profile_run(__file__, __doc__)
    size = WORKLOAD.named_sweep(profile, "offered-load")
    slot = ClusterSlot.for_engine("cassandra", "local", node_cpu=size.node_cpu)
    try:
        rows = run_pattern_sweep(WORKLOAD, WORKLOAD.sweep_plan(profile, "offered-load", approaches=list(KNEE_MIXES), processes=CLIENT_PROCESSES), slot=slot)
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    write(df[COLUMNS].copy(), OUT, stem, f"YCSB A, B, C, E: offered-load sweep ({size.settings}, {size.node_cpu} core per node)", machine(), command)
    save_figure(offered_load_figure(df), OUT / stem, height=600)
    table = knees(df)
    write(table, OUT, stem.replace("offered_load", "knees"), "YCSB knees: highest offered load each mix kept up with", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
