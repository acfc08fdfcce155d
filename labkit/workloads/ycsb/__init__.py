"""YCSB's core workloads (A-F and insert-mostly) as a standard workload the lab drives like a pattern:
approaches are the mixes (`baseline/a` ... `baseline/insert-mostly`) in the `mix` and `offered-load`
phases and the index kinds (`baseline/no-index`, `baseline/2i`, `baseline/sai`) in the index phases.
The engine-neutral part (mixes, distributions, keys) is in `core`, each engine's binding in the module
named after it (`cassandra`)."""

from __future__ import annotations

from ...patterns.description import Pattern, Setting, Size
from .core import (
    APPROACHES, DISTRIBUTIONS, INDEX_APPROACHES, INDEX_PHASES, INSERT_ORDERS, MIX_APPROACHES, MIX_NAMES, MIXES, NAME, PHASES,
    KeyChooser, Mix, OperationChooser, Zipfian, key_name, mix, mix_of,
)

CONSISTENCY_LEVELS = ("ONE", "TWO", "QUORUM", "ALL")
MIX_PHASES = ("mix", "offered-load")
QUICK = {"records": 2000}
CLASSROOM = {"records": 20000}
KNEE_MIXES = tuple(f"baseline/{m}" for m in ("a", "b", "c", "e"))
"""The mixes the offered-load benchmark sweeps (the issue's A, B, C and E)."""

WORKLOAD = Pattern(
    name=NAME,
    title="YCSB core workloads",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra",),
    main_phase="mix",
    phase_approaches={"mix": MIX_APPROACHES, "offered-load": MIX_APPROACHES, "index-query": INDEX_APPROACHES, "index-insert": INDEX_APPROACHES},
    settings=(
        Setting("records", 1000, 1, 10_000_000, "records loaded before the run (YCSB's recordcount)", step=1000),
        Setting("fields", 10, 1, 20, "text fields per record (YCSB's fieldcount)"),
        Setting("field_length", 100, 1, 1000, "characters per field (YCSB's fieldlength)", step=10),
        Setting("max_scan", 100, 1, 1000, "longest scan in records; each scan reads 1 to this many (YCSB's maxscanlength)", phases=MIX_PHASES),
        Setting("distribution", "default", 0, 0, "which records requests pick; default: the mix's own (zipfian, or latest for D)",
                choices=("default", *DISTRIBUTIONS), phases=MIX_PHASES),
        Setting("insert_order", "hashed", 0, 0, "key names: hashed (inserts scattered, YCSB's default) or ordered", choices=INSERT_ORDERS),
        Setting("tags", 100, 1, 100_000, "distinct values of the indexed tag column (records per tag = records / tags)", phases=INDEX_PHASES),
        Setting("consistency", "ONE", 0, 0, "consistency level of every operation (YCSB's Cassandra default: ONE)", choices=CONSISTENCY_LEVELS),
        Setting("replication", 1, 1, 5, "replication factor of the ycsb keyspace"),
    ),
    sizes={
        "quick": {
            "mix": Size("mix", (1,), (4, 16), 600, QUICK, warmup=300),
            "offered-load": Size("offered-load", (1,), (32,), 600, QUICK, warmup=300, node_cpu=0.5,
                                 targets=(100, 200, 400, 800, 1600), target_seconds=2, past_knee=2),
            "index-query": Size("index-query", (1,), (4,), 100, {**QUICK, "tags": 100}, warmup=20),
            "index-insert": Size("index-insert", (1,), (16,), 600, QUICK, warmup=100),
        },
        "classroom": {
            "mix": Size("mix", (3,), (8, 16, 32, 64), 4000, {**CLASSROOM, "replication": 3}, warmup=1000),
            "offered-load": Size("offered-load", (1,), (64,), 3000, CLASSROOM, warmup=1000, node_cpu=0.5,
                                 targets=(200, 400, 800, 1200, 1600, 2000, 2400, 3200), target_seconds=6, past_knee=2),
            "index-query": Size("index-query", (3,), (4, 16), 400, {**CLASSROOM, "tags": 100}, warmup=40),
            "index-insert": Size("index-insert", (3,), (16, 64), 4000, CLASSROOM, warmup=500),
        },
    },
)
PATTERN = WORKLOAD  # the name Pattern.binding and describe() look for

__all__ = [
    "WORKLOAD", "PATTERN", "APPROACHES", "CONSISTENCY_LEVELS", "DISTRIBUTIONS", "INDEX_APPROACHES", "KNEE_MIXES", "MIX_APPROACHES",
    "MIX_NAMES", "MIXES", "NAME", "PHASES", "KeyChooser", "Mix", "OperationChooser", "Zipfian", "key_name", "mix", "mix_of",
]
