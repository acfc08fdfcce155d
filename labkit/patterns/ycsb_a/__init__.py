"""YCSB workload A (50% reads, 50% updates by primary key): the getting-started baseline, not one of
the four patterns. It shows the lab's mechanics (threads, consistency levels, latency percentiles, node
budgets) on the simplest key-value workload before any pattern is introduced. Its description lets
sweeps and benchmarks drive it like a pattern with one approach, `baseline`."""

from __future__ import annotations

from ..description import Pattern, Setting, NamedSweep
from .core import APPROACHES, DISTRIBUTIONS, NAME, PHASES, zipf_cumulative

CONSISTENCY_LEVELS = ("ONE", "TWO", "QUORUM", "ALL", "LOCAL_ONE", "LOCAL_QUORUM")
PK_QUICK = {"records": 2000, "consistency": "ONE", "replication": 1, "distribution": "uniform"}
PK_CLASSROOM = {"records": 20000, "consistency": "ONE", "replication": 1, "distribution": "uniform"}

PATTERN = Pattern(
    name=NAME,
    title="YCSB workload A (baseline)",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra",),
    settings=(
        Setting("records", 1000, 1, 10_000_000, "rows loaded once, among which each transaction reads or updates one", step=1000),
        Setting("consistency", "QUORUM", 0, 0, "consistency level of every read and update", choices=CONSISTENCY_LEVELS),
        Setting("replication", 3, 1, 5, "replication factor of the table's keyspace"),
        Setting("distribution", "zipfian", 0, 0, "which keys the transactions pick: a few hot ones (zipfian) or all alike",
                choices=DISTRIBUTIONS),
    ),
    sizes={
        "quick": {"read-update": NamedSweep("read-update", (1,), (4, 16), 600, PK_QUICK, warmup=600)},
        "classroom": {"read-update": NamedSweep("read-update", (1, 2, 4, 8), (32, 96), 3000, PK_CLASSROOM, warmup=3000)},
    },
)

__all__ = ["PATTERN", "APPROACHES", "CONSISTENCY_LEVELS", "DISTRIBUTIONS", "NAME", "PHASES", "zipf_cumulative"]
