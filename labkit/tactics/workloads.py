"""The workloads a tactic runs under, by kind: YCSB's core mixes on the `ycsb` keyspace, so a tactic's
effect is measured on workloads students already met in notebook 05."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..clusters.contract import CassandraCluster

KINDS = {
    "read-heavy": ("mix", "baseline/b", "95% reads, 5% updates (YCSB B)"),
    "update-heavy": ("mix", "baseline/a", "50% reads, 50% updates (YCSB A)"),
    "write-heavy": ("mix", "baseline/insert-mostly", "90% inserts, 10% reads (insert-mostly)"),
    "scan": ("mix", "baseline/e", "95% short scans, 5% inserts (YCSB E)"),
    "query-by-tag": ("index-query", "baseline/no-index", "every transaction queries the records of one tag (a non-key column)"),
}
"""kind -> (YCSB phase, approach, what it does)."""


def check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ConfigError(f"unknown workload kind {kind!r}; use one of: {', '.join(KINDS)}")


def workload_for(kind: str, cluster: CassandraCluster, *, records: int = 2000, replication: int = 1, consistency: str = "ONE", tags: int = 100,
                 fields: int = 10, field_length: int = 100) -> Any:
    """A Cassandra YCSB workload of `kind` on `cluster`'s nodes (records of fields x field_length characters), made
    by the same factory every sweep uses (the ycsb description's `workload`: its settings checked, the rest defaulted)."""
    check_kind(kind)
    from ..workloads.ycsb import WORKLOAD

    phase, approach, _what = KINDS[kind]
    settings: dict[str, Any] = {"records": records, "fields": fields, "field_length": field_length, "insert_order": "hashed", "consistency": consistency,
                "replication": replication, "tags": tags}
    return WORKLOAD.workload(approach, cluster, 0, phase=phase, engine="cassandra",
                             **{k: v for k, v in settings.items() if WORKLOAD.setting(k).applies_to(phase)})
