"""What the Distorted Replicas exercise hands a student: every shape's tables and statements, the corpus and
the check, with publish() and withdraw() left to write (the library's binding is the solution, so the
base is a stub)."""

from __future__ import annotations

from cassandra.query import BatchStatement, BatchType

from ...runner import Transaction
from .cassandra import DistortedReplicas as _Binding
from .cassandra import check_exercise
from .cassandra_tables import by_author_row, row_of
from ...datasets.bibliography import Publication
from .core import GROUP_NAMES, values

__all__ = ["BatchStatement", "BatchType", "DistortedReplicasExercise", "GROUP_NAMES", "by_author_row", "check_exercise", "row_of", "values"]


class DistortedReplicasExercise(_Binding):
    """Tables, statements (`self.statements`), session, loading and verify(): everything but publish() and
    withdraw(), which are yours to write in a subclass."""

    def publish(self, tx: Transaction, pub: Publication) -> None:
        raise NotImplementedError("publish() is not written yet")

    def withdraw(self, tx: Transaction, pub: Publication) -> None:
        raise NotImplementedError("withdraw() is not written yet")
