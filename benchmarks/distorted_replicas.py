"""Distorted Replicas, measured on budgeted Cassandra nodes: what each shape of the bibliography costs the
servers per request, next to what the source (document 002, MongoDB 3.2 on one laptop) reported.

    .venv/bin/python benchmarks/distorted_replicas.py           # classroom sizes (about 20 min)
    .venv/bin/python benchmarks/distorted_replicas.py --quick   # small sizes: checks the script, claims nothing
    .venv/bin/python benchmarks/distorted_replicas.py --only route   # measure one experiment again; the others' rows are kept

Every node is a small machine (labkit's per-node CPU budget, 10 ms CFS period); each cluster size is warmed
up with the budgets lifted first (a fresh JVM compiles its hot code slowly inside a fraction of a core),
then every point runs both approaches in REPEATS blocks, their order alternating (ABBA: a drift over consecutive
runs weighs on both alike); ratios come from the runs of the same block, with a 95% interval. Experiments:
- vertical: read and update touching 1, 2 or 3 attribute groups, one wide record vs one table per group;
- by-author: an author's publications through an index on the aggregate vs the replica rooted at authors,
  on 1, 2 and 4 nodes;
- publish: new and withdrawn publications, the aggregate alone vs every shape kept in step;
- route: two shards (datacenters), ask both vs ask where the counting Bloom filter says maybe;
- storage: each shape's bytes on disk (nodetool tablestats after a flush);
- filters: false-positive rate and shards asked per query against filter size (no server: the same
  placement and filters the route phase builds).
Writes results/distorted_replicas*.{csv,md} and figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.express as px

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figure  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns.distorted_replicas import PATTERN  # noqa: E402
from labkit.patterns.distorted_replicas import cassandra as dr  # noqa: E402
from labkit.patterns.distorted_replicas.core import filter_sizes  # noqa: E402
from labkit.sweeps import SweepPlan, run_pattern_sweep  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
COLUMNS = ["experiment", "command", "repeat", "order", "control_copy", "complete", "pattern", "phase", "groups", "publications", "engine", "server_version", "provider", "nodes", "node_cpu",
           "approach", "threads", "processes", "operations", "throughput", "mean_us", "p50_us", "p95_us", "p99_us", "errors", "verify_ok",
           "server_cpu_ms_per_tx", "server_cpu_ms_per_tx_net", "node_busy_max", "client_cpu_cores", "machine_cpu_busy", "limit", "requests_per_tx"]

SIZES = {
    "classroom": {"publications": 20000, "publish_publications": 5000, "threads": 64, "processes": 2, "read_ops": 4000, "update_ops": 3000,
                  "by_author_ops": 1500, "publish_ops": 2000, "route_ops": 4000, "by_author_nodes": [1, 2, 4], "route_nodes": [2, 4],
                  "vertical_budget": 0.2, "budget": 0.25, "warmup_ops": 1500},
    "quick": {"publications": 1000, "publish_publications": 500, "threads": 8, "processes": 1, "read_ops": 300, "update_ops": 300,
              "by_author_ops": 200, "publish_ops": 200, "route_ops": 300, "by_author_nodes": [1, 2], "route_nodes": [2],
              "vertical_budget": 0.5, "budget": 0.5, "warmup_ops": 100},
}


def requests(row: dict[str, Any]) -> float:
    """Database requests one transaction made (from the runner's per-operation counts)."""
    counts = [v for k, v in row.items() if k.endswith("_count") and isinstance(v, (int, float)) and k not in ("operations_count",)]
    return round(sum(counts) / max(1, row.get("operations", 1)), 2) if counts else float("nan")


REPEATS = 3
"""Blocks per point: each runs both approaches, their order alternating (labkit.sweeps), so every ratio has a 95% interval."""


def measure(slot: ClusterSlot, phase: str, nodes: int, settings: dict[str, Any], size: dict[str, Any], operations: int, budget: float,
            experiment: str) -> list[dict[str, Any]]:
    """Warm the cluster up unbudgeted, then run both approaches REPEATS times under the budget, interleaved (ABBA...)."""
    slot.node_cpu = None
    slot.ensure(nodes)
    warm = SweepPlan(pattern=PATTERN.name, approaches=list(PATTERN.approaches), threads=[size["threads"]], nodes=[nodes],
                     operations=size["warmup_ops"] if phase not in ("update", "publish") else min(size["warmup_ops"], operations), processes=size["processes"])
    run_pattern_sweep(PATTERN, warm, phase=phase, settings=settings, slot=slot, echo=lambda s: print("warm-up: " + s))
    slot.node_cpu = budget
    rows = []
    plan = SweepPlan(pattern=PATTERN.name, approaches=["naive", "pattern"], threads=[size["threads"]], nodes=[nodes], operations=operations,
                     processes=size["processes"], repeats=REPEATS, control="pattern")
    for r in run_pattern_sweep(PATTERN, plan, phase=phase, settings=settings, slot=slot):
        r.update(experiment=experiment, requests_per_tx=requests(r))
        rows.append(r)
    slot.node_cpu = None
    return rows


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Per experiment point: pattern / naive throughput from the runs of the same block with its 95% interval
    (results.intervals), p95 and server CPU per transaction (means of the repeats), and the A/A control's copy /
    first run of the pattern (how far two runs of one approach land apart at that point)."""
    from labkit.results.intervals import control_ratios, paired_ratios, ratio_interval, usable

    out = []
    keys = ["experiment", "phase", "groups", "nodes", "node_cpu", "threads"]
    for point, group in df.groupby([k for k in keys if k in df], dropna=False):
        found = ratio_interval(paired_ratios(group, "pattern", "naive", keys=[])["ratio"])
        control = ratio_interval(control_ratios(group, keys=[])["ratio"])
        by = usable(group).groupby("approach").agg(tput=("throughput", "mean"), p95=("p95_us", "mean"), cpu=("server_cpu_ms_per_tx", "mean"),
                                           req=("requests_per_tx", "mean"), lo=("throughput", "min"), hi=("throughput", "max"),
                                           limit=("limit", lambda v: "/".join(sorted(set(map(str, v))))))
        if not {"naive", "pattern"} <= set(by.index):
            continue
        row = dict(zip([k for k in keys if k in df], point if isinstance(point, tuple) else (point,)))
        row.update({
            "naive tx/s (repeats)": f"{by.loc['naive', 'lo']:.0f}-{by.loc['naive', 'hi']:.0f}",
            "pattern tx/s (repeats)": f"{by.loc['pattern', 'lo']:.0f}-{by.loc['pattern', 'hi']:.0f}",
            "pattern/naive throughput": round(found.estimate, 2) if found else None,
            "interval": found.text() if found else "", "verdict": found.verdict if found else "",
            "A/A control": control.text() if control else "",
            "naive p95 ms": round(by.loc["naive", "p95"] / 1000, 1), "pattern p95 ms": round(by.loc["pattern", "p95"] / 1000, 1),
            "naive server ms CPU/tx": round(by.loc["naive", "cpu"], 2), "pattern server ms CPU/tx": round(by.loc["pattern", "cpu"], 2),
            "pattern/naive server CPU": round(by.loc["pattern", "cpu"] / by.loc["naive", "cpu"], 2),
            "requests/tx naive, pattern": f"{by.loc['naive', 'req']:.2f}, {by.loc['pattern', 'req']:.2f}",
            "limits": f"naive: {by.loc['naive', 'limit']}; pattern: {by.loc['pattern', 'limit']}",
        })
        out.append(row)
    return pd.DataFrame(out)


EXPERIMENTS = ("vertical", "by-author", "publish", "route")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--only", default=",".join(EXPERIMENTS), help=f"comma-separated experiments to measure ({', '.join(EXPERIMENTS)}); "
                        "the rows of the others are kept from the results file")
    parser.add_argument("--groups", type=lambda t: [int(g) for g in t.split(",")], default=[1, 2, 3],
                        help="the vertical experiment's group counts in the order they run (e.g. 3,2,1: does the first one pay for the table's first flushes?)")
    parser.add_argument("--vertical-phases", default="read,update", help="the vertical experiment's phases; anything but both "
                        "writes a check of its own (results/distorted_replicas_vertical_check.*) and leaves the committed rows alone")
    args = parser.parse_args()
    phases = [p.strip() for p in args.vertical_phases.split(",") if p.strip()]
    check = phases != ["read", "update"] or args.groups != [1, 2, 3]
    if check and args.only != "vertical":
        parser.error("--vertical-phases and --groups check the vertical experiment alone: add --only vertical")
    only = [e.strip() for e in args.only.split(",") if e.strip()]
    unknown = [e for e in only if e not in EXPERIMENTS]
    if unknown or not only:
        parser.error(f"unknown experiment {unknown[0] if unknown else '(none)'!r}: choose from {', '.join(EXPERIMENTS)}")
    profile = "quick" if args.quick else "classroom"
    stem = "distorted_replicas" + ("_quick" if args.quick else "") + ("_vertical_check" if check else "")
    command = (".venv/bin/python benchmarks/distorted_replicas.py" + (" --quick" if args.quick else "")
               + (f" --only vertical --vertical-phases {','.join(phases)} --groups {','.join(map(str, args.groups))}" if check else ""))
    size = SIZES[profile]
    pubs = size["publications"]
    rows: list[dict[str, Any]] = []
    storage = None
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print)
    try:
        if "vertical" in only:
            for phase, ops in [(p, size[f"{p}_ops"]) for p in phases]:
                for groups in args.groups:
                    rows += measure(slot, phase, 1, {"publications": pubs, "groups": groups}, size, ops, size["vertical_budget"], "vertical")
        for nodes in size["by_author_nodes"] if "by-author" in only else []:
            rows += measure(slot, "by-author", nodes, {"publications": pubs}, size, size["by_author_ops"], size["budget"], "by-author")
            if nodes == 1:
                w = dr.DistortedReplicas(slot.cluster.addresses, "pattern", "read", pubs)
                for structure in ("aggregate", "vertical", "by_author"):
                    w.load_structure(structure)
                w.close_process()
                storage = pd.DataFrame(dr.storage_cost(slot.cluster))
        if "publish" in only:
            rows += measure(slot, "publish", 1, {"publications": size["publish_publications"]}, size, size["publish_ops"], size["vertical_budget"], "publish")
    except KeyboardInterrupt:
        print("interrupted: writing the runs measured so far")
    finally:
        slot.stop()
    route_slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, dcs=2)
    try:
        for nodes in size["route_nodes"] if "route" in only else []:
            rows += measure(route_slot, "route", nodes, {"publications": pubs}, size, size["route_ops"], size["budget"], "route")
    except KeyboardInterrupt:
        print("interrupted: writing the runs measured so far")
    finally:
        route_slot.stop()
    for r in rows:
        r["command"] = command + ("" if set(only) == set(EXPERIMENTS) or check else f" --only {','.join(only)}")
    earlier = OUT / f"{stem}.csv"
    if set(only) != set(EXPERIMENTS) and earlier.exists() and not check:
        kept = pd.read_csv(earlier).drop(columns=["machine"])
        if "command" not in kept:  # rows of a full run written before the column existed
            kept["command"] = command
        rows = kept[~kept["experiment"].isin(only)].to_dict("records") + rows
    df = pd.DataFrame(rows)
    title = f"Distorted Replicas on budgeted Cassandra nodes ({pubs} publications; publish: {size['publish_publications']})"
    write(df[[c for c in COLUMNS if c in df]].copy(), OUT, stem, title, machine(), command)
    table = ratios(df)
    write(table, OUT, stem + "_ratios", title + f": pattern vs naive, {REPEATS} interleaved repeats, 95% interval from paired blocks", machine(), command)
    print(table.to_string(index=False))
    if storage is not None:  # measured with the by-author experiment
        total = storage["bytes on disk"].sum()
        storage["share of all shapes"] = (storage["bytes on disk"] / total).round(3)
        write(storage, OUT, stem + "_storage", f"Bytes on disk per shape, {pubs} publications, one node (nodetool tablestats after flush)", machine(), command)
        print(storage.to_string(index=False))
    if check:  # a check of the vertical experiment: its rows and ratios are all it writes
        return
    filters = pd.DataFrame(filter_sizes(pubs))
    write(filters, OUT, stem + "_filters", f"Counting Bloom filters on two shards ({pubs} publications, 5% moved, 5% withdrawn): size vs false positives", machine(), command)
    print(filters.to_string(index=False))
    save_plots(df, filters, size, stem)


def save_plots(df: pd.DataFrame, filters: pd.DataFrame, size: dict[str, Any], stem: str) -> None:
    """The vertical experiment's server CPU per transaction, and the filters' false positives against size."""
    vertical = df[df["experiment"] == "vertical"].groupby(["phase", "groups", "approach"], as_index=False)["server_cpu_ms_per_tx"].mean()
    fig = px.bar(vertical, x="groups", y="server_cpu_ms_per_tx", color="approach", barmode="group", facet_col="phase",
                 title=f"Server CPU per transaction: one wide record (naive) vs one table per group (pattern)<br><sup>Cassandra "
                       f"{df['server_version'].iloc[0]} · local · 1 node at {size['vertical_budget']} core · {size['threads']} in flight · "
                       f"mean of {REPEATS} repeats</sup>")
    save_figure(fig, OUT / f"{stem}_vertical")
    fp = px.line(filters, x="bits per author", y=["false-positive rate (measured)", "false-positive rate (estimate)"], markers=True, log_y=True,
                 title="Counting Bloom filter: false positives against size (two shards, after moves and withdrawals)")
    save_figure(fp, OUT / f"{stem}_filters")

if __name__ == "__main__":
    main()
