"""Fan-out on read's page is the feed's page: the newest `page_size` activities of the users a reader follows,
gathered from one bounded query per followed user (a cursor per author) and merged newest first, ties on the
time broken by author descending as the feed table's clustering breaks them. Checked here against an
in-memory store (no server); tests/integration/test_fan_out_same_page.py checks it against fan-out on write's
feed partition on a real node."""

from __future__ import annotations

import random
import threading
from collections import namedtuple

import pytest

from labkit.patterns.exercise import a_transaction
from labkit.patterns.fan_out import Network
from labkit.patterns.fan_out.cassandra import FanOut, Statements
from labkit.patterns.fan_out.core import NEWEST, advance, author_bounds, merge_newest
from labkit.patterns.fan_out.in_flight import AllInFlight
from labkit.runner import BaseWorkload, RetryPolicy, RunOptions, run
from labkit.runner.tasks import register_async_form

Row = namedtuple("Row", "created_at content")


def newest_below(times: list[int], bound: int, limit: int) -> list[int]:
    """`WHERE user_id = ? AND created_at < ? LIMIT ?` on a partition clustered by created_at DESC."""
    return sorted((t for t in times if t < bound), reverse=True)[:limit]


def pages_by_merge(store: dict[int, list[int]], followed: list[int], page_size: int, pages: int) -> list[list[tuple[int, int]]]:
    cursors: dict[int, int] = {}
    out = []
    for _ in range(pages):
        bounds = author_bounds(followed, cursors)
        page = merge_newest(((a, newest_below(store[a], b, page_size)) for a, b in bounds), page_size)
        advance(cursors, page)
        out.append(page)
    return out


def feed_pages(store: dict[int, list[int]], followed: list[int], page_size: int, pages: int) -> list[list[tuple[int, int]]]:
    """Fan-out on write's pages: the feed partition in (created_at DESC, author DESC), page after page."""
    feed = sorted(((t, a) for a in followed for t in store[a]), reverse=True)
    return [feed[i * page_size:(i + 1) * page_size] for i in range(pages)]


@pytest.mark.parametrize("seed", range(40))
def test_the_merged_pages_are_the_feeds_pages_with_ties_across_authors(seed):
    rng = random.Random(seed)
    authors = rng.randint(1, 12)
    page_size = rng.choice([1, 2, 3, 10])
    # times from a small range: many authors post at the same instant (an author's own times are distinct: its clustering key)
    store = {a: rng.sample(range(30), rng.randint(0, 12)) for a in range(authors)}
    followed = sorted(rng.sample(range(authors), rng.randint(1, authors)))
    total = sum(len(store[a]) for a in followed)
    pages = total // page_size + 2  # past the end: the empty pages agree too
    assert pages_by_merge(store, followed, page_size, pages) == feed_pages(store, followed, page_size, pages)


def test_one_time_bound_for_every_author_would_lose_an_activity_that_ties_across_a_page_break():
    """Why a cursor per author: authors 1 and 2 post at the same instant and the page breaks between them.
    Bounding every author by the page's last time skips author 1's activity at that time for ever."""
    store = {1: [5, 3], 2: [5, 4]}
    feed = feed_pages(store, [1, 2], 1, 4)
    assert feed == [[(5, 2)], [(5, 1)], [(4, 2)], [(3, 1)]]
    assert pages_by_merge(store, [1, 2], 1, 4) == feed
    last_time = feed[0][-1][0]  # 5: the next page below it, for every author, never shows (5, 1)
    one_bound = merge_newest(((a, newest_below(store[a], last_time, 1)) for a in (1, 2)), 1)
    assert one_bound == [(4, 2)] != feed[1]


def test_the_lab_network_pages_through_each_feed_once_newest_first():
    net = Network(users=30, follows=12, posts=5)
    store = {u: [net.created_at(u, k) for k in range(net.posts)] for u in range(net.users)}
    for reader in range(5):
        pages = pages_by_merge(store, net.following[reader], 10, 7)
        assert sum(pages, []) == net.expected_feed(reader)
        assert len(pages[5]) == 10 and pages[6] == []  # 60 activities: six pages of 10, then nothing


# ---- the binding's naive page, on a stand-in session whose reads reply from another thread -----------------


class FakeActivities:
    """`execute(statement, (author, bound, limit))` answers the activity table's bounded query; its
    asynchronous form replies from a timer thread, as the driver's IO thread does. Counts reads in flight."""

    def __init__(self, net: Network, delay: float = 0.002, fail_first: int = 0):
        self.times = {u: [net.created_at(u, k) for k in range(net.posts)] for u in range(net.users)}
        self.delay = delay
        self.fail_first = fail_first
        self.started = self.outstanding = self.most_outstanding = self.blocking = 0
        self._lock = threading.Lock()

    def rows(self, params: tuple) -> list[Row]:
        author, bound, limit = params
        return [Row(t, f"activity at {t}") for t in newest_below(self.times[author], bound, limit)]

    def execute(self, statement, params):
        assert statement == "friend_page"
        with self._lock:
            self.blocking += 1
        return self.rows(params)

    def start(self, statement, params, on_result, on_error):
        with self._lock:
            self.started += 1
            n = self.started
            self.outstanding += 1
            self.most_outstanding = max(self.most_outstanding, self.outstanding)

        def reply():
            with self._lock:
                self.outstanding -= 1
            if n <= self.fail_first:
                on_error(ConnectionError(f"read {n} refused"))
            else:
                on_result(self.rows(params))

        threading.Timer(self.delay, reply).start()


class BlockingOnly:
    """A session with no asynchronous form: AllInFlight reads one statement after another."""

    def __init__(self, inner: FakeActivities):
        self.inner = inner

    def execute(self, statement, params):
        return self.inner.execute(statement, params)


def _fake_form(fn):
    session = getattr(fn, "__self__", None)
    if isinstance(session, FakeActivities) and fn.__name__ == "execute":
        return lambda args, kwargs, on_result, on_error: session.start(*args, on_result, on_error)
    return None


register_async_form(_fake_form)


def naive_on(session, net: Network) -> FanOut:
    w = FanOut(["127.0.0.1"], "naive", "paginate", net)
    w._session = session  # noqa: SLF001  (the stand-in instead of a driver session)
    w._statements = Statements(insert_activity=None, insert_feed=None, read_followers=None, friend_page="friend_page",
                               feed_first=None, feed_next=None)
    return w


NET = Network(users=30, follows=12, posts=5)  # 12 followed users > 10 a page: the old binding's page was a round of 10


@pytest.mark.parametrize("blocking", [False, True], ids=["in flight together", "one after another"])
def test_the_bindings_naive_pages_are_the_feeds_and_it_starts_again_at_the_top(blocking):
    # replies after 50 ms: at the default 2 ms a loaded machine (the unit tier on two workers) answered the first
    # reads before the twelfth had started its timer thread (8 of 12 seen in flight, twice in five runs)
    fake = FakeActivities(NET, delay=0.05)
    w = naive_on(BlockingOnly(fake) if blocking else fake, NET)
    tx = a_transaction()
    for reader in (0, 3, 7):
        feed = NET.expected_feed(reader)
        pages = [w.paginate(tx, reader) for _ in range(6)]
        assert pages == [feed[i:i + 10] for i in range(0, 60, 10)], reader
        assert w.paginate(tx, reader) == feed[:10] and w.reader(reader).wrapped == 1  # after the last page: the top again
    assert tx.measurements.op("read_followed").count == 3 * 7 + 3  # one gather per page, one more at each wrap
    assert tx.measurements.op("read_friend").count == 12 * (3 * 7 + 3)  # one query per followed user per gather
    if blocking:
        assert fake.blocking == 12 * 24 and fake.most_outstanding == 0
    else:
        assert fake.blocking == 0 and fake.most_outstanding == 12  # a page's twelve reads were in flight together


class Pages(BaseWorkload):
    """Each transaction: the next page of reader (worker % 3), through the binding's naive page."""

    name = "pages"

    def __init__(self, w: FanOut):
        self.w = w
        self.shown: dict[int, list] = {0: [], 1: [], 2: []}

    def transaction(self, tx):
        reader = tx.worker % 3
        page = self.w.paginate(tx, reader)
        if tx.seq >= 0:
            self.shown[reader].append(page)


@pytest.mark.parametrize("workers", ["greenlets", "threads"])
def test_greenlet_and_thread_workers_gather_a_page_in_one_call_and_retry_it_whole(workers):
    fake = FakeActivities(NET, fail_first=3)
    w = naive_on(fake, NET)
    job = Pages(w)
    r = run(job, threads=3, operations=18, options=RunOptions(workers=workers, verify=False, processes=1,
                                                              retry=RetryPolicy(max_tries=3, initial_backoff=0.001, max_backoff=0.002)))
    assert r.complete and r.errors == 0 and r.count == 18
    assert r.ops["read_followed"].count == 18  # one gather per page
    assert 1 <= r.ops["read_followed"].retries <= 3  # the three refused reads: their pages asked again, whole
    assert r.ops["read_friend"].count == 18 * 12
    for reader, pages in job.shown.items():
        assert pages == [NET.expected_feed(reader)[i:i + 10] for i in range(0, 60, 10)], reader  # 6 pages each, in order
    assert fake.blocking == 0


def test_all_in_flight_hands_back_each_reply_in_order_or_the_first_error_once():
    fake = FakeActivities(NET, delay=0.001)
    each = [(a, NEWEST, 2) for a in (5, 1, 9)]
    replies = AllInFlight(fake, "friend_page")(each)
    assert [[r.created_at for r in rows] for rows, _us in replies] == [newest_below(fake.times[a], NEWEST, 2) for a in (5, 1, 9)]
    assert all(us > 0 for _rows, us in replies)
    assert AllInFlight(fake, "friend_page")([]) == []
    fake.fail_first = fake.started + 2
    with pytest.raises(ConnectionError):
        AllInFlight(fake, "friend_page")(each)
