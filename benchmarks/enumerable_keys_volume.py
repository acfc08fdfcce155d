"""The Enumerable Keys data-volume test on the embedded Cassandra cluster: one writer adds comments run
after run without emptying the post, and after every run a reader fetches the newest page.

    .venv/bin/python benchmarks/enumerable_keys_volume.py           # 10 runs x 1,000 comments, 3 nodes
    .venv/bin/python benchmarks/enumerable_keys_volume.py --quick   # 3 runs x 100 comments; claims nothing

Writes results/enumerable_keys_volume.csv/.md (per approach and run: comments on the post, bytes the
list holds, write and first-page latency) and a figure. Why: Cassandra appends to a list without
reading it, so its writes should not slow down as the list grows, but a page of the list reads the
whole list; the per-comment rows read ten. The cluster is stopped at the end.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
import plotly.express as px

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figure  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import enumerable_keys as ek  # noqa: E402
from labkit.patterns.exercise import a_transaction  # noqa: E402
from labkit.runner.result import LatencyStats  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
PAGE_READS = {"classroom": 200, "quick": 20}  # newest-page reads after each run; nodes, runs and comments per run: the volume sweep of ek.PATTERN


def first_page_latency(store: ek.CommentStore, reads: int) -> LatencyStats:
    """Read the newest page `reads` times, one after another; latency of the one request a page takes
    (Cassandra: `read_post` of the whole list, or `read_page` of ten rows)."""
    tx = a_transaction()
    for _ in range(reads):
        store.read_page(tx, None)
    (series,) = [s for name, s in tx.measurements.series.items() if name in ("read_post", "read_page")]
    return LatencyStats.of(series)


def volume_series(cluster, approach: str, sizes: dict) -> list[dict]:
    info = cluster.info()
    rows = []
    for n, result, store in ek.volume_runs(cluster, approach, sizes["runs"], sizes["per_run"]):
        page = first_page_latency(store, sizes["page_reads"])
        rows.append({
            "engine": info.engine, "server_version": info.server_version, "provider": info.provider, "nodes": info.nodes,
            "threads": 1, "approach": approach, "run": n, "comments": result.verification.checks["comments"],
            "list_bytes": store.post_size(), "write_mean_us": result.stats.mean_us, "write_p95_us": result.stats.p95_us,
            "page_mean_us": page.mean_us, "page_p95_us": page.p95_us, "verify_ok": result.verification.ok,
        })
        print(rows[-1])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    args = parser.parse_args()
    profile = "quick" if args.quick else "classroom"
    volume = ek.PATTERN.named_sweep(profile, "volume")
    sizes = {"nodes": max(volume.nodes), "runs": volume.repeats, "per_run": volume.operations, "page_reads": PAGE_READS[profile]}
    stem = "enumerable_keys_volume" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/enumerable_keys_volume.py" + (" --quick" if args.quick else "")
    slot = ClusterSlot.for_engine("cassandra", "local")
    try:
        cluster = slot.ensure(sizes["nodes"])
        df = pd.DataFrame([row for approach in ek.APPROACHES for row in volume_series(cluster, approach, sizes)])
    finally:
        slot.stop()
    title = f"enumerable-keys, volume: 1 writer, {sizes['per_run']} comments per run, {sizes['runs']} runs, no cleaning"
    write(df.copy(), OUT, stem, title, machine(), command)
    label = f"{df.engine[0]} {df.server_version[0]} · {df.provider[0]} · {df.nodes[0]} nodes · 1 thread"
    long = df.melt(id_vars=["approach", "comments"], value_vars=["write_mean_us", "page_mean_us"], var_name="operation", value_name="mean µs")
    fig = px.line(long, x="comments", y="mean µs", color="approach", facet_col="operation", markers=True,
                  title=f"Enumerable Keys, growing post: one write and one newest-page read · {label}")
    save_figure(fig, OUT / stem)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
