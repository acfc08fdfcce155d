"""Workloads on budgeted nodes: does the node slider add capacity, and what does a transaction cost the servers?

    .venv/bin/python benchmarks/node_budgets.py                    # Index Table login, 1/2/4/8 nodes (about 18 min)
    .venv/bin/python benchmarks/node_budgets.py fan-out            # Fan-out post and paginate, 4 and 8 nodes
    .venv/bin/python benchmarks/node_budgets.py ycsb-pk            # primary-key reads/updates, 1/2/4/8 nodes
    .venv/bin/python benchmarks/node_budgets.py period             # CFS period 10 vs 100 ms, same budget, PK mix, 1 and 4 nodes
    .venv/bin/python benchmarks/node_budgets.py index-table-wide   # Index Table login at 4 and 8 nodes up to 192 in flight, 2 vs 4 client processes
    .venv/bin/python benchmarks/node_budgets.py index-table --quick   # small sizes: checks the script, claims nothing
    .venv/bin/python benchmarks/node_budgets.py --nodes 4,8        # only these cluster sizes, into results/node_budgets_nodes4-8*
    .venv/bin/python benchmarks/node_budgets.py --nodes 4,8 --threads 10,40,100   # the source's thread range: p95 and replica requests per login
    .venv/bin/python benchmarks/node_budgets.py fan-out --nodes 4 --threads 100,200,300   # fan-out up to the source's 300 threads
    .venv/bin/python benchmarks/node_budgets.py fan-out --nodes 4 --threads 300 --phases paginate --operations 6000   # 300 in flight, 20 pages per worker

Every node gets a CPU budget (labkit's per-node control group, 10 ms CFS period), so a node is a small
machine and more nodes add capacity, as in the source's experiments on separate machines. For each node
count, approach and in-flight level (two client processes), after a warm-up with the budgets lifted (a
fresh JVM compiles its hot code far slower inside a fraction of a core), it records throughput, p95, server CPU per
transaction (all nodes together), what limited each point and, where the binding counts them (Index Table), the
requests each transaction made of the nodes as a replica and how many nodes served them (the nodes' own counters). Writes results/node_budgets_<what>.{csv,md},
the figures, and a ratios table: pattern / naive per node count, or for the primary-key workload, the
throughput relative to one node.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figures  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import fan_out, index_table  # noqa: E402
from labkit.workloads import ycsb  # noqa: E402
from labkit.patterns.description import Pattern  # noqa: E402
from labkit.sweeps import run_pattern_sweep  # noqa: E402
from labkit.results import replica_requests  # noqa: E402
from labkit.sweeps import SweepPlan  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
BUDGET = 0.15
REPEATS = 3
"""Blocks per point: every approach once per block, in ABBA order, plus the A/A control's copy (labkit.sweeps)."""
COLUMNS = ["pattern", "phase", "engine", "server_version", "provider", "nodes", "node_cpu", "approach", "threads", "repeat", "order", "control_copy",
           "warmup_block", "complete", "processes", "operations", "throughput",
           "mean_us", "p50_us", "p95_us", "p99_us", "errors", "verify_ok", "server_cpu_ms_per_tx", "server_cpu_ms_per_tx_net", "server_idle_cores", "server_wakeups_per_s", "node_throttled_s", "node_busy_max", "client_cpu_cores",
           "client_gil_wait_ms", "machine_cpu_busy", "machine_cpu_cores", "server_cpu_cores", "kernel_interrupt_cores", "coordinator_cpu_cores",
           "machine_cpu_other_cores", "limit", "client_path", "replica_reads_per_tx", "replica_scans_per_tx", "replica_requests_per_tx_node_min",
           "replica_requests_per_tx_node_max", "nodes_serving"]


@dataclass(frozen=True)
class Experiment:
    """One benchmark: a pattern's description, its phases with data sizes (from the description), and the
    sweep's shape (this experiment's own: 32 and 96 in flight on 1 to 8 budgeted nodes)."""

    described: Pattern
    pattern: str
    phases: list[tuple[str | None, dict[str, Any]]]
    nodes: list[int]
    threads: list[int]
    operations: int
    stem: str
    unit: str = "tx"
    processes: int = 2
    warmup: dict[str | None, int] = field(default_factory=dict)
    only: tuple[str, ...] = ()
    """The approaches it runs; empty: every approach the description has on Cassandra."""
    control: str | None = None
    """The approach run twice per block (the A/A control: how far two runs of one approach land apart)."""

    @property
    def approaches(self) -> list[str]:
        return list(self.only or self.described.approaches_for(engine="cassandra"))


def data(described: Pattern, profile: str, phase: str) -> dict[str, Any]:
    """The data sizes of one of the description's sweeps (users, network, records...)."""
    return dict(described.named_sweep(profile, phase).settings)


FAN_OUT_SIZES = data(fan_out.PATTERN, "classroom", "paginate")
FAN_OUT_QUICK = data(fan_out.PATTERN, "quick", "paginate")
CLASSROOM = {
    "index-table": Experiment(index_table.PATTERN, "index-table", [("login", data(index_table.PATTERN, "classroom", "login"))], [1, 2, 4, 8], [32, 96], 2000, "node_budgets", "login",
                              warmup={"login": 2000}, control="pattern"),
    "fan-out": Experiment(fan_out.PATTERN, "fan-out", [("paginate", FAN_OUT_SIZES), ("post", FAN_OUT_SIZES)], [4, 8], [32, 96], 1000,
                          "node_budgets_fan_out", "page or post", warmup={"paginate": 1000}, control="pattern"),
    "ycsb-pk": Experiment(ycsb.WORKLOAD, "ycsb", [(None, data(ycsb.WORKLOAD, "classroom", "primary-key"))],
                          [1, 2, 4, 8], [32, 96], 3000, "node_budgets_ycsb_pk", "read or update", warmup={None: 3000}, only=("baseline/a",),
                          control="baseline/a"),
}
QUICK = {
    "index-table": Experiment(index_table.PATTERN, "index-table", [("login", data(index_table.PATTERN, "quick", "login"))], [1, 2], [16], 300, "node_budgets_quick", "login",
                              warmup={"login": 300}),
    "fan-out": Experiment(fan_out.PATTERN, "fan-out", [("paginate", FAN_OUT_QUICK), ("post", FAN_OUT_QUICK)],
                          [2], [16], 200, "node_budgets_fan_out_quick", "page or post",
                          warmup={"paginate": 200}),
    "ycsb-pk": Experiment(ycsb.WORKLOAD, "ycsb", [(None, data(ycsb.WORKLOAD, "quick", "primary-key"))],
                          [1, 2], [16], 600, "node_budgets_ycsb_pk_quick", "read or update",
                          warmup={None: 600}, only=("baseline/a",)),
}


def pattern_ratios(df: pd.DataFrame, unit: str) -> pd.DataFrame:
    """Per phase, node count and in-flight level: each approach's throughput (median and range over the
    repeats), pattern / each naive approach paired by block with its 95% interval and verdict
    (results.intervals), the A/A control's copy / first run, and server CPU per transaction (medians)."""
    from labkit.results.intervals import control_ratios, paired_ratios, ratio_interval, usable

    keys = ["phase", "nodes", "threads"]
    kept = usable(df)
    copies = control_ratios(df, keys=keys)
    out = []
    for (phase, nodes, threads), group in kept.groupby(keys):
        by = group.groupby("approach")
        row: dict[str, Any] = {"phase": phase, "nodes": nodes, "in flight": threads, "repeats": int(by.size().min())}
        for a, runs in by:
            row[f"{a} {unit}s/s"] = round(runs["throughput"].median(), 1)
            row[f"{a} range"] = f"{runs['throughput'].min():.0f}-{runs['throughput'].max():.0f}"
        for naive in [a for a in by.groups if a.startswith("naive")]:
            if "pattern" in by.groups:
                pairs = paired_ratios(group, "pattern", naive, keys=keys)
                found = ratio_interval(pairs["ratio"])
                row[f"pattern/{naive}"] = round(found.estimate, 2)
                row[f"pattern/{naive} low"] = round(found.low, 2)
                row[f"pattern/{naive} high"] = round(found.high, 2)
                row[f"pattern/{naive} verdict"] = found.verdict
        here = copies[(copies["phase"] == phase) & (copies["nodes"] == nodes) & (copies["threads"] == threads)]
        control = ratio_interval(here["ratio"]) if len(here) else None
        row["A/A control copy/first"] = control.text() if control is not None else ""
        for a, runs in by:
            row[f"{a} p95 ms"] = round(runs["p95_us"].median() / 1000, 1)
        for a, runs in by:
            if "replica_reads_per_tx" in runs and runs["replica_reads_per_tx"].notna().any():
                requests = runs["replica_reads_per_tx"].fillna(0) + runs["replica_scans_per_tx"].fillna(0)
                row[f"{a} replica requests/{unit}"] = round(requests.median(), 2)
                row[f"{a} nodes serving"] = int(runs["nodes_serving"].max())
        for a, runs in by:
            row[f"{a} server ms CPU/{unit}"] = round(runs["server_cpu_ms_per_tx"].median(), 2)
        if "server_cpu_ms_per_tx_net" in group:
            for a, runs in by:
                row[f"{a} above idle"] = round(runs["server_cpu_ms_per_tx_net"].median(), 2)
        row["limits"] = ", ".join(f"{a}: {'/'.join(sorted(set(runs['limit'].astype(str))))}" for a, runs in by)
        out.append(row)
    return pd.DataFrame(out)


def cpu_growth(df: pd.DataFrame, unit: str, column: str = "server_cpu_ms_per_tx_net") -> pd.DataFrame:
    """Per approach and in-flight level: server CPU per transaction (above idle) at n nodes over 1 node, with
    an interval for two independent groups of repeats (different clusters: nothing to pair)."""
    from labkit.results.intervals import unpaired_ratio_interval, usable

    kept = usable(df)
    if column not in kept:
        return pd.DataFrame()
    out = []
    for (phase, approach, threads), group in kept.groupby(["phase", "approach", "threads"]):
        base_nodes = group["nodes"].min()
        base = group[group["nodes"] == base_nodes][column]
        for nodes, runs in group.groupby("nodes"):
            if nodes == base_nodes:
                continue
            found = unpaired_ratio_interval(runs[column], base)
            if found is None:
                continue
            out.append({"phase": phase, "approach": approach, "in flight": threads, "nodes": nodes, "over nodes": base_nodes,
                        f"ms CPU/{unit} above idle": round(runs[column].median(), 2),
                        "ratio": round(found.estimate, 2), "low": round(found.low, 2), "high": round(found.high, 2),
                        "repeats": found.pairs, "verdict": found.verdict, "text": found.text()})
    return pd.DataFrame(out)


def scaling(df: pd.DataFrame, unit: str) -> pd.DataFrame:
    """Per in-flight level and node count: throughput (median and range of the repeats), its multiple of the
    smallest cluster's with a Welch interval (runs on two clusters: nothing to pair), server CPU per
    transaction (medians), and what limited the runs; A/A control copies left out."""
    from labkit.results.intervals import unpaired_ratio_interval, usable

    kept = usable(df)
    out = []
    for threads, group in kept.groupby("threads"):
        base_nodes = group["nodes"].min()
        base = group[group["nodes"] == base_nodes]["throughput"]
        for nodes, runs in group.groupby("nodes"):
            found = unpaired_ratio_interval(runs["throughput"], base)
            out.append({
                "in flight": threads, "nodes": nodes, "repeats": len(runs), f"{unit}s/s": round(runs["throughput"].median(), 1),
                "range": f"{runs['throughput'].min():.0f}-{runs['throughput'].max():.0f}",
                f"x of {base_nodes} node(s)": round(found.estimate, 2), "interval": "" if nodes == base_nodes else found.text(),
                "node budgets in total (cores)": round(nodes * runs["node_cpu"].iloc[0], 2),
                f"server ms CPU/{unit}": round(runs["server_cpu_ms_per_tx"].median(), 2),
                "above idle": round(runs["server_cpu_ms_per_tx_net"].median(), 2) if "server_cpu_ms_per_tx_net" in runs else None,
                "busiest node (share of budget)": round(runs["node_busy_max"].median(), 2),
                "machine busy": round(runs["machine_cpu_busy"].median(), 2), "limit": "/".join(sorted(set(runs["limit"].astype(str)))),
            })
    return pd.DataFrame(out)


PERIODS_MS = [10, 100]


def cfs_period(quick: bool, command: str) -> None:
    """The same budget spread over a 10 ms or a 100 ms CFS period, on one cluster per size in the order
    10, 100, 100, 10 ms (ABBA: a drift as the JVM warms up weighs on both periods alike)."""
    from labkit.clusters.local import budgets

    exp = QUICK["ycsb-pk"] if quick else CLASSROOM["ycsb-pk"]
    phase, sizes = exp.phases[0]
    sizes_list, threads = ([1], [8]) if quick else ([1, 4], [24])
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    rows: list[dict[str, Any]] = []
    try:
        for nodes in sizes_list:
            cluster = slot.ensure(nodes)
            for repeat in (1, 2):
                for period_ms in (PERIODS_MS if repeat == 1 else PERIODS_MS[::-1]):
                    cluster.set_node_cpu(BUDGET, period_us=period_ms * 1000)
                    for group in (budgets.group_of(cluster.directory, n.name) for n in cluster.live_nodes()):
                        assert group is not None and budgets.budget_of(group) == (BUDGET, period_ms * 1000), budgets.budget_of(group)
                    plan = SweepPlan(pattern=exp.pattern, approaches=exp.approaches, threads=threads, nodes=[nodes],
                                     operations=exp.operations, processes=exp.processes, run_options={"warmup": exp.warmup.get(phase, 0)})
                    measured = run_pattern_sweep(exp.described, plan, phase=phase, settings=sizes, slot=slot)
                    for r in measured:
                        r.update({"phase": "read/update", "cfs_period_ms": period_ms, "repeat": repeat})
                    rows.extend(measured)
                    if not all(r.get("complete", True) for r in measured):
                        raise KeyboardInterrupt
    except KeyboardInterrupt:
        print("interrupted: writing the runs measured so far")
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    name = "node_budgets_cfs_period" + ("_quick" if quick else "")
    cols = ["cfs_period_ms", "repeat"] + [c for c in COLUMNS if c in df]
    size_note = ", ".join(f"{k}={v}" for k, v in sizes.items())
    write(df[cols].copy(), OUT, name, f"primary-key mix on nodes budgeted at {BUDGET} core, CFS period 10 vs 100 ms ({size_note})", machine(), command)
    summary = (df.groupby(["nodes", "cfs_period_ms"])
                 .agg(throughput_min=("throughput", "min"), throughput_max=("throughput", "max"),
                      p50_ms=("p50_us", lambda v: round(v.mean() / 1000, 1)), p95_ms=("p95_us", lambda v: round(v.mean() / 1000, 1)),
                      p99_ms=("p99_us", lambda v: round(v.mean() / 1000, 1)), limits=("limit", lambda v: ", ".join(sorted(set(v)))))
                 .reset_index())
    write(summary, OUT, name + "_summary", f"CFS period 10 vs 100 ms at {BUDGET} core per node: throughput range and mean percentiles over two repeats", machine(), command)
    print(summary.to_string(index=False))


WIDE_CLIENTS = [(2, 96), (4, 96), (4, 192)]  # (processes, threads in all): 96 in flight in 2 or 4 processes, then 192


def index_table_wide(quick: bool, command: str) -> None:
    """Index Table login with up to 192 requests in flight (the source's MongoDB sweep went to 200
    threads), and the same 96 in flight from 2 and from 4 client processes: if 4 processes log in
    faster than 2, the client held the 2-process points back, whatever the `limit` column said. Each
    point runs two blocks, the approaches in order and then in reverse (SweepPlan's ABBA order: a JVM still
    speeding up over consecutive runs would otherwise favour whichever approach runs last); the ratios use
    both repeats' mean."""
    exp = QUICK["index-table"] if quick else CLASSROOM["index-table"]
    phase, sizes = exp.phases[0]
    node_counts, clients = ([2], [(2, 8), (4, 8)]) if quick else ([4, 8], WIDE_CLIENTS)
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    rows: list[dict[str, Any]] = []
    try:
        for nodes in node_counts:
            for processes, threads in clients:
                plan = SweepPlan(pattern=exp.pattern, approaches=exp.approaches, threads=[threads], nodes=[nodes], repeats=2,
                                 operations=exp.operations, processes=processes, run_options={"warmup": exp.warmup.get(phase, 0)})
                measured = run_pattern_sweep(exp.described, plan, phase=phase, settings=sizes, slot=slot)
                for r in measured:
                    r["repeat"] += 1  # this file's repeats count from 1, as its committed rows do
                rows.extend(measured)
                if not all(r.get("complete", True) for r in measured):
                    raise KeyboardInterrupt
    except KeyboardInterrupt:
        print("interrupted: writing the runs measured so far")
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    df["in_flight"] = df["threads"]  # client threads in all processes
    name = "node_budgets_login_wide" + ("_quick" if quick else "")
    size_note = ", ".join(f"{k}={v}" for k, v in sizes.items())
    title = f"index-table login on nodes budgeted at {BUDGET} core each, up to 192 in flight, 2 vs 4 client processes ({size_note})"
    write(df[["in_flight", "repeat"] + [c for c in COLUMNS if c in df]].copy(), OUT, name, title, machine(), command)
    drawn = df[df["repeat"] == 2].copy()  # one line per approach; the table below holds both repeats
    drawn["approach"] = drawn["approach"] + " · " + drawn["processes"].astype(str) + " processes"
    drawn["threads"] = drawn["in_flight"]  # the x axis: client threads across all processes
    save_figures(drawn, OUT / name)
    out = []
    for (nodes, processes, in_flight), group in df.groupby(["nodes", "processes", "in_flight"]):
        by = group.groupby("approach").agg(throughput=("throughput", "mean"), first=("throughput", "first"), last=("throughput", "last"),
                                           net=("server_cpu_ms_per_tx_net", "mean"), limit=("limit", lambda v: "/".join(sorted(set(v)))))
        row = {"nodes": nodes, "client processes": processes, "in flight": in_flight}
        for a in by.index:
            row[f"{a} logins/s (repeats)"] = f"{by.loc[a, 'first']:.0f}, {by.loc[a, 'last']:.0f}"
        for naive in [a for a in by.index if a.startswith("naive")]:
            if "pattern" in by.index:
                row[f"pattern/{naive}"] = round(by.loc["pattern", "throughput"] / by.loc[naive, "throughput"], 2)
        for a in by.index:
            row[f"{a} CPU ms/login above idle"] = round(by.loc[a, "net"], 2)
        row["limits"] = ", ".join(f"{a}: {by.loc[a, 'limit']}" for a in by.index)
        out.append(row)
    table = pd.DataFrame(out)
    write(table, OUT, name + "_ratios", f"{title}: pattern vs naive", machine(), command)
    print(table.to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", default="index-table", choices=sorted(CLASSROOM) + ["period", "index-table-wide"])
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"blocks per point (default {REPEATS}; 1 gives no interval)")
    parser.add_argument("--nodes", type=lambda text: [int(n) for n in text.split(",")], default=None,
                        help="only these cluster sizes (e.g. 4,8); results go to files of their own (<stem>_nodes4-8*)")
    parser.add_argument("--phases", type=lambda text: tuple(text.split(",")), default=None,
                        help="only these phases of the experiment (e.g. paginate)")
    parser.add_argument("--operations", type=int, default=None,
                        help="transactions per run instead of the experiment's (at 300 in flight, 1,000 is 3 per worker: scale it with the threads)")
    parser.add_argument("--threads", type=lambda text: [int(n) for n in text.split(",")], default=None,
                        help="these in-flight levels instead of 32 and 96 (e.g. 10,40,100); results go to files of their own (<stem>_threads10-40-100*)")
    args = parser.parse_args()
    if args.what == "period":
        cfs_period(args.quick, ".venv/bin/python benchmarks/node_budgets.py period" + (" --quick" if args.quick else ""))
        return
    if args.what == "index-table-wide":
        index_table_wide(args.quick, ".venv/bin/python benchmarks/node_budgets.py index-table-wide" + (" --quick" if args.quick else ""))
        return
    exp = (QUICK if args.quick else CLASSROOM)[args.what]
    if args.nodes:
        exp = dataclasses.replace(exp, nodes=args.nodes, stem=f"{exp.stem}_nodes{'-'.join(map(str, args.nodes))}")
    if args.threads:
        exp = dataclasses.replace(exp, threads=args.threads, stem=f"{exp.stem}_threads{'-'.join(map(str, args.threads))}")
    if args.phases:
        exp = dataclasses.replace(exp, phases=[(phase, sizes) for phase, sizes in exp.phases if phase in args.phases])
    if args.operations:
        exp = dataclasses.replace(exp, operations=args.operations, stem=f"{exp.stem}_ops{args.operations}")
    for phase, sizes in exp.phases:
        if phase == "post" and exp.operations > sizes["users"] * sizes["posts"]:  # each post run posts the network's activities once
            parser.error(f"the post phase has {sizes['users'] * sizes['posts']} activities to post, so at most that many operations per run; "
                         f"got {exp.operations}: add --phases paginate, or use fewer operations")
    command = (".venv/bin/python benchmarks/node_budgets.py" + ("" if args.what == "index-table" else f" {args.what}") + (" --quick" if args.quick else "")
               + (f" --repeats {args.repeats}" if args.repeats != REPEATS else "") + (f" --nodes {','.join(map(str, args.nodes))}" if args.nodes else "") + (f" --threads {','.join(map(str, args.threads))}" if args.threads else "")
               + (f" --phases {','.join(args.phases)}" if args.phases else "") + (f" --operations {args.operations}" if args.operations else ""))
    slot = ClusterSlot.for_engine("cassandra", "local", on_change=print, node_cpu=BUDGET)
    rows: dict[str | None, list[dict[str, Any]]] = {phase: [] for phase, _ in exp.phases}
    try:
        for nodes, (phase, sizes) in ((n, p) for n in exp.nodes for p in exp.phases):  # all phases on one cluster size
            plan = SweepPlan(pattern=exp.pattern, approaches=exp.approaches, threads=exp.threads, nodes=[nodes],
                             operations=exp.operations, processes=exp.processes, run_options={"warmup": exp.warmup.get(phase, 0)},
                             repeats=args.repeats, control=exp.control, warmup_block=True)
            measured = run_pattern_sweep(exp.described, plan, phase=phase, settings=sizes, slot=slot)
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
        df = replica_requests.add_columns(df)  # the nodes' own count of what each transaction asked of them
        if "phase" not in df:
            df["phase"] = "read/update"
        name = exp.stem + (f"_{phase}" if phase else "")
        size_note = ", ".join(f"{k}={v}" for k, v in sizes.items())
        title = f"{exp.pattern} {phase or ''} on nodes budgeted at {BUDGET} core each ({size_note}; warm-up {exp.warmup.get(phase, 0)} unbudgeted)"
        write(df[[c for c in COLUMNS if c in df]].copy(), OUT, name, title, machine(), command)
        save_figures(df, OUT / name)
        frames.append(df)
    df = pd.concat(frames)
    if exp.described is ycsb.WORKLOAD:  # no pattern to compare with: how throughput grows with the cluster
        table, suffix, what = scaling(df, exp.unit), "scaling", "throughput as nodes are added, and server CPU per operation"
    else:
        table, suffix, what = pattern_ratios(df, exp.unit), "ratios", "pattern vs naive, and server CPU per transaction"
        growth = cpu_growth(df, exp.unit)
        if not growth.empty:
            write(growth, OUT, f"{exp.stem}_cpu_growth", f"{exp.pattern} on nodes budgeted at {BUDGET} core each: server CPU per "
                  f"{exp.unit} above idle at n nodes over the smallest cluster, {args.repeats} repeats each, 95% interval (Welch, on logs)",
                  machine(), command)
    write(table, OUT, f"{exp.stem}_{suffix}", f"{exp.pattern} on nodes budgeted at {BUDGET} core each: {what}", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
