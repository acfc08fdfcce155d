"""What happens around a measured window: budgets lifted for work nobody measures, and a verify() or
cleanup() that cannot finish turned into a sentence instead of an exception that would lose the run."""

from __future__ import annotations

import contextlib
from typing import Any, ContextManager

from .server_cpu import ServerMeter
from .workload import Verification, Workload


def budgets_lifted(meter: "ServerMeter | None", *, settle: bool = True) -> ContextManager[None]:
    """The meter's `unbudgeted(settle=)` (node CPU budgets off, put back on exit), or nothing without a meter.
    `settle` waits for the nodes to go quiet before the budgets return: wanted before a measured window, not
    after the last one."""
    if meter is None:
        return contextlib.nullcontext()
    return meter.unbudgeted(settle=settle)


def verified(workload: Workload) -> Verification | None:
    """workload.verify(), or an unfinished Verification saying why it stopped (a read that kept timing
    out, a node that did not answer): the run was measured, and that is not lost."""
    try:
        outcome = workload.verify()
    except Exception as exc:  # noqa: BLE001 - whatever stopped it, the measured row must survive
        return Verification.unfinished(f"verify() did not finish: {type(exc).__name__}: {_first_line(exc)}")
    return outcome


def cleaned_up(workload: Workload) -> str:
    """workload.cleanup(); '' when it worked, else a sentence (the run it follows is kept)."""
    try:
        workload.cleanup()
    except Exception as exc:  # noqa: BLE001 - the run is measured and verified; cleanup is housekeeping
        return f"cleanup() did not finish: {type(exc).__name__}: {_first_line(exc)}"
    return ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else "no message")[:400]
