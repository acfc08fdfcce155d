"""What verify() found, one line per run, and the check a lesson makes of it.

`verification_report(df)` is the text: approach, nodes, threads, ok or FAILED, and the counts verify()
compared. `assert_verified(df)` prints that text and fails the cell (so Run All, papermill, nbval and nbclient
stop there) with VerificationFailed when a run did not verify: a lesson whose runs lost data must not read as
a lesson that ran."""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

import pandas as pd

BATCH_ENV = "LABKIT_BATCH"
"""labkit.predictions.BATCH_ENV (a layer above results, so named here again; a unit test keeps the two equal):
set, no one stops a run by hand."""
FAILED, UNFINISHED, STOPPED, NOT_VERIFIED, OK = "failed", "unfinished", "stopped early", "not verified", "ok"

WHAT_TO_DO = (
    "What to do: each line above says what verify() found. A FAILED run stored something other than what its "
    "transactions wrote: if you changed the workload's code, the mistake is there; otherwise run the cell that "
    "measured it again, and if it fails again keep its rows (they are in the results table) and tell your "
    "instructor. A run whose verify could not finish (NOT DONE) met a busy machine: run it again with fewer "
    "threads or operations. A run stopped early in a batch run did not run all its transactions (an interrupt, a "
    "lost client process, a time limit): the cell's output says which."
)


class VerificationFailed(AssertionError):
    """Raised by assert_verified: a run failed its verification, could not finish it, was cut short in a batch
    run, there were no runs where some were expected, or a check the lesson names found something. `problems`
    holds one sentence each; `advice` says what to do. Shown as its message, without a traceback (which would only point here)."""

    def __init__(self, problems: list[str], advice: str = WHAT_TO_DO):
        self.problems = list(problems)
        count = len(self.problems)
        super().__init__(f"{count} check{'s' if count != 1 else ''} failed:\n" + "\n".join(f"  - {p}" for p in self.problems) + "\n" + advice)

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of a traceback
        return f"VerificationFailed: {self}".splitlines()


def _columns(df: pd.DataFrame, by: Iterable[str]) -> list[str]:
    return [c for c in dict.fromkeys(("phase", *by, "approach", "nodes", "threads")) if c in df]


def _where(row: Mapping[str, Any], columns: list[str]) -> str:
    return " ".join(f"{c}={row[c]}" for c in columns)


def _known(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and pd.isna(value)) and value is not pd.NA


def run_state(row: Mapping[str, Any]) -> str:
    """ok, failed, unfinished (verify could not finish), stopped early (complete=False), or not verified
    (the workload has no verify(), or the run skipped it: `verify_state` "not run"). `verify_ok` may be a bool,
    a numpy bool or its text (rows read back from CSV); a missing `complete` means the run ran to its end. A
    table a notebook builds from its results (`verify_ok: result.verification.ok`, no `verify_state`) that
    holds None says what Verification.ok None says: verify could not finish."""
    complete = row.get("complete", True)
    if _known(complete) and str(complete) in ("False", "0"):
        return STOPPED
    if row.get("verify_state") == "unfinished":
        return UNFINISHED
    ok = row.get("verify_ok")
    if not _known(ok):
        return UNFINISHED if "verify_ok" in row and not _known(row.get("verify_state")) else NOT_VERIFIED
    return OK if str(ok) in ("True", "1") else FAILED if str(ok) in ("False", "0") else NOT_VERIFIED


def verification_report(df: pd.DataFrame, by: tuple[str, ...] = ()) -> str:
    """Per run: approach, nodes, threads (and the `by` columns, e.g. a setting the runs differ in), ok or
    FAILED, and the counts verify() compared; the last line counts the runs and those that failed.
    Deterministic for given parameters (no timings)."""
    if df is None or df.empty:
        return "no runs yet"
    columns = _columns(df, by)
    lines = []
    for row in df.sort_values(columns, kind="stable").to_dict("records"):
        where = _where(row, columns)
        state = run_state(row)
        if state == STOPPED:
            lines.append(f"{where}: stopped early, not verified")
            continue
        shown = {OK: "ok", FAILED: "FAILED", NOT_VERIFIED: "not verified", UNFINISHED: "NOT DONE (verify could not finish)"}[state]
        detail = row.get("verify_checks") or ""
        problems = row.get("verify_problems") or ""
        detail, problems = (x if isinstance(x, str) else "" for x in (detail, problems))
        lines.append(f"{where}: {shown}" + (f" ({detail})" if detail else "") + (f" — {problems}" if problems else ""))
    states = [run_state(row) for row in df.to_dict("records")]
    failed, unfinished = states.count(FAILED), states.count(UNFINISHED)
    lines.append(f"{len(df)} runs, {failed} failed verification" + (f", {unfinished} could not finish it" if unfinished else ""))
    return "\n".join(lines)


def _count(items: Any) -> tuple[int, list[str]]:
    if isinstance(items, bool):
        raise TypeError("expect_none takes, per label, what was found (a list, empty when nothing) or a count")
    if isinstance(items, int):
        return items, []
    found = [str(i) for i in items]
    return len(found), found


def assert_verified(runs: Any, by: tuple[str, ...] = (), expect_runs: bool = True, *, expect_none: Mapping[str, Any] | None = None,
                    allow_errors: bool = True, every_run: bool = True, batch: bool | None = None) -> None:
    """Print the verification report of `runs` and raise VerificationFailed when

    - a run failed verification (`verify_ok` False) or verify could not finish it (`verify_state` unfinished);
    - a run was stopped early (`complete` False) in a batch run (LABKIT_BATCH set, as labkit.predictions.in_batch()
      reads it: `make run`, nbval, the tests; `batch` overrides), where no one stops a run by hand; in a
      student's notebook it is reported as "stopped early, not verified" and is no failure;
    - there are no runs although `expect_runs` (leave it True where the section ran; a section skipped on
      purpose passes `expect_runs=False`, and then `runs` may be None: it prints "skipped");
    - with `allow_errors=False`, a run counted failed transactions (`errors` > 0);
    - a check the lesson names in `expect_none` ({label: what it found, a list or a count}) found anything.

    `runs`: a results table (DataFrame or rows), or {section: table} to report several side by side (e.g. one
    per engine), each of which must hold runs when `expect_runs`. `by`: columns the runs differ in besides
    approach, nodes and threads. `every_run=False` prints only the runs that did not verify, and the count.
    Returns nothing, so that a cell ending with it shows only the report."""
    batch = os.environ.get(BATCH_ENV, "0") not in ("", "0") if batch is None else batch
    sections = dict(runs) if isinstance(runs, Mapping) else {"": runs}
    problems: list[str] = []
    out: list[str] = []
    for name, table in sections.items():
        head = f"[{name}] " if name else ""
        if len(sections) > 1 or name:
            out.append(f"[{name}]")
        if table is None and not expect_runs:
            out.append("skipped")
            continue
        df = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table or []))
        if df.empty:
            out.append("no runs" if expect_runs else "no runs (none expected here)")
            if expect_runs:
                problems.append(f"{head}no runs: the cells that measure this section did not run (run them first), or ran nothing")
            continue
        report = verification_report(df, by)
        columns = _columns(df, by)
        rows = df.sort_values(columns, kind="stable").to_dict("records")
        states = [run_state(row) for row in rows]
        lines = report.splitlines()
        out += lines if every_run else [line for line, state in zip(lines, states) if state != OK] + lines[-1:]
        for row, state in zip(rows, states):
            where = _where(row, columns) or "a run"
            why = row.get("verify_problems") if isinstance(row.get("verify_problems"), str) and row.get("verify_problems") else ""
            if state == FAILED:
                problems.append(f"{head}{where}: FAILED verification" + (f" — {why}" if why else ""))
            elif state == UNFINISHED:
                problems.append(f"{head}{where}: verify could not finish" + (f" — {why}" if why else ""))
            elif state == STOPPED and batch:
                problems.append(f"{head}{where}: stopped early in a batch run, so never verified (nothing stops a batch run by hand)")
        if not allow_errors:
            errors = [(row, int(row["errors"])) for row in rows if _known(row.get("errors")) and row["errors"] > 0]
            out.append(f"runs with errors: {len(errors)}")
            problems += [f"{head}{_where(row, columns) or 'a run'}: {n} failed transaction{'s' if n != 1 else ''}"
                         + (f" ({row['error_kinds']})" if isinstance(row.get("error_kinds"), str) and row["error_kinds"] else "") for row, n in errors]
    for label, items in (expect_none or {}).items():
        count, found = _count(items)
        out.append(f"{label}: {count}" + (f" ({', '.join(found)})" if found else ""))
        if count:
            problems.append(f"{label}: {count}" + (f" ({', '.join(found)})" if found else "") + ", expected none")
    print("\n".join(out))
    if problems:
        raise VerificationFailed(problems)
