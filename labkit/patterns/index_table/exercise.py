"""What the Index Table exercise hands a student: the tables, prepared statements, user data and the check,
with the two transaction functions left to write. The library's own IndexTable is the solution, so the
exercise's base class is a stub of it: inheriting it gives nothing that passes.
"""

from __future__ import annotations

from typing import Any

from ...runner import Transaction
from .cassandra import IndexTable as _Binding
from .cassandra import check_exercise
from .core import email_of, id_of, user_row

__all__ = ["IndexTableExercise", "check_exercise", "email_of", "id_of", "user_row"]


class IndexTableExercise(_Binding):
    """Tables, statements (`self.statements`), session (`self.session`), verify(): everything but
    register() and login(), which are yours to write in a subclass."""

    def register(self, tx: Transaction, n: int) -> None:
        raise NotImplementedError("register() is not written yet")

    def login(self, tx: Transaction, n: int) -> Any:
        raise NotImplementedError("login() is not written yet")
