"""What the Index Table exercise hands a student: the users table (keyed by id), its two statements, user data and
the check. The tables a login by e-mail reads, and register() and login(), are the student's to design and write;
the library's own IndexTable is the solution, so the exercise's base class is a stub of it: inheriting it gives
nothing that passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...runner import Transaction, Verification
from ...namespace import in_namespace
from ..exercise_tables import StudentTables, by_partition_key, indexed_tables, own_design, partition_keys
from .cassandra import IndexTable as _Binding
from .cassandra import IndexTable, schema, tables
from .core import email_of, id_of, judge, user_row

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster
    from ..exercise import CheckReport

__all__ = ["IndexTableExercise", "check_exercise", "email_of", "id_of", "user_row"]

USERS = tables("pattern")[0]  # users_pattern: the given table, keyed by id


class IndexTableExercise(StudentTables, _Binding):
    """The users table `users_pattern (id uuid PRIMARY KEY, email, name, password_hash)` with its statements
    (`self.statements.insert_user`, `.by_id`), the session, `self.prepare(cql)` for statements of your own,
    and verify(): the tables a login by e-mail reads (`lookup_tables()`), register() and login() are yours."""

    def lookup_tables(self) -> list[str]:
        raise NotImplementedError("lookup_tables() is not written yet")

    def register(self, tx: Transaction, n: int) -> None:
        raise NotImplementedError("register() is not written yet")

    def login(self, tx: Transaction, n: int) -> Any:
        raise NotImplementedError("login() is not written yet")

    # ---- what the exercise gives -----------------------------------------------------------------

    def statement_texts(self) -> dict[str, str | None]:
        texts = super().statement_texts()
        return {**texts, "insert_lookup": None, "by_email": None}  # the lookup is the student's own

    def student_ddl(self) -> list[str]:
        return self.lookup_tables()

    def setup(self) -> None:
        """The keyspace, the users table and your tables; the register phase starts from empty tables."""
        s = self.session
        cql.create_keyspace(s, self.keyspace, self.replication)
        cql.execute_ddl(s, schema("pattern", self.keyspace)[0])
        for ddl in self.lookup_tables():
            cql.execute_ddl(s, ddl)
        if self.phase == "register":
            for table in [USERS, *self.own_tables()]:
                s.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)

    def load(self) -> None:
        """The login phase's users, registered by your register() (your tables are yours to fill), every time: a
        design changed since the last check must not find the old one's rows."""
        if self.phase != "login":
            return
        from ..exercise import a_transaction

        for table in [USERS, *self.own_tables()]:
            self.session.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)
        for n in range(self.users):
            self.register(a_transaction(), n)

    def verify(self) -> Verification:
        """Exactly the users this phase should have, under the right ids; in the register phase, each of your
        tables holding one row per user."""
        whole = RangeReader(self.session)
        stored = {row.id: row.email for row in whole.rows(f"{self.keyspace}.{USERS}", "id, email", "id")}
        verdict = judge(self.users, stored)
        if self.phase != "register" or not verdict.ok:
            return verdict
        problems, checks = list(verdict.problems), dict(verdict.checks)
        for table in self.own_tables():
            count = self.session.execute(f"SELECT COUNT(*) FROM {self.keyspace}.{table}", timeout=120).one()[0]
            checks[f"{table}_rows"] = count
            if count != self.users:
                problems.append(f"{table} holds {count} rows for {self.users} users: a login by e-mail needs every user's row")
        return Verification(ok=not problems, checks=checks, problems=problems)


def check_exercise(workload_class: type[IndexTable], cluster: CassandraCluster, users: int = 200) -> "CheckReport":
    """The exercise's check: the student's own tables, register() and login() (not the library's), run for real
    (`users` users registered, then each logged in, verify() on both), and their access paths: a registration
    writes the user row and one row into each of the student's tables; a login reads at most two partitions,
    each by its table's whole partition key (from the servers' schema), never a filtering scan or an index."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, not_written, run_step
    from ..exercise_paths import judged_call, listing, recording

    def own(report: CheckReport) -> bool:
        return own_design(report, workload_class, ("register", "login", "lookup_tables"), lambda: in_namespace(workload_class(cluster.addresses, "pattern", "register", users=users), cluster))

    def register(report: CheckReport) -> bool:
        return run_step(report, "register users", in_namespace(workload_class(cluster.addresses, "pattern", "register", users=users), cluster), users)

    def register_path(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.addresses, "pattern", "register", users=users), cluster)
        step = "a registration writes the user row and one row into each of your tables"
        try:
            workload.setup()
            own_tables = workload.own_tables()
            if not own_tables:
                return report.add(step, False, "lookup_tables() creates no table: a login by e-mail needs a table it can read by e-mail")
            recorder = recording(workload)
            for n in range(3):  # users already registered: the same rows written again
                workload.register(a_transaction(), n)
                done = recorder.take()
                written = sorted(s.table for s in done if s.verb in ("INSERT", "UPDATE"))
                if written != sorted([USERS, *own_tables]) or len(done) != len(written):
                    return report.add(step, False, f"register({n}) ran {listing(done)}; expected one write into {USERS} and one into each of "
                                                   f"your tables ({', '.join(own_tables)}), and nothing else")
        finally:
            workload.close_process()
        return report.add(step, True, f"{1 + len(own_tables)} writes each")

    def login(report: CheckReport) -> bool:
        return run_step(report, "log users in by e-mail under load", in_namespace(workload_class(cluster.addresses, "pattern", "login", users=users), cluster), users)

    def login_path(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.addresses, "pattern", "login", users=users), cluster)
        step = "a login reads at most two partitions, each by its table's partition key"
        try:
            workload.setup()
            workload.load()  # the users, registered by the student's register() (the run after this step finds them loaded)
            keys = partition_keys(workload.session, workload.keyspace)
            indexed = indexed_tables(workload.session, workload.keyspace)
            recorder = recording(workload)

            def wrong_path(n: int, done: list) -> str | None:
                if any(s.filtering for s in done):
                    return (f"login({n}) ran {listing(done)}: ALLOW FILTERING reads every partition on every node. "
                            "Read a table whose partition key is what the login knows")
                off_key = [s for s in done if not by_partition_key(s, keys)]
                if off_key:
                    return (f"login({n}) ran {listing(done)}: {off_key[0]} does not name the whole partition key of "
                            f"its table ({', '.join(keys.get(off_key[0].table, ['?']))}), so the coordinator cannot go to one partition")
                through_index = [s for s in done if s.table in indexed]
                if through_index:
                    return f"login({n}) read {through_index[0].table}, which has a secondary index: an index is asked on every node"
                if len(done) > 2:
                    return f"login({n}) ran {len(done)} reads ({listing(done)}); two are enough"
                return None

            for n in range(0, users, max(1, users // 20)):
                found, wrong = judged_call(recorder, f"login({n})", lambda: workload.login(a_transaction(), n), lambda done: wrong_path(n, done))
                if wrong:
                    return report.add(step, False, wrong)
                if getattr(found, "id", None) != id_of(n):
                    return report.add("login returns the right user", False, f"login({n}) returned {found!r}, expected the row of {email_of(n)} with id {id_of(n)}")
        except NotImplementedError as exc:
            return report.add(step, False, not_written(str(exc)))
        finally:
            workload.close_process()
        report.add(step, True, "checked 20 logins one by one")
        return report.add("login returns the right user", True, "the same 20")

    return check_all(f"Index Table exercise ({workload_class.__name__})", [
        Graded(own, 0), Graded(register, 1, [own]), Graded(register_path, 2, [own]), Graded(login_path, 2, [register]), Graded(login, 1, [register]),
    ])
