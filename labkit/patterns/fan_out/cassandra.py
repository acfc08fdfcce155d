"""Fan-out on Write's Cassandra binding: a news feed assembled at read time (naive) or copied at write time (pattern).

Two phases, as in the source's test: `post` (each transaction saves one activity of a user) and
`paginate` (each transaction reads the next page of one user's feed). Approaches:
- `naive` (Fan-out on Read): activities partitioned by author; a feed page is gathered from the
  followed users' partitions: one query per followed user, all in flight at once, each for their
  `page_size` newest activities below that author's cursor, merged newest first by the client;
- `pattern` (Fan-out on Write): each post also writes one row into the feed partition of every
  follower; a page is one query on the reader's own partition.
Both answer one question: the reader's feed in (created_at, author) descending order, `page_size` at a
time, each page continuing below the last (core.merge_newest says why the two give the same pages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cassandra import ConsistencyLevel
from cassandra.query import PreparedStatement

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...errors import ConfigError
from ...namespace import in_namespace
from ...runner import Transaction, Verification, WorkerLock
from ..cassandra_workload import CassandraWorkload
from .core import APPROACHES, NAME, NEWEST, PHASES, Network, advance, author_bounds, merge_newest
from .in_flight import AllInFlight

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster

KEYSPACE = "fan_out"


def schema(keyspace: str = KEYSPACE) -> list[str]:
    return [
        f"CREATE TABLE IF NOT EXISTS {keyspace}.follows (user_id int, followed int, PRIMARY KEY (user_id, followed))",
        f"CREATE TABLE IF NOT EXISTS {keyspace}.followers (user_id int, follower int, PRIMARY KEY (user_id, follower))",
        f"CREATE TABLE IF NOT EXISTS {keyspace}.activity (user_id int, created_at bigint, content text, "
        "PRIMARY KEY (user_id, created_at)) WITH CLUSTERING ORDER BY (created_at DESC)",
        f"CREATE TABLE IF NOT EXISTS {keyspace}.feed (user_id int, created_at bigint, author int, content text, "
        "PRIMARY KEY (user_id, created_at, author)) WITH CLUSTERING ORDER BY (created_at DESC, author DESC)",
        f"CREATE TABLE IF NOT EXISTS {keyspace}.loaded (what text PRIMARY KEY, network text)",
    ]


@dataclass
class Statements:
    insert_activity: PreparedStatement
    insert_feed: PreparedStatement
    read_followers: PreparedStatement
    friend_page: PreparedStatement  # naive: one followed user's newest activities older than a cursor (LIMIT ?)
    feed_first: PreparedStatement  # pattern: the newest page of a feed
    feed_next: PreparedStatement  # pattern: the page after a (created_at, author) cursor


class ReaderState:
    """Where one user's pagination stopped; the lock keeps one user's pages in sequence."""

    def __init__(self) -> None:
        self.lock = WorkerLock()  # held across the page's reads: a greenlet worker must park, not block
        self.friend_cursor: dict[int, int] = {}  # naive: per followed user, the time of their oldest activity shown so far
        self.feed_cursor: tuple[int, int] | None = None  # pattern: the last row of the previous page
        self.pages = 0
        self.wrapped = 0  # how often the whole feed was read and pagination restarted at the top


class FanOut(CassandraWorkload):
    """One phase of the Fan-out test with one approach on a generated follower network."""

    base_keyspace = KEYSPACE

    def __init__(
        self,
        addresses: list[str],
        approach: str,
        phase: str,
        network: Network,
        posts: int | None = None,
        page_size: int = 10,
        replication: int = 1,
        consistency: str = "ONE",
    ):
        """`posts`: how many activities the post phase saves (its run's `operations`; default all of
        them): transaction seq*workers+worker posts that entry of the network's schedule, so verify()
        knows exactly which activities must exist."""
        self.open_as(NAME, addresses, approach, phase, approaches=APPROACHES, phases=PHASES, replication=replication, consistency=consistency)
        posts = network.activities if posts is None else posts
        if not 1 <= posts <= network.activities:
            raise ConfigError(f"posts must be from 1 to the network's {network.activities} activities; got {posts}")
        if page_size < 1:
            raise ConfigError(f"page_size must be at least 1; got {page_size}")
        self.network = network
        self.page_size = page_size
        self.posts = posts
        self._readers: dict[int, ReaderState] = {}  # pagination state of this client process

    statements_class = Statements
    _transient = ("_readers",)

    def statement_texts(self) -> dict[str, str | None]:
        return {
            "insert_activity": f"INSERT INTO {self.keyspace}.activity (user_id, created_at, content) VALUES (?, ?, ?)",
            "insert_feed": f"INSERT INTO {self.keyspace}.feed (user_id, created_at, author, content) VALUES (?, ?, ?, ?)",
            "read_followers": f"SELECT follower FROM {self.keyspace}.followers WHERE user_id = ?",
            "friend_page": f"SELECT created_at, content FROM {self.keyspace}.activity WHERE user_id = ? AND created_at < ? LIMIT ?",
            "feed_first": f"SELECT created_at, author, content FROM {self.keyspace}.feed WHERE user_id = ? LIMIT ?",
            "feed_next": f"SELECT created_at, author, content FROM {self.keyspace}.feed WHERE user_id = ? AND (created_at, author) < (?, ?) LIMIT ?",
        }

    # ---- phases ----------------------------------------------------------------------------------

    def schema_statements(self) -> list[str]:
        """The CQL of this workload's tables (the exercise's workload puts the student's feed tables in)."""
        return schema(self.keyspace)

    def feed_table_names(self) -> list[str]:
        """The tables that hold feeds (emptied with the activities when the post phase starts)."""
        return ["feed"]

    def setup(self) -> None:
        """Schema and the follower graph (loaded once per network); the post phase starts with no activities."""
        s = self.session
        cql.create_keyspace(s, self.keyspace, self.replication)
        for statement in self.schema_statements():
            cql.execute_ddl(s, statement)
        net = repr(self.network)
        marker = s.execute(f"SELECT network FROM {self.keyspace}.loaded WHERE what = 'graph'").one()
        if marker is None or marker.network != net:
            for table in ("follows", "followers", "activity", *self.feed_table_names(), "loaded"):
                s.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)
            follows = s.prepare(f"INSERT INTO {self.keyspace}.follows (user_id, followed) VALUES (?, ?)")
            followers = s.prepare(f"INSERT INTO {self.keyspace}.followers (user_id, follower) VALUES (?, ?)")
            pairs = [(u, v) for u, vs in self.network.following.items() for v in vs]
            cql.write_all(s, follows, pairs)
            cql.write_all(s, followers, [(v, u) for u, v in pairs])
            s.execute(f"INSERT INTO {self.keyspace}.loaded (what, network) VALUES ('graph', %s)", (net,))
        if self.phase == "post":
            s.execute(f"DELETE FROM {self.keyspace}.loaded WHERE what = 'activities'")
            for table in ("activity", *self.feed_table_names()):
                s.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)

    def load(self) -> None:
        """The paginate phase needs every activity posted (and, for the pattern, fanned out) first."""
        if self.phase != "paginate":
            return
        s = self.session
        wanted = f"{self.network!r} fanned={self.approach == 'pattern'}"
        marker = s.execute(f"SELECT network FROM {self.keyspace}.loaded WHERE what = 'activities'").one()
        if marker is not None and marker.network in (wanted, f"{self.network!r} fanned=True"):
            return  # a fanned-out load serves both approaches
        st = self.statements
        net = self.network
        cql.write_all(s, st.insert_activity, [(u, net.created_at(u, k), net.content(u, k)) for u, k in net.schedule])
        if self.approach == "pattern":
            rows = [(f, net.created_at(u, k), u, net.content(u, k)) for u, k in net.schedule for f in net.followers[u]]
            cql.write_all(s, st.insert_feed, rows)
        s.execute(f"INSERT INTO {self.keyspace}.loaded (what, network) VALUES ('activities', %s)", (wanted,))

    def transaction(self, tx: Transaction) -> None:
        if self.phase == "post":
            if tx.seq < 0:
                return  # no warm-up for writes: it would post activities verify() does not expect
            n = tx.seq * tx.workers + tx.worker
            if n >= self.posts:
                raise ConfigError(f"the post phase was built for {self.posts} posts; run it with operations={self.posts}")
            user, k = self.network.schedule[n]
            self.post(tx, user, k)
        else:
            self.paginate(tx, tx.rng.randrange(self.network.users))

    def post(self, tx: Transaction, user: int, k: int) -> None:
        """Naive: one write. Pattern: that write, the author's followers, then one feed row per follower."""
        s, st, net = self.session, self.statements, self.network
        created, content = net.created_at(user, k), net.content(user, k)
        tx.call("insert_activity", s.execute, st.insert_activity, (user, created, content))
        if self.approach == "pattern":
            followers = tx.call("read_followers", s.execute, st.read_followers, (user,))
            for row in followers:
                tx.call("insert_feed", s.execute, st.insert_feed, (row.follower, created, user, content))

    def reader(self, user: int) -> ReaderState:
        with self._lock:
            state = self._readers.get(user)
            if state is None:
                state = self._readers[user] = ReaderState()
            return state

    def read_whole_feed(self, tx: Transaction, user: int) -> list[tuple[int, int]]:
        """Page through `user`'s feed from the top until every activity was shown once (for checks)."""
        self._readers.pop(user, None)
        total = len(self.network.expected_feed(user, self.posted_set()))
        seen: list[tuple[int, int]] = []
        while len(seen) < total:
            page = self.paginate(tx, user)
            if not page:
                break
            seen += page
        return seen[:total] if len(seen) >= total else seen

    def paginate(self, tx: Transaction, user: int) -> list[tuple[int, int]]:
        """Read the next page of `user`'s feed; returns its (created_at, author) items."""
        state = self.reader(user)
        with state.lock:
            page = self.read_page_naive(tx, user, state) if self.approach == "naive" else self.read_page_pattern(tx, user, state)
            state.pages += 1
        return page

    def read_page_naive(self, tx: Transaction, user: int, state: ReaderState) -> list[tuple[int, int]]:
        """Fan-out on Read, exact: ask every followed user for their `page_size` newest activities older than
        the last of theirs already shown (one bounded query each, all in flight at once), and keep the newest
        `page_size` of the answers. After the last page it starts again at the top, as the pattern's does."""
        page = self.newest_of_followed(tx, user, state.friend_cursor)
        if not page:  # the whole feed was shown: start over at the newest
            state.wrapped += 1
            state.friend_cursor.clear()
            page = self.newest_of_followed(tx, user, state.friend_cursor)
        advance(state.friend_cursor, page)
        return page

    def newest_of_followed(self, tx: Transaction, user: int, cursors: dict[int, int]) -> list[tuple[int, int]]:
        """The next page below `cursors`: one query per followed user (`read_friend` counts and times each), the
        whole gather timed as `read_followed`; the client merges, as each partition is sorted only by its author."""
        bounds = author_bounds(self.network.following[user], cursors)
        replies = tx.call("read_followed", AllInFlight(self.session, self.statements.friend_page),
                          [(author, bound, self.page_size) for author, bound in bounds])
        each = tx.measurements.op("read_friend")
        for _rows, micros in replies:
            each.record(micros)
        return merge_newest(((author, [r.created_at for r in rows]) for (author, _), (rows, _us) in zip(bounds, replies)), self.page_size)

    def read_page_pattern(self, tx: Transaction, user: int, state: ReaderState) -> list[tuple[int, int]]:
        """Fan-out on Write: one query on the reader's own partition, continuing after the last row."""
        s, st = self.session, self.statements
        if state.feed_cursor is None:
            rows = tx.call("read_feed", s.execute, st.feed_first, (user, self.page_size)).current_rows
        else:
            created, author = state.feed_cursor
            # the feed is clustered newest first (created_at DESC, author DESC): the next page is everything below the cursor
            rows = tx.call("read_feed", s.execute, st.feed_next, (user, created, author, self.page_size)).current_rows
        if not rows:
            state.wrapped += 1
            state.feed_cursor = None
            rows = tx.call("read_feed", s.execute, st.feed_first, (user, self.page_size)).current_rows
        page = [(r.created_at, r.author) for r in rows]
        state.feed_cursor = page[-1] if page else None
        return page

    # ---- checks ----------------------------------------------------------------------------------

    def posted_set(self) -> set[tuple[int, int]] | None:
        """Which activities exist: all of them for paginate, the schedule's first `posted` for post."""
        return None if self.phase == "paginate" else set(self.network.schedule[: self.posts])

    def stored_feed(self, reader: int) -> list[tuple[int, int]]:
        """The feed as this approach would show it in full: the feed partition (pattern), or every
        followed user's partition merged by the client (naive)."""
        s = self.session
        if self.approach == "pattern":
            return [(r.created_at, r.author) for r in s.execute(f"SELECT created_at, author FROM {self.keyspace}.feed WHERE user_id = %s", (reader,))]
        items = []
        for friend in self.network.following[reader]:
            items += [(r.created_at, friend) for r in s.execute(f"SELECT created_at FROM {self.keyspace}.activity WHERE user_id = %s", (friend,))]
        return sorted(items, reverse=True)

    def verify(self) -> Verification:
        """Every reader's feed holds exactly the activities of the users it follows, newest first."""
        posted = self.posted_set()
        s = self.session
        activities = RangeReader(s, consistency=ConsistencyLevel.LOCAL_ONE).count(f"{self.keyspace}.activity", "user_id")
        expected_activities = self.network.activities if posted is None else len(posted)
        problems = []
        if activities != expected_activities:
            problems.append(f"{activities} activities stored, {expected_activities} expected")
        wrong = []
        rows = 0
        for reader in range(self.network.users):
            feed = self.stored_feed(reader)
            rows += len(feed)
            if feed != self.network.expected_feed(reader, posted):
                wrong.append(reader)
        if wrong:
            problems.append(f"{len(wrong)} feeds differ from the activities their readers follow (first readers: {wrong[:5]})")
        checks = {"activities": activities, "expected_activities": expected_activities, "feeds_checked": self.network.users, "feed_items": rows}
        pages = sum(r.pages for r in self._readers.values())
        if self.phase == "paginate" and pages:  # counted where the pages were read: spawned client processes keep their own
            checks["pages_read"] = pages
        return Verification(not problems, checks, problems)

    def cleanup(self) -> None:
        cql.execute_ddl(self.session, f"DROP KEYSPACE IF EXISTS {self.keyspace}")


def trace_post(workload: FanOut, user: int = 0, k: int | None = None) -> cql.TraceTotals:
    """Post one extra activity with tracing on; sum up partitions written and nodes involved."""
    s, st, net = workload.session, workload.statements, workload.network
    k = net.posts + 1000 if k is None else k  # beyond the schedule, so verify()'s expectations are untouched
    created, content = net.created_at(user, k), net.content(user, k)
    reports = [cql.trace(s, st.insert_activity, (user, created, content))]
    followers = net.followers[user] if workload.approach == "pattern" else []  # what the traced read returns
    if workload.approach == "pattern":
        reports.append(cql.trace(s, st.read_followers, (user,)))
        reports += [cql.trace(s, st.insert_feed, (f, created, user, content)) for f in followers]
    totals = cql.summarise(reports)
    # take the traced activity back out again
    s.execute(f"DELETE FROM {workload.keyspace}.activity WHERE user_id = %s AND created_at = %s", (user, created))
    for f in followers:
        s.execute(f"DELETE FROM {workload.keyspace}.feed WHERE user_id = %s AND created_at = %s AND author = %s", (f, created, user))
    return totals


def trace_page(workload: FanOut, reader: int = 0) -> cql.TraceTotals:
    """Read the first page of one reader's feed with tracing on, the approach's own way (fan-out on read:
    one query per followed user, traced one after another)."""
    s, st = workload.session, workload.statements
    if workload.approach == "pattern":
        return cql.summarise([cql.trace(s, st.feed_first, (reader, workload.page_size))])
    followed = workload.network.following[reader]
    return cql.summarise([cql.trace(s, st.friend_page, (f, NEWEST, workload.page_size)) for f in followed])


def workload(approach: str, phase: str, cluster: CassandraCluster, operations: int, users: int, follows: int, posts: int, replication: int) -> FanOut:
    """The workload of one run: the post phase saves the first `operations` activities of the
    schedule (at most users x posts), the paginate phase reads `operations` pages."""
    network = Network(users=users, follows=follows, posts=posts)
    return in_namespace(FanOut(cluster.addresses, approach, phase, network, posts=min(operations, network.activities) if phase == "post" else None,
                               replication=replication), cluster)
