"""Index Table login on budgeted nodes: does the node slider add capacity, and what does a login cost the servers?

    .venv/bin/python benchmarks/node_budgets.py            # 1, 2, 4, 8 nodes at 0.15 core each (about 15 min)
    .venv/bin/python benchmarks/node_budgets.py --quick    # 1 and 2 nodes: checks the script, claims nothing

Every node gets a CPU budget (labkit's per-node control group, 10 ms CFS period), so a node is a small
machine and more nodes add capacity, as in the source's experiments on separate machines. For each node
count and approach (legacy index, SAI, lookup table) it runs the login phase at two in-flight levels with
two client processes, and records throughput, p95, server CPU per login (all nodes together) and what
limited each point. Writes results/node_budgets_login.{csv,md}, the figures, and
results/node_budgets_ratios.md with the lookup table / index ratios and CPU per login per node count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figures  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import index_table  # noqa: E402
from labkit.patterns.sweeps import run_pattern_sweep  # noqa: E402
from labkit.results import SweepPlan  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
BUDGET = 0.15
CLASSROOM = dict(nodes=[1, 2, 4, 8], threads=[16, 48], processes=2, operations=2000, users=20000)
QUICK = dict(nodes=[1, 2], threads=[8], processes=2, operations=300, users=1000)
COLUMNS = ["pattern", "phase", "engine", "server_version", "provider", "nodes", "node_cpu", "approach", "threads", "processes", "operations", "throughput",
           "p50_us", "p95_us", "p99_us", "errors", "verify_ok", "server_cpu_ms_per_tx", "node_busy_max", "client_cpu_cores",
           "client_gil_wait_ms", "machine_cpu_busy", "limit"]


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Per node count and in-flight level: lookup table / each index (throughput), and CPU per login."""
    out = []
    for (nodes, threads), group in df.groupby(["nodes", "threads"]):
        by = group.set_index("approach")
        row = {"nodes": nodes, "in flight": threads * group["processes"].iloc[0]}
        for a in by.index:
            row[f"{a} logins/s"] = round(by.loc[a, "throughput"], 1)
        for naive in ("naive/legacy", "naive/sai"):
            if naive in by.index and "pattern" in by.index:
                row[f"pattern/{naive.split('/')[1]}"] = round(by.loc["pattern", "throughput"] / by.loc[naive, "throughput"], 2)
        for a in by.index:
            row[f"{a} server ms CPU/login"] = round(by.loc[a, "server_cpu_ms_per_tx"], 2)
        row["limits"] = ", ".join(f"{a}: {by.loc[a, 'limit']}" for a in by.index)
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    args = parser.parse_args()
    sizes = QUICK if args.quick else CLASSROOM
    stem = "node_budgets" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/node_budgets.py" + (" --quick" if args.quick else "")
    plan = SweepPlan(
        pattern="index-table", approaches=index_table.APPROACHES, threads=sizes["threads"], nodes=sizes["nodes"],
        operations=sizes["operations"], processes=sizes["processes"], run_options={"warmup": 100},
    )
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    try:
        rows = run_pattern_sweep(index_table, plan, options={"phase": "login", "users": sizes["users"]}, slot=slot)
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    title = f"index-table login on nodes budgeted at {BUDGET} core each (users={sizes['users']})"
    write(df[COLUMNS].copy(), OUT, f"{stem}_login", title, machine(), command)
    save_figures(df, OUT / f"{stem}_login")
    table = ratios(df)
    write(table, OUT, f"{stem}_ratios", f"{title}: lookup table vs indexes, and server CPU per login", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
