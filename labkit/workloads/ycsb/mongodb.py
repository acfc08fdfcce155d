"""YCSB's core workload on MongoDB through pymongo: one `usertable` collection of documents
{_id: key, field0..fieldN}, read by _id, one field `$set` per update, scans in _id order (MongoDB keeps
its primary index ordered, so a scan is YCSB's own: the next `count` keys from a start key). On a sharded
cluster the collection is sharded by hashed _id, so reads and writes by key reach one shard each and the
shard count means capacity; a scan then asks every shard.

The index phases compare a query by `tag` with no index (a collection scan) against a secondary index on
it (`baseline/2i`); `baseline/sai` is Cassandra's storage-attached index and has no MongoDB counterpart.
The cache phase sets Cassandra's chunk cache and runs on Cassandra only. On a machine without a real
MongoDB the lab's stand-in serves these calls: rows then say so, and only the mechanics count."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ...engines.mongodb import ClientPerProcess
from ...engines.mongodb_sharding import shard_collections
from ...errors import ConfigError
from ...runner import BaseWorkload, Transaction
from ...namespace import Namespaced, in_namespace
from .core import YcsbRun, YcsbSettings

if TYPE_CHECKING:
    from ...clusters.contract import MongoCluster

DATABASE = "ycsb"
COLLECTION = "usertable"
LOAD_BATCH = 1000


def check_sweep(phase: str, approaches: list[str]) -> None:
    """What this binding cannot run, refused before any server starts."""
    if phase == "cache":
        raise ConfigError("the cache phase sets each Cassandra node's chunk cache; on MongoDB the WiredTiger cache is the "
                          "server's own setting: run --phase cache with --engine cassandra")
    if "baseline/sai" in approaches:
        raise ConfigError("baseline/sai is Cassandra's storage-attached index; MongoDB's secondary index is baseline/2i "
                          "(compare it with baseline/no-index: --approaches baseline/no-index,baseline/2i)")


class YcsbMongo(Namespaced, ClientPerProcess, YcsbRun, BaseWorkload):
    """One run of a YCSB mix or index experiment on MongoDB."""

    base_keyspace = DATABASE

    def __init__(self, uri: str, approach: str, phase: str, settings: YcsbSettings):
        check_sweep(phase, [approach])
        self.configure(approach, phase, settings)
        self.uri = uri
        self.collection_name = f"tagged_{approach.split('/', 1)[1].replace('-', '_')}" if self.indexed else COLLECTION

    @property
    def collection(self):
        return self.client[self.database][self.collection_name]

    # ---- schema and data -------------------------------------------------------------------------

    def setup(self) -> None:
        loaded = self.collection.database.loaded.find_one({"_id": self.collection_name})
        self._load_needed = self.inserts or loaded is None or loaded.get("shape") != self.shape()
        if self._load_needed:
            self.collection.database.loaded.delete_one({"_id": self.collection_name})
            self.collection.drop()
        # spread the documents over the shards (hashed _id: even from the first insert, no chunk to split and
        # move; a scan by _id range then asks every shard), where the cluster is sharded; idempotent
        shard_collections(self.collection.database.client, self.database, {self.collection_name: "_id"})
        if self.indexed and self.approach == "baseline/2i":
            self.collection.create_index("tag")

    def document(self, keynum: int, rng: Any) -> dict[str, Any]:
        key, tag, values = self.record_fields(keynum, rng)
        doc: dict[str, Any] = {"_id": key, **{f"field{i}": v for i, v in enumerate(values)}}
        if self.indexed:
            doc["tag"] = tag
        return doc

    def load(self) -> None:
        """YCSB's load phase: exactly `records` documents, key numbers 0..records-1 (not measured)."""
        if not self._load_needed:
            return
        rng = random.Random(7)
        for start in range(0, self.records, LOAD_BATCH):
            self.collection.insert_many([self.document(k, rng) for k in range(start, min(start + LOAD_BATCH, self.records))], ordered=False)
        if not self.inserts:
            self.collection.database.loaded.replace_one({"_id": self.collection_name}, {"shape": self.shape()}, upsert=True)

    # ---- operations (YcsbRun picks which) ---------------------------------------------------------

    def read(self, tx: Transaction, op: str, key: str) -> bool:
        return tx.call(op, self.collection.find_one, {"_id": key}) is not None

    def update(self, tx: Transaction, op: str, key: str, field: int, value: str) -> None:
        tx.call(op, self.collection.update_one, {"_id": key}, {"$set": {f"field{field}": value}})

    def insert(self, tx: Transaction, keynum: int) -> None:
        tx.call("insert", self.collection.insert_one, self.document(keynum, tx.rng))

    def scan(self, tx: Transaction, start: str, count: int) -> list:
        return tx.call("scan", lambda: list(self.collection.find({"_id": {"$gte": start}}).sort("_id", 1).limit(count)))

    def query_by_tag(self, tx: Transaction, tag: int) -> int:
        return len(tx.call("query_by_tag", lambda: list(self.collection.find({"tag": tag}, {"_id": 1}))))

    def count(self) -> int:
        return self.collection.count_documents({})

    def exists(self, key: str) -> bool:
        return self.collection.find_one({"_id": key}, {"_id": 1}) is not None

    def cleanup(self) -> None:
        self.collection.database.client.drop_database(self.database)


def workload(approach: str, phase: str, cluster: MongoCluster, operations: int, **settings: Any) -> YcsbMongo:
    """`settings` by the names of YcsbSettings; consistency and replication are Cassandra's settings: MongoDB runs
    with its default read and write concern."""
    return in_namespace(YcsbMongo(cluster.uri, approach, phase, YcsbSettings.of(settings)), cluster)
