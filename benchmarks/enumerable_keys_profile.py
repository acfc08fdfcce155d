"""Why Cassandra's list column slows down as writers are added (notebook 03's write test), from the servers' own
CPU profile: the write test's runs (3 nodes, 3,000 comments into one post, 10 and 100 writers, the list and the
clustered rows alternating, 3 blocks after one unmeasured warm-up block) with each node's Java execution sampled
by the JDK Flight Recorder over the measured window only (labkit.clusters.local.jfr), each sample put in the part
of the server it was running (labkit.engines.cassandra_work).

    .venv/bin/python benchmarks/enumerable_keys_profile.py
    .venv/bin/python benchmarks/enumerable_keys_profile.py --quick   # one block at 10 writers, 300 comments: checks the script

Writes results/enumerable_keys_write_profile.csv (one labelled row per run: throughput, server CPU per comment, the
samples and each part's share of them), results/enumerable_keys_write_profile_parts.md (medians per design and
writer count, with each part's estimated server CPU per comment: the run's CPU per comment times the part's share
of the samples, an estimate since samples see only threads running Java) and _leaves.md (the methods the samples
were in, per design at the highest writer count). The cluster is stopped at the end.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.local.cassandra_install import require_java17  # noqa: E402
from labkit.clusters.local.jfr import Profiled  # noqa: E402
from labkit.results.cpu_samples import part_of, shares  # noqa: E402
from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.engines.cassandra_work import DETAILS, MEMTABLE, PARTS  # noqa: E402
from labkit.patterns.enumerable_keys.cassandra import CassandraComments  # noqa: E402
from labkit.runner import RunOptions, Watch, run  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
NODES = 3
APPROACHES = ("naive", "pattern")
BLOCKS = 5
"""Each block runs every design at every writer count twice, profiled and not, alternating the order."""
LABEL = {"naive": "list column in the post", "pattern": "one clustered row per comment"}


class DeletingComments(CassandraComments):
    """The write test as it emptied the post until 2026-12-07: a DELETE of the post (a tombstone over its cells),
    where CassandraComments now truncates the table."""

    def reset(self) -> None:
        self.create_schema()
        self.session.execute(f"DELETE FROM {self.keyspace}.{self.own_table} WHERE post = %s", (self.post,))


RESETS = {"truncate": CassandraComments, "delete": DeletingComments}


def one_run(cluster, approach: str, threads: int, operations: int, java: str, profiled: bool = True, flush: bool = False,
            reset: str = "truncate") -> tuple[dict, list]:
    """One write-test run, with the nodes profiled over its measured window or not (the control that says what
    profiling cost): (row, the samples of all nodes). `flush` first writes every node's memtable of the keyspace out to disk
    (nodetool flush), so the run's post starts with no cells in memory: not even the comments earlier runs wrote
    and deleted."""
    workload = RESETS[reset].for_cluster(cluster, approach, "write")
    if flush:
        for node in cluster.live_nodes():
            cluster.nodetool(node.name, "flush", workload.keyspace)
    cpu = cluster.cpu_meter()
    meter = Profiled(cpu, {name: proc.pid for name, proc in cluster.node_processes().items()}, java) if profiled else cpu
    try:
        result = run(workload, threads=threads, operations=operations, options=RunOptions(), watch=Watch(server_meter=meter))
    finally:
        workload.close_process()
    return result.to_row(), ([s for node in meter.samples.values() for s in node] if profiled else [])


def labelled(cluster, approach: str, threads: int, operations: int, row: dict, samples: list, sampled: bool, **where) -> dict:
    """One run's result row: its labels (`where`: the block, run, ...), the runner's figures, and (`sampled`: the run was
    profiled) each part's share of its samples."""
    parts = {**shares(samples, PARTS), **details(samples)} if sampled else {}
    return {"engine": "cassandra", "server_version": cluster.server_version, "provider": cluster.provider, "nodes": NODES,
            "approach": approach, "design": LABEL[approach], **where, "threads": threads, "operations": operations,
            "complete": row["complete"], "throughput": round(row["throughput"], 1), "mean_us": round(row["mean_us"]),
            "errors": row["errors"], "verify_ok": row["verify_ok"], "server_cpu_ms_per_tx": row.get("server_cpu_ms_per_tx"),
            "server_cpu_ms_per_tx_net": row.get("server_cpu_ms_per_tx_net"), "machine_cpu_busy": row.get("machine_cpu_busy"),
            "limit": row.get("limit"), "samples": len(samples), **{f"share: {label}": round(share, 3) for label, share in parts.items()}}


def details(samples: list) -> dict[str, float]:
    """Each of DETAILS' shares of the samples, counted on its own (a sample can be in several)."""
    return {label: (sum(1 for s in samples if test(s)) / len(samples) if samples else 0.0) for label, test in DETAILS}


def leaves(samples: list, keep: int = 8) -> list[tuple[str, float]]:
    """The methods the samples were running (leaf frames, class and method), most frequent first, as shares."""
    counts = Counter(s.frames[0].rsplit(".", 2)[-2] + "." + s.frames[0].rsplit(".", 1)[-1] for s in samples if s.frames)
    total = sum(counts.values())
    return [(name, n / total) for name, n in counts.most_common(keep)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one block at 10 writers, 300 comments: checks the script, claims nothing")
    parser.add_argument("--blocks", type=int, default=BLOCKS, help=f"blocks of runs (default {BLOCKS})")
    parser.add_argument("--flush", action="store_true", help="flush the nodes' memtables before every run (the runs start alike)")
    parser.add_argument("--reset", choices=sorted(RESETS), default="truncate",
                        help="how a series' runs empty the post: TRUNCATE (the write test's way now) or DELETE (its way until 2026-12-07)")
    parser.add_argument("--series", type=int, default=0, metavar="N",
                        help="instead of blocks: one flush, then N runs in a row of each design at 100 writers, none flushed")
    args = parser.parse_args()
    if args.series:
        return series(args.series, args.blocks, reset=args.reset)
    threads_list, operations, blocks = ((10,), 300, 1) if args.quick else ((10, 100), 3000, args.blocks)
    stem = "enumerable_keys_write_profile" + ("_flushed" if args.flush else "") + ("_quick" if args.quick else "")
    command = (".venv/bin/python benchmarks/enumerable_keys_profile.py" + (" --flush" if args.flush else "") + (" --quick" if args.quick else "")
               + (f" --blocks {blocks}" if blocks != BLOCKS and not args.quick else ""))
    java = require_java17()
    slot = ClusterSlot.for_engine("cassandra", "local")
    rows, pooled = [], {}
    try:
        cluster = slot.ensure(NODES)
        print("warm-up block (not measured):", ", ".join(APPROACHES), f"at {max(threads_list)} writers")
        for approach in APPROACHES:
            one_run(cluster, approach, max(threads_list), operations, java)
        for block in range(blocks):
            for threads in threads_list:
                runs = [(a, p) for a in APPROACHES for p in (True, False)]
                for approach, profiled in (runs if block % 2 == 0 else list(reversed(runs))):
                    row, samples = one_run(cluster, approach, threads, operations, java, profiled, flush=args.flush)
                    if profiled:
                        pooled.setdefault((approach, threads), []).extend(samples)
                    rows.append(labelled(cluster, approach, threads, operations, row, samples, profiled, repeat=block, profiled=profiled))
                    print(f"block {block} {approach} @{threads} {'profiled' if profiled else 'not profiled'}: {row['throughput']:.0f}/s, "
                          f"server CPU {row.get('server_cpu_ms_per_tx')} ms/comment, {len(samples)} samples"
                          + (f", memtable {rows[-1]['share: ' + MEMTABLE]:.0%}" if profiled else ""))
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    write(df.copy(), OUT, stem, f"Cassandra's write test profiled: where the nodes' Java execution went, per run ({NODES} nodes, {operations} comments, one post; "
          "each run also made without the profiler)", machine(), command)
    table = summary(df)
    write(table.copy(), OUT, f"{stem}_parts", f"Cassandra's write test profiled: per design and writer count, {blocks} runs without the profiler and "
          f"{blocks} with it; each part's share of the Java execution samples pooled over the profiled runs (lowest-highest run)", machine(), command)
    print(table.to_string(index=False))
    top = []
    for (approach, threads), samples in sorted(pooled.items()):
        if threads != max(threads_list):
            continue
        memtable = [s for s in samples if part_of(s, PARTS) == MEMTABLE]
        for scope, chosen in (("all samples", samples), ("memtable samples", memtable)):
            for rank, (method, share) in enumerate(leaves(chosen), 1):
                top.append({"design": LABEL[approach], "threads": threads, "of": scope, "samples": len(chosen), "rank": rank, "method": method,
                            "share": round(share, 3)})
    write(pd.DataFrame(top), OUT, f"{stem}_leaves", f"Cassandra's write test profiled: the methods the samples were running at {max(threads_list)} writers, "
          f"pooled over {blocks} runs", machine(), command)


def series(runs: int, blocks: int = BLOCKS, threads: int = 100, operations: int = 3000, reset: str = "truncate") -> None:
    """The memtable's memory of earlier runs: `blocks` series, each a flush, then `runs` write-test runs in a row of each
    design (alternating, each run emptying its post first as the write test does), every run profiled, then one more
    run of each after a flush. Writes results/enumerable_keys_write_series_<reset>.{csv,md} and _ratios.md (each design's
    last run before the flush over its first, paired within a series; the run after the flush over the first)."""
    stem = f"enumerable_keys_write_series_{reset}"
    command = f".venv/bin/python benchmarks/enumerable_keys_profile.py --series {runs} --reset {reset}" + (f" --blocks {blocks}" if blocks != BLOCKS else "")
    java = require_java17()
    slot = ClusterSlot.for_engine("cassandra", "local")
    rows = []
    try:
        cluster = slot.ensure(NODES)
        print("warm-up block (not measured):", ", ".join(APPROACHES), f"at {threads} writers")
        for approach in APPROACHES:
            one_run(cluster, approach, threads, operations, java)
        for block in range(blocks):
            order = APPROACHES if block % 2 == 0 else tuple(reversed(APPROACHES))
            for i, approach in ((i, a) for i in range(runs + 1) for a in order):
                flush = i == 0 or i == runs
                row, samples = one_run(cluster, approach, threads, operations, java, flush=flush, reset=reset)
                rows.append(labelled(cluster, approach, threads, operations, row, samples, True, reset=reset, repeat=block, run=i + 1,
                                     flushed_before=flush, runs_since_flush=0 if flush else i))
                print(f"series {block} run {i + 1} {approach}{' (flushed first)' if flush else ''}: {row['throughput']:.0f}/s, server CPU "
                      f"{row.get('server_cpu_ms_per_tx')} ms/comment, memtable {rows[-1]['share: ' + MEMTABLE]:.0%} of {len(samples)} samples")
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    write(df.copy(), OUT, stem, f"Cassandra's write test, runs in a row without a flush ({NODES} nodes, {operations} comments per run into one "
          f"post emptied first by {reset.upper()}, {threads} writers; a flush before the first and the last run of each series)", machine(), command)
    table = series_ratios(df, runs)
    write(table.copy(), OUT, f"{stem}_ratios", f"Cassandra's write test, runs in a row, the post emptied by {reset.upper()}: each design's run {runs} (no flush since run 1) and run "
          f"{runs + 1} (flushed first) over its run 1, paired within each of {blocks} series", machine(), command)
    print(table.to_string(index=False))


def series_ratios(df: pd.DataFrame, runs: int) -> pd.DataFrame:
    """Per design: throughput and server CPU per comment of run `runs` (the last before a flush) and of run `runs`+1
    (after one) over run 1, each paired within a series, with its 95% interval."""
    from labkit.results.intervals import interval_of

    out = []
    for approach, group in df.groupby("approach"):
        row = {"design": LABEL[approach], "series": group["repeat"].nunique(),
               "run 1 comments/s": round(group[group["run"] == 1]["throughput"].median()),
               f"run {runs} comments/s": round(group[group["run"] == runs]["throughput"].median()),
               f"run {runs + 1} (flushed) comments/s": round(group[group["run"] == runs + 1]["throughput"].median())}
        for label, metric in (("comments/s", "throughput"), ("server CPU per comment", "server_cpu_ms_per_tx")):
            for later in (runs, runs + 1):
                found = interval_of(group, metric, later, 1, between="run", paired=True)
                row[f"{label}, run {later} / run 1"] = found.text() if found is not None else ""
        row[f"memtable share, run 1 / run {runs}"] = (f"{group[group['run'] == 1]['share: ' + MEMTABLE].median():.0%} / "
                                                      f"{group[group['run'] == runs]['share: ' + MEMTABLE].median():.0%}")
        out.append(row)
    return pd.DataFrame(out)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per design and writer count: the runs without the profiler (throughput, server CPU per comment) beside the
    profiled ones (throughput, and each part's share of the samples pooled over the runs, with the lowest and
    highest of the runs' own shares)."""
    from labkit.results.intervals import interval_of

    out = []
    share_columns = [c for c in df.columns if c.startswith("share: ")]
    for (approach, threads), group in df.groupby(["approach", "threads"]):
        plain, profiled = group[~group["profiled"]], group[group["profiled"]]
        row = {"design": LABEL[approach], "threads": threads, "runs": len(plain), "comments/s": round(plain["throughput"].median()),
               "server CPU ms/comment": round(plain["server_cpu_ms_per_tx"].median(), 3),
               "profiled comments/s": round(profiled["throughput"].median()), "samples": int(profiled["samples"].sum())}
        with_profiler = interval_of(group, "throughput", True, False, between="profiled", paired=True)
        row["profiled/plain throughput"] = with_profiler.text() if with_profiler is not None else ""
        if approach != APPROACHES[0]:  # the design over the list, from the runs without the profiler
            plain_both = df[(df["threads"] == threads) & ~df["profiled"]]
            over = interval_of(plain_both, "throughput", approach, APPROACHES[0])
            row[f"comments/s over the {LABEL[APPROACHES[0]]}"] = over.text() if over is not None else ""
        weights = profiled["samples"]
        for column in share_columns:
            pooled = (profiled[column] * weights).sum() / weights.sum() if weights.sum() else float("nan")
            row[column.replace("share: ", "")] = f"{pooled:.0%} ({profiled[column].min():.0%}-{profiled[column].max():.0%})"
        out.append(row)
    return pd.DataFrame(out)


if __name__ == "__main__":
    main()
