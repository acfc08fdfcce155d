"""What the Distorted Replicas exercise hands a student: every shape's tables and statements, the corpus and
the check, with publish() and withdraw() left to write (the library's binding is the solution, so the
base is a stub)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cassandra.query import BatchStatement, BatchType

from ...runner import Transaction
from .cassandra import DistortedReplicas as _Binding
from .cassandra import VERTICAL, DistortedReplicas
from .cassandra_tables import by_author_row, row_of
from ...datasets.bibliography import Publication
from .core import GROUP_NAMES, Corpus, values

if TYPE_CHECKING:
    from ..exercise import CheckReport

__all__ = ["BatchStatement", "BatchType", "DistortedReplicasExercise", "GROUP_NAMES", "by_author_row", "check_exercise", "row_of", "values"]


class DistortedReplicasExercise(_Binding):
    """Tables, statements (`self.statements`), session, loading and verify(): everything but publish() and
    withdraw(), which are yours to write in a subclass."""

    def publish(self, tx: Transaction, pub: Publication) -> None:
        raise NotImplementedError("publish() is not written yet")

    def withdraw(self, tx: Transaction, pub: Publication) -> None:
        raise NotImplementedError("withdraw() is not written yet")


def check_exercise(workload_class: type[DistortedReplicas], cluster: Any, publications: int = 300, operations: int = 200) -> "CheckReport":
    """The exercise's check: the student's own publish() and withdraw() (not the library's), run for real
    (150 published, 50 withdrawn, every shape verified), then their access path: each is one logged batch
    holding every shape's write (separate requests leave shapes that disagree when one fails between them),
    and the author replica read back."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, run_step
    from ..exercise_paths import listing, own_methods, recording

    def own(report: CheckReport) -> bool:
        return own_methods(report, workload_class, ("publish", "withdraw"))

    def publish(report: CheckReport) -> bool:
        w = workload_class(cluster.addresses, "pattern", "publish", publications, operations=operations)
        return run_step(report, "publish 150 and withdraw 50 publications, every shape kept in step", w, operations)

    def one_batch(report: CheckReport) -> bool:
        w = workload_class(cluster.addresses, "pattern", "publish", publications, operations=operations)
        recorder = recording(w)
        step = "publish and withdraw are one logged batch each, with every shape's row"
        try:
            pub = w.corpus.after_publishing(operations)[0]  # published: written again, withdrawn, written back
            shapes = {"publications": 1, **{VERTICAL[g]: 1 for g in GROUP_NAMES}, "publications_by_author": len(pub.authors)}
            for call, verb in ((w.publish, "INSERT"), (w.withdraw, "DELETE"), (w.publish, "INSERT")):
                call(a_transaction(), pub)
                requests, done = recorder.requests, recorder.take()
                written = {t: sum(1 for s in done if s.table == t and s.verb == verb) for t in shapes}
                if requests != 1 or any(s.batch != "LOGGED" for s in done):
                    return report.add(step, False, f"{call.__name__}() sent {requests} request(s) ({listing(done)}): put every shape's "
                                                   "statement into one BatchStatement(batch_type=BatchType.LOGGED) and execute it once")
                if written != shapes:
                    return report.add(step, False, f"{call.__name__}() batch held {written}; every shape needs its row: {shapes}")
        finally:
            w.close_process()
        return report.add(step, True, f"{len(shapes) + len(pub.authors) - 1} statements in one batch each")

    def by_author(report: CheckReport) -> bool:
        w = workload_class(cluster.addresses, "pattern", "publish", publications, operations=operations)
        try:
            now = Corpus.by_author(w.corpus.after_publishing(operations))
            for author in sorted(now)[:: max(1, len(now) // 25)]:
                found = sorted(r.pub_id for r in w.session.execute(w.statements.by_author_replica, (author,)))
                if found != now[author]:
                    return report.add("the author replica lists each author's publications", False,
                                      f"{author}: {found} stored, {now[author]} expected")
        finally:
            w.close_process()
        return report.add("the author replica lists each author's publications", True, f"checked {len(range(0, len(now), max(1, len(now) // 25)))} authors")

    return check_all(f"Distorted Replicas exercise ({workload_class.__name__})", [Graded(own, 0), Graded(publish, 2, [own]), Graded(one_batch, 2, [own]), Graded(by_author, 1, [publish])])
