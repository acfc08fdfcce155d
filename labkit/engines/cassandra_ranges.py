"""Whole-table reads for verify(), a token range at a time: no one request has to scan a table.

A `SELECT count(*)` over a table is a single request that the coordinator must finish within the read
timeout; on small loaded nodes (0.1 core each, 40,000 records) it does not, and the run's verification is
lost. Here the Murmur3 ring is cut into ranges, each range is read (or counted) on its own and paged, and a
range that times out is read again with backoff (tenacity). A range that keeps timing out raises
VerificationUnfinished: the count is unknown, never short and never a pass."""

from __future__ import annotations

from typing import Any, Sequence

from cassandra import ConsistencyLevel, OperationTimedOut, ReadTimeout
from cassandra.cluster import NoHostAvailable, Session
from cassandra.query import SimpleStatement
from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from ..errors import VerificationUnfinished

MIN_TOKEN, MAX_TOKEN = -(2**63), 2**63 - 1
"""The Murmur3 partitioner's ring; no key hashes to MIN_TOKEN (Cassandra maps it to MAX_TOKEN)."""
SPLITS = 64
"""Ranges per table: 40,000 YCSB records come to about 600 rows per request."""
ATTEMPTS = 4
PAGE_ROWS = 1000


def token_ranges(splits: int = SPLITS) -> list[tuple[int, int]]:
    """`splits` half-open ranges (start, end] that cover the whole ring exactly once."""
    if splits < 1:
        raise ValueError(f"splits must be at least 1; got {splits}")
    span = MAX_TOKEN - MIN_TOKEN
    bounds = [MIN_TOKEN + span * i // splits for i in range(splits)] + [MAX_TOKEN]
    return list(zip(bounds[:-1], bounds[1:]))


def is_timeout(exc: BaseException) -> bool:
    """A coordinator or the client gave up waiting; NoHostAvailable counts when every host it tried timed out."""
    if isinstance(exc, (ReadTimeout, OperationTimedOut)):
        return True
    return isinstance(exc, NoHostAvailable) and bool(exc.errors) and all(isinstance(e, (ReadTimeout, OperationTimedOut)) for e in exc.errors.values())


class RangeReader:
    """Counts or reads a whole table range by range at one consistency level; `timeouts_retried` is how many
    range requests timed out and were read again (verify() reports it)."""

    def __init__(self, session: Session, *, consistency: int = ConsistencyLevel.QUORUM, splits: int = SPLITS,
                 attempts: int = ATTEMPTS, timeout: float = 30.0, page_rows: int = PAGE_ROWS, backoff_s: float = 0.5):
        self.session = session
        self.consistency = consistency
        self.ranges = token_ranges(splits)
        self.attempts = attempts
        self.timeout = timeout
        self.page_rows = page_rows
        self.backoff_s = backoff_s
        self.timeouts_retried = 0

    def count(self, table: str, partition_key: str | Sequence[str]) -> int:
        """CQL rows in `table` (keyspace.table), as `SELECT count(*)` would say."""
        where = self._where(partition_key)
        return sum(self._each_range(f"SELECT count(*) FROM {table} WHERE {where}", table, lambda rows: rows.one()[0]))

    def rows(self, table: str, columns: str, partition_key: str | Sequence[str]) -> list[Any]:
        """Every row of `table` with `columns` (a select list), in token order."""
        where = self._where(partition_key)
        return [row for part in self._each_range(f"SELECT {columns} FROM {table} WHERE {where}", table, list) for row in part]

    @staticmethod
    def _where(partition_key: str | Sequence[str]) -> str:
        key = partition_key if isinstance(partition_key, str) else ", ".join(partition_key)
        return f"token({key}) > %s AND token({key}) <= %s"

    def _each_range(self, text: str, table: str, take: Any) -> list[Any]:
        statement = SimpleStatement(text, consistency_level=self.consistency, fetch_size=self.page_rows)
        out = []
        for number, bounds in enumerate(self.ranges, 1):
            out.append(self._read(statement, bounds, take, f"{table}, token range {number} of {len(self.ranges)}"))
        return out

    def _read(self, statement: SimpleStatement, bounds: tuple[int, int], take: Any, where: str) -> Any:
        def note_retry(state: Any) -> None:
            self.timeouts_retried += 1

        retrying = Retrying(retry=retry_if_exception(is_timeout), stop=stop_after_attempt(self.attempts),
                            wait=wait_exponential(multiplier=self.backoff_s, max=8), before_sleep=note_retry)
        try:
            for attempt in retrying:
                with attempt:
                    return take(self.session.execute(statement, bounds, timeout=self.timeout))  # paging happens inside take
        except RetryError as exc:  # only timeouts are retried, so this is the last of them
            last = exc.last_attempt.exception()
            raise VerificationUnfinished(
                f"reading {where} timed out {self.attempts} times ({type(last).__name__}: {str(last)[:160]}); the verification "
                "could not finish, so nothing is known about lost records. The cluster is too slow to answer: give its nodes "
                "more CPU (a larger --node-cpu) or fewer records, or check `labkit status`"
            ) from last
        raise AssertionError("unreachable")  # pragma: no cover
