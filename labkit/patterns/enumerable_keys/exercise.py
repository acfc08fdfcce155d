"""What the Enumerable Keys exercise hands a student: the post, its comments collection, the data and the check
(MongoDB), with add() and read_page() left to write (the library's MongoComments is the solution, so the base
is a stub)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pymongo import ReturnDocument

from ...runner import Transaction
from .mongodb import MongoComments as _Binding

if TYPE_CHECKING:
    from ...clusters.contract import MongoCluster
    from ..exercise import CheckReport

__all__ = ["MongoCommentsExercise", "ReturnDocument", "check_exercise"]


class MongoCommentsExercise(_Binding):
    """`self.db` (posts, comments), `self.post`, loading and verify(): everything but the comments' key scheme
    (key()), add() and read_page(), which are yours to write in a subclass."""

    def key(self, n: int) -> Any:
        raise NotImplementedError("key() is not written yet")

    def add(self, tx: Transaction, text: str) -> None:
        raise NotImplementedError("add() is not written yet")

    def read_page(self, tx: Transaction, cursor: Any) -> tuple[list[str], Any]:
        raise NotImplementedError("read_page() is not written yet")


def check_exercise(workload_class: type[MongoCommentsExercise], cluster: MongoCluster, comments: int = 200) -> "CheckReport":
    """The exercise's check: the student's own add() and read_page() (not the library's), run for real (200
    comments from 4 threads, then pages newest first over deleted ones), and their access paths, from the
    commands the client sent: a comment is one counter increment and one insert, never a change to a list in
    the post; a page is a read of the counter and a bulk get of the keys it computes (plus the next keys when
    some were deleted), never a query of the comments by post."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, not_written, run_step
    from ..exercise_paths import MongoCommands, own_methods

    def own(report: CheckReport) -> bool:
        return own_methods(report, workload_class, ("add", "read_page", "key"))

    def key_scheme(report: CheckReport) -> bool:
        step = "a comment's key is computed from its post and number alone, and no two comments share one"
        try:
            a, b = (workload_class(cluster.uri, "pattern", "write", post=post) for post in ("post-a", "post-b"))
            numbers = range(1, comments + 1)
            keys = [a.key(n) for n in numbers]
            if keys != [a.key(n) for n in numbers]:
                return report.add(step, False, "key(n) gave another key the second time it was asked: a reader must be able to compute "
                                               "a comment's key again from the post and the number")
            if len(set(map(repr, keys))) != len(keys):
                return report.add(step, False, f"key(n) gives {len(keys) - len(set(map(repr, keys)))} of comments 1..{comments} a key another "
                                               "comment of the same post has")
            shared = set(map(repr, keys)) & {repr(b.key(n)) for n in numbers}
            if shared:
                return report.add(step, False, f"comments of two posts get the same key (e.g. {sorted(shared)[0]}): the key needs the post too")
        except NotImplementedError as exc:
            return report.add(step, False, not_written(str(exc)))
        return report.add(step, True, f"comments 1..{comments} of two posts: {2 * comments} keys, all different, the same when asked again")

    def write(report: CheckReport) -> bool:
        return run_step(report, f"{comments} comments from 4 threads on one post", workload_class.for_cluster(cluster, "pattern", "write"), comments, threads=4)

    def listened(workload: Any) -> MongoCommands:
        from ...engines import mongodb

        listener = MongoCommands()
        workload.use_client(mongodb.connect(workload.uri, event_listeners=[listener]))
        return listener

    def add_path(report: CheckReport) -> bool:
        workload = workload_class.for_cluster(cluster, "pattern", "write")
        listener = listened(workload)
        step = "a comment is one counter increment and one insert"
        try:
            for _ in range(3):
                workload.add(a_transaction(), "one more comment")
                done = listener.take()
                increments = [c for c in done if c["name"] == "findAndModify" and c["collection"] == "posts" and "$inc" in (c["update"] or {})]
                inserts = [c for c in done if c["name"] == "insert" and c["collection"] == "comments"]
                if len(done) != 2 or len(increments) != 1 or len(inserts) != 1:
                    return report.add(step, False, f"add() sent {_commands(done)}; the pattern sends find_one_and_update($inc) on posts, "
                                                   "then insert_one on comments, and never changes a list in the post")
        finally:
            workload.close_process()
        return report.add(step, True, "3 comments, 2 commands each")

    def paginate(report: CheckReport) -> bool:
        workload = workload_class.for_cluster(cluster, "pattern", "paginate", comments=comments, delete_every=9)
        return run_step(report, "read pages newest first, skipping deleted comments", workload, 100, threads=4)

    def page_path(report: CheckReport) -> bool:
        workload = workload_class.for_cluster(cluster, "pattern", "paginate", comments=comments, delete_every=9)
        workload.setup()
        workload.load()  # the post's comments, every 9th deleted (what the run after this step reads)
        listener = listened(workload)
        step = "a page is the counter and one bulk get of computed keys (plus gap filling)"
        try:
            cursor = None
            for page in range(3):
                _texts, cursor = workload.read_page(a_transaction(), cursor)
                done = listener.take()
                on_comments = [c for c in done if c["collection"] == "comments"]
                by_post = [c for c in on_comments if "post" in (c["filter"] or {}) or c["sort"]]
                if by_post:
                    return report.add(step, False, f"page {page + 1} sent {_commands(done)}: a query of the comments by post (and a sort) is what "
                                                   "the pattern avoids; compute the keys from the counter and get them by _id")
                by_key = [c for c in on_comments if c["name"] == "find" and set((c["filter"] or {})) == {"_id"}]
                if not by_key or len(by_key) != len(on_comments):
                    return report.add(step, False, f"page {page + 1} sent {_commands(done)}; get the comments with find({{'_id': {{'$in': keys}}}})")
                first = by_key[0]["filter"]["_id"]
                if not (isinstance(first, dict) and len(first.get("$in", [])) > 1):
                    return report.add(step, False, f"page {page + 1} asked for its comments one key at a time ({_commands(done)}); "
                                                   "ask for all the keys the page needs in one find with $in")
                if cursor is None:
                    break
        finally:
            workload.close_process()
        return report.add(step, True, "3 pages")

    return check_all(f"Enumerable Keys exercise ({workload_class.__name__})", [Graded(own, 0), Graded(key_scheme, 2, [own]), Graded(write, 1, [own]), Graded(add_path, 2, [own]), Graded(page_path, 2, [own]), Graded(paginate, 1, [own])])


def _commands(done: list[dict[str, Any]]) -> str:
    return "; ".join(f"{c['name']} {c['collection']} {c['filter'] or ''}{' ' + str(c['update']) if c['update'] else ''}" for c in done) or "nothing"
