"""YCSB's core workloads (A-F and insert-mostly) as a standard workload the lab drives like a pattern:
approaches are the mixes (`baseline/a` ... `baseline/insert-mostly`) in the `mix` and `offered-load`
phases and the index kinds (`baseline/no-index`, `baseline/2i`, `baseline/sai`) in the index phases.
The engine-neutral part (mixes, distributions, keys) is in `core`, each engine's binding in the module
named after it (`cassandra`, `mongodb`, `hbase`)."""

from __future__ import annotations

from typing import Any

from ...patterns.description import Pattern, Setting, NamedSweep
from .core import (
    APPROACHES, DISTRIBUTIONS, INDEX_APPROACHES, INDEX_PHASES, INSERT_ORDERS, MIX_APPROACHES, MIX_NAMES, MIX_PHASES, MIXES, NAME, PHASES,
    KeyChooser, Mix, OperationChooser, Zipfian, key_name, mix, mix_of,
)

CONSISTENCY_LEVELS = ("ONE", "TWO", "QUORUM", "ALL")
QUICK: dict[str, Any] = {"records": 2000}
CLASSROOM: dict[str, Any] = {"records": 20000}
SPREAD: dict[str, Any] = {"distribution": "uniform", "chunk_cache_mb": 6}
"""The cache sweeps read every record alike (uniform), so the working set is the whole table: 12,000
records of 1 KB are about 13 MiB on disk on one node (random fields hardly compress), 4.4 MiB per node on
three, against a 6 MiB chunk cache; 1,500 records fit anywhere."""
SMOKE: dict[str, Any] = {"records": 1000}
SMOKE_SPREAD: dict[str, Any] = {**SPREAD, "chunk_cache_mb": 3}
"""The smoke cache sweeps at half the quick table and half its chunk cache: 6,000 records, about 6.5 MiB on one
node and 3.3 MiB per node on two, against 3 MiB; 750 records fit anywhere."""
KNEE_MIXES = tuple(f"baseline/{m}" for m in ("a", "b", "c", "e"))
"""The mixes the classroom offered-load sweep (and its benchmark) paces."""
READ_ONLY = ("baseline/c",)
PRIMARY_KEY: dict[str, Any] = {"fields": 1, "distribution": "uniform", "consistency": "ONE", "replication": 1}
"""The getting-started baseline and the node-budget benchmark: workload A on one 100-character field,
every record alike (uniform), so each node of a budgeted cluster serves an equal share of the keys."""

WORKLOAD = Pattern(
    name=NAME,
    title="YCSB core workloads",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra", "mongodb", "hbase"),
    engine_approaches={"hbase": tuple(a for a in APPROACHES if a not in ("baseline/2i", "baseline/sai"))},  # HBase has no secondary index
    main_phase="mix",
    phase_approaches={**{phase: MIX_APPROACHES for phase in MIX_PHASES}, "index-query": INDEX_APPROACHES, "index-insert": INDEX_APPROACHES},
    settings=(
        Setting("records", 1000, 1, 10_000_000, "records loaded before the run (YCSB's recordcount)", step=1000),
        Setting("fields", 10, 1, 20, "text fields per record (YCSB's fieldcount)"),
        Setting("field_length", 100, 1, 1000, "characters per field (YCSB's fieldlength)", step=10),
        Setting("max_scan", 100, 1, 1000, "longest scan in records; each scan reads 1 to this many (YCSB's maxscanlength)", phases=MIX_PHASES),
        Setting("distribution", "default", 0, 0, "which records requests pick; default: the mix's own (zipfian, or latest for D)",
                choices=("default", *DISTRIBUTIONS), phases=MIX_PHASES),
        Setting("insert_order", "hashed", 0, 0, "key names: hashed (inserts scattered, YCSB's default) or ordered", choices=INSERT_ORDERS),
        Setting("chunk_cache_mb", 4, 1, 4096, "each node's chunk cache in MiB (the sweep's cluster is started with it; Cassandra 5 has none by default)",
                phases=("cache",)),
        Setting("tags", 100, 1, 100_000, "distinct values of the indexed tag column (records per tag = records / tags)", phases=INDEX_PHASES),
        Setting("flush", "no", 0, 0, "write the loaded records to disk before the runs (Cassandra's nodetool flush, HBase's flush), so reads "
                "go through the on-disk files and their caches instead of the memtable or memstore the load filled", choices=("no", "yes"),
                phases=("offered-load",)),
        Setting("consistency", "ONE", 0, 0, "consistency level of every operation (YCSB's Cassandra default: ONE)", choices=CONSISTENCY_LEVELS),
        Setting("replication", 1, 1, 5, "replication factor of the ycsb keyspace"),
    ),
    sizes={
        "smoke": {  # every cell of the lesson at its smallest (make test): half of quick's records and mix transactions, one thread
            # count; two offered loads held a quarter as long; a quarter of quick's inserts and cache reads, the cache on 1 and 2 nodes
            "mix": NamedSweep("mix", (1,), (16,), 300, SMOKE, warmup=150),
            "primary-key": NamedSweep("mix", (1,), (4, 16), 300, {**QUICK, **PRIMARY_KEY}, warmup=300, approaches=("baseline/a",)),  # no lesson runs it: half of quick's
            "offered-load": NamedSweep("offered-load", (1,), (32,), 150, SMOKE, warmup=50, node_cpu=0.5,
                                 targets=(400, 1600), target_seconds=0.5, past_knee=1, approaches=("baseline/c", "baseline/e")),  # both run 400
            "cache": NamedSweep("cache", (1, 2), (32,), 375, {"records": 6000, **SMOKE_SPREAD}, warmup=1500, node_cpu=0.25,  # warm-up as quick's: 300
                                approaches=READ_ONLY),                   # saved nothing here (starts and flushes take the time)
            "cache-fits": NamedSweep("cache", (1, 2), (32,), 375, {"records": 750, **SMOKE_SPREAD}, warmup=1500, node_cpu=0.25, approaches=READ_ONLY),
            "index-query": NamedSweep("index-query", (1,), (4,), 60, {**SMOKE, "tags": 100}, warmup=10),  # 60: the indexed runs take long enough to meter
            "index-insert": NamedSweep("index-insert", (1,), (16,), 150, SMOKE, warmup=25),
        },
        "quick": {
            "mix": NamedSweep("mix", (1,), (4, 16), 600, QUICK, warmup=300),
            "primary-key": NamedSweep("mix", (1,), (4, 16), 600, {**QUICK, **PRIMARY_KEY}, warmup=600, approaches=("baseline/a",)),
            "offered-load": NamedSweep("offered-load", (1,), (32,), 600, QUICK, warmup=300, node_cpu=0.5,
                                 targets=(100, 400, 1600, 3200), target_seconds=2, past_knee=1,  # one load past the knee: E's
                                 approaches=("baseline/c", "baseline/e")),                       # 3,200/s took 10 s at ~640/s
            "cache": NamedSweep("cache", (1, 3), (32,), 1500, {"records": 12000, **SPREAD}, warmup=3000, node_cpu=0.25, approaches=READ_ONLY),
            "cache-fits": NamedSweep("cache", (1, 3), (32,), 1500, {"records": 1500, **SPREAD}, warmup=3000, node_cpu=0.25, approaches=READ_ONLY),
            "index-query": NamedSweep("index-query", (1,), (4,), 60, {**QUICK, "tags": 100}, warmup=10, repeats=3),  # 3 ABBA pairs: the card's interval (#70); 60: enough to meter
            "index-insert": NamedSweep("index-insert", (1,), (16,), 600, QUICK, warmup=100),
        },
        "classroom": {
            "mix": NamedSweep("mix", (3,), (8, 16, 32, 64), 4000, {**CLASSROOM, "replication": 3}, warmup=1000),
            "primary-key": NamedSweep("mix", (1, 2, 4, 8), (32, 96), 3000, {**CLASSROOM, **PRIMARY_KEY}, warmup=3000, approaches=("baseline/a",)),
            "offered-load": NamedSweep("offered-load", (1,), (64,), 3000, CLASSROOM, warmup=1000, node_cpu=0.5,
                                 targets=(200, 400, 800, 1200, 1600, 2000, 2400, 3200), target_seconds=6, past_knee=2,
                                 approaches=KNEE_MIXES),
            "cache": NamedSweep("cache", (1, 2, 4), (64,), 4000, {"records": 40000, **SPREAD, "chunk_cache_mb": 16}, warmup=8000, node_cpu=0.25,
                          approaches=READ_ONLY),
            "cache-fits": NamedSweep("cache", (1, 2, 4), (64,), 4000, {"records": 4000, **SPREAD, "chunk_cache_mb": 16}, warmup=8000, node_cpu=0.25,
                               approaches=READ_ONLY),
            "index-query": NamedSweep("index-query", (3,), (4, 16), 400, {**CLASSROOM, "tags": 100}, warmup=40),
            "index-insert": NamedSweep("index-insert", (3,), (16, 64), 4000, CLASSROOM, warmup=500),
        },
    },
)
PATTERN = WORKLOAD  # the name Pattern.binding and describe() look for

__all__ = [
    "WORKLOAD", "PATTERN", "APPROACHES", "CONSISTENCY_LEVELS", "PRIMARY_KEY", "DISTRIBUTIONS", "INDEX_APPROACHES", "KNEE_MIXES", "MIX_APPROACHES",
    "MIX_NAMES", "MIXES", "NAME", "PHASES", "KeyChooser", "Mix", "OperationChooser", "Zipfian", "key_name", "mix", "mix_of",
]
