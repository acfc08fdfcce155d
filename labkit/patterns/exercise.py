"""Checks for the exercise notebooks: run a student's workload for real and explain, in one short
report, whether it does what the pattern needs (never a traceback for an unfinished TODO)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..runner import RetryPolicy, run
from ..runner.measurements import Measurements
from ..runner.retry import Retrier
from ..runner.workload import Transaction


@dataclass
class CheckReport:
    """What the check found, step by step; `passed` only when every step did."""

    title: str
    steps: list[tuple[str, bool, str]] = field(default_factory=list)  # (step, ok, detail)

    @property
    def passed(self) -> bool:
        return bool(self.steps) and all(ok for _, ok, _ in self.steps)

    def add(self, step: str, ok: bool, detail: str = "") -> bool:
        self.steps.append((step, ok, detail))
        return ok

    def __str__(self) -> str:
        lines = [f"{'PASSED' if self.passed else 'NOT YET'}: {self.title}"]
        for step, ok, detail in self.steps:
            lines.append(f"  {'✓' if ok else '✗'} {step}" + (f": {detail}" if detail else ""))
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


def a_transaction() -> Transaction:
    """A Transaction handle outside a run, for calling workload methods directly in a check."""
    return Transaction(0, 1, 0, Measurements(), Retrier(RetryPolicy(), threading.Event(), lambda s: None))


def run_step(report: CheckReport, step: str, workload: Any, operations: int, threads: int = 2) -> bool:
    """Run the workload as the lab would; turn an unfinished TODO or a failed verify() into a sentence."""
    try:
        result = run(workload, threads=threads, operations=operations)
    except NotImplementedError as exc:
        return report.add(step, False, not_written(str(exc)))
    except Exception as exc:  # the student's code may fail in any way; say which way, briefly
        return report.add(step, False, f"{type(exc).__name__}: {exc}")
    finally:
        close = getattr(workload, "close_process", None)
        if callable(close):
            close()
    if result.errors:
        kind, count = max(result.error_kinds.items(), key=lambda kv: kv[1])
        sample = result.error_samples.get(kind, "")
        if kind == "NotImplementedError":
            return report.add(step, False, not_written(sample))
        return report.add(step, False, f"{result.errors} of {operations} transactions failed, e.g. {kind}: {sample}")
    verification = result.verification
    if verification is not None and not verification.ok:
        return report.add(step, False, "verify() found: " + "; ".join(verification.problems))
    checks = ", ".join(f"{k}={v}" for k, v in (verification.checks if verification else {}).items())
    return report.add(step, True, checks)


def not_written(message: str) -> str:
    """One "not written yet", whatever the stub's own message says."""
    message = message.strip()
    if message.lower().startswith("not written yet"):
        return message
    return f"not written yet: {message or 'a TODO still raises NotImplementedError'}"


def check_all(title: str, steps: list[Callable[[CheckReport], bool]]) -> CheckReport:
    """Run the steps in order; stop at the first that fails (later ones depend on it). A step that raises
    (an unwritten method it calls, the student's own error) fails with a sentence, never a traceback."""
    report = CheckReport(title)
    for step in steps:
        try:
            if not step(report):
                break
        except NotImplementedError as exc:  # a method the student has not written yet, called directly by a step
            report.add(step.__name__.replace("_", " "), False, not_written(str(exc)))
            break
        except Exception as exc:  # the student's code may fail in any way; say which way, briefly
            report.add(step.__name__.replace("_", " "), False, f"{type(exc).__name__}: {exc}")
            break
    return report
