"""What the Fan-out on Write exercise hands a student: tables, statements, the follower network and the check,
with post() and the feed page left to write (the library's FanOut is the solution, so the base is a stub)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...runner import Transaction
from .cassandra import FanOut as _Binding
from .cassandra import FanOut, ReaderState
from .core import Network

if TYPE_CHECKING:
    from ..exercise import CheckReport

__all__ = ["FanOutExercise", "ReaderState", "check_exercise"]


class FanOutExercise(_Binding):
    """Everything but post() and read_page_pattern(), which are yours to write in a subclass."""

    def post(self, tx: Transaction, user: int, k: int) -> None:
        raise NotImplementedError("post() is not written yet")

    def read_page_pattern(self, tx: Transaction, user: int, state: ReaderState) -> list[tuple[int, int]]:
        raise NotImplementedError("read_page_pattern() is not written yet")


def check_exercise(workload_class: type[FanOut], cluster: Any, network: Network | None = None, readers: int = 5) -> "CheckReport":
    """The exercise's check: the student's own post() and feed page (not the library's), run for real (every
    activity posted, 100 pages, whole feeds compared with the network's), and their access paths: a post
    writes the activity and one feed row per follower; a page is one read of the reader's feed partition,
    never the activities of the users followed (that is fan-out on read)."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, not_written, run_step
    from ..exercise_paths import listing, own_methods, recording

    network = network or Network(users=30, follows=12, posts=5)

    def own(report: CheckReport) -> bool:
        return own_methods(report, workload_class, ("post", "read_page_pattern"))

    def post(report: CheckReport) -> bool:
        workload = workload_class(cluster.addresses, "pattern", "post", network)
        return run_step(report, "post every activity and copy it to each follower's feed", workload, network.activities)

    def post_path(report: CheckReport) -> bool:
        workload = workload_class(cluster.addresses, "pattern", "post", network)
        recorder = recording(workload)
        step = "a post writes the activity, reads the followers, writes one feed row each"
        try:
            for user in range(3):  # activity 0 of users 0..2, posted again (the same rows)
                workload.post(a_transaction(), user, 0)
                done = recorder.take()
                feed_writes = [s for s in done if s.verb == "INSERT" and s.table == "feed"]
                activity_writes = [s for s in done if s.verb == "INSERT" and s.table == "activity"]
                if len(activity_writes) != 1 or len(feed_writes) != len(network.followers[user]):
                    return report.add(step, False, f"post({user}, 0) ran {listing(done)}: expected one activity row and "
                                                   f"{len(network.followers[user])} feed rows (user {user}'s followers)")
        finally:
            workload.close_process()
        return report.add(step, True, "checked 3 posts")

    def paginate(report: CheckReport) -> bool:
        workload = workload_class(cluster.addresses, "pattern", "paginate", network)
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
        workload = workload_class(cluster.addresses, "pattern", "paginate", network)
        workload.setup()
        workload.load()  # every activity and feed row (the run after this step finds them loaded)
        recorder = recording(workload)
        step = "a page is one read of the reader's feed partition"
        try:
            state = ReaderState()
            for page in range(3):
                workload.read_page_pattern(a_transaction(), 0, state)
                done = recorder.take()
                elsewhere = [s for s in done if not s.reads("feed", "user_id")]
                if elsewhere:
                    hint = ("reading the followed users' activities is fan-out on read: " if any(s.table == "activity" for s in elsewhere) else "")
                    return report.add(step, False, f"page {page + 1} ran {listing(done)}: {hint}a page reads only feed WHERE user_id = ?")
                if len(done) != 1 and not (len(done) == 2 and state.feed_cursor is not None):  # two: the feed ran out and starts again
                    return report.add(step, False, f"page {page + 1} ran {len(done)} queries ({listing(done)}); one is enough")
        finally:
            workload.close_process()
        return report.add(step, True, "3 pages, one feed query each")

    return check_all(f"Fan-out on Write exercise ({workload_class.__name__})", [Graded(own, 0), Graded(post, 1, [own]), Graded(post_path, 2, [own]), Graded(page_path, 2, [own]), Graded(paginate, 1, [own])])
