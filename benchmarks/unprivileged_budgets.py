"""Node CPU budgets without privilege (a helper pausing and resuming each node with signals) against the
control groups, side by side on the Index Table login: may the lab fall back to the helper where control
groups are not writable (a lab server's students, hub pods)?

    .venv/bin/python benchmarks/unprivileged_budgets.py            # 3 nodes at 0.15 core, 32 in flight, 3 repeats each (about 12 min)
    .venv/bin/python benchmarks/unprivileged_budgets.py --quick    # 1 repeat, small: checks the script, claims nothing

The rule, from the issue: adopt the helper as the fallback if its pattern / legacy-index ratio lands within
25% of the control groups' and its points are limited by the nodes. Each repeat starts a fresh cluster per
mechanism, in the order cgroups, signals, signals, cgroups, ... (ABBA), and runs the two approaches in the
order pattern, legacy on one repeat and the reverse on the next, so a drift over time or a first-run effect
weighs on both mechanisms alike. Budgets are lifted for loading and warm-up in both (the runner's rule).
Writes results/unprivileged_budgets.{csv,md} and results/unprivileged_budgets_summary.{csv,md}.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.local import signal_budgets  # noqa: E402
from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import index_table  # noqa: E402
from labkit.sweeps import SweepPlan, run_pattern_sweep  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
BUDGET = 0.15
APPROACHES = ["pattern", "naive/legacy"]
COLUMNS = ["mechanism", "repeat", "approach", "nodes", "node_cpu", "threads", "processes", "operations", "throughput", "p50_us", "p95_us",
           "errors", "verify_state", "server_cpu_ms_per_tx", "node_busy_max", "machine_cpu_busy", "client_cpu_cores", "limit", "engine",
           "server_version", "provider"]


def one_run(mechanism: str, repeat: int, nodes: int, threads: int, operations: int, users: int, warmup: int) -> list[dict]:
    """A fresh cluster budgeted by `mechanism`, both approaches (order alternating with the repeat)."""
    if mechanism == "signals":
        os.environ[signal_budgets.ENV] = "signals"
    else:
        os.environ.pop(signal_budgets.ENV, None)
    abba = SweepPlan(pattern=index_table.NAME, approaches=APPROACHES, threads=[threads], operations=operations)
    order = [approach for approach, _copy in abba.block(repeat - 1)]  # SweepPlan's ABBA order (repeats count from 1 here); a cluster per repeat
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    try:
        plan = SweepPlan(pattern=index_table.NAME, approaches=order, threads=[threads], nodes=[nodes], operations=operations,
                         processes=2, run_options={"warmup": warmup})
        rows = run_pattern_sweep(index_table.PATTERN, plan, phase="login", settings={"users": users}, slot=slot)
    finally:
        slot.stop()
        os.environ.pop(signal_budgets.ENV, None)
    for r in rows:
        r.update(mechanism=mechanism, repeat=repeat)
    return rows


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per mechanism: each repeat's pattern / legacy ratio, their median, and what limited the points."""
    out = []
    for mechanism, group in df.groupby("mechanism", sort=False):
        ratios = []
        for _repeat, runs in group.groupby("repeat"):
            by = runs.set_index("approach")["throughput"]
            if {"pattern", "naive/legacy"} <= set(by.index):
                ratios.append(by["pattern"] / by["naive/legacy"])
        out.append({
            "mechanism": mechanism, "repeats": len(ratios), "pattern / legacy ratios": ", ".join(f"{r:.2f}" for r in ratios),
            "median ratio": round(statistics.median(ratios), 2) if ratios else None,
            "pattern logins/s (median)": round(group[group["approach"] == "pattern"]["throughput"].median(), 1),
            "legacy logins/s (median)": round(group[group["approach"] == "naive/legacy"]["throughput"].median(), 1),
            "limits": ", ".join(f"{k}: {v}" for k, v in group["limit"].value_counts().items()),
        })
    table = pd.DataFrame(out)
    if {"cgroups", "signals"} <= set(table["mechanism"]):
        c, s = (table.set_index("mechanism").loc[m, "median ratio"] for m in ("cgroups", "signals"))
        table["signals vs cgroups (ratio of ratios)"] = round(s / c, 2)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1 repeat, small: checks the script, claims nothing")
    args = parser.parse_args()
    repeats, nodes, threads, operations, users, warmup = (1, 2, 16, 300, 1000, 300) if args.quick else (3, 3, 32, 1500, 20000, 1500)
    command = ".venv/bin/python benchmarks/unprivileged_budgets.py" + (" --quick" if args.quick else "")
    rows: list[dict] = []
    try:
        for repeat in range(1, repeats + 1):
            for mechanism in (("cgroups", "signals") if repeat % 2 else ("signals", "cgroups")):
                rows += one_run(mechanism, repeat, nodes, threads, operations, users, warmup)
    except KeyboardInterrupt:
        print("interrupted: writing the runs measured so far")
    df = pd.DataFrame(rows)
    name = "unprivileged_budgets" + ("_quick" if args.quick else "")
    title = (f"index-table login on {nodes} nodes at {BUDGET} core each, {threads} in flight, {operations} logins of {users} users: "
             "control-group budgets vs the signal helper")
    write(df[[c for c in COLUMNS if c in df]].copy(), OUT, name, title, machine(), command)
    table = summary(df)
    write(table, OUT, name + "_summary", title + " (pattern / legacy-index ratio per repeat)", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
