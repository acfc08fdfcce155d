"""Workloads on budgeted nodes: does the node slider add capacity, and what does a transaction cost the servers?

    .venv/bin/python benchmarks/node_budgets.py                    # Index Table login, 1/2/4/8 nodes (about 18 min)
    .venv/bin/python benchmarks/node_budgets.py fan-out            # Fan-out post and paginate, 4 and 8 nodes
    .venv/bin/python benchmarks/node_budgets.py ycsb-pk            # primary-key reads/updates, 1/2/4/8 nodes
    .venv/bin/python benchmarks/node_budgets.py index-table --quick   # small sizes: checks the script, claims nothing

Every node gets a CPU budget (labkit's per-node control group, 10 ms CFS period), so a node is a small
machine and more nodes add capacity, as in the source's experiments on separate machines. For each node
count, approach and in-flight level (two client processes), after a warm-up with the budgets lifted (a
fresh JVM compiles its hot code far slower inside a fraction of a core), it records throughput, p95, server CPU per
transaction (all nodes together) and what limited each point. Writes results/node_budgets_<what>.{csv,md},
the figures, and a ratios table: pattern / naive per node count, or for the primary-key workload, the
throughput relative to one node.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figures  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import fan_out, index_table, ycsb_a  # noqa: E402
from labkit.patterns.sweeps import run_pattern_sweep  # noqa: E402
from labkit.results import SweepPlan  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
BUDGET = 0.15
COLUMNS = ["pattern", "phase", "engine", "server_version", "provider", "nodes", "node_cpu", "approach", "threads", "processes", "operations", "throughput",
           "mean_us", "p50_us", "p95_us", "p99_us", "errors", "verify_ok", "server_cpu_ms_per_tx", "server_cpu_ms_per_tx_net", "server_idle_cores", "node_busy_max", "client_cpu_cores",
           "client_gil_wait_ms", "machine_cpu_busy", "limit"]


@dataclass(frozen=True)
class Experiment:
    """One benchmark: a workload module, its phases with data sizes, and the sweep's shape."""

    module: Any
    pattern: str
    phases: list[tuple[str | None, dict[str, Any]]]
    nodes: list[int]
    threads: list[int]
    operations: int
    stem: str
    unit: str = "tx"
    processes: int = 2
    warmup: dict[str, int] = field(default_factory=dict)


FAN_OUT_SIZES = {"users": 200, "follows": 20, "posts": 10}
FAN_OUT_QUICK = {"users": 40, "follows": 10, "posts": 8}
CLASSROOM = {
    "index-table": Experiment(index_table, "index-table", [("login", {"users": 20000})], [1, 2, 4, 8], [16, 48], 2000, "node_budgets", "login",
                              warmup={"login": 2000}),
    "fan-out": Experiment(fan_out, "fan-out", [("paginate", FAN_OUT_SIZES), ("post", FAN_OUT_SIZES)], [4, 8], [16, 48], 1000,
                          "node_budgets_fan_out", "page or post", warmup={"paginate": 1000}),
    "ycsb-pk": Experiment(ycsb_a, "ycsb-pk", [(None, {"records": 20000, "consistency": "ONE", "replication": 1, "distribution": "uniform"})],
                          [1, 2, 4, 8], [16, 48], 3000, "node_budgets_ycsb_pk", "read or update", warmup={None: 3000}),
}
QUICK = {
    "index-table": Experiment(index_table, "index-table", [("login", {"users": 1000})], [1, 2], [8], 300, "node_budgets_quick", "login",
                              warmup={"login": 300}),
    "fan-out": Experiment(fan_out, "fan-out", [("paginate", FAN_OUT_QUICK), ("post", FAN_OUT_QUICK)],
                          [2], [8], 200, "node_budgets_fan_out_quick", "page or post",
                          warmup={"paginate": 200}),
    "ycsb-pk": Experiment(ycsb_a, "ycsb-pk", [(None, {"records": 2000, "consistency": "ONE", "replication": 1, "distribution": "uniform"})],
                          [1, 2], [8], 600, "node_budgets_ycsb_pk_quick", "read or update",
                          warmup={None: 600}),
}


def pattern_ratios(df: pd.DataFrame, unit: str) -> pd.DataFrame:
    """Per phase, node count and in-flight level: pattern / each naive approach (throughput), and server CPU per transaction."""
    out = []
    for (phase, nodes, threads), group in df.groupby(["phase", "nodes", "threads"]):
        by = group.set_index("approach")
        row = {"phase": phase, "nodes": nodes, "in flight": threads * group["processes"].iloc[0]}
        for a in by.index:
            row[f"{a} {unit}s/s"] = round(by.loc[a, "throughput"], 1)
        for naive in [a for a in by.index if a.startswith("naive")]:
            if "pattern" in by.index:
                row[f"pattern/{naive}"] = round(by.loc["pattern", "throughput"] / by.loc[naive, "throughput"], 2)
        for a in by.index:
            row[f"{a} server ms CPU/{unit}"] = round(by.loc[a, "server_cpu_ms_per_tx"], 2)
        if "server_cpu_ms_per_tx_net" in by:
            for a in by.index:
                row[f"{a} above idle"] = round(by.loc[a, "server_cpu_ms_per_tx_net"], 2)
        row["limits"] = ", ".join(f"{a}: {by.loc[a, 'limit']}" for a in by.index)
        out.append(row)
    return pd.DataFrame(out)


def scaling(df: pd.DataFrame, unit: str) -> pd.DataFrame:
    """Per in-flight level and node count: throughput, its multiple of the smallest cluster's, and server CPU per transaction."""
    out = []
    for threads, group in df.groupby("threads"):
        group = group.sort_values("nodes")
        base = group.iloc[0]
        for _, r in group.iterrows():
            out.append({
                "in flight": threads * r["processes"], "nodes": r["nodes"], f"{unit}s/s": round(r["throughput"], 1),
                f"x of {base['nodes']} node(s)": round(r["throughput"] / base["throughput"], 2),
                "node budgets in total (cores)": round(r["nodes"] * r["node_cpu"], 2),
                f"server ms CPU/{unit}": round(r["server_cpu_ms_per_tx"], 2),
                "above idle": round(r["server_cpu_ms_per_tx_net"], 2) if "server_cpu_ms_per_tx_net" in r else None,
                "busiest node (share of budget)": r["node_busy_max"],
                "machine busy": r["machine_cpu_busy"], "limit": r["limit"],
            })
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default="index-table", choices=sorted(CLASSROOM))
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    args = parser.parse_args()
    exp = (QUICK if args.quick else CLASSROOM)[args.what]
    command = ".venv/bin/python benchmarks/node_budgets.py" + ("" if args.what == "index-table" else f" {args.what}") + (" --quick" if args.quick else "")
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    rows: dict[str | None, list[dict[str, Any]]] = {phase: [] for phase, _ in exp.phases}
    try:
        for nodes, (phase, sizes) in ((n, p) for n in exp.nodes for p in exp.phases):  # all phases on one cluster size
            plan = SweepPlan(pattern=exp.pattern, approaches=exp.module.APPROACHES, threads=exp.threads, nodes=[nodes],
                             operations=exp.operations, processes=exp.processes, run_options={"warmup": exp.warmup.get(phase, 0)})
            options = ({"phase": phase} if phase else {}) | sizes
            measured = run_pattern_sweep(exp.module, plan, options=options, slot=slot)
            rows[phase].extend(measured)
            if not all(r.get("complete", True) for r in measured):  # Ctrl-C: keep what was measured, run no more
                print("interrupted: writing the runs measured so far")
                break
    finally:
        slot.stop()
    frames = []
    for phase, sizes in exp.phases:
        df = pd.DataFrame(rows[phase])
        if df.empty:
            continue
        if "phase" not in df:
            df["phase"] = "read/update"
        name = exp.stem + (f"_{phase}" if phase else "")
        size_note = ", ".join(f"{k}={v}" for k, v in sizes.items())
        title = f"{exp.pattern} {phase or ''} on nodes budgeted at {BUDGET} core each ({size_note}; warm-up {exp.warmup.get(phase, 0)} unbudgeted)"
        write(df[[c for c in COLUMNS if c in df]].copy(), OUT, name, title, machine(), command)
        save_figures(df, OUT / name)
        frames.append(df)
    df = pd.concat(frames)
    if exp.module is ycsb_a:  # no pattern to compare with: how throughput grows with the cluster
        table, suffix, what = scaling(df, exp.unit), "scaling", "throughput as nodes are added, and server CPU per operation"
    else:
        table, suffix, what = pattern_ratios(df, exp.unit), "ratios", "pattern vs naive, and server CPU per transaction"
    write(table, OUT, f"{exp.stem}_{suffix}", f"{exp.pattern} on nodes budgeted at {BUDGET} core each: {what}", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
