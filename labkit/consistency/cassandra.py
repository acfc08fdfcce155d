"""A register workload on Cassandra that records its history: reads, writes and compare-and-set of a few keys,
at a chosen consistency level, from every client worker (#72).

Why its own workload: a linearizability check needs every operation's invocation and completion as the client saw
them, and an outcome that says what the client knows. Retries would hide that (a compare-and-set that timed out,
was applied, and is sent again reports "not applied"), so each request is sent once, by the runner and by the
driver (FallthroughRetryPolicy): a refusal before anything happened is `fail`, any timeout or failure after the
request left is `unknown`. With compare-and-set in the mix, every write goes through Paxos too (plain writes carry
client timestamps that a Paxos commit's ballot timestamp can lose to; Cassandra does not support mixing them on one
row), the keys are seeded by Paxos first, and reads default to SERIAL, the level Cassandra makes linearizable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from cassandra import ConsistencyLevel, InvalidRequest, Unauthorized, Unavailable
from cassandra.policies import FallthroughRetryPolicy
from cassandra.protocol import ConfigurationException, SyntaxException

from ..engines import cassandra as cql
from ..errors import ConfigError
from ..namespace import Namespaced, in_namespace
from ..runner.workload import BaseWorkload, Transaction, Verification
from .history import FAIL, OK, UNKNOWN, HistoryRecorder, read_history

LEVELS = ("ONE", "QUORUM", "ALL", "LOCAL_QUORUM", "LOCAL_ONE")
SERIAL_LEVELS = ("SERIAL", "LOCAL_SERIAL")
MISTAKES = (InvalidRequest, SyntaxException, Unauthorized, ConfigurationException)
"""A statement the server refuses as written: a bug, raised, never recorded as an unknown outcome (a history of
unknowns is trivially linearizable)."""


class CassandraRegister(Namespaced, BaseWorkload):
    """`keys` registers (rows k0..), each transaction one operation on a random key: a read (`mix[0]` of them), a
    write of a value no one wrote before (`mix[1]`) or a compare-and-set from the value this worker last read (the
    rest; IF NOT EXISTS when it has read none). Reads and writes at `consistency`, compare-and-set's Paxos at
    `serial`. The history lands in `history` (JSON lines, labkit.consistency.history). Its keyspace carries the runs'
    namespace (`on(cluster, ...)`), so a second user on a shared cluster keeps registers of their own."""

    name = "register"
    max_processes = 1  # one recorder and one clock: the history's invocations and completions must be comparable

    def __init__(self, addresses: Sequence[str], history: Path, *, keys: int = 3, consistency: str = "QUORUM",
                 serial: str = "SERIAL", read_consistency: str | None = None, replication: int | dict[str, int] = 1,
                 keyspace: str = "consistency_register", mix: tuple[float, float] = (0.5, 0.25), request_timeout: float = 2.0,
                 dc: str | None = None):
        if consistency not in LEVELS:
            raise ConfigError(f"consistency must be one of {', '.join(LEVELS)} (got {consistency!r})")
        if serial not in SERIAL_LEVELS:
            raise ConfigError(f"serial must be one of {', '.join(SERIAL_LEVELS)} (got {serial!r})")
        if keys < 1 or not (0 <= mix[0] and 0 <= mix[1] and mix[0] + mix[1] <= 1):
            raise ConfigError("keys must be at least 1 and the read and write shares of the mix at most 1 together")
        self.with_cas = mix[0] + mix[1] < 1
        self.read_consistency = read_consistency or (serial if self.with_cas else consistency)
        if self.read_consistency not in LEVELS + SERIAL_LEVELS:
            raise ConfigError(f"read_consistency must be one of {', '.join(LEVELS + SERIAL_LEVELS)} (got {read_consistency!r})")
        self.addresses, self.history = list(addresses), Path(history)
        self.keys, self.consistency, self.serial, self.replication = keys, consistency, serial, replication
        self.base_keyspace, self.mix, self.request_timeout, self.dc = keyspace, mix, request_timeout, dc
        self._session: Any = None
        self._recorder: HistoryRecorder | None = None
        self._prepared: dict[str, Any] = {}

    @classmethod
    def on(cls, cluster: Any, history: Path, **options: Any) -> "CassandraRegister":
        """The workload on `cluster`'s nodes, in the namespace this process's runs write in there."""
        return in_namespace(cls(cluster.addresses, history, **options), cluster)

    # ---- phases ----------------------------------------------------------------------------------

    def setup(self) -> None:
        session = self._connect()
        cql.create_keyspace(session, self.keyspace, self.replication)
        cql.execute_ddl(session, f"DROP TABLE IF EXISTS {self.keyspace}.reg")
        cql.execute_ddl(session, f"CREATE TABLE {self.keyspace}.reg (k text PRIMARY KEY, v bigint)")
        self.history.unlink(missing_ok=True)  # a run's history is its own

    def open_process(self) -> None:
        session = self._connect()
        level, serial = getattr(ConsistencyLevel, self.consistency), getattr(ConsistencyLevel, self.serial)
        statements = {"read": f"SELECT v FROM {self.keyspace}.reg WHERE k = ?",
                      "write": f"UPDATE {self.keyspace}.reg SET v = ? WHERE k = ?" + (" IF EXISTS" if self.with_cas else ""),
                      "cas": f"UPDATE {self.keyspace}.reg SET v = ? WHERE k = ? IF v = ?",
                      "insert": f"INSERT INTO {self.keyspace}.reg (k, v) VALUES (?, ?) IF NOT EXISTS"}
        for name, text in statements.items():
            prepared = session.prepare(text)
            prepared.consistency_level = getattr(ConsistencyLevel, self.read_consistency) if name == "read" else level
            prepared.serial_consistency_level = serial
            prepared.retry_policy = FallthroughRetryPolicy()  # sent once: the driver's retries would hide an applied one
            self._prepared[name] = prepared
        self._recorder = HistoryRecorder(self.history)
        if self.with_cas:  # every key exists before the workers start: a write through Paxos needs the row (IF EXISTS)
            for n in range(self.keys):
                pending = self._recorder.invoke(0, f"k{n}", "cas", expected=None, new=0)
                outcome, result, error = self._send("insert", (f"k{n}", 0))
                pending.done(outcome, bool(result.was_applied) if outcome == OK else None, error)

    def close_process(self) -> None:
        if self._recorder is not None:
            self._recorder.close()
            self._recorder = None
        if self._session is not None:
            self._session.cluster.shutdown()
            self._session = None

    def transaction(self, tx: Transaction) -> None:
        assert self._recorder is not None, "open_process() opens the history"
        key = f"k{tx.rng.randrange(self.keys)}"
        seen: dict[str, int] = tx.worker_state.setdefault("seen", {})
        pick = tx.rng.random()
        if pick < self.mix[0]:
            op, pending = "read", self._recorder.invoke(tx.worker, key, "read")
            outcome, result, error = tx.call("read", self._send, "read", (key,))
        else:
            counter = tx.worker_state["written"] = tx.worker_state.get("written", 0) + 1
            value = (tx.worker + 1) * 1_000_000_000 + counter  # never written before, by anyone
            if pick < self.mix[0] + self.mix[1]:
                op, pending = "write", self._recorder.invoke(tx.worker, key, "write", value=value)
                outcome, result, error = tx.call("write", self._send, "write", (value, key))
            else:
                expected = seen.get(key)
                op, pending = "cas", self._recorder.invoke(tx.worker, key, "cas", expected=expected, new=value)
                statement, params = ("cas", (value, key, expected)) if expected is not None else ("insert", (key, value))
                outcome, result, error = tx.call("cas", self._send, statement, params)
        try:
            if outcome != OK:
                pending.done(outcome, None, error)
            elif op == "read":
                row = result.one()
                pending.done(OK, None if row is None else row[0])
                if row is not None:
                    seen[key] = row[0]
            elif op == "write" and self.with_cas and not result.was_applied:
                pending.done(FAIL, None, "IF EXISTS not applied: the row was missing")  # cannot happen once seeded
            elif op == "write":
                pending.done(OK)
                seen[key] = value
            else:
                applied = bool(result.was_applied)
                pending.done(OK, applied)
                if applied:
                    seen[key] = value
        except Exception as exc:  # the request completed but its answer could not be read: what happened is unknown
            pending.done(UNKNOWN, None, f"{type(exc).__name__}: {str(exc)[:200]}")
            raise

    def verify(self) -> Verification:
        """Every operation the run invoked was recorded with an outcome (the history is whole); whether it is
        linearizable is the checker's question (labkit.consistency.check_history)."""
        ops = read_history(self.history) if self.history.exists() else []
        counts = {outcome: sum(op["outcome"] == outcome for op in ops) for outcome in (OK, FAIL, UNKNOWN)}
        changed = sum(op["outcome"] == OK and op["op"] != "read" for op in ops)
        problems = (["no operation was recorded"] if not ops else
                    ["no write or compare-and-set completed: a history of reads alone and unknowns shows nothing"] if not changed else [])
        return Verification(ok=not problems, checks={"operations": len(ops), **counts, "completed changes": changed}, problems=problems)

    # ---- one request, sent once ----------------------------------------------------------------

    def _send(self, statement: str, params: tuple[Any, ...]) -> tuple[str, Any, str]:
        """(outcome, result, error) of one request: never raises, so the runner's retries never resend it."""
        try:
            return OK, self._session.execute(self._prepared[statement], params, timeout=self.request_timeout), ""
        except MISTAKES:
            raise
        except Unavailable as exc:
            # A plain read or write is refused before any replica is asked. A compare-and-set is refused before its
            # Paxos round only at its serial level; Unavailable at the commit's level comes after a quorum accepted
            # the value (Paxos v1), which the next round will commit: applied, whatever the client was told.
            if statement in ("cas", "insert") or self.with_cas:
                refused_first = exc.consistency in (ConsistencyLevel.SERIAL, ConsistencyLevel.LOCAL_SERIAL)
                return (FAIL if refused_first else UNKNOWN), None, f"Unavailable at {ConsistencyLevel.value_to_name.get(exc.consistency, exc.consistency)}"
            return FAIL, None, f"Unavailable: {exc}"
        except Exception as exc:  # a timeout or failure after the request left: it may have been applied
            return UNKNOWN, None, f"{type(exc).__name__}: {str(exc)[:200]}"

    def _connect(self) -> Any:
        if self._session is None:
            self._session = cql.connect(self.addresses, dc=self.dc)
        return self._session
