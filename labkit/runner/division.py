"""Exact division of a run's transactions among workers, so totals never drift."""

from __future__ import annotations


def split_evenly(total: int, parts: int) -> list[int]:
    """Split `total` into `parts` shares that differ by at most one and sum exactly to `total`.

    The first `total % parts` shares get the extra one, e.g. 1000 over 7 -> [143]*6 + [142].
    """
    if parts < 1:
        raise ValueError(f"cannot split among {parts} parts; need at least 1")
    if total < 0:
        raise ValueError(f"cannot split a negative total ({total})")
    base, extra = divmod(total, parts)
    return [base + 1 if i < extra else base for i in range(parts)]
