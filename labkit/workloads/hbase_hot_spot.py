"""Writes whose row keys grow in order, against the same writes behind a hash prefix, on an HBase table pre-split
into key ranges: the hot spot HBase's reference guide warns of. Every new key sorts after the last one, so every
write of the sequential run falls into the one region whose key range holds the newest keys, on one server, while
the others idle;
a short hash of the key in front scatters the same writes over every region.

Keys are `<nanoseconds since the epoch>-<worker>` (a timestamp: what an event log or an auto-increment writes);
the hashed approach puts the first 4 hex digits of the key's MD5 in front. The table is made afresh for each run,
split at 1..f hex digits into 16 regions, so both approaches meet the same regions. verify() counts the rows.
Table names carry the student's namespace (`anna_hot_spot_sequential`), as keyspaces do on Cassandra."""

from __future__ import annotations

import hashlib
import itertools
import time
from typing import Any

from ..engines import hbase
from ..errors import ConfigError
from ..namespace import Namespaced, in_namespace
from ..runner import BaseWorkload, Transaction, Verification

APPROACHES = ("naive/sequential", "pattern/hashed")
SPLITS = tuple("123456789abcdef")
"""Split points: a hashed key's first hex digit picks one of 16 regions; every timestamp key starts with "1" and
so falls into the region from "1" to "2"."""
VALUE = b"x" * 100


def row_key(approach: str, stamp: int, worker: int) -> bytes:
    key = f"{stamp}-{worker}"
    if approach == "pattern/hashed":
        key = hashlib.md5(key.encode()).hexdigest()[:4] + "-" + key
    return key.encode()


class HotSpotWrites(Namespaced, BaseWorkload):
    """One run of timestamp-keyed writes (sequential or hashed) through the gateway, one pooled connection per worker."""

    max_processes = 1  # verify() counts this process's writes
    base_keyspace = "hot_spot"

    def __init__(self, cluster: Any, approach: str):
        if approach not in APPROACHES:
            raise ConfigError(f"approach {approach!r}: choose {' or '.join(APPROACHES)}")
        self.cluster, self.approach = cluster, approach
        self.name = f"hot-spot/{approach}"
        self._written = itertools.count()
        self._pool: Any = None  # happybase's ConnectionPool (the library has no type hints), made in each process by open_process
        self._pool_size = 1

    @property
    def table(self) -> str:
        """`hot_spot_sequential` or `hot_spot_hashed`, behind the namespace's prefix."""
        return f"{self.keyspace}_{self.approach.split('/')[1]}"

    def check_run(self, threads: int, processes: int, operations: int) -> None:
        self._pool_size = threads

    def setup(self) -> None:
        connection = self.cluster.connection()
        try:
            hbase.drop_tables(connection, self.table)
        finally:
            connection.close()
        self.cluster.create_table(self.table, "f", list(SPLITS))

    def open_process(self) -> None:
        self._pool = hbase.pool(self.cluster.thrift_gateway, self._pool_size)

    def _put(self, key: bytes) -> None:
        with self._pool.connection() as connection:
            connection.table(self.table).put(key, {b"f:v": VALUE})

    def transaction(self, tx: Transaction) -> None:
        tx.call("put", self._put, row_key(self.approach, time.time_ns(), tx.worker))
        next(self._written)

    def verify(self) -> Verification:
        written = next(self._written)
        connection = self.cluster.connection()
        try:
            rows = hbase.row_count(connection.table(self.table))
        finally:
            connection.close()
        problems = [] if rows == written else [f"the table holds {rows} rows, {written} were written"]
        return Verification(not problems, {"rows": rows, "written": written}, problems)

    def close_process(self) -> None:
        self._pool = None


def hot_spot_writes(cluster: Any, approach: str) -> HotSpotWrites:
    """The workload for `approach`, in the namespace its runs on `cluster` write in."""
    return in_namespace(HotSpotWrites(cluster, approach), cluster)


def region_writes(metrics: dict[str, Any], table: str) -> list[dict[str, Any]]:
    """`table`'s regions in key order as the servers count them: start key, the server holding it, its writes."""
    regions = [{"start_key": r["start_key"], "server": s["host"], "writes": r["writes"]}
               for s in metrics["servers"] for r in s["regions"] if r["table"] == table]
    return sorted(regions, key=lambda r: r["start_key"])


def settled_region_writes(cluster: Any, table: str, total: int, within: float = 20) -> list[dict[str, Any]]:
    """region_writes once the servers report `total` writes for `table` (each reports to the master every
    hbase_config.REPORT_INTERVAL_MS), or what they report after `within` seconds."""
    from ..clusters.local import hbase_config

    deadline = time.monotonic() + within
    while True:
        regions = region_writes(cluster.metrics(), table)
        if sum(r["writes"] for r in regions) >= total or time.monotonic() > deadline:
            return regions
        time.sleep(hbase_config.REPORT_INTERVAL_MS / 1000)
