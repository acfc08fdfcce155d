"""Tables a student designs in an exercise: the statements they prepare for them, their names, and what the
servers' schema says of them (partition keys, indexes), so a check grades the design the servers hold."""

from __future__ import annotations

import re
from typing import Any, Callable


class StudentTables:
    """Mixed into an exercise's workload: `student_ddl()` (the exercise names the method the student writes) gives
    the CQL of the student's tables; `prepare(cql)` prepares a statement of theirs once per text."""

    # What the workload it is mixed into has (declared only: nothing here shadows the workload's own).
    session: Any
    """The workload's cassandra-driver session."""
    consistency: Any
    """The workload's consistency level (a cassandra.ConsistencyLevel value)."""
    keyspace: str
    close_process: Callable[[], None]

    def student_ddl(self) -> list[str]:
        raise NotImplementedError

    def prepare(self, text: str) -> Any:
        """A prepared statement of your own (prepared once per text), at the workload's consistency level."""
        made = self.__dict__.setdefault("_own_statements", {})
        if text not in made:
            statement = self.session.prepare(text)
            statement.consistency_level = self.consistency
            made[text] = statement
        return made[text]

    def own_tables(self) -> list[str]:
        """The tables the student's CQL creates, by name (lower case, keyspace left off)."""
        found = (re.search(r"create\s+table\s+(?:if\s+not\s+exists\s+)?([\w.\"]+)", ddl, re.I) for ddl in self.student_ddl())
        return [m.group(1).split(".")[-1].replace('"', "").lower() for m in found if m]


def start_from_this_design(workload: StudentTables) -> None:
    """Drop the tables the student's CQL names, as the servers hold them now, then close the workload. Why: CREATE
    TABLE IF NOT EXISTS keeps an earlier design's table of the same name, with its key and columns, so a check
    after a changed design would grade the old one."""
    from ..engines import cassandra as cql

    try:
        names = workload.own_tables()
        held = {r.table_name for r in workload.session.execute(
            "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (workload.keyspace,))}
        for table in names:
            if table in held:
                cql.execute_ddl(workload.session, f"DROP TABLE IF EXISTS {workload.keyspace}.{table}")
    finally:
        workload.close_process()


def own_design(report: Any, workload_class: type, methods: tuple[str, ...], make_workload: Any) -> bool:
    """The exercise's first criterion: the methods are the student's own; then the check starts from the tables of
    their design as written now (`make_workload()`: a workload of their class, dropped tables and all closed)."""
    from .exercise_paths import own_methods

    if not own_methods(report, workload_class, methods):
        return False
    try:
        start_from_this_design(make_workload())
    except NotImplementedError:
        pass  # no tables written yet: the steps that need them say so
    return True


def partition_keys(session: Any, keyspace: str) -> dict[str, list[str]]:
    """Each table of `keyspace` -> its partition key columns, in order, as the servers hold them."""
    rows = session.execute("SELECT table_name, column_name, kind, position FROM system_schema.columns WHERE keyspace_name = %s", (keyspace,))
    keys: dict[str, list[tuple[int, str]]] = {}
    for r in rows:
        if r.kind == "partition_key":
            keys.setdefault(r.table_name, []).append((r.position, r.column_name))
    return {t: [c for _, c in sorted(cols)] for t, cols in keys.items()}


def indexed_tables(session: Any, keyspace: str) -> set[str]:
    """The tables of `keyspace` with a secondary index."""
    return {r.table_name for r in session.execute("SELECT table_name FROM system_schema.indexes WHERE keyspace_name = %s", (keyspace,))}


def by_partition_key(statement: Any, keys: dict[str, list[str]]) -> bool:
    """A read (exercise_paths.Cql) that names its table's whole partition key and does not filter: one partition."""
    return statement.verb == "SELECT" and statement.table in keys and set(keys[statement.table]) <= set(statement.where) and not statement.filtering
