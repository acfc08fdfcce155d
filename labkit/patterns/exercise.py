"""Checks for the exercise notebooks: run a student's workload for real and explain, in one short
report, whether it does what the pattern needs (never a traceback for an unfinished TODO).

A check is a list of steps, each a criterion worth points. A step that fails does not stop the ones that do
not depend on it, so a half-right design earns the points of what it gets right (`CheckReport.score`, the
number the notebook's graded cell shows, which nbgrader takes as partial credit). A check has a time limit:
a design that runs away (a loop that never ends, far more requests than the pattern needs) is stopped, and
the report says so and scores what was checked before it.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..runner import RetryPolicy, Watch, run
from ..runner.measurements import Measurements
from ..runner.retry import Retrier
from ..runner.workload import Transaction, hooks

TIME_LIMIT_VARIABLE = "LABKIT_CHECK_TIME_LIMIT"
DEFAULT_TIME_LIMIT_S = 300.0
"""One check's limit. The slowest solution's check takes about a minute on a 2-core machine (the UUID Key
check's partition and repair); a grader running 40 submissions wants a runaway one stopped, not waited for."""
GRACE_S = 3.0
"""After the limit, how long a run's workers get to stop at their next transaction before they are interrupted."""


class TimeLimitReached(BaseException):
    """Raised into a check's threads when its time is up (BaseException: the runner keeps Exceptions as errors)."""


@dataclass
class Graded:
    """A step of a check as a criterion: its points, and the steps it needs to have passed first (a step that
    reads what an earlier one wrote). Plain functions in a check's list need every step before them."""

    step: Callable[["CheckReport"], bool]
    points: float = 1.0
    needs: Sequence[Callable[["CheckReport"], bool]] = ()

    @property
    def name(self) -> str:
        return self.step.__name__.replace("_", " ")


@dataclass
class CheckReport:
    """What the check found, step by step; `passed` only when every step did; `score` the points earned."""

    title: str
    steps: list[tuple[str, bool, str]] = field(default_factory=list)  # (step, ok, detail)
    criteria: list[tuple[str, float, float]] = field(default_factory=list)  # (criterion, earned, possible)
    skipped: set[int] = field(default_factory=set)  # indexes into steps: not checked (an earlier step failed, or the time ran out)

    @property
    def passed(self) -> bool:
        return bool(self.steps) and all(ok for _, ok, _ in self.steps)

    def add(self, step: str, ok: bool, detail: str = "") -> bool:
        self.steps.append((step, ok, detail))
        return ok

    def not_checked(self, step: str, why: str) -> None:
        self.skipped.add(len(self.steps))
        self.steps.append((step, False, f"not checked: {why}"))

    def score(self, out_of: float = 10) -> float:
        """The points earned, out of `out_of`: each criterion's share of the check's points, in full when every
        line it reported passed, in part when some did (nbgrader reads this number as partial credit)."""
        possible = sum(p for _, _, p in self.criteria)
        if not possible:
            return 0.0
        return round(out_of * sum(e for _, e, _ in self.criteria) / possible, 1)

    def failed(self) -> list[str]:
        """One sentence per failed criterion (what the check saw), not-checked ones last."""
        lines = [(i in self.skipped, f"{step}: {detail}" if detail else step) for i, (step, ok, detail) in enumerate(self.steps) if not ok]
        return [text for _, text in sorted(lines, key=lambda x: x[0])]

    def __str__(self) -> str:
        lines = [f"{'PASSED' if self.passed else 'NOT YET'}: {self.title}"]
        for i, (step, ok, detail) in enumerate(self.steps):
            mark = "–" if i in self.skipped else ("✓" if ok else "✗")
            lines.append(f"  {mark} {step}" + (f": {detail}" if detail else ""))
        if self.criteria and any(p for _, _, p in self.criteria):
            lines.append(f"  score: {self.score():g} of 10 (" + ", ".join(f"{name} {e:g}/{p:g}" for name, e, p in self.criteria if p) + ")")
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


def a_transaction() -> Transaction:
    """A Transaction handle outside a run, for calling workload methods directly in a check."""
    return Transaction(0, 1, 0, Measurements(), Retrier(RetryPolicy(), threading.Event(), lambda s: None))


def run_step(report: CheckReport, step: str, workload: Any, operations: int, threads: int = 2) -> bool:
    """Run the workload as the lab would; turn an unfinished TODO or a failed verify() into a sentence."""
    deadline = _active
    try:
        result = run(workload, threads=threads, operations=operations, watch=Watch(cancel=deadline.cancel if deadline else None))
    except NotImplementedError as exc:
        return report.add(step, False, not_written(str(exc)))
    except Exception as exc:  # the student's code may fail in any way; say which way, briefly
        if deadline is not None and deadline.up:  # the workers were interrupted at the limit: the run says "crashed"
            deadline.acknowledged = True
            return report.add(step, False, deadline.sentence())
        return report.add(step, False, f"{type(exc).__name__}: {exc}")
    finally:
        hooks(workload).close_process()
    if deadline is not None and deadline.up:
        deadline.acknowledged = True
        return report.add(step, False, deadline.sentence(f"{result.count} of {operations} transactions had finished"))
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


def every_run_verified(report: CheckReport, rows: Any, where: str | None = "target_rate") -> bool:
    """The criterion that each sweep row's verify() passed (a choice exercise's runs), naming the runs that failed."""
    bad = rows[~rows["verify_ok"].astype(bool)]
    if not bad.empty:
        if where is None:
            return report.add("every run kept its records", False, f"verify() failed in {len(bad)} of {len(rows)} runs")
        return report.add("every run kept its records", False, f"verify() failed at {', '.join(f'{v:,.0f}/s' for v in bad[where])}")
    return report.add("every run kept its records", True, f"{len(rows)} runs verified")


def not_written(message: str) -> str:
    """One "not written yet", whatever the stub's own message says."""
    message = message.strip()
    if message.lower().startswith("not written yet"):
        return message
    return f"not written yet: {message or 'a TODO still raises NotImplementedError'}"


def time_limit_s() -> float:
    """The check's time limit: LABKIT_CHECK_TIME_LIMIT seconds if set (an instructor's grading machine may be
    slower or faster than a laptop), else DEFAULT_TIME_LIMIT_S."""
    text = os.environ.get(TIME_LIMIT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_TIME_LIMIT_S
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value <= 0:
        from ..errors import ConfigError

        raise ConfigError(f"{TIME_LIMIT_VARIABLE}={text!r}: give the check's time limit in seconds, a number above 0 (default {DEFAULT_TIME_LIMIT_S:g})")
    return value


def _raise_in(thread_id: int | None, exc: type[BaseException] | None) -> None:
    """Raise `exc` in another thread at its next Python instruction (None: withdraw one not yet raised)."""
    if thread_id is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else ctypes.c_void_p(0))


class _Deadline:
    """A check's clock: at the limit it cancels the check's runs (their workers stop at the next transaction),
    interrupts the run's worker threads, and, if the check is still busy after a grace, the check's own thread
    (a student's loop that never calls the database again)."""

    def __init__(self, limit_s: float):
        self.limit_s = limit_s
        self.cancel = threading.Event()
        self.up = False
        self.acknowledged = False  # the check has taken the stop: no more interruptions
        self.started = time.monotonic()
        self._thread_id = threading.get_ident()
        self._lock = threading.Lock()
        self._finished = False
        self._watcher = threading.Thread(target=self._watch, name="labkit-check-deadline", daemon=True)
        self._watcher.start()

    def sentence(self, progress: str = "") -> str:
        return (f"stopped at the check's time limit ({self.limit_s:g} s){': ' + progress if progress else ''}. Your code was still running: "
                "a loop that never ends, or far more requests than the pattern needs, looks like this; call the method once by "
                "hand to see which")

    def _watch(self) -> None:
        if self._wait(self.limit_s):
            return
        self.up = True
        self.cancel.set()
        with self._lock:
            if self._finished:
                return
            for t in threading.enumerate():
                if t.name.startswith("labkit-worker-"):
                    _raise_in(t.ident, TimeLimitReached)
        while not self._wait(GRACE_S):
            with self._lock:
                if self._finished or self.acknowledged:
                    return
                _raise_in(self._thread_id, TimeLimitReached)

    def _wait(self, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            with self._lock:
                if self._finished:
                    return True
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))
        return False

    def finish(self) -> None:
        with self._lock:
            self._finished = True
            _raise_in(self._thread_id, None)  # one raised just before, not yet delivered, is withdrawn


_active: _Deadline | None = None


def check_all(title: str, steps: Sequence[Callable[[CheckReport], bool] | Graded], time_limit: float | None = None) -> CheckReport:
    """Run the steps in order, each as a criterion (`Graded`, or a plain function worth 1 point that needs
    every step before it). A step whose needs failed is not checked; the others still run, so the score
    counts what the design gets right. A step that raises (an unwritten method it calls, the student's own
    error) fails with a sentence, never a traceback. At the time limit the step running is stopped and the
    rest are not checked."""
    global _active
    graded: list[Graded] = []
    for s in steps:
        graded.append(s if isinstance(s, Graded) else Graded(s, 1.0, tuple(g.step for g in graded)))
    report = CheckReport(title)
    deadline = _active = _Deadline(time_limit if time_limit is not None else time_limit_s())
    outcome: dict[Callable[[CheckReport], bool], bool] = {}
    try:
        for g in graded:
            first = len(report.steps)
            try:
                outcome[g.step] = _run_one(report, g, outcome, deadline)
            except TimeLimitReached:  # delivered between two steps
                deadline.acknowledged = True
                del report.steps[first:]
                report.add(g.name, False, deadline.sentence())
                outcome[g.step] = False
            lines = report.steps[first:]
            if lines:
                earned = g.points * sum(1 for _, ok, _ in lines if ok) / len(lines)
            else:
                earned = g.points if outcome[g.step] else 0.0
            report.criteria.append((g.name, earned, g.points))
    finally:
        deadline.finish()
        _active = None
    return report


def _run_one(report: CheckReport, g: Graded, outcome: dict, deadline: _Deadline) -> bool:
    if deadline.up:
        report.not_checked(g.name, "the check's time limit came first")
        return False
    missing = [n for n in g.needs if not outcome.get(n)]
    if missing:
        report.not_checked(g.name, f"it needs “{missing[0].__name__.replace('_', ' ')}” to pass first")
        return False
    try:
        return bool(g.step(report))
    except TimeLimitReached:
        deadline.acknowledged = True
        report.add(g.name, False, deadline.sentence())
    except NotImplementedError as exc:  # a method the student has not written yet, called directly by a step
        report.add(g.name, False, not_written(str(exc)))
    except Exception as exc:  # the student's code may fail in any way; say which way, briefly
        report.add(g.name, False, f"{type(exc).__name__}: {exc}")
    return False
