"""What the Fan-out on Write exercise hands a student: tables, statements, the follower network and the check,
with post() and the feed page left to write (the library's FanOut is the solution, so the base is a stub)."""

from __future__ import annotations

from ...runner import Transaction
from .cassandra import FanOut as _Binding
from .cassandra import ReaderState, check_exercise

__all__ = ["FanOutExercise", "ReaderState", "check_exercise"]


class FanOutExercise(_Binding):
    """Everything but post() and read_page_pattern(), which are yours to write in a subclass."""

    def post(self, tx: Transaction, user: int, k: int) -> None:
        raise NotImplementedError("post() is not written yet")

    def read_page_pattern(self, tx: Transaction, user: int, state: ReaderState) -> list[tuple[int, int]]:
        raise NotImplementedError("read_page_pattern() is not written yet")
