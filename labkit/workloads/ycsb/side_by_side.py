"""YCSB's mixes on HBase and on Cassandra at the same shape, side by side: document 004's comparison (average
latency at rising target throughputs for workloads A, B, C and insert-mostly), at this machine's sizes.

Both engines get 2 nodes (Cassandra nodes; HBase region servers) with the same CPU budget each and the same total,
one copy of each record (Cassandra replication 1 at consistency ONE; HBase keeps one copy on the local filesystem,
where production HBase keeps three in HDFS), the same records, mixes, offered loads and client (two client
processes), the same timer slack (host.timer_slack), the same loader (one record per request, as YCSB's loader sends
them; 64 in flight; budgets lifted), and the loaded records flushed to disk before the runs, so
reads go through the on-disk files and their caches, not the memtable or memstore the load filled. HBase's block
cache is BLOCK_CACHE_FRACTION of each region server's heap, less than the records take on disk (the rows say how
much they took). Every HBase request passes the Thrift gateway (happybase speaks Thrift to it; it speaks HBase's
protocol to the region servers), where Cassandra's driver talks to the nodes: the gateway runs inside the region
servers' total (one cap of nodes x budget on the cluster's group), as a Cassandra node's coordinator work runs
inside its node's budget. The totals are alike, their shapes are not: HBase's three processes share one
1-core cap (the gateway may take what an idle region server leaves), where Cassandra's two nodes cannot lend
to each other. What else differs is said on every row (`outside_budget`: HBase's ZooKeeper and master), and
the clients differ too (happybase's synchronous calls on helper threads through the gateway; the Cassandra
driver's asynchronous calls to the nodes), as do the storage formats and caches.
One cluster runs at a time: a block starts one engine's cluster, runs every mix and load, stops it, then does the
same for the other engine (which goes first alternates between blocks), so a ratio pairs the two engines' runs of
one block. A point the engine did not keep up with (achieved under 95% of the offered rate) or that the client
limited is kept and flagged (`kept_up`); the summary compares only points both engines kept up with in the same
block. Latency is given from each operation's actual start (YCSB's own measure, the one document 004 reports) and
from its intended start (which adds the time a paced request waited for the client to send it).
"""

from __future__ import annotations

from typing import Any, Callable

import pandas as pd

from ...results.intervals import interval_of, ratio_at_point

ENGINES = ("cassandra", "hbase")
MIXES = ("baseline/a", "baseline/b", "baseline/c", "baseline/insert-mostly")
"""Document 004's four: read-update 50/50, read mostly 95/5, read only, insert mostly (90% insert, 10% read)."""
NODES, NODE_CPU, PROCESSES = 2, 0.5, 2
BLOCK_CACHE_FRACTION = 0.1
"""HBase's block cache as a share of each region server's 384 MiB heap (38 MiB; HBase's default is 0.4): the
records the sizes load take more than that on disk, so reads miss it as document 004's did."""
CLUSTER_OPTIONS: dict[str, dict[str, Any]] = {"cassandra": {}, "hbase": {"gateway_in_budget": True, "block_cache_fraction": BLOCK_CACHE_FRACTION}}
SIZES: dict[str, dict[str, Any]] = {
    "classroom": {"mixes": MIXES, "targets": (200, 400, 800, 1600), "target_seconds": 6, "blocks": 3, "records": 100000, "threads": 32},
    "notebook": {"mixes": ("baseline/a", "baseline/c"), "targets": (400, 800), "target_seconds": 6, "blocks": 2, "records": 60000, "threads": 32},
    "quick": {"mixes": MIXES, "targets": (100, 400), "target_seconds": 2, "blocks": 1, "records": 2000, "threads": 16},
}
"""classroom: the committed benchmark (about 40 minutes); notebook: notebook 05's classroom section (about 12 minutes);
quick: checks the code, claims nothing."""
OUTSIDE_BUDGET = {"cassandra": "none", "hbase": "ZooKeeper, master (the Thrift gateway shares the region servers' total)"}


def engine_block(engine: str, size: str, block: int, order: int, echo: Callable[[str], None] = print, **narrowed: Any) -> list[dict[str, Any]]:
    """One engine's runs of one block: its own cluster, started and stopped here. `narrowed` replaces parts of the
    size (mixes, targets)."""
    from ...clusters.slot import ClusterSlot
    from ...sweeps import run_pattern_sweep
    from . import WORKLOAD

    chosen = {**SIZES[size], **narrowed}
    plan = WORKLOAD.sweep_plan("classroom" if size != "quick" else "quick", "offered-load", approaches=list(chosen["mixes"]), engine=engine,
                               nodes=[NODES], threads=[chosen["threads"]], targets=list(chosen["targets"]),
                               target_seconds=chosen["target_seconds"], processes=PROCESSES, repeats=1, past_knee=None)
    slot = ClusterSlot.for_engine(engine, "local", node_cpu=NODE_CPU, **CLUSTER_OPTIONS[engine])
    try:
        rows = run_pattern_sweep(WORKLOAD, plan, slot=slot, settings={"records": chosen["records"], "replication": 1, "consistency": "ONE",
                                                                      "flush": "yes"}, echo=echo)
        servers = slot.cluster.local_servers() if slot.cluster is not None else None
        on_disk = data_mib(servers.directory) if servers is not None else None
    finally:
        slot.stop()
    for row in rows:
        row.update(repeat=block, order=order, outside_budget=OUTSIDE_BUDGET[engine], data_mib_on_disk=on_disk,
                   block_cache_fraction=CLUSTER_OPTIONS[engine].get("block_cache_fraction"),
                   kept_up=bool(row["throughput"] >= 0.95 * row["target_rate"] and not str(row["limit"]).startswith("client")))
    return rows


def data_mib(directory: Any) -> float:
    """MiB of the YCSB table's own files in the cluster's directory after the runs (Cassandra: each node's
    `usertable-<id>` directories; HBase: the `usertable` table directory; store files and their indexes, no
    commit log or WAL): what the records took on disk, to set beside the caches."""
    from pathlib import Path

    def ours(part: str) -> bool:
        return "usertable" in part and "loaded" not in part

    def kept(parts: tuple[str, ...]) -> bool:  # not a TRUNCATE's snapshot, HBase's archive of replaced files, or temporary files
        return not any(p in ("snapshots", "archive", ".tmp", "backups") for p in parts)

    files = [f for f in Path(directory).rglob("*") if f.is_file() and kept(f.relative_to(directory).parts[:-1])
             and any(ours(p) for p in f.relative_to(directory).parts[:-1])]
    return round(sum(f.stat().st_size for f in files) / 2**20, 1)


def side_by_side(size: str, echo: Callable[[str], None] = print, **narrowed: Any) -> pd.DataFrame:
    """Every block of `size` (a key of SIZES; `narrowed` replaces its mixes or targets), one engine's cluster at a
    time; every run's row."""
    unknown = set(narrowed) - {"mixes", "targets"}
    if unknown:
        raise ValueError(f"only mixes and targets can be narrowed, not {', '.join(sorted(unknown))}")
    rows: list[dict[str, Any]] = []
    for block in range(SIZES[size]["blocks"]):
        for order, engine in enumerate(ENGINES if block % 2 == 0 else ENGINES[::-1]):
            rows += engine_block(engine, size, block, order, echo, **narrowed)
    return pd.DataFrame(rows)


def kept_pairs(group: pd.DataFrame) -> pd.DataFrame:
    """The blocks of one point (mix and offered load) where both engines kept up."""
    return group.groupby("repeat").filter(lambda b: bool(b.kept_up.all()) and set(b.engine) == set(ENGINES))


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per mix and offered load: each engine's mean latency from the actual start (document 004's measure) with
    HBase's over Cassandra's and its 95% interval, then the same from the intended start, and CPU per transaction
    (the whole cluster's; HBase's gateway's share beside it), medians of the blocks; the intervals come from the
    blocks both kept up in."""
    out = []
    for (mix, target), group in df.groupby(["approach", "target_rate"]):
        both = kept_pairs(group)
        slower = interval_of(both.assign(approach=both.engine), "intended_mean_us", "hbase", "cassandra") if len(both) else None
        slower_actual = interval_of(both.assign(approach=both.engine), "mean_us", "hbase", "cassandra") if len(both) else None
        median = group.groupby("engine")["intended_mean_us"].median() / 1000
        actual = group.groupby("engine")["mean_us"].median() / 1000
        cpu = group.groupby("engine")["server_cpu_ms_per_tx"].median()
        gateway = group[group.engine == "hbase"].get("server_cpu_ms_per_tx_thrift", pd.Series(dtype=float)).median()
        kept = group.groupby("engine")["kept_up"].sum()
        out.append({"mix": mix, "offered_per_s": int(target), "nodes": NODES, "node_cpu": NODE_CPU,
                    "cassandra_mean_ms": round(actual.get("cassandra", float("nan")), 2), "hbase_mean_ms": round(actual.get("hbase", float("nan")), 2),
                    "hbase_over_cassandra_mean": slower_actual.text() if slower_actual is not None else "not compared (a block fell behind)",
                    "cassandra_intended_mean_ms": round(median.get("cassandra", float("nan")), 2),
                    "hbase_intended_mean_ms": round(median.get("hbase", float("nan")), 2),
                    "cassandra_cpu_ms_per_tx": round(cpu.get("cassandra", float("nan")), 2), "hbase_cpu_ms_per_tx": round(cpu.get("hbase", float("nan")), 2),
                    "hbase_gateway_cpu_ms_per_tx": round(gateway, 2),
                    "blocks_kept_up": f"cassandra {int(kept.get('cassandra', 0))}, hbase {int(kept.get('hbase', 0))} of {group.repeat.nunique()}",
                    "hbase_over_cassandra_intended_mean": slower.text() if slower is not None else "not compared (a block fell behind)"})
    return pd.DataFrame(out)


def load_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Document 004's other measure: how fast each engine took YCSB's load phase (records per second, the flush
    included; budgets lifted, as for every unmeasured phase; one record per request, LOAD_CONCURRENCY in flight, on
    both engines). Every measured run that loaded counts (a run of an inserting mix reloads the whole table; a block's
    warm-up run is not kept). `hbase_over_cassandra_load_time`: HBase's load time over
    Cassandra's, each block's first loads paired (first_loads), with its 95% interval."""
    loaded = df[df["load_s"].fillna(0) > 0.5] if "load_s" in df else df.iloc[0:0]
    firsts = first_loads(df)
    paired = interval_of(firsts.assign(approach=firsts.engine), "load_s", "hbase", "cassandra") if not firsts.empty else None
    out = []
    for engine, group in loaded.groupby("engine"):
        rates = group["records"] / group["load_s"]
        out.append({"engine": engine, "server_version": group["server_version"].iloc[0], "loads": len(group), "records": int(group["records"].iloc[0]),
                    "records_per_s_median": round(float(rates.median())), "records_per_s_range": f"{rates.min():,.0f}-{rates.max():,.0f}",
                    "load_s_median": round(float(group["load_s"].median()), 1),
                    "hbase_over_cassandra_load_time": paired.text() if paired is not None and paired.has_interval else "too few blocks"})
    return pd.DataFrame(out)


def first_loads(df: pd.DataFrame) -> pd.DataFrame:
    """Each engine's first measured load in each block (the whole table into an emptied table; a block's warm-up run,
    not kept, may have loaded before it): one per engine and block, so the two engines' loads pair by block."""
    if "load_s" not in df or "repeat" not in df:
        return df.iloc[0:0]
    loaded = df[df["load_s"].fillna(0) > 0.5]
    return loaded.groupby(["engine", "repeat"], sort=False).head(1)


def latency_ratio(df: pd.DataFrame, mix: str, metric: str = "mean_us") -> Any:
    """Cassandra's mean latency (`metric`: from the actual start, YCSB's and document 004's measure; intended_mean_us
    from the intended start) over HBase's for `mix` (above 1: HBase answered sooner), at
    one offered load: the load with the most blocks both engines kept up in (then the highest), with the interval of
    those blocks' pairs and the other loads as a range; loads are conditions, so their pairs are never pooled into
    one interval. A `PointRatio` (its `.interval` for a verdict); None when no block kept up with both."""
    pairs = pd.concat([kept_pairs(g) for _, g in df[df.approach == mix].groupby("target_rate")] or [pd.DataFrame()])
    if pairs.empty:
        return None
    return ratio_at_point(pairs.assign(approach=pairs.engine), "cassandra", "hbase", metric=metric)
