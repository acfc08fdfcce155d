"""YCSB workload A's Cassandra binding (50% reads, 50% updates; zipfian keys by default, uniform on request): the getting-started baseline.

Not one of the four patterns; it shows the lab's mechanics (threads, consistency levels, latency
percentiles) on the simplest key-value workload before any pattern is introduced.
"""

from __future__ import annotations

import bisect
from typing import Any

from cassandra import ConsistencyLevel
from cassandra.query import BatchStatement, BatchType

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...errors import ConfigError
from ...runner import BaseWorkload, Transaction, Verification
from .core import DISTRIBUTIONS, zipf_cumulative

KEYSPACE = "ycsb"
TABLE = "usertable"
FIELD_BYTES = 100


class YcsbA(BaseWorkload):
    """Read/update 50/50 on `records` rows of one table, at a chosen consistency level."""

    def __init__(
        self, addresses: list[str], records: int = 1000, consistency: str = "QUORUM", replication: int = 3, read_proportion: float = 0.5,
        distribution: str = "zipfian",
    ):
        if distribution not in DISTRIBUTIONS:
            raise ConfigError(f"distribution must be one of {', '.join(DISTRIBUTIONS)}; got {distribution!r}")
        if records < 1:
            raise ConfigError(f"records must be at least 1; got {records}")
        self.name = f"ycsb-a/{consistency}"
        self.addresses = addresses
        self.records = records
        self.consistency = consistency
        self.replication = replication
        self.read_proportion = read_proportion
        self.distribution = distribution
        self._session = None
        self._read = self._update = None
        self._cum = zipf_cumulative(records) if distribution == "zipfian" else None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_session"] = state["_read"] = state["_update"] = None  # each client process connects itself
        return state

    @property
    def session(self):
        if self._session is None:
            self._session = cql.connect(self.addresses)
            self._read = self._update = None
        return self._session

    def _prepared(self):
        """Prepared once per process, after setup() made the table."""
        if self._session is None or self._read is None:
            s = self.session
            cl = getattr(ConsistencyLevel, self.consistency)
            self._read = s.prepare(f"SELECT field0 FROM {KEYSPACE}.{TABLE} WHERE key = ?")
            self._read.consistency_level = cl
            self._update = s.prepare(f"UPDATE {KEYSPACE}.{TABLE} SET field0 = ? WHERE key = ?")
            self._update.consistency_level = cl
        return self._read, self._update

    def setup(self) -> None:
        s = self.session
        cql.create_keyspace(s, KEYSPACE, self.replication)
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {KEYSPACE}.{TABLE} (key int PRIMARY KEY, field0 text)")

    def load(self) -> None:
        s = self.session
        insert = s.prepare(f"INSERT INTO {KEYSPACE}.{TABLE} (key, field0) VALUES (?, ?)")
        insert.consistency_level = ConsistencyLevel.QUORUM
        for start in range(0, self.records, 50):
            batch = BatchStatement(batch_type=BatchType.UNLOGGED, consistency_level=ConsistencyLevel.QUORUM)
            for k in range(start, min(start + 50, self.records)):
                batch.add(insert, (k, "x" * FIELD_BYTES))
            s.execute(batch)

    def _key(self, tx: Transaction) -> int:
        if self._cum is None:
            return tx.rng.randrange(self.records)
        return bisect.bisect_left(self._cum, tx.rng.random() * self._cum[-1])

    def transaction(self, tx: Transaction) -> None:
        s = self.session
        read, update = self._prepared()
        key = self._key(tx)
        if tx.rng.random() < self.read_proportion:
            row = tx.call("read", s.execute, read, (key,)).one()
            if row is None:
                raise LookupError(f"record {key} is missing")
        else:
            value = f"{tx.worker}-{tx.seq}".ljust(FIELD_BYTES, "y")
            tx.call("update", s.execute, update, (value, key))

    def verify(self) -> Verification:
        """Every loaded record is still there, counted a token range at a time at QUORUM."""
        reader = RangeReader(self.session)
        count = reader.count(f"{KEYSPACE}.{TABLE}", "key")
        ok = count == self.records
        checks = {"records": count, "expected": self.records, **({"timeouts_retried": reader.timeouts_retried} if reader.timeouts_retried else {})}
        return Verification(ok, checks, [] if ok else [f"{self.records - count} records lost"])

    def cleanup(self) -> None:
        cql.execute_ddl(self.session, f"DROP KEYSPACE IF EXISTS {KEYSPACE}")

    def open_process(self) -> None:
        self._prepared()  # connect and prepare before the barrier, outside the measured window

    def close_process(self) -> None:
        if self._session is not None:
            self._session.cluster.shutdown()
            self._session = None


def workload(approach: str, phase: str, cluster: Any, operations: int, records: int, consistency: str, replication: int, distribution: str) -> YcsbA:
    """Lets sweeps and benchmarks drive the baseline like a pattern (one approach, 'baseline')."""
    return YcsbA(cluster.addresses, records=records, consistency=consistency, replication=replication, distribution=distribution)
