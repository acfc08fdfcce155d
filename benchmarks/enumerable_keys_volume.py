"""The Enumerable Keys data-volume test on the embedded Cassandra cluster: one writer adds comments run
after run without emptying the post, and after every run a reader fetches the newest page.

    .venv/bin/python benchmarks/enumerable_keys_volume.py           # 3 series of 10 runs x 1,000 comments, 3 nodes (about 15 min)
    .venv/bin/python benchmarks/enumerable_keys_volume.py --quick   # 1 series of 3 runs x 100 comments; claims nothing

Each series empties the post and grows it again; the approaches alternate which goes first (ABBA over the
series), and `repeat` numbers the series. Writes results/enumerable_keys_volume.csv/.md (per approach,
series and run: comments on the post, bytes the list holds, write and first-page latency), a figure
(the median of the series), and results/enumerable_keys_volume_growth.csv/.md: each approach's latency at
the largest post over the first, per series, with a 95% interval. Why: Cassandra appends to a list without
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
from labkit.patterns.description import CLASSROOM_REPEATS  # noqa: E402
from labkit.results.intervals import ratio_interval  # noqa: E402
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


def volume_series(cluster, approach: str, sizes: dict, series: int = 0) -> list[dict]:
    info = cluster.info()
    rows = []
    for n, result, store in ek.volume_runs(cluster, approach, sizes["runs"], sizes["per_run"]):
        page = first_page_latency(store, sizes["page_reads"])
        rows.append({
            "engine": info.engine, "server_version": info.server_version, "provider": info.provider, "nodes": info.nodes,
            "threads": 1, "approach": approach, "repeat": series, "run": n, "comments": result.verification.checks["comments"],
            "list_bytes": store.post_size(), "write_mean_us": result.stats.mean_us, "write_p95_us": result.stats.p95_us,
            "page_mean_us": page.mean_us, "page_p95_us": page.p95_us, "verify_ok": result.verification.ok,
        })
        print(rows[-1])
    return rows


def growth(df: pd.DataFrame) -> pd.DataFrame:
    """Per approach and operation: the median latency at the first and the last run, and last / first paired
    within each series (the post the series grew), with its 95% interval."""
    out = []
    first, last = df["run"].min(), df["run"].max()
    for approach, rows in df.groupby("approach"):
        for column, operation in (("write_mean_us", "write"), ("page_mean_us", "newest page")):
            at = {run: rows[rows["run"] == run].set_index("repeat")[column] for run in (first, last)}
            pairs = (at[last] / at[first]).dropna()
            found = ratio_interval(pairs)
            out.append({"approach": approach, "operation": operation, "first comments": int(rows[rows["run"] == first]["comments"].median()),
                        "last comments": int(rows[rows["run"] == last]["comments"].median()),
                        "first mean ms (median)": round(at[first].median() / 1000, 2), "last mean ms (median)": round(at[last].median() / 1000, 2),
                        "last / first": found.text() if found else "", "series": len(pairs)})
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--series", type=int, default=0, help=f"series per approach (default: {CLASSROOM_REPEATS}, --quick: 1)")
    args = parser.parse_args()
    series = args.series or (1 if args.quick else CLASSROOM_REPEATS)
    profile = "quick" if args.quick else "classroom"
    volume = ek.PATTERN.named_sweep(profile, "volume")
    sizes = {"nodes": max(volume.nodes), "runs": volume.repeats, "per_run": volume.operations, "page_reads": PAGE_READS[profile]}
    stem = "enumerable_keys_volume" + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/enumerable_keys_volume.py" + (" --quick" if args.quick else "")
    slot = ClusterSlot.for_engine("cassandra", "local")
    try:
        cluster = slot.ensure(sizes["nodes"])
        rows = []
        for n in range(series):
            order = ek.APPROACHES if n % 2 == 0 else tuple(reversed(ek.APPROACHES))
            rows += [row for approach in order for row in volume_series(cluster, approach, sizes, n)]
        df = pd.DataFrame(rows)
    finally:
        slot.stop()
    title = f"enumerable-keys, volume: 1 writer, {sizes['per_run']} comments per run, {sizes['runs']} runs, no cleaning, {series} series"
    write(df.copy(), OUT, stem, title, machine(), command)
    growth_table = growth(df)
    write(growth_table, OUT, f"{stem}_growth", title + ": the largest post over the first run's, 95% intervals over the series", machine(), command)
    print(growth_table.to_string(index=False))
    label = f"{df.engine[0]} {df.server_version[0]} · {df.provider[0]} · {df.nodes[0]} nodes · 1 thread · median of {series} series"
    medians = df.groupby(["approach", "comments"], as_index=False)[["write_mean_us", "page_mean_us"]].median()
    long = medians.melt(id_vars=["approach", "comments"], value_vars=["write_mean_us", "page_mean_us"], var_name="operation", value_name="mean µs")
    fig = px.line(long, x="comments", y="mean µs", color="approach", facet_col="operation", markers=True,
                  title=f"Enumerable Keys, growing post: one write and one newest-page read · {label}")
    save_figure(fig, OUT / stem)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
