"""Enumerable Keys: the comments of one popular blog post, ten per page, newest first.

- `naive` (List-Based Association): the comments live in a list inside the post itself; every new
  comment rewrites (MongoDB `$push`, Cassandra list append) or reads, modifies and writes back
  (Couchbase, with CAS) the one hot post.
- `pattern` (Enumerable Keys): the post holds a counter; a new comment takes the counter's next value
  and is stored on its own under "post key + number"; a page is one bulk read of ten known keys, and
  a deleted comment is a gap that the page fills by reading further keys.

Three phases, as in the source's tests: `write` (many threads comment on one post; the post is emptied
before each run), `volume` (one thread adds comments run after run without emptying: the list grows),
`paginate` (each thread reads 30 pages of 10, newest first, then starts again). The engines' code lives
in the package's module named after the engine; this module holds what they share: the phases and verify().
"""

from __future__ import annotations

import threading
import uuid
from typing import TYPE_CHECKING, Any, Callable, Iterator, Self

from ...errors import ConfigError
from ...runner import BaseWorkload, Transaction, Verification
from .. import check_choice

if TYPE_CHECKING:
    from ...clusters.contract import Cluster

NAME = "enumerable-keys"
APPROACHES = ("naive", "pattern")
PHASES = ("write", "volume", "paginate")
PAGE_SIZE = 10
PAGES_PER_READER = 30
POST = "post-1"
FILLER = " - a comment of about a hundred characters, the size of a short reply under a popular post."


def comment_text(tag: str) -> str:
    """One comment: a unique tag first (verify counts tags), then filler to a realistic size."""
    return tag + FILLER


def tag_of(text: str) -> str:
    return text.split(" ", 1)[0]


def list_newest_first(comments: list[str]) -> list[tuple[int, str]]:
    """A post's comment list (oldest first, as appended) as stored() returns it: numbered by position."""
    return [(i + 1, text) for i, text in reversed(list(enumerate(comments)))]


def list_page(comments: list[str], cursor: int | None) -> tuple[list[str], int | None]:
    """The list approach's page: the newest ten of the comments before position `cursor` (None: all)."""
    end = len(comments) if cursor is None else cursor
    start = max(0, end - PAGE_SIZE)
    return list(reversed(comments[start:end])), (start or None)


def page_of_numbers(top: int, fetch) -> tuple[list[str], int | None]:
    """The pattern's page: fetch numbers top, top-1, ... in bulk (`fetch(numbers)` -> [(n, text)] of
    those that exist) until ten comments are found or number 1 was tried; a deleted comment is a gap
    that the next numbers fill. Returns the page and the number the next page starts at."""
    found: list[tuple[int, str]] = []
    while len(found) < PAGE_SIZE and top >= 1:
        numbers = list(range(top, max(0, top - (PAGE_SIZE - len(found))), -1))
        found += sorted(fetch(numbers), reverse=True)
        top -= len(numbers)
    return [text for _n, text in found], (top if top >= 1 else None)


class LoadedPost:
    """What a paginate run loaded on a post (its comments newest first, the ones it deleted): the
    runs after it on the same post read the same comments, so they check the store still holds exactly
    these and load nothing (the paginate phase only reads)."""

    def __init__(self, before: list[str], deleted: set[str], deleted_numbers: set[int]):
        self.before, self.deleted, self.deleted_numbers = list(before), set(deleted), set(deleted_numbers)


_LOADED: dict[tuple, LoadedPost] = {}  # by (store class, post, comments, delete_every), in this process


def check_comments(phase: str, comments: int) -> None:
    if phase == "paginate" and comments < PAGE_SIZE:
        raise ConfigError(f"the paginate phase needs a post with at least {PAGE_SIZE} comments; got comments={comments}")


def check_processes(processes: int | str) -> None:
    if processes not in (1, "auto"):  # "auto" stays at one: the workload's max_processes
        raise ConfigError("the Enumerable Keys workload checks its pages in memory: run it with processes=1")


class CommentStore(BaseWorkload):
    """One phase of one approach on one post; an engine module supplies the storage (see below)."""

    engine = ""
    numbered_keys = True  # the pattern numbers comments 1, 2, 3...: unused numbers must be deleted comments
    max_processes = 1  # the pages and deletions it checks are kept in this process's memory

    def __init__(self, approach: str, phase: str, comments: int = 0, delete_every: int = 0, keep: bool = False, post: str | None = None):
        check_choice(NAME, "approach", approach, APPROACHES)
        check_choice(NAME, "phase", phase, PHASES)
        check_comments(phase, comments)
        self.name = f"{NAME}/{self.engine}/{phase}/{approach}"
        self.approach, self.phase = approach, phase
        self.post = post or f"{POST}-{approach}"  # each approach its own post: a list never hides in the pattern's post
        self.preload = comments if phase == "paginate" else 0
        self.delete_every = delete_every  # paginate: delete every n-th loaded comment, leaving gaps
        self.keep = keep or phase == "volume"  # volume runs add to what earlier runs left
        self.run_tag = uuid.uuid4().hex[:6]  # tags stay unique across runs that keep the post
        self.before: list[str] = []
        self.deleted: set[str] = set()
        self.deleted_numbers: set[int] = set()
        self.gaps_before: set[int] = set()
        self.page_problems: list[str] = []
        self.reused_load = False  # paginate: the post already held what an earlier run loaded
        self.operations = 0  # set by check_run: how many comments this run writes
        self._problem_lock = threading.Lock()

    @property
    def naive(self) -> bool:
        return self.approach == "naive"

    # ---- what an engine supplies -----------------------------------------------------------------

    @classmethod
    def for_cluster(cls, cluster: Any, approach: str, phase: str, **options: Any) -> Self:
        """The store of this engine on `cluster` (its connection view), for one phase of one approach."""
        raise NotImplementedError

    def reset(self) -> None:
        """Remove the post and all its comments."""
        raise NotImplementedError

    def add(self, tx: Transaction, text: str) -> None:
        """Append one comment to the post, the approach's way (timed with tx.call)."""
        raise NotImplementedError

    def delete(self, text: str) -> None:
        """Remove one comment (a reader deleted it)."""
        raise NotImplementedError

    def delete_stored(self, n: int, text: str) -> None:
        """Remove comment number `n` (as stored() numbers it); an engine whose keys are those numbers
        removes the key directly instead of searching for the text."""
        self.delete(text)

    def stored(self) -> list[tuple[int, str]]:
        """Every comment of the post as stored, newest first, with its number (pattern: its key's
        number; naive: its position in the list, counted from the oldest)."""
        raise NotImplementedError

    def read_page(self, tx: Transaction, cursor: Any) -> tuple[list[str], Any]:
        """The next page of comments, newest first, starting at `cursor` (None: the newest page);
        returns the page and the cursor of the page after it (None when there is none)."""
        raise NotImplementedError

    def post_size(self) -> int:
        """Bytes of the post record itself (the list grows inside it for the naive approach)."""
        raise NotImplementedError

    def highest_number(self, stored_numbers: list[int]) -> int:
        """The highest comment number handed out so far (the pattern's counter, where it has one)."""
        return max(stored_numbers, default=0)

    # ---- the phases ------------------------------------------------------------------------------

    def setup(self) -> None:
        if self.reuse_loaded_post():
            return
        if not self.keep:
            self.reset()
        stored = self.stored()
        self.before = [text for _n, text in stored]
        numbers = [n for n, _t in stored]
        self.gaps_before = set(range(1, self.highest_number(numbers) + 1)) - set(numbers)  # comments deleted in earlier runs
        self.deleted, self.deleted_numbers = set(), set()
        self.page_problems = []

    def load(self) -> None:
        if not self.preload or self.reused_load:
            return
        from ..exercise import a_transaction

        tx = a_transaction()
        for i in range(self.preload):
            self.add(tx, comment_text(f"c-{self.run_tag}-load-{i:07d}"))
        if self.delete_every:
            for n, text in self.stored()[:: self.delete_every]:
                self.delete_stored(n, text)
                self.deleted.add(text)
                self.deleted_numbers.add(n)
        self.before = [text for _n, text in self.stored()]  # what the run starts from
        if not self.keep:
            _LOADED[self._loaded_key()] = LoadedPost(self.before, self.deleted, self.deleted_numbers)

    def _loaded_key(self) -> tuple:
        return (type(self), self.post, self.preload, self.delete_every)

    def reuse_loaded_post(self) -> bool:
        """A paginate run after another on the same post with the same settings reads what that run
        loaded, once the store is seen to hold exactly those comments (a restarted cluster or another
        keyspace does not: then the post is emptied and loaded again)."""
        if not self.preload or self.keep:
            return False
        loaded = _LOADED.get(self._loaded_key())
        if loaded is None or [text for _n, text in self.stored()] != loaded.before:
            return False  # the load that follows replaces the entry
        self.before, self.deleted, self.deleted_numbers = list(loaded.before), set(loaded.deleted), set(loaded.deleted_numbers)
        self.gaps_before, self.page_problems, self.reused_load = set(), [], True
        return True

    def transaction(self, tx: Transaction) -> None:
        if self.phase == "paginate":
            self.paginate(tx)
            return
        if tx.seq < 0:
            return  # no warm-up writes: verify() counts every comment
        g = tx.seq * tx.workers + tx.worker
        self.add(tx, comment_text(f"c-{self.run_tag}-{g:07d}"))

    def paginate(self, tx: Transaction) -> None:
        """One page for this reader; after 30 pages (or the last page) it starts again at the newest."""
        state = tx.worker_state.setdefault("reader", {"cursor": None, "pages": 0})
        if state["pages"] == PAGES_PER_READER:
            state.update(cursor=None, pages=0)
        page, cursor = self.read_page(tx, state["cursor"])
        state["pages"] += 1
        state["cursor"] = cursor
        if cursor is None:
            state["pages"] = PAGES_PER_READER  # the oldest page: start over next time
        if len(page) != PAGE_SIZE and cursor is not None:
            self.note(f"a page in the middle held {len(page)} comments, not {PAGE_SIZE}")
        if len(set(page)) != len(page) or set(page) & self.deleted:
            self.note("a page repeated a comment or showed a deleted one")

    def note(self, problem: str) -> None:
        with self._problem_lock:
            if len(self.page_problems) < 20:
                self.page_problems.append(problem)

    # ---- verify ----------------------------------------------------------------------------------

    def expected(self) -> set[str]:
        return set(self.before)

    def walk(self) -> list[str]:
        """Every comment, page by page from the newest, the way a reader sees the post."""
        from ..exercise import a_transaction

        tx, seen, cursor = a_transaction(), [], None
        while True:
            page, cursor = self.read_page(tx, cursor)
            seen.extend(page)
            if cursor is None or len(seen) > 10 * (len(self.before) + 10_000):
                return seen

    def verify(self) -> Verification:
        """Every comment present exactly once (none lost, none doubled), pages newest first with no
        unexplained gaps, and the page-by-page walk equal to what is stored."""
        stored = self.stored()
        texts = [text for _n, text in stored]
        problems = list(dict.fromkeys(self.page_problems))
        added = set(texts) - set(self.before)
        if self.phase != "paginate":
            expected_new = self._written
            missing = expected_new - added
            if missing:
                problems.append(f"{len(missing)} of {len(expected_new)} new comments are missing (lost updates), e.g. {sorted(missing)[:2]}")
            if added - expected_new:
                problems.append(f"{len(added - expected_new)} comments appeared that nobody wrote")
        if len(texts) != len(set(texts)):
            problems.append(f"{len(texts) - len(set(texts))} comments are stored twice")
        gone = self.expected() - set(texts)
        if gone:
            problems.append(f"{len(gone)} comments from before the run are missing")
        numbers = [n for n, _t in stored]
        if numbers != sorted(numbers, reverse=True):
            problems.append("the stored comments are not numbered newest first")
        if not self.naive and self.numbered_keys and numbers:
            explained = self.deleted_numbers | self.gaps_before
            gaps = set(range(1, max(numbers + list(explained)) + 1)) - set(numbers)
            if gaps != explained:
                problems.append(f"{len(gaps - explained)} key numbers are unused but no comment with them was deleted")
        walked = self.walk()
        if walked != texts:
            problems.append(f"paging through the post gave {len(walked)} comments, not the {len(texts)} stored newest first")
        checks = {"comments": len(texts), "new": len(added), "deleted": len(self.deleted), "pages_checked": (len(walked) + PAGE_SIZE - 1) // PAGE_SIZE}
        return Verification(not problems, checks, problems)

    @property
    def _written(self) -> set[str]:
        return {comment_text(f"c-{self.run_tag}-{g:07d}") for g in range(self.operations)}

    def check_run(self, *, threads: int, processes: int, operations: int) -> None:
        """Remember how many comments the run writes (verify expects exactly those)."""
        self.operations = operations


def store_class(engine: str) -> type[CommentStore]:
    """The comment store of `engine` (its binding module's STORE)."""
    from . import PATTERN

    return PATTERN.binding(engine).STORE


def store_workload(store: type[CommentStore]) -> Callable[..., CommentStore]:
    """An engine binding's `workload(approach, phase, cluster, operations, **settings)` for its store:
    the paginate phase preloads `comments` and deletes every `delete_every`-th."""

    def workload(approach: str, phase: str, cluster: Cluster, operations: int, comments: int = 0, delete_every: int = 0) -> CommentStore:
        paginate = phase == "paginate"
        return store.for_cluster(cluster, approach, phase, comments=comments if paginate else 0, delete_every=delete_every if paginate else 0)

    return workload


def volume_runs(cluster: Cluster, approach: str, runs: int, per_run: int) -> Iterator[tuple[int, Any, CommentStore]]:
    """The data-volume test: empty the post once, then `runs` runs of `per_run` comments from one
    thread that never empty it. Yields (run number, RunResult, the run's store, still connected)."""
    from ...runner import run

    first = store_class(cluster.info().engine).for_cluster(cluster, approach, "volume")
    first.reset()
    first.close_process()
    for n in range(1, runs + 1):
        store = store_class(cluster.info().engine).for_cluster(cluster, approach, "volume")
        try:
            yield n, run(store, threads=1, operations=per_run), store
        finally:
            store.close_process()


def check_plan(plan: Any) -> None:
    """Refuse a sweep the workload cannot run before any cluster starts."""
    check_processes(plan.processes)
    check_comments(plan.labels.get("phase", PHASES[0]), plan.labels.get("comments", 0))
