"""Index Table's Cassandra binding: find a user by e-mail with a secondary index (naive) or a lookup table (pattern).

Two phases, as in the source's test: `register` (each transaction registers one new user) and `login`
(each transaction finds a registered user by e-mail). Approaches:
- `naive/legacy`: users keyed by UUID plus Cassandra's original secondary index on `email`;
- `naive/sai`: the same table with a Storage-Attached Index (Cassandra 5's index) instead;
- `pattern`: users keyed by UUID plus `users_by_email`, a table whose partition key is the e-mail.
Each approach has its own tables, so an index never slows down another approach's writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from cassandra import ConsistencyLevel
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import PreparedStatement

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...errors import ConfigError
from ...namespace import in_namespace
from ...runner import Transaction, Verification
from ..cassandra_workload import CassandraWorkload
from .core import ENGINE_APPROACHES, NAME, PHASES, UserPhases, email_of, found_user, id_of, judge, sample_numbers, user_row

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster

APPROACHES = ENGINE_APPROACHES["cassandra"]

KEYSPACE = "index_table"


def tables(approach: str) -> tuple[str, str | None]:
    """(users table, lookup table or None) of one approach."""
    suffix = {"naive/legacy": "legacy", "naive/sai": "sai", "pattern": "pattern"}[approach]
    return f"users_{suffix}", ("users_by_email" if approach == "pattern" else None)


def schema(approach: str, keyspace: str = KEYSPACE) -> list[str]:
    """The CQL that creates one approach's tables (and index) in `keyspace` (the workload's, namespaced)."""
    users, lookup = tables(approach)
    statements = [
        f"CREATE TABLE IF NOT EXISTS {keyspace}.{users} (id uuid PRIMARY KEY, email text, name text, password_hash text)"
    ]
    if approach == "naive/legacy":
        statements.append(f"CREATE INDEX IF NOT EXISTS {users}_email ON {keyspace}.{users} (email)")
    elif approach == "naive/sai":
        statements.append(f"CREATE INDEX IF NOT EXISTS {users}_email ON {keyspace}.{users} (email) USING 'sai'")
    else:
        statements.append(f"CREATE TABLE IF NOT EXISTS {keyspace}.{lookup} (email text PRIMARY KEY, user_id uuid)")
    return statements


@dataclass
class Statements:
    """One approach's prepared statements."""

    insert_user: PreparedStatement
    insert_lookup: PreparedStatement | None
    by_email: PreparedStatement  # naive: the indexed query; pattern: the lookup-table read
    by_id: PreparedStatement


class IndexTable(UserPhases, CassandraWorkload):
    """One phase of the Index Table test with one approach.

    `users`: how many users the login phase loads and picks from, or how many the register phase
    registers (then it must equal the run's `operations`: user number seq*workers+worker is what each
    transaction registers, so the run covers 0..users-1 exactly and verify() can demand exactly that).
    """

    def __init__(self, addresses: list[str], approach: str, phase: str, users: int, replication: int = 1, consistency: str = "ONE", verify_sample: int = 200):
        self.open_as(NAME, addresses, approach, phase, approaches=APPROACHES, phases=PHASES, replication=replication, consistency=consistency)
        if users < 1:
            raise ConfigError(f"users must be at least 1; got {users}")
        self.users = users
        self.verify_sample = max(1, verify_sample)

    statements_class = Statements
    base_keyspace = KEYSPACE

    def statement_texts(self) -> dict[str, str | None]:
        users, lookup = tables(self.approach)
        return {
            "insert_user": f"INSERT INTO {self.keyspace}.{users} (id, email, name, password_hash) VALUES (?, ?, ?, ?)",
            "insert_lookup": f"INSERT INTO {self.keyspace}.{lookup} (email, user_id) VALUES (?, ?)" if lookup else None,
            "by_email": (
                f"SELECT user_id FROM {self.keyspace}.{lookup} WHERE email = ?"
                if lookup
                else f"SELECT id, email, name, password_hash FROM {self.keyspace}.{users} WHERE email = ?"
            ),
            "by_id": f"SELECT id, email, name, password_hash FROM {self.keyspace}.{users} WHERE id = ?",
        }

    # ---- phases ----------------------------------------------------------------------------------

    def setup(self) -> None:
        """Keyspace and this approach's tables; the register phase starts from empty tables."""
        s = self.session
        cql.create_keyspace(s, self.keyspace, self.replication)
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {self.keyspace}.loaded (approach text PRIMARY KEY, users int)")
        for statement in schema(self.approach, self.keyspace):
            cql.execute_ddl(s, statement)
        if self.phase == "register":
            s.execute(f"DELETE FROM {self.keyspace}.loaded WHERE approach = %s", (self.approach,))
            for table in filter(None, tables(self.approach)):
                s.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)

    def load(self) -> None:
        """The login phase needs `users` registered users; loaded once per cluster and approach."""
        if self.phase != "login":
            return
        s = self.session
        marker = s.execute(f"SELECT users FROM {self.keyspace}.loaded WHERE approach = %s", (self.approach,)).one()
        if marker is not None and marker.users == self.users:
            return
        for table in filter(None, tables(self.approach)):
            s.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)
        st = self.statements
        cql.write_all(s, st.insert_user, [user_row(n) for n in range(self.users)])
        if st.insert_lookup is not None:
            cql.write_all(s, st.insert_lookup, [(email_of(n), id_of(n)) for n in range(self.users)])
        s.execute(f"INSERT INTO {self.keyspace}.loaded (approach, users) VALUES (%s, %s)", (self.approach, self.users))

    def register(self, tx: Transaction, n: int) -> None:
        """Naive: one write (the index is the database's business). Pattern: the user, then the lookup row."""
        st = self.statements
        row = user_row(n)
        tx.call("insert_user", self.session.execute, st.insert_user, row)
        if st.insert_lookup is not None:
            tx.call("insert_lookup", self.session.execute, st.insert_lookup, (row[1], row[0]))

    def login(self, tx: Transaction, n: int) -> Any:
        """Naive: one indexed query, scattered over the ring. Pattern: two key reads, one node each.
        Returns the user row found (a login that finds the wrong user, or none, fails)."""
        return found_user(find_user(self.session, self.statements, email_of(n), tx.call), n)

    def verify(self) -> Verification:
        """Exactly the users this phase should have, under the right ids, and found by e-mail.

        The pattern's lookup table is checked row by row (it is the application's to keep right). A
        secondary index is the database's: it is checked by querying it for `verify_sample` users spread
        over the whole range (a full check would cost one scatter-gather query per user, every run)."""
        s = self.session
        users_table, lookup = tables(self.approach)
        whole = RangeReader(s, consistency=ConsistencyLevel.LOCAL_ONE)  # a range at a time: one full scan times out on small nodes
        stored = {row.id: row.email for row in whole.rows(f"{self.keyspace}.{users_table}", "id, email", "id")}
        if lookup:
            pointers = {row.email: row.user_id for row in whole.rows(f"{self.keyspace}.{lookup}", "email, user_id", "email")}
            return judge(self.users, stored, pointers=pointers)
        emails = [email_of(n) for n in sample_numbers(self.users, self.verify_sample)]
        found, failed = self._find_all(self.statements, emails)
        return judge(self.users, stored, index_found=found.items(), index_errors=failed)

    def _find_all(self, st: Statements, emails: list[str]) -> tuple[dict[str, bool], dict[str, str]]:
        """Query the secondary index for every e-mail, many in flight: {e-mail: exactly that user came back},
        and {e-mail: error} for queries that failed three times.

        A query that fails (a read timeout on a busy machine, an index still being made queryable) has
        not shown the record missing: it is asked again, fewer at a time, before it counts against the index."""
        found: dict[str, bool] = {}
        failed: dict[str, str] = {}
        pending = list(emails)
        for concurrency in (32, 4, 1):
            results = execute_concurrent_with_args(self.session, st.by_email, [(e,) for e in pending], concurrency=concurrency, raise_on_first_error=False)
            failed = {}
            for (ok, rows), e in zip(results, pending):
                if ok:
                    found[e] = len(rows.current_rows) == 1 and rows.current_rows[0].email == e
                else:
                    failed[e] = f"{type(rows).__name__}: {rows}"
            pending = list(failed)
            if not pending:
                break
        return found, failed

    def server_counters(self) -> dict[str, float] | None:
        """Besides the shared cluster's (CassandraWorkload.server_counters): the requests each node served as a replica
        for this approach's tables, reads and scans (an index search counts as a scan), named
        `replica_<kind>@<address>`, so a run says how many nodes its logins reached (labkit.results.replica_requests)."""
        counters = dict(super().server_counters() or {})
        for address, kinds in cql.local_requests(self.session, self.keyspace, [t for t in tables(self.approach) if t]).items():
            for kind, count in kinds.items():
                counters[f"replica_{kind}@{address}"] = count
        return counters

    def cleanup(self) -> None:
        cql.execute_ddl(self.session, f"DROP KEYSPACE IF EXISTS {self.keyspace}")


def find_user(session, st: Statements, email: str, call: Callable[..., Any] | None = None):
    """The login path: the indexed query (naive), or the lookup read then the user read (pattern)."""
    call = call or (lambda _op, fn, *a: fn(*a))
    if st.insert_lookup is None:
        return call("query_by_index", session.execute, st.by_email, (email,)).one()
    pointer = call("read_lookup", session.execute, st.by_email, (email,)).one()
    if pointer is None:
        return None
    return call("read_user", session.execute, st.by_id, (pointer.user_id,)).one()


def trace_login(workload: IndexTable, n: int = 0) -> cql.TraceTotals:
    """Run one login with tracing on and sum up what the servers did for it (nodes, partitions, scans)."""
    s = workload.session
    st = workload.statements
    email = email_of(n)
    if st.insert_lookup is None:
        return cql.summarise([cql.trace(s, st.by_email, (email,), consistency=workload.consistency)])
    first = cql.trace(s, st.by_email, (email,), consistency=workload.consistency)
    second = cql.trace(s, st.by_id, (id_of(n),), consistency=workload.consistency)
    return cql.summarise([first, second])


def workload(approach: str, phase: str, cluster: CassandraCluster, operations: int, replication: int, users: int = 0) -> IndexTable:
    """The workload of one run: the register phase registers `operations` users, the login phase
    logs in among `users` loaded ones."""
    return in_namespace(IndexTable(cluster.addresses, approach, phase, users=operations if phase == "register" else users, replication=replication), cluster)
