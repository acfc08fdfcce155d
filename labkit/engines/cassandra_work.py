"""Which part of a Cassandra node a sampled stack is in (labkit.results.cpu_samples, recorded by labkit.clusters.local.jfr), in the server's own package and
class names: what a run's server CPU went to, by part, so a lesson can say why one design costs more than another."""

from __future__ import annotations

from ..results.cpu_samples import Part, anywhere, on_top

PARTS: tuple[Part, ...] = (
    ("flush and compaction", anywhere("db.compaction.", "db.memtable.Flushing", "io.sstable.format.")),
    ("applying the update to the partition in the memtable", anywhere("db.partitions.AtomicBTreePartition", "db.memtable.")),
    ("commit log", anywhere("db.commitlog.")),
    ("the rest of applying a write", anywhere("db.Keyspace.apply", "db.Mutation.apply", "db.CassandraTableWriteHandler")),
    ("reading", anywhere("db.SinglePartitionReadCommand", "db.ReadCommand", "db.ReadExecutionController", "service.reads.")),
    ("statement execution (CQL)", anywhere("org.apache.cassandra.cql3.", "service.StorageProxy")),
    ("messages between nodes", anywhere("org.apache.cassandra.net.")),
    ("client protocol (native transport)", anywhere("org.apache.cassandra.transport.", "io.netty.")),
    ("idle workers looking for work", on_top("concurrent.SEPWorker", "concurrent.SEPExecutor")),
)
"""In order: a sample counts in the first part it matches (a flush runs memtable code, so flush comes first; every
request runs through the client protocol, so it comes last among the request's parts)."""

MEMTABLE = PARTS[1][0]

DETAILS: tuple[Part, ...] = (
    ("merging the update into the existing row (Rows.merge)", anywhere("db.rows.Rows.merge")),
    ("walking every cell of the row for its earliest deletion time (BTreeRow.minDeletionTime)", anywhere("db.rows.BTreeRow.minDeletionTime")),
)
"""Finer views inside the memtable part, each counted on its own (a sample can be in both): where a list append's
time goes. Cassandra keeps a row's earliest deletion time with the row, and recomputes it after a merge by visiting
every cell, so appending to a list of n elements visits n cells."""
