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
from labkit.clusters.local.jfr import Profiled, shares  # noqa: E402
from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.engines.cassandra_work import MEMTABLE, PARTS  # noqa: E402
from labkit.patterns.enumerable_keys.cassandra import CassandraComments  # noqa: E402
from labkit.runner import RunOptions, Watch, run  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
NODES = 3
APPROACHES = ("naive", "pattern")
LABEL = {"naive": "list column in the post", "pattern": "one clustered row per comment"}


def one_run(cluster, approach: str, threads: int, operations: int, java: str) -> tuple[dict, dict]:
    """One write-test run with the nodes profiled over its measured window: (row, samples by node)."""
    workload = CassandraComments.for_cluster(cluster, approach, "write")
    meter = Profiled(cluster.cpu_meter(), {name: proc.pid for name, proc in cluster.node_processes().items()}, java)
    try:
        result = run(workload, threads=threads, operations=operations, options=RunOptions(), watch=Watch(server_meter=meter))
    finally:
        workload.close_process()
    row = result.to_row()
    return row, meter.samples


def leaves(samples: list, keep: int = 8) -> list[tuple[str, float]]:
    """The methods the samples were running (leaf frames, class and method), most frequent first, as shares."""
    counts = Counter(s.frames[0].rsplit(".", 2)[-2] + "." + s.frames[0].rsplit(".", 1)[-1] for s in samples if s.frames)
    total = sum(counts.values())
    return [(name, n / total) for name, n in counts.most_common(keep)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one block at 10 writers, 300 comments: checks the script, claims nothing")
    args = parser.parse_args()
    threads_list, operations, blocks = ((10,), 300, 1) if args.quick else ((10, 100), 3000, 3)
    stem = "enumerable_keys_write_profile" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/enumerable_keys_profile.py" + (" --quick" if args.quick else "")
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
                order = APPROACHES if block % 2 == 0 else tuple(reversed(APPROACHES))
                for approach in order:
                    row, by_node = one_run(cluster, approach, threads, operations, java)
                    samples = [s for node in by_node.values() for s in node]
                    pooled.setdefault((approach, threads), []).extend(samples)
                    parts = shares(samples, PARTS)
                    rows.append({"engine": "cassandra", "server_version": cluster.server_version, "provider": cluster.provider, "nodes": NODES,
                                 "approach": approach, "design": LABEL[approach], "threads": threads, "repeat": block, "operations": operations,
                                 "complete": row["complete"], "throughput": round(row["throughput"], 1), "mean_us": round(row["mean_us"]),
                                 "errors": row["errors"], "verify_ok": row["verify_ok"], "server_cpu_ms_per_tx": row.get("server_cpu_ms_per_tx"),
                                 "server_cpu_ms_per_tx_net": row.get("server_cpu_ms_per_tx_net"),
                                 "machine_cpu_busy": row.get("machine_cpu_busy"), "limit": row.get("limit"), "samples": len(samples),
                                 **{f"share: {label}": round(share, 3) for label, share in parts.items()}})
                    print(f"block {block} {approach} @{threads}: {row['throughput']:.0f}/s, server CPU {row.get('server_cpu_ms_per_tx')} ms/comment, "
                          f"{len(samples)} samples, memtable {parts[MEMTABLE]:.0%}")
    finally:
        slot.stop()
    df = pd.DataFrame(rows)
    write(df.copy(), OUT, stem, f"Cassandra's write test profiled: where the nodes' Java execution went, per run ({NODES} nodes, {operations} comments, one post)",
          machine(), command)
    share_columns = [c for c in df.columns if c.startswith("share: ")]
    medians = df.groupby(["approach", "design", "threads"], as_index=False)[["throughput", "server_cpu_ms_per_tx", "samples", *share_columns]].median()
    for column in share_columns:
        medians[column.replace("share: ", "ms per comment: ")] = (medians[column] * medians["server_cpu_ms_per_tx"]).round(3)
    write(medians, OUT, f"{stem}_parts", f"Cassandra's write test profiled: medians of {blocks} runs per design and writer count; "
          "each part's share of the Java execution samples, and the run's server CPU per comment split by those shares (an estimate)", machine(), command)
    top = []
    for (approach, threads), samples in sorted(pooled.items()):
        if threads != max(threads_list):
            continue
        memtable = [s for s in samples if shares([s], PARTS)[MEMTABLE] == 1.0]
        for scope, chosen in (("all samples", samples), ("memtable samples", memtable)):
            for rank, (method, share) in enumerate(leaves(chosen), 1):
                top.append({"design": LABEL[approach], "threads": threads, "of": scope, "samples": len(chosen), "rank": rank, "method": method,
                            "share": round(share, 3)})
    write(pd.DataFrame(top), OUT, f"{stem}_leaves", f"Cassandra's write test profiled: the methods the samples were running at {max(threads_list)} writers, "
          f"pooled over {blocks} runs", machine(), command)
    print(medians.to_string(index=False))


if __name__ == "__main__":
    main()
