"""What every Cassandra pattern workload shares: one lazily opened session per client process and its
prepared statements, dropped when the workload is pickled into a spawned process (each connects itself)."""

from __future__ import annotations

import threading
from typing import Any

from cassandra import ConsistencyLevel

from ..engines import cassandra as cql
from ..namespace import Namespaced, is_own
from ..runner import BaseWorkload


_LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))


class CassandraWorkload(Namespaced, BaseWorkload):
    """Subclasses set `addresses` and `consistency` (a level name) via `connect_to`, name their keyspace
    in `base_keyspace` (the namespace, set by the binding's factory, prefixes it: `self.keyspace`) and
    their statements in `statement_texts()` (None for one an approach does not use)."""

    replication: int = 1  # the keyspace's replication factor (a subclass sets its own; tactics read it)
    statements_class: type = dict  # a dataclass taking one keyword per statement name
    protocol_version: int = cql.PROTOCOL_VERSION  # the profiles' designs prepare for a keyspace of their own: version 5
    _transient: tuple[str, ...] = ()  # further per-process attributes, reset to a fresh empty dict

    def open_as(self, pattern: str, addresses: list[str], approach: str, phase: str, *, approaches: tuple[str, ...],
                phases: tuple[str, ...], replication: int = 1, consistency: str = "ONE") -> None:
        """The opening every pattern's Cassandra binding shares: approach and phase checked against the pattern's
        (a clear error naming the choices), the run's name, the replication factor and the connection settings."""
        from . import check_choice

        check_choice(pattern, "approach", approach, approaches)
        check_choice(pattern, "phase", phase, phases)
        self.name = f"{pattern}/{phase}/{approach}"
        self.approach, self.phase, self.replication = approach, phase, replication
        self.connect_to(addresses, consistency)

    def connect_to(self, addresses: list[str], consistency: str) -> None:
        self.addresses = list(addresses)
        self.consistency = getattr(ConsistencyLevel, consistency)
        self._session = None
        self._statements: Any = None
        self._lock = threading.Lock()

    def statement_texts(self) -> dict[str, str | None]:
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_session=None, _statements=None, **{name: {} for name in self._transient})
        locks = [name for name, value in state.items() if isinstance(value, _LOCK_TYPES)]  # a mixin's own locks too
        for name in locks:
            state[name] = None
        state["_locks_to_make"] = locks
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        locks = state.pop("_locks_to_make", ["_lock"])
        self.__dict__.update(state)
        for name in locks:
            setattr(self, name, threading.Lock())

    def use_session(self, session: Any) -> None:
        """Send this workload's calls through `session` from now on, in this process only: why, an exercise's check
        puts a recorder of the statements in front of the real session (labkit.patterns.exercise_paths)."""
        with self._lock:
            self._session = session

    @property
    def session(self):
        with self._lock:
            if self._session is None:
                self._session = cql.connect(self.addresses, protocol_version=self.protocol_version)
            return self._session

    @property
    def statements(self) -> Any:
        """Prepared once per process, at the workload's consistency level."""
        if self._statements is None:
            made = {}
            for name, text in self.statement_texts().items():
                if text is not None:
                    made[name] = self.session.prepare(text)
                    made[name].consistency_level = self.consistency
                else:
                    made[name] = None
            self._statements = self.statements_class(**made)
        return self._statements

    def prepared(self) -> dict[str, Any]:
        """This process's prepared statements by name (those the approach uses)."""
        made = self.statements
        items = made.items() if isinstance(made, dict) else vars(made).items()
        return {name: stmt for name, stmt in items if stmt is not None}

    def set_consistency(self, level: str) -> None:
        """Run every statement at `level` from the next request on (labkit.tactics changes it mid-run;
        in one client process, where the workers share these statements)."""
        self.consistency = getattr(ConsistencyLevel, level)
        for stmt in self.prepared().values():
            stmt.consistency_level = self.consistency

    def server_counters(self) -> dict[str, float] | None:
        """On a shared cluster (a namespace is set): requests the nodes coordinated so far for this namespace's
        keyspaces and for everyone else's, so a row says how much of the cluster's work was not this client's."""
        if not self.namespace:
            return None
        own = foreign = 0
        for keyspace, count in cql.requests_by_keyspace(self.session).items():
            if is_own(keyspace, self.namespace):
                own += count
            else:
                foreign += count
        return {"requests_own": own, "requests_foreign": foreign}

    def open_process(self) -> None:
        _ = self.statements  # connect and prepare before the barrier, outside the measured window

    def close_process(self) -> None:
        if self._session is not None:
            self._session.cluster.shutdown()
            self._session = None
            self._statements = None
