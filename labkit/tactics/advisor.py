"""A small advisor: which tactic to try for a described workload, decided only from tactic runs this
lab measured (never from a rule of thumb), with its reasoning shown and an explicit "I do not know"
when no measurement covers the case."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import ConfigError

MIN_GAIN = 1.2
"""A tactic is recommended only when it made p95 (goal latency) or throughput (goal throughput) at least
this much better after it took effect than before, in a run that verified."""

SHARES = ("reads", "updates", "inserts", "scans", "non_key_queries")


def kind_of(*, reads: float = 0, updates: float = 0, inserts: float = 0, scans: float = 0, non_key_queries: float = 0) -> str | None:
    """The measured workload kind a mix of operations resembles (shares of transactions), or None."""
    shares = {"reads": reads, "updates": updates, "inserts": inserts, "scans": scans, "non_key_queries": non_key_queries}
    if any(v < 0 for v in shares.values()) or sum(shares.values()) <= 0:
        raise ConfigError(f"describe the workload by non-negative shares of {', '.join(SHARES)} (they need not add up to 1); got {shares}")
    total = sum(shares.values())
    s = {k: v / total for k, v in shares.items()}
    if s["non_key_queries"] >= 0.5:
        return "query-by-tag"
    if s["scans"] >= 0.5:
        return "scan"
    if s["inserts"] >= 0.5:
        return "write-heavy"
    if s["updates"] >= 0.3:
        return "update-heavy"
    if s["reads"] >= 0.7:
        return "read-heavy"
    return None


@dataclass
class Advice:
    kind: str | None
    goal: str
    tactic: str | None  # None: no recommendation (unknown, or nothing measured helped enough)
    reasoning: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        head = f"recommend: {self.tactic}" if self.tactic else "no recommendation"
        return "\n".join([head, *(f"  - {line}" for line in self.reasoning)])


class Advisor:
    """Built from TacticRun.row() rows (live runs and committed benchmark rows alike)."""

    def __init__(self, rows: Any):
        self.rows = pd.DataFrame(rows)
        needed = {"tactic", "tactic_title", "workload_kind", "p95_after_vs_before", "throughput_after_vs_before", "p95_during_vs_before",
                  "took_s", "during_errors", "verify_ok"}
        missing = needed - set(self.rows.columns) if len(self.rows) else set()
        if missing:
            raise ConfigError(f"the advisor reads TacticRun.row() rows; these have no {', '.join(sorted(missing))}")

    def table(self) -> pd.DataFrame:
        """tactic x workload kind -> the measured gain and cost (medians over runs; runs that failed to
        verify or whose tactic failed are left out and counted)."""
        if self.rows.empty:
            return pd.DataFrame()
        df = self.rows.copy()
        df["usable"] = (df["verify_ok"] == True) & (df.get("tactic_error", "").fillna("") == "")  # noqa: E712
        good = df[df["usable"]]
        table = good.groupby(["workload_kind", "tactic"]).agg(
            runs=("tactic", "size"),
            p95_gain=("p95_after_vs_before", lambda v: round(1 / v.median(), 2) if v.notna().any() and v.median() > 0 else None),
            throughput_gain=("throughput_after_vs_before", "median"),
            took_s=("took_s", "median"),
            p95_during_vs_before=("p95_during_vs_before", "median"),
            errors_during=("during_errors", "median"),
            **({"p95_settling_vs_before": ("p95_settling_vs_before", "median")} if "p95_settling_vs_before" in good else {}),
        ).reset_index()
        return table

    def recommend(self, goal: str = "latency", **shares: float) -> Advice:
        """The tactic with the largest measured gain for the workload kind the shares describe, when it is
        at least MIN_GAIN; otherwise no recommendation, saying why."""
        if goal not in ("latency", "throughput"):
            raise ConfigError(f"goal must be 'latency' (p95 after vs before) or 'throughput'; got {goal!r}")
        kind = kind_of(**shares)
        if kind is None:
            return Advice(None, goal, None, [f"I do not know: the mix {shares} is none of the kinds the lab measures "
                                             "(read-heavy, update-heavy, write-heavy, scan, query-by-tag)"])
        table = self.table()
        measured = table[table["workload_kind"] == kind] if not table.empty else table
        if measured.empty:
            return Advice(kind, goal, None, [f"the mix looks {kind}", f"I do not know: no tactic was measured under a {kind} load "
                                             "that verified; run one with labkit.tactics.run_under_load and ask again"])
        gain_col = "p95_gain" if goal == "latency" else "throughput_gain"
        lines = [f"the mix looks {kind}; measured under that load ({goal} gain = {'p95 before / after' if goal == 'latency' else 'throughput after / before'}):"]
        for _i, r in measured.sort_values(gain_col, ascending=False, na_position="last").iterrows():
            lines.append(f"{r['tactic']}: gain {r[gain_col]}x over {r['runs']} run(s); cost: took {r['took_s']:.1f} s, "
                         f"p95 while it ran {r['p95_during_vs_before']}x the p95 before"
                         + (f" ({r['p95_settling_vs_before']}x while it settled)" if pd.notna(r.get("p95_settling_vs_before")) else "")
                         + f", {r['errors_during']:.0f} failed transactions meanwhile")
        best = measured.dropna(subset=[gain_col]).sort_values(gain_col, ascending=False)
        if best.empty or best.iloc[0][gain_col] < MIN_GAIN:
            lines.append(f"none of them made {goal} at least {MIN_GAIN}x better: no tactic recommended")
            return Advice(kind, goal, None, lines)
        top = best.iloc[0]
        lines.append(f"{top['tactic']} has the largest measured gain ({top[gain_col]}x >= {MIN_GAIN}x)")
        return Advice(kind, goal, str(top["tactic"]), lines)
