"""One line per run saying what verify() checked: the text a notebook's checked cell prints."""

from __future__ import annotations

import pandas as pd


def verification_report(df: pd.DataFrame, by: tuple[str, ...] = ()) -> str:
    """Per run: approach, nodes, threads (and the `by` columns, e.g. a setting the runs differ in), ok or
    FAILED, and the counts verify() compared.

    Deterministic for given parameters (no timings), so nbval can compare it with the stored output."""
    if df.empty:
        return "no runs yet"
    columns = [c for c in ("phase", *by, "approach", "nodes", "threads") if c in df]
    lines = []
    for row in df.sort_values(columns).to_dict("records"):
        where = " ".join(f"{c}={row[c]}" for c in columns)
        if not row.get("complete", True):
            lines.append(f"{where}: stopped early, not verified")
            continue
        state = {True: "ok", False: "FAILED", None: "not verified"}[row.get("verify_ok") if pd.notna(row.get("verify_ok")) else None]
        if row.get("verify_state") == "unfinished":
            state = "NOT DONE (verify could not finish)"
        detail = row.get("verify_checks") or ""
        problems = row.get("verify_problems") or ""
        lines.append(f"{where}: {state}" + (f" ({detail})" if detail else "") + (f" — {problems}" if problems else ""))
    failed = int((df["verify_ok"] == False).sum())  # noqa: E712 (a column of True/False/None)
    unfinished = int((df["verify_state"] == "unfinished").sum()) if "verify_state" in df else 0
    lines.append(f"{len(df)} runs, {failed} failed verification" + (f", {unfinished} could not finish it" if unfinished else ""))
    return "\n".join(lines)
