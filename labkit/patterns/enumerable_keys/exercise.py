"""What the Enumerable Keys exercise hands a student: the post, its comments collection, the data and the check
(MongoDB), with add() and read_page() left to write (the library's MongoComments is the solution, so the base
is a stub)."""

from __future__ import annotations

from typing import Any

from pymongo import ReturnDocument

from ...runner import Transaction
from .core import check_exercise
from .mongodb import MongoComments as _Binding

__all__ = ["MongoCommentsExercise", "ReturnDocument", "check_exercise"]


class MongoCommentsExercise(_Binding):
    """`self.db` (posts, comments), `self.post`, `self.key(n)`, loading and verify(): everything but add() and
    read_page(), which are yours to write in a subclass."""

    def add(self, tx: Transaction, text: str) -> None:
        raise NotImplementedError("add() is not written yet")

    def read_page(self, tx: Transaction, cursor: Any) -> tuple[list[str], Any]:
        raise NotImplementedError("read_page() is not written yet")
