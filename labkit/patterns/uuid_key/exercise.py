"""What the UUID Key exercise hands a student: two datacenters, the counter's statements and the check, with
the two key generators left to write (the library's UuidKey is the solution, so the base is a stub)."""

from __future__ import annotations

from typing import Any

from ...runner import Transaction
from .cassandra import UuidKey as _Binding
from .cassandra import check_exercise

__all__ = ["UuidKeyExercise", "check_exercise"]


class UuidKeyExercise(_Binding):
    """Sessions per region, `counter_statements(region)`, registration and verify(): everything but
    next_key() and new_key(), which are yours to write in a subclass."""

    def next_key(self, tx: Transaction, region: str) -> int:
        raise NotImplementedError("next_key() is not written yet")

    def new_key(self, tx: Transaction, region: str) -> Any:
        raise NotImplementedError("new_key() is not written yet")
