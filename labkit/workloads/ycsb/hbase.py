"""YCSB's core workload on HBase through its Thrift 1 gateway (happybase): one table `usertable` with one column
family `f`, a row per record keyed by YCSB's key, its fields as columns f:field0..f:fieldN. A read gets the row, an
update puts one column, an insert puts every column, and a scan reads the next `count` rows from a start key: HBase
keeps a table's rows in key order, split into regions by key range, so a scan is YCSB's own. The table is pre-split
at the loaded keys into about ten regions per region server (REGIONS_PER_SERVER), so every server serves its share.

HBase has no secondary index: the index-query phase runs its query by tag as a scan of the whole table with a
server-side filter on the tag column (`baseline/no-index`); an index there is the Index Table pattern, a second table
keyed by the tag. The cache phase sets Cassandra's chunk cache and runs on Cassandra only.

happybase is synchronous and a connection is not thread-safe: each client process keeps a pool of connections, one
per worker, and every call borrows one (the runner runs such calls on its helper threads)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ...engines import hbase
from ...errors import ConfigError
from ...namespace import Namespaced, in_namespace
from ...runner import BaseWorkload, Transaction
from .core import LOAD_CHUNK, LOAD_CONCURRENCY, YcsbRun, YcsbSettings, key_name

if TYPE_CHECKING:
    from ...clusters.contract import HBaseCluster

TABLE = "usertable"
FAMILY = b"f"
REGIONS_PER_SERVER = 10
"""usertable is pre-split into about ten regions per region server at the loaded keys' quantiles (YCSB's HBase binding
asks for ten per region server, after HBASE-4163): a table made as one region is served by one region server,
however many there are."""


def split_points(keys: list[str], regions: int) -> list[str]:
    """Keys that cut the sorted `keys` into `regions` ranges of (nearly) equal count."""
    ordered = sorted(keys)
    regions = max(1, min(regions, len(ordered)))
    return sorted({ordered[len(ordered) * i // regions] for i in range(1, regions)})


def check_sweep(phase: str, approaches: list[str]) -> None:
    """What this binding cannot run, refused before any server starts."""
    if phase == "cache":
        raise ConfigError("the cache phase sets each Cassandra node's chunk cache; HBase's block cache is the region "
                          "servers' own setting: run --phase cache with --engine cassandra")
    indexed = [a for a in approaches if a in ("baseline/2i", "baseline/sai")]
    if indexed:
        raise ConfigError(f"{indexed[0]} is a secondary index, and HBase has none: its query by tag is a filtered scan "
                          "(baseline/no-index); a lookup table keyed by the tag is the Index Table pattern")


def column(field: int) -> bytes:
    return FAMILY + b":field" + str(field).encode()


class YcsbHBase(Namespaced, YcsbRun, BaseWorkload):
    """One run of a YCSB mix or the filtered-scan index query on HBase."""

    base_keyspace = "ycsb"

    def __init__(self, gateway: str, approach: str, phase: str, settings: YcsbSettings, make_table: Any = None, servers: int = 1,
                 flush_table: Any = None):
        """`make_table(name, family, splits)`: the cluster's pre-split table maker (Thrift 1 cannot split); without
        one (a test double) the table is one region. `flush_table(name)`: the cluster's flush, which the flush
        setting needs after the load."""
        check_sweep(phase, [approach])
        self.configure(approach, phase, settings)
        self.gateway = gateway
        self._make_table, self.servers, self._flush_table = make_table, servers, flush_table
        self._pool = None
        self._pool_size = 1

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_pool": None, "_make_table": None, "_flush_table": None}  # sockets and the admin tool stay in the process that opened them

    @property
    def table_name(self) -> str:
        """The table, behind the namespace's prefix (HBase's own namespaces are left to the course's cluster)."""
        return f"{self.keyspace}_{TABLE}{'_tagged' if self.indexed else ''}"

    # ---- connections -------------------------------------------------------------------------------

    def check_run(self, threads: int, processes: int, operations: int) -> None:
        super().check_run(threads, processes, operations)
        self._pool_size = max(1, -(-threads // max(1, processes)))  # every worker of a process may be in a call at once

    def _connections(self):
        if self._pool is None:
            self._pool = hbase.pool(self.gateway, self._pool_size)
        return self._pool

    def _with_table(self, work: Any) -> Any:
        with self._connections().connection() as connection:
            return work(connection.table(self.table_name))

    def open_process(self) -> None:
        self._connections()

    def close_process(self) -> None:
        self._pool = None  # its connections close when it is collected (engines.hbase.pool)

    # ---- schema and data ---------------------------------------------------------------------------

    def setup(self) -> None:
        with self._connections().connection() as connection:
            marker = self.table_name.encode() + b"_loaded"
            tables = set(connection.tables())
            shape = None
            if marker in tables:
                shape = (connection.table(marker).row(b"shape") or {}).get(b"f:v", b"").decode()
            self._load_needed = self.inserts or shape != self.shape()
            if self._load_needed:
                hbase.drop_tables(connection, self.table_name, marker.decode())
                if self._make_table is None:
                    connection.create_table(self.table_name, {"f": {"max_versions": 1}})
                else:
                    keys = [key_name(k, self.insert_order) for k in range(self.records)]
                    self._make_table(self.table_name, FAMILY.decode(), split_points(keys, REGIONS_PER_SERVER * self.servers))

    def row(self, keynum: int, rng: Any) -> tuple[bytes, dict[bytes, bytes]]:
        key, tag, values = self.record_fields(keynum, rng)
        data = {column(i): v.encode() for i, v in enumerate(values)}
        if self.indexed:
            data[FAMILY + b":tag"] = str(tag).encode()
        return key.encode(), data

    def load(self) -> None:
        """YCSB's load phase: exactly `records` rows, key numbers 0..records-1 (not measured)."""
        if not self._load_needed:
            return
        rng = random.Random(7)
        self._put_each(rng)
        with self._connections().connection() as connection:
            if self.flushed:
                if self._flush_table is None:
                    raise ConfigError("the flush setting writes the loaded records to store files with HBase's admin: run it on a cluster labkit started")
                self._flush_table(self.table_name)
            if not self.inserts:
                marker = self.table_name + "_loaded"
                connection.create_table(marker, {"f": {"max_versions": 1}})
                connection.table(marker).put(b"shape", {b"f:v": self.shape().encode()})

    def _put_each(self, rng: random.Random) -> None:
        """The records, one put per request with LOAD_CONCURRENCY in flight (a pool of that many gateway connections,
        each thread putting its share of a chunk in turn): the shape of the Cassandra binding's load and of YCSB's own
        loader, so the two engines' load phases time the same client work."""
        from concurrent.futures import ThreadPoolExecutor

        loaders = hbase.pool(self.gateway, LOAD_CONCURRENCY)

        def put_share(share: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
            with loaders.connection() as connection:
                table = connection.table(self.table_name)
                for key, data in share:
                    table.put(key, data)

        with ThreadPoolExecutor(LOAD_CONCURRENCY, thread_name_prefix="ycsb-load") as workers:
            for start in range(0, self.records, LOAD_CHUNK):
                chunk = [self.row(k, rng) for k in range(start, min(start + LOAD_CHUNK, self.records))]
                list(workers.map(put_share, [chunk[i::LOAD_CONCURRENCY] for i in range(LOAD_CONCURRENCY)]))

    # ---- operations (YcsbRun picks which) ----------------------------------------------------------

    def read(self, tx: Transaction, op: str, key: str) -> bool:
        return bool(tx.call(op, self._with_table, lambda t: t.row(key.encode())))

    def update(self, tx: Transaction, op: str, key: str, field: int, value: str) -> None:
        tx.call(op, self._with_table, lambda t: t.put(key.encode(), {column(field): value.encode()}))

    def insert(self, tx: Transaction, keynum: int) -> None:
        key, data = self.row(keynum, tx.rng)
        tx.call("insert", self._with_table, lambda t: t.put(key, data))

    def scan(self, tx: Transaction, start: str, count: int) -> list:
        return tx.call("scan", self._with_table, lambda t: list(t.scan(row_start=start.encode(), limit=count, batch_size=count)))

    def query_by_tag(self, tx: Transaction, tag: int) -> int:
        wanted = f"SingleColumnValueFilter('f', 'tag', =, 'binary:{tag}', true, true)"
        return tx.call("query_by_tag", self._with_table, lambda t: sum(1 for _ in t.scan(filter=wanted, columns=[FAMILY + b":tag"])))

    def count(self) -> int:
        return self._with_table(hbase.row_count)

    def exists(self, key: str) -> bool:
        return bool(self._with_table(lambda t: t.row(key.encode(), columns=[column(0)])))

    def exists_many(self, keys: list[str]) -> list[bool]:
        found = self._with_table(lambda t: {k for k, _ in t.rows([k.encode() for k in keys], columns=[column(0)])})
        return [k.encode() in found for k in keys]

    def cleanup(self) -> None:
        with self._connections().connection() as connection:
            hbase.drop_tables(connection, self.table_name, self.table_name + "_loaded")


def workload(approach: str, phase: str, cluster: HBaseCluster, operations: int, **settings: Any) -> YcsbHBase:
    """`settings` by the names of YcsbSettings; consistency and replication are Cassandra's settings: HBase serves each
    region from one server (without read replicas, its durability is HDFS's, which this local cluster does not have)."""
    made = YcsbHBase(cluster.thrift_gateway, approach, phase, YcsbSettings.of(settings), make_table=cluster.create_table, servers=cluster.info().nodes,
                     flush_table=cluster.flush_table)
    return in_namespace(made, cluster)
