"""The exercises' checks cannot be passed without the pattern: a student class that does not write the
methods, one that reuses the library's (the solution), and one that writes the anti-pattern each fail,
with a sentence that names what is wrong. Real servers: Cassandra (embedded), MongoDB's labelled stand-in.
Small sizes: what is tested is the check's judgement, not speed."""

from __future__ import annotations

import pytest

from labkit.clusters.standin.mongodb import StandinMongo
from labkit.patterns.distorted_replicas import exercise as dr
from labkit.patterns.enumerable_keys import exercise as ek
from labkit.patterns.fan_out import exercise as fan_out
from labkit.patterns.fan_out.core import Network
from labkit.patterns.index_table import exercise as index_table
from labkit.patterns.index_table.cassandra import IndexTable


def failed_at(report, step_words: str, *said: str) -> None:
    """The report did not pass, its first ✗ step is the one named, and its detail says each of `said`."""
    assert not report.passed, str(report)
    step, ok, detail = next(s for s in report.steps if not s[1])
    assert step_words in step, str(report)
    for words in said:
        assert words in detail, str(report)


SHARED_CLUSTERS = ("one_node",)  # UUID Key's check on two datacenters is in test_uuid_key.py (the one-node block runs as one)


@pytest.fixture(scope="module")
def one_node(shared_clusters):
    return shared_clusters.get("one_node", __name__)


# ---- Index Table ---------------------------------------------------------------------------------


class IndexTableNotWritten(index_table.IndexTableExercise):
    pass


class IndexTableFromTheLibrary(IndexTable):
    """The binding itself: the solution, reached around the exercise."""


class IndexTableScanning(index_table.IndexTableExercise):
    """Right answers, wrong path: a lookup table is kept, but the login scans the users with ALLOW FILTERING."""

    def lookup_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.users_by_email (email text PRIMARY KEY, user_id uuid)"]

    def register(self, tx, n):
        user_id, email, name, password_hash = index_table.user_row(n)
        tx.call("insert_user", self.session.execute, self.statements.insert_user, (user_id, email, name, password_hash))
        tx.call("insert_lookup", self.session.execute, self.prepare(f"INSERT INTO {self.keyspace}.users_by_email (email, user_id) VALUES (?, ?)"), (email, user_id))

    def login(self, tx, n):
        query = f"SELECT id, email, name, password_hash FROM {self.keyspace}.users_pattern WHERE email = %s ALLOW FILTERING"
        return tx.call("scan", self.session.execute, query, (index_table.email_of(n),)).one()


class IndexTableThroughAnIndex(index_table.IndexTableExercise):
    """No table of its own: a secondary index on the users' e-mail, asked on every node."""

    def lookup_tables(self):
        return [f"CREATE INDEX IF NOT EXISTS users_email ON {self.keyspace}.users_pattern (email)"]

    def register(self, tx, n):
        tx.call("insert_user", self.session.execute, self.statements.insert_user, index_table.user_row(n))

    def login(self, tx, n):
        query = self.prepare(f"SELECT id, email, name, password_hash FROM {self.keyspace}.users_pattern WHERE email = ?")
        return tx.call("by_index", self.session.execute, query, (index_table.email_of(n),)).one()


class IndexTableCopy(index_table.IndexTableExercise):
    """Another right design: the whole user copied into a table keyed by e-mail, so a login is one key read."""

    def lookup_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.user_by_email (email text PRIMARY KEY, id uuid, name text, password_hash text)"]

    def register(self, tx, n):
        user_id, email, name, password_hash = index_table.user_row(n)
        tx.call("insert_user", self.session.execute, self.statements.insert_user, (user_id, email, name, password_hash))
        copy = self.prepare(f"INSERT INTO {self.keyspace}.user_by_email (email, id, name, password_hash) VALUES (?, ?, ?, ?)")
        tx.call("insert_copy", self.session.execute, copy, (email, user_id, name, password_hash))

    def login(self, tx, n):
        query = self.prepare(f"SELECT id, email, name, password_hash FROM {self.keyspace}.user_by_email WHERE email = ?")
        user = tx.call("read_copy", self.session.execute, query, (index_table.email_of(n),)).one()
        if user is None:
            raise LookupError("no such user")
        return user


def test_index_table_needs_the_students_own_methods(one_node):
    failed_at(index_table.check_exercise(IndexTableNotWritten, one_node, users=20), "your methods", "labkit.patterns.index_table.exercise")
    failed_at(index_table.check_exercise(IndexTableFromTheLibrary, one_node, users=20), "your methods", "labkit.patterns.index_table.cassandra.IndexTable")


@pytest.mark.full  # full tier: nbgrader's autograde scores the same half-right design (6.7 of 10, the filtering login named)
def test_index_table_refuses_a_filtering_login_and_keeps_the_registrations_points(one_node):
    report = index_table.check_exercise(IndexTableScanning, one_node, users=20)
    failed_at(report, "at most two partitions", "ALLOW FILTERING")
    assert 0 < report.score() < 10 and "✓ a registration writes the user row and one row into each of your tables" in str(report), report


def test_index_table_refuses_a_login_through_a_secondary_index(one_node):
    report = index_table.check_exercise(IndexTableThroughAnIndex, one_node, users=20)
    failed_at(report, "a registration writes", "no table")
    failed = {step: detail for step, ok, detail in report.steps if not ok}
    assert "partition key" in failed["a login reads at most two partitions, each by its table's partition key"], report


@pytest.mark.full  # full tier: the namespace test below runs the same design to a pass
def test_index_table_accepts_another_design_that_reads_by_key(one_node):
    report = index_table.check_exercise(IndexTableCopy, one_node, users=20)
    assert report.passed and report.score() == 10, report


def test_a_check_in_a_namespace_keeps_to_its_own_keyspace(one_node, monkeypatch):
    """On a course's shared cluster every student checks in their own namespace: the check makes its workloads
    there (and drops only its own tables there), so one student's check never touches another's."""
    from labkit.engines import cassandra as cql
    from labkit.namespace import ENV
    from labkit.patterns.index_table.cassandra import KEYSPACE

    monkeypatch.setenv(ENV, "checker")
    report = index_table.check_exercise(IndexTableCopy, one_node, users=20)
    assert report.passed and report.score() == 10, report
    session = cql.connect(one_node.addresses)
    try:
        tables = {(r.keyspace_name, r.table_name) for r in session.execute("SELECT keyspace_name, table_name FROM system_schema.tables")}
        assert ("checker_" + KEYSPACE, "user_by_email") in tables
        session.execute(f"DROP KEYSPACE IF EXISTS checker_{KEYSPACE}", timeout=120)
    finally:
        session.cluster.shutdown()


# ---- Fan-out on Write ----------------------------------------------------------------------------


class FanOutOnRead(fan_out.FanOutExercise):
    """Posts are fanned out, but a page asks each followed user's activities: fan-out on read."""

    def feed_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.feed (user_id int, created_at bigint, author int, content text, "
                "PRIMARY KEY (user_id, created_at, author)) WITH CLUSTERING ORDER BY (created_at DESC, author DESC)"]

    def post(self, tx, user, k):
        st, net = self.statements, self.network
        created, content = net.created_at(user, k), net.content(user, k)
        tx.call("insert_activity", self.session.execute, st.insert_activity, (user, created, content))
        insert_feed = self.prepare(f"INSERT INTO {self.keyspace}.feed (user_id, created_at, author, content) VALUES (?, ?, ?, ?)")
        for row in tx.call("read_followers", self.session.execute, st.read_followers, (user,)):
            tx.call("insert_feed", self.session.execute, insert_feed, (row.follower, created, user, content))

    def read_page_pattern(self, tx, user, state):
        page = []
        for followed in self.network.following[user][: self.page_size]:
            rows = tx.call("friend_page", self.session.execute, self.statements.friend_page, (followed, 2**62, 1)).current_rows
            page += [(r.created_at, followed) for r in rows]
        return sorted(page, reverse=True)


class FanOutByTimeBucket(FanOutOnRead):
    """Another right design: the feed partitioned by reader and a bucket of time is still one partition per page
    here (every activity of this small network falls in one bucket), read by its whole partition key."""

    def feed_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.feed_by_week (user_id int, week int, created_at bigint, author int, "
                "PRIMARY KEY ((user_id, week), created_at, author)) WITH CLUSTERING ORDER BY (created_at DESC, author DESC)"]

    def post(self, tx, user, k):
        st, net = self.statements, self.network
        created, content = net.created_at(user, k), net.content(user, k)
        tx.call("insert_activity", self.session.execute, st.insert_activity, (user, created, content))
        insert_feed = self.prepare(f"INSERT INTO {self.keyspace}.feed_by_week (user_id, week, created_at, author) VALUES (?, 0, ?, ?)")
        for row in tx.call("read_followers", self.session.execute, st.read_followers, (user,)):
            tx.call("insert_feed", self.session.execute, insert_feed, (row.follower, created, user))

    def read_page_pattern(self, tx, user, state):
        first = self.prepare(f"SELECT created_at, author FROM {self.keyspace}.feed_by_week WHERE user_id = ? AND week = 0 LIMIT ?")
        after = self.prepare(f"SELECT created_at, author FROM {self.keyspace}.feed_by_week WHERE user_id = ? AND week = 0 AND (created_at, author) < (?, ?) LIMIT ?")
        rows = []
        if state.feed_cursor is not None:
            rows = tx.call("read_feed", self.session.execute, after, (user, *state.feed_cursor, self.page_size)).current_rows
        if not rows:
            rows = tx.call("read_feed", self.session.execute, first, (user, self.page_size)).current_rows
        page = [(r.created_at, r.author) for r in rows]
        state.feed_cursor = page[-1] if page else None
        return page


def test_fan_out_refuses_a_page_read_from_the_followed_users(one_node):
    report = fan_out.check_exercise(FanOutOnRead, one_node, network=Network(users=12, follows=4, posts=2), readers=2)
    failed_at(report, "one read", "fan-out on read")
    assert 0 < report.score() < 10, report  # the posts' points stay


def test_fan_out_accepts_another_feed_design_read_by_its_whole_partition_key(one_node):
    report = fan_out.check_exercise(FanOutByTimeBucket, one_node, network=Network(users=12, follows=4, posts=2), readers=2)
    assert report.passed and report.score() == 10, report


# ---- Distorted Replicas --------------------------------------------------------------------------


class AuthorCopy(dr.DistortedReplicasExercise):
    """An author copy keyed by author, its page one partition read (the statements shared by the designs below)."""

    def author_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.by_author (author text, pub_id text, title text, "
                "PRIMARY KEY (author, pub_id))"]

    def copy_rows(self, pub):
        insert = self.prepare(f"INSERT INTO {self.keyspace}.by_author (author, pub_id, title) VALUES (?, ?, ?)")
        return [(insert, (author, pub.pub_id, pub.title)) for author in pub.authors]

    def uncopy_rows(self, pub):
        delete = self.prepare(f"DELETE FROM {self.keyspace}.by_author WHERE author = ? AND pub_id = ?")
        return [(delete, (author, pub.pub_id)) for author in pub.authors]

    def every_write(self, pub):
        st = self.statements
        return [(st.insert_aggregate, dr.row_of(pub)),
                *((st.insert_vertical[g], (pub.pub_id, *dr.values(pub, g).values())) for g in dr.GROUP_NAMES), *self.copy_rows(pub)]

    def every_delete(self, pub):
        st = self.statements
        return [(st.delete_aggregate, (pub.pub_id,)), *((st.delete_vertical[g], (pub.pub_id,)) for g in dr.GROUP_NAMES), *self.uncopy_rows(pub)]

    def publications_of(self, tx, author):
        page = self.prepare(f"SELECT pub_id, title FROM {self.keyspace}.by_author WHERE author = ?")
        return list(tx.call("author_page", self.session.execute, page, (author,)))


class ReplicasOneByOne(AuthorCopy):
    """Every shape written, but each as its own request: a failure between them leaves shapes that disagree."""

    def publish(self, tx, pub):
        for statement, values in self.every_write(pub):
            tx.call("write", self.session.execute, statement, values)

    def withdraw(self, tx, pub):
        for statement, values in self.every_delete(pub):
            tx.call("delete", self.session.execute, statement, values)


def in_one_batch(session, tx, name, writes):
    batch = dr.BatchStatement(batch_type=dr.BatchType.LOGGED)
    for statement, values in writes:
        batch.add(statement, values)
    tx.call(name, session.execute, batch)


class ReplicasInOneBatch(AuthorCopy):
    """Another right design: the author copy holds the title only, keyed by author; one logged batch per change."""

    def publish(self, tx, pub):
        in_one_batch(self.session, tx, "publish", self.every_write(pub))

    def withdraw(self, tx, pub):
        in_one_batch(self.session, tx, "withdraw", self.every_delete(pub))


class AuthorPageByFiltering(ReplicasInOneBatch):
    """Half right: the copy is kept in one batch, but keyed by publication, so an author's page filters every partition."""

    def author_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.by_author (pub_id text, author text, title text, "
                "PRIMARY KEY (pub_id, author))"]

    def publications_of(self, tx, author):
        page = self.prepare(f"SELECT pub_id, title FROM {self.keyspace}.by_author WHERE author = ? ALLOW FILTERING")
        return list(tx.call("author_page", self.session.execute, page, (author,)))


def test_distorted_replicas_refuses_separate_writes_and_keeps_the_other_points(one_node):
    report = dr.check_exercise(ReplicasOneByOne, one_node, publications=120, operations=40)
    failed_at(report, "one logged batch", "request(s)")
    assert 0 < report.score() < 10 and len(report.failed()) == 1, report


def test_distorted_replicas_scores_a_filtering_author_page_in_part_and_passes_another_design(one_node):
    report = dr.check_exercise(AuthorPageByFiltering, one_node, publications=120, operations=40)
    failed_at(report, "one read of one partition", "ALLOW FILTERING", "['pub_id']")
    assert 0 < report.score() < 10 and len(report.failed()) == 1, report
    report = dr.check_exercise(ReplicasInOneBatch, one_node, publications=120, operations=40)
    assert report.passed and report.score() == 10, report


# ---- Enumerable Keys (MongoDB stand-in) ----------------------------------------------------------


class CommentsNumberedByTheCounter(ek.MongoCommentsExercise):
    """The pattern's add(): the post's counter hands out the number, the comment is stored under key(number)."""

    def add(self, tx, text):
        before = tx.call("increment_counter", self.db.posts.find_one_and_update, {"_id": self.post}, {"$inc": {"count": 1}},
                         return_document=ek.ReturnDocument.BEFORE)
        n = before["count"] + 1
        tx.call("insert_comment", self.db.comments.insert_one, {"_id": self.key(n), "post": self.post, "n": n, "text": text})


class CommentsByPostQuery(CommentsNumberedByTheCounter):
    """Comments as their own documents, but a page is a query of the comments by post, sorted: the anti-pattern."""

    def key(self, n):
        return f"{self.post}/{n}"

    def read_page(self, tx, cursor):
        skip = cursor or 0
        docs = list(self.db.comments.find({"post": self.post}).sort("n", -1).skip(skip).limit(10))
        return [d["text"] for d in docs], (skip + 10 if len(docs) == 10 else None)


def test_enumerable_keys_refuses_a_page_queried_by_post():
    with StandinMongo() as server:
        failed_at(ek.check_exercise(CommentsByPostQuery, server, comments=40), "bulk get of computed keys", "query of the comments by post")


class CommentsKeyedByNumberOnly(CommentsNumberedByTheCounter):
    """Half right: the pattern's paths, but a key made of the number alone, which every post's comment n shares."""

    def key(self, n):
        return n

    def read_page(self, tx, cursor):
        top = cursor if cursor is not None else self.db.posts.find_one({"_id": self.post})["count"]
        found = []
        while len(found) < 10 and top >= 1:
            wanted = [self.key(n) for n in range(top, max(0, top - (10 - len(found))), -1)]
            found += sorted(((d["n"], d["text"]) for d in self.db.comments.find({"_id": {"$in": wanted}})), reverse=True)
            top -= len(wanted)
        return [text for _n, text in found], (top if top >= 1 else None)


def test_enumerable_keys_scores_a_key_without_its_post_in_part():
    with StandinMongo() as server:
        report = ek.check_exercise(CommentsKeyedByNumberOnly, server, comments=40)
    failed_at(report, "computed from its post and number", "the key needs the post")
    assert 0 < report.score() < 10, report
