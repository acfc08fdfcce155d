"""YCSB's core workload on Cassandra: one `usertable` of records with `fields` text columns, keyed by
YCSB's key names, read, updated, inserted and scanned through the native driver.

Scans follow the partitioner, as YCSB's own Cassandra binding does: `token(y_id) >= token(start)` with
a LIMIT, so a scan returns consecutive records in token order (Cassandra keeps no global key order).
The index phases use a second table with a low-cardinality `tag` column and compare a filtering scan,
a legacy secondary index and a storage-attached index (SAI) on it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...errors import ConfigError
from ...namespace import in_namespace, namespace_for, namespaced
from ...patterns.cassandra_workload import CassandraWorkload
from ...runner import Transaction
from .core import LOAD_CHUNK, LOAD_CONCURRENCY, YcsbRun, YcsbSettings

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster

KEYSPACE = "ycsb"
TABLE = "usertable"


def tagged_table(approach: str) -> str:
    """The index phases' table of one approach (each its own, so no index lingers on another's)."""
    return "tagged_" + approach.split("/", 1)[1].replace("-", "_")


def index_statement(approach: str, keyspace: str = KEYSPACE) -> str | None:
    table = tagged_table(approach)
    kind = approach.split("/", 1)[1]
    if kind == "2i":
        return f"CREATE INDEX IF NOT EXISTS {table}_tag ON {keyspace}.{table} (tag)"
    if kind == "sai":
        return f"CREATE INDEX IF NOT EXISTS {table}_tag ON {keyspace}.{table} (tag) USING 'sai'"
    return None


class YcsbCassandra(YcsbRun, CassandraWorkload):
    """One run of a YCSB mix (phases `mix`, `offered-load`, `cache`) or of the index experiment (phases
    `index-query`, `index-insert`) on Cassandra. A fresh table is loaded whenever the run inserts (so
    `verify` can count exactly); read/update mixes reuse a table already loaded with the same records."""

    base_keyspace = KEYSPACE
    _probe: Any = None  # the prepared one-record read exists() uses, made on its first call

    def __init__(self, addresses: list[str], approach: str, phase: str, settings: YcsbSettings, flush: Callable[[], None] | None = None):
        self.connect_to(addresses, settings.consistency)
        self.configure(approach, phase, settings)
        self.replication = settings.replication
        self.chunk_cache_mb = settings.chunk_cache_mb  # the cache phase: what each node's chunk cache must be (checked on the server)
        self._flush = flush  # the cache phase: writes the loaded memtables to SSTables, so reads go through the chunk cache
        self.table = tagged_table(approach) if self.indexed else TABLE

    # ---- schema and data -------------------------------------------------------------------------

    def columns(self) -> list[str]:
        return [f"field{i}" for i in range(self.fields)]

    def statement_texts(self) -> dict[str, str | None]:
        cols = self.columns()
        table = f"{self.keyspace}.{self.table}"
        extra = ", tag" if self.indexed else ""
        return {
            "read": f"SELECT * FROM {table} WHERE y_id = ?",
            "insert": f"INSERT INTO {table} (y_id{extra}, {', '.join(cols)}) VALUES (?{', ?' if self.indexed else ''}, {', '.join('?' for _ in cols)})",
            **{f"update{i}": f"UPDATE {table} SET field{i} = ? WHERE y_id = ?" for i in range(self.fields)},
            "scan": f"SELECT token(y_id) AS position, y_id, {', '.join(cols)} FROM {table} WHERE token(y_id) >= token(?) LIMIT ?",
            "by_tag": (f"SELECT y_id FROM {table} WHERE tag = ?" + (" ALLOW FILTERING" if self.approach.endswith("no-index") else ""))
            if self.indexed else None,
        }

    def setup(self) -> None:
        s = self.session
        existing = s.execute("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = %s", (self.keyspace,)).one()
        if existing is not None and existing.replication.get("replication_factor") != str(self.replication):
            cql.execute_ddl(s, f"DROP KEYSPACE IF EXISTS {self.keyspace}")  # another run's replication factor: start afresh
        cql.create_keyspace(s, self.keyspace, self.replication)
        cols = ", ".join(f"{c} text" for c in self.columns())
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {self.keyspace}.loaded (name text PRIMARY KEY, shape text)")
        tag = "tag int, " if self.indexed else ""
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {self.keyspace}.{self.table} (y_id text PRIMARY KEY, {tag}{cols})")
        index = index_statement(self.approach, self.keyspace) if self.indexed else None
        if index:
            cql.execute_ddl(s, index)
        loaded = s.execute(SimpleStatement(f"SELECT shape FROM {self.keyspace}.loaded WHERE name = %s", consistency_level=ConsistencyLevel.QUORUM),
                           (self.table,)).one()
        if self.phase == "cache":
            self.check_chunk_cache()
        self._load_needed = self.inserts or loaded is None or loaded.shape != self.shape()
        if self._load_needed:
            s.execute(f"DELETE FROM {self.keyspace}.loaded WHERE name = %s", (self.table,))
            s.execute(f"TRUNCATE {self.keyspace}.{self.table}", timeout=120)

    def record(self, keynum: int, rng: Any) -> tuple:
        key, tag, values = self.record_fields(keynum, rng)
        return (key, tag, *values) if self.indexed else (key, *values)

    def load(self) -> None:
        """YCSB's load phase: exactly `records` records, key numbers 0..records-1 (not measured)."""
        if not self._load_needed:
            return
        import random

        rng = random.Random(7)
        insert = self.statements["insert"]
        insert.consistency_level = ConsistencyLevel.QUORUM
        try:
            for start in range(0, self.records, LOAD_CHUNK):
                cql.write_all(self.session, insert, [self.record(k, rng) for k in range(start, min(start + LOAD_CHUNK, self.records))], LOAD_CONCURRENCY)
        finally:
            insert.consistency_level = self.consistency
        if self.flushed:
            if self._flush is None:
                raise ConfigError(f"the {'cache phase' if self.phase == 'cache' else 'flush setting'} flushes the loaded records to disk with "
                                  "nodetool: run it on a cluster labkit started (provider local)")
            self._flush()
        if not self.inserts:  # a run that inserts leaves more than the loaded records: the next run reloads
            self.session.execute(f"INSERT INTO {self.keyspace}.loaded (name, shape) VALUES (%s, %s)", (self.table, self.shape()))

    # ---- the nodes' caches (phase cache) ---------------------------------------------------------

    def check_chunk_cache(self) -> None:
        """The nodes run with the chunk cache this sweep asks for (their own cache table says so), or a clear error."""
        if self.chunk_cache_mb is None:
            raise ConfigError("the cache phase runs the nodes with a chunk cache: give chunk_cache_mb")
        for rows in cql.per_node(self.session, "SELECT name, capacity_bytes FROM system_views.caches").values():
            capacity = next((r.capacity_bytes for r in rows if r.name == "chunks"), None)
            if capacity != self.chunk_cache_mb * 2**20:
                have = "none" if capacity is None else f"{capacity / 2**20:g} MiB"
                raise ConfigError(
                    f"the cache phase needs every node's chunk cache at {self.chunk_cache_mb} MiB, but a node has {have}: start the "
                    f"cluster with chunk_cache_mb={self.chunk_cache_mb} (run_pattern_sweep and `labkit run ycsb --phase cache` do; "
                    f"ClusterSlot.for_engine('cassandra', chunk_cache_mb=...))"
                )

    def server_counters(self) -> dict[str, float] | None:
        """Every node's cumulative chunk-cache and key-cache hits and requests (system_views.caches), summed:
        the run's growth is how often a read found its data in memory; on a shared cluster also the requests
        coordinated for this namespace and for others (CassandraWorkload.server_counters)."""
        shared = super().server_counters()
        if self.phase != "cache":
            return shared
        totals = {"chunk_cache_hits": 0, "chunk_cache_requests": 0, "key_cache_hits": 0, "key_cache_requests": 0, **(shared or {})}
        for rows in cql.per_node(self.session, "SELECT name, hit_count, request_count FROM system_views.caches").values():
            for r in rows:
                kind = {"chunks": "chunk_cache", "keys": "key_cache"}.get(r.name)
                if kind:
                    totals[f"{kind}_hits"] += r.hit_count
                    totals[f"{kind}_requests"] += r.request_count
        return totals

    # ---- operations (YcsbRun picks which) ---------------------------------------------------------

    def read(self, tx: Transaction, op: str, key: str) -> bool:
        return tx.call(op, self.session.execute, self.statements["read"], (key,)).one() is not None

    def update(self, tx: Transaction, op: str, key: str, field: int, value: str) -> None:
        tx.call(op, self.session.execute, self.statements[f"update{field}"], (value, key))

    def insert(self, tx: Transaction, keynum: int) -> None:
        tx.call("insert", self.session.execute, self.statements["insert"], self.record(keynum, tx.rng))

    def scan(self, tx: Transaction, start: str, count: int) -> list:
        return tx.call("scan", self.session.execute, self.statements["scan"], (start, count)).all()  # rows in token order

    def query_by_tag(self, tx: Transaction, tag: int) -> int:
        return len(tx.call("query_by_tag", self.session.execute, self.statements["by_tag"], (tag,)).all())

    def count(self) -> int:
        """Records in the table, counted a token range at a time (one full-table count times out on small nodes)."""
        reader = RangeReader(self.session)
        total = reader.count(f"{self.keyspace}.{self.table}", "y_id")
        self.timeouts_retried = reader.timeouts_retried
        return total

    def exists(self, key: str) -> bool:
        if self._probe is None:
            self._probe = self.session.prepare(f"SELECT y_id FROM {self.keyspace}.{self.table} WHERE y_id = ?")
            self._probe.consistency_level = ConsistencyLevel.QUORUM
        return self.session.execute(self._probe, (key,)).one() is not None

    def exists_many(self, keys: list[str]) -> list[bool]:
        from cassandra.concurrent import execute_concurrent_with_args

        self.exists(keys[0])  # prepares the probe
        results = execute_concurrent_with_args(self.session, self._probe, [(k,) for k in keys], concurrency=64, raise_on_first_error=True)
        return [r.result_or_exc.one() is not None for r in results]

    def cleanup(self) -> None:
        cql.execute_ddl(self.session, f"DROP KEYSPACE IF EXISTS {self.keyspace}")

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_flush"] = state["_probe"] = None  # the cluster's nodetool stays in the process that loads; statements are prepared per process
        return state


def workload(approach: str, phase: str, cluster: CassandraCluster, operations: int, **settings: Any) -> YcsbCassandra:
    """`settings`: the phase's resolved settings, by the names of YcsbSettings (the mix phases read max_scan and
    distribution, the index phases tags, the cache phase chunk_cache_mb)."""
    chosen = YcsbSettings.of(settings)
    flush = None
    keyspace = namespaced(KEYSPACE, namespace_for(cluster))
    admin = cluster.node_admin() if phase == "cache" or chosen.flush == "yes" else None
    if admin is not None:
        def flush() -> None:
            for node in cluster.live_nodes():
                admin.nodetool(node.name, "flush", keyspace)
    return in_namespace(YcsbCassandra(cluster.addresses, approach, phase, chosen, flush=flush), cluster)


def cluster_options(phase: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What a sweep's cluster must be started with: the cache phase sets each node's chunk cache."""
    return {"chunk_cache_mb": settings["chunk_cache_mb"]} if phase == "cache" else {}


def hit_ratios(rows: Any) -> Any:
    """The cache phase's rows with each run's chunk-cache and key-cache hit ratios (hits / requests during
    the measured window, all nodes together), from the server counters the runner recorded."""
    import pandas as pd

    df = pd.DataFrame(rows).copy()
    for kind in ("chunk_cache", "key_cache"):
        hits, asked = f"server_counter_{kind}_hits", f"server_counter_{kind}_requests"
        if hits in df and asked in df:
            df[f"{kind}_hit_ratio"] = (df[hits] / df[asked].where(df[asked] > 0)).round(3)
    return df


SSTABLE_CONSULTED = re.compile(r"\bsstable (\d+)", re.I)
"""Cassandra 5's trace events name each SSTable a single-partition read looks into ("Partition index found for
sstable 2", "Key cache hit for sstable 1"), and those it rules out say "skipping"; older versions summed them
up as "Merged data from memtables and N sstables"."""
MERGED = re.compile(r"Merged data from memtables and (\d+) sstables")


def sstables_read(activities: list[tuple[str, str]]) -> int | None:
    """How many SSTables a traced read consulted, from the servers' events; None when they do not say."""
    consulted = {m.group(1) for _, text in activities if (m := SSTABLE_CONSULTED.search(text)) and "skipping" not in text.lower()}
    merged = [int(m.group(1)) for _, text in activities if (m := MERGED.search(text))]
    return len(consulted) if consulted else (max(merged) if merged else None)


def sstables_per_read(cluster: CassandraCluster, flushes: int = 3) -> list[dict[str, Any]]:
    """The servers' evidence that a read merges every SSTable holding a piece of its row: one record of a table of
    its own (replication 1) written one field per flush, `flushes` times, so its pieces sit in that many SSTables;
    after each flush a traced read says how many SSTables it consulted (`sstables_read`), and the node's own
    histogram (`nodetool tablehistograms`) how many SSTables its reads touched at most."""
    admin = cluster.node_admin()
    if admin is None:
        raise ConfigError("sstables_per_read flushes with nodetool: it needs a cluster labkit started (provider local)")
    keyspace = namespaced("ycsb_sstables", namespace_for(cluster))
    session = cql.connect(cluster.addresses)
    try:
        cql.create_keyspace(session, keyspace, 1)
        cql.execute_ddl(session, f"CREATE TABLE IF NOT EXISTS {keyspace}.record (k int PRIMARY KEY, "
                        + ", ".join(f"field{i} text" for i in range(flushes)) + ") WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}")
        session.execute(f"TRUNCATE {keyspace}.record")
        owner = next(iter(session.cluster.metadata.get_replicas(keyspace, session.prepare(f"SELECT k FROM {keyspace}.record WHERE k = ?").bind((1,)).routing_key)))
        node = next(n for n in cluster.live_nodes() if n.address == owner.address)
        rows = []
        for i in range(flushes):
            session.execute(f"UPDATE {keyspace}.record SET field{i} = %s WHERE k = 1", (f"written before flush {i + 1}",))
            admin.nodetool(node.name, "flush", keyspace, "record")
            report = cql.trace(session, f"SELECT * FROM {keyspace}.record WHERE k = 1")
            rows.append({"flushes so far": i + 1, "fields the read returned": sum(v is not None for v in report.result[0][1:]),
                         "SSTables the read consulted (trace)": sstables_read(report.activities), "node": node.name})
        histogram = admin.nodetool(node.name, "tablehistograms", keyspace, "record")
        most = max((float(line.split()[3]) for line in histogram.splitlines() if line[:1].isdigit() or line.startswith("Max")), default=None)
        for row in rows:
            row["most SSTables per read (node's histogram, all reads above)"] = most
        return rows
    finally:
        cql.execute_ddl(session, f"DROP KEYSPACE IF EXISTS {keyspace}")
        session.cluster.shutdown()
