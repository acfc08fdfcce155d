"""What the Fan-out on Write exercise hands a student: the follower graph, the activities table, their statements, the
network and the check. The table(s) a feed is read from, post() and the feed page are the student's to design and
write (the library's FanOut is the solution, so the base is a stub).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engines.cassandra_ranges import RangeReader
from ...runner import Transaction, Verification
from ...namespace import in_namespace
from ..exercise_tables import StudentTables, by_partition_key, indexed_tables, own_design, partition_keys
from .cassandra import FanOut as _Binding
from .cassandra import FanOut, ReaderState, schema
from .core import Network

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster
    from ..exercise import CheckReport

__all__ = ["FanOutExercise", "ReaderState", "check_exercise"]


class FanOutExercise(StudentTables, _Binding):
    """The follower graph (`followers (user_id, follower)`), the activities (`activity (user_id, created_at)`, newest
    first) with their statements (`self.statements.insert_activity`, `.read_followers`), `self.prepare(cql)` for
    statements of your own, the network and verify(): the feed's table(s) (`feed_tables()`), post() and
    read_page_pattern() are yours."""

    def feed_tables(self) -> list[str]:
        raise NotImplementedError("feed_tables() is not written yet")

    def post(self, tx: Transaction, user: int, k: int) -> None:
        raise NotImplementedError("post() is not written yet")

    def read_page_pattern(self, tx: Transaction, user: int, state: ReaderState) -> list[tuple[int, int]]:
        raise NotImplementedError("read_page_pattern() is not written yet")

    # ---- what the exercise gives -----------------------------------------------------------------

    def student_ddl(self) -> list[str]:
        return self.feed_tables()

    def statement_texts(self) -> dict[str, str | None]:
        return {**super().statement_texts(), "insert_feed": None, "feed_first": None, "feed_next": None}  # the feed is the student's

    def schema_statements(self) -> list[str]:
        return [ddl for ddl in schema(self.keyspace) if f"{self.keyspace}.feed " not in ddl] + self.feed_tables()

    def feed_table_names(self) -> list[str]:
        return self.own_tables()

    def load(self) -> None:
        """The paginate phase's activities, posted by your post() every time (your tables are yours to fill; a design
        changed since the last check must not find the old one's rows)."""
        if self.phase != "paginate":
            return
        from ..exercise import a_transaction

        for table in ("activity", *self.own_tables()):
            self.session.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)
        for user, k in self.network.schedule:
            self.post(a_transaction(), user, k)

    def stored_feed(self, reader: int) -> list[tuple[int, int]]:
        """A reader's whole feed as your pages show it (the paginate phase's verify())."""
        from ..exercise import a_transaction

        return self.read_whole_feed(a_transaction(), reader)

    def verify(self) -> Verification:
        """Paginate: every reader's feed, paged through with your code, holds exactly the activities it follows. Post:
        the activities posted, and your tables holding one row per follower of each (your pages are not needed yet)."""
        if self.phase == "paginate":
            return super().verify()
        posted = self.network.schedule[: self.posts]
        activities = RangeReader(self.session).count(f"{self.keyspace}.activity", "user_id")
        expected = sum(len(self.network.followers[u]) for u, _k in posted)
        problems, checks = [], {"activities": activities, "expected_activities": len(posted), "expected_feed_rows": expected}
        if activities != len(posted):
            problems.append(f"{activities} activities stored, {len(posted)} expected")
        for table in self.own_tables():
            rows = self.session.execute(f"SELECT COUNT(*) FROM {self.keyspace}.{table}", timeout=120).one()[0]
            checks[f"{table}_rows"] = rows
            if rows != expected:
                problems.append(f"{table} holds {rows} rows; one per follower of each activity posted is {expected}")
        return Verification(not problems, checks, problems)


def check_exercise(workload_class: type[FanOut], cluster: CassandraCluster, network: Network | None = None, readers: int = 5) -> "CheckReport":
    """The exercise's check: the student's own post() and feed page (not the library's), run for real (every
    activity posted, 100 pages, whole feeds compared with the network's), and their access paths: a post
    writes the activity and one row per follower into the student's feed table(s); a page is one read of one
    partition of a feed table, naming its whole partition key as the servers' schema holds it, never the
    activities of the users followed (that is fan-out on read)."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, not_written, run_step
    from ..exercise_paths import judged_call, listing, recording

    network = network or Network(users=30, follows=12, posts=5)

    def own(report: CheckReport) -> bool:
        return own_design(report, workload_class, ("post", "read_page_pattern", "feed_tables"), lambda: in_namespace(workload_class(cluster.addresses, "pattern", "post", network), cluster))

    def post(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.addresses, "pattern", "post", network), cluster)
        return run_step(report, "post every activity and copy it to each follower's feed", workload, network.activities)

    def post_path(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.addresses, "pattern", "post", network), cluster)
        step = "a post writes the activity, reads the followers, and writes one row per follower into your feed table"
        try:
            workload.setup()
            feeds = workload.own_tables()
            if not feeds:
                return report.add(step, False, "feed_tables() creates no table: a reader's page needs a table that holds its feed")
            recorder = recording(workload)
            for user in range(3):  # activity 0 of users 0..2, posted again (the same rows)
                workload.post(a_transaction(), user, 0)
                done = recorder.take()
                feed_writes = [s for s in done if s.verb in ("INSERT", "UPDATE") and s.table in feeds]
                activity_writes = [s for s in done if s.verb == "INSERT" and s.table == "activity"]
                expected = len(network.followers[user]) * len(feeds)
                if len(activity_writes) != 1 or len(feed_writes) != expected:
                    return report.add(step, False, f"post({user}, 0) ran {listing(done)}: expected one activity row and {expected} "
                                                   f"rows in {', '.join(feeds)} (one per follower of user {user})")
        finally:
            workload.close_process()
        return report.add(step, True, "checked 3 posts")

    def paginate(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.addresses, "pattern", "paginate", network), cluster)
        if not run_step(report, "read 100 feed pages", workload, 100):
            return False
        try:
            for reader in range(readers):
                seen = workload.read_whole_feed(a_transaction(), reader)
                expected = network.expected_feed(reader)
                if seen != expected:
                    first = next((i for i, (a, b) in enumerate(zip(seen, expected)) if a != b), min(len(seen), len(expected)))
                    return report.add(
                        f"page through reader {reader}'s whole feed", False,
                        f"{len(seen)} items shown, {len(expected)} expected; first difference at item {first}: "
                        f"{seen[first] if first < len(seen) else 'nothing'} instead of {expected[first] if first < len(expected) else 'nothing'}",
                    )
        except NotImplementedError as exc:
            return report.add("page through whole feeds", False, not_written(str(exc)))
        finally:
            workload.close_process()
        return report.add(f"page through {readers} readers' whole feeds", True, "newest first, every activity once")

    def page_path(report: CheckReport) -> bool:
        workload = in_namespace(workload_class(cluster.addresses, "pattern", "paginate", network), cluster)
        step = "a page is one read of one partition of your feed table, by its partition key"
        try:
            workload.setup()
            workload.load()  # every activity, posted with the student's post()
            feeds = set(workload.own_tables())
            keys = partition_keys(workload.session, workload.keyspace)
            indexed = indexed_tables(workload.session, workload.keyspace)
            recorder = recording(workload)
            state = ReaderState()

            def wrong_path(page: int, done: list) -> str | None:
                elsewhere = [s for s in done if s.table not in feeds or not by_partition_key(s, keys) or s.table in indexed]
                if elsewhere:
                    hint = ("reading the followed users' activities is fan-out on read: " if any(s.table == "activity" for s in elsewhere) else "")
                    return (f"page {page + 1} ran {listing(done)}: {hint}a page reads one partition of your feed table, "
                            f"naming its whole partition key ({', '.join(f'{t}: {keys.get(t)}' for t in feeds)}), and nothing else")
                if len(done) != 1 and not (len(done) == 2 and state.feed_cursor is not None):  # two: the feed ran out and starts again
                    return f"page {page + 1} ran {len(done)} queries ({listing(done)}); one is enough"
                return None

            for page in range(3):
                _, wrong = judged_call(recorder, f"page {page + 1}", lambda: workload.read_page_pattern(a_transaction(), 0, state),
                                       lambda done: wrong_path(page, done))
                if wrong:
                    return report.add(step, False, wrong)
        except NotImplementedError as exc:
            return report.add(step, False, not_written(str(exc)))
        finally:
            workload.close_process()
        return report.add(step, True, "3 pages, one feed query each")

    return check_all(f"Fan-out on Write exercise ({workload_class.__name__})", [Graded(own, 0), Graded(post, 1, [own]), Graded(post_path, 2, [own]), Graded(page_path, 2, [post]), Graded(paginate, 1, [post])])
