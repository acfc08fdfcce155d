"""Does the sweep's warm-up block bring a fresh cluster to steady state before the first measured block?

    .venv/bin/python benchmarks/warmup_block.py           # 4 fresh clusters (with, without, without, with), 3 blocks each (about 12 min)
    .venv/bin/python benchmarks/warmup_block.py --cold    # the same without the runner's own warm-up in each run (as `labkit run` by default)
    .venv/bin/python benchmarks/warmup_block.py --quick   # 2 fresh clusters, small: checks the script, claims nothing

The setting where the first run misled most (the issue "Say how sure": the legacy index made 89-99 logins/s
when it ran first on a fresh budgeted cluster and 112-114 when it ran second): the Index Table login on 3
nodes at 0.15 core, 32 in flight, 1,500 logins of 20,000 users. Each fresh cluster runs 3 interleaved blocks
(pattern, legacy; legacy, pattern; pattern, legacy), with the sweep's warm-up block (every approach once,
unmeasured) or without it; the clusters alternate with, without, without, with (ABBA). The figure of merit is
how far the first measured block lands from the later ones: |log(first block's ratio / geometric mean of the
later blocks' ratios)|, and the same for each approach's throughput, next to the spread between the later
blocks themselves. Writes results/warmup_block.{csv,md} and results/warmup_block_summary.{csv,md}.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import index_table  # noqa: E402
from labkit.sweeps import SweepPlan, run_pattern_sweep  # noqa: E402
from labkit.results.intervals import paired_ratios  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
BUDGET = 0.15
APPROACHES = ["pattern", "naive/legacy"]
COLUMNS = ["cluster", "warmup_block", "repeat", "order", "approach", "nodes", "node_cpu", "threads", "processes", "operations", "throughput",
           "p95_us", "errors", "verify_state", "server_cpu_ms_per_tx", "node_busy_max", "limit", "engine", "server_version", "provider"]


def one_cluster(number: int, warm: bool, nodes: int, threads: int, operations: int, users: int, repeats: int, run_warmup: int) -> list[dict]:
    """A fresh budgeted cluster, `repeats` interleaved blocks, with or without the unmeasured warm-up block."""
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    try:
        plan = SweepPlan(pattern=index_table.NAME, approaches=APPROACHES, threads=[threads], nodes=[nodes], operations=operations,
                         processes=2, repeats=repeats, warmup_block=warm, run_options={"warmup": run_warmup})
        rows = run_pattern_sweep(index_table.PATTERN, plan, phase="login", settings={"users": users}, slot=slot)
    finally:
        slot.stop()
    for r in rows:
        r["cluster"] = number
    return rows


def first_block_distance(values: list[float]) -> tuple[float, float]:
    """(|log(first / geometric mean of the later ones)|, |log| spread among the later ones): how far block 0 strays."""
    logs = [math.log(v) for v in values]
    later = logs[1:]
    return abs(logs[0] - statistics.fmean(later)), (max(later) - min(later)) if len(later) > 1 else 0.0


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per cluster: each block's pattern / legacy ratio and how far the first block strays, for the ratio and each approach."""
    out = []
    for (number, warm), runs in df.groupby(["cluster", "warmup_block"], sort=False):
        ratios = paired_ratios(runs, "pattern", "naive/legacy", keys=[]).sort_values("repeat")["ratio"].tolist()
        row = {"cluster": number, "warm-up block": "yes" if warm else "no", "block ratios": ", ".join(f"{r:.2f}" for r in ratios)}
        if len(ratios) >= 2:
            first, later = first_block_distance(ratios)
            row.update({"ratio: first block off by": f"{math.exp(first) - 1:.0%}", "ratio: later blocks apart": f"{math.exp(later) - 1:.0%}"})
        for approach in APPROACHES:
            tput = runs[runs["approach"] == approach].sort_values("repeat")["throughput"].tolist()
            row[f"{approach} logins/s by block"] = ", ".join(f"{v:.0f}" for v in tput)
            if len(tput) >= 2:
                row[f"{approach}: first block off by"] = f"{math.exp(first_block_distance(tput)[0]) - 1:.0%}"
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2 clusters, small: checks the script, claims nothing")
    parser.add_argument("--cold", action="store_true", help="no unbudgeted warm-up transactions inside each run (labkit run's default)")
    args = parser.parse_args()
    order, nodes, threads, operations, users, repeats = (([True, False], 2, 16, 300, 1000, 2) if args.quick else
                                                        ([True, False, False, True], 3, 32, 1500, 20000, 3))
    command = ".venv/bin/python benchmarks/warmup_block.py" + (" --quick" if args.quick else "") + (" --cold" if args.cold else "")
    run_warmup = 0 if args.cold else operations
    rows: list[dict] = []
    try:
        for number, warm in enumerate(order, start=1):
            rows += one_cluster(number, warm, nodes, threads, operations, users, repeats, run_warmup)
    except KeyboardInterrupt:
        print("interrupted: writing the runs measured so far")
    df = pd.DataFrame(rows)
    name = "warmup_block" + ("_quick" if args.quick else "") + ("_cold" if args.cold else "")
    title = (f"index-table login on {nodes} fresh nodes at {BUDGET} core each, {threads} in flight, {operations} logins of {users} users, "
             f"{repeats} interleaved blocks{', no warm-up inside the runs' if args.cold else f', {run_warmup} unbudgeted warm-up transactions in each run'}: "
             "with and without the unmeasured warm-up block")
    write(df[[c for c in COLUMNS if c in df]].copy(), OUT, name, title, machine(), command)
    table = summary(df)
    write(table, OUT, name + "_summary", title + " (how far the first measured block lands from the later ones)", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
