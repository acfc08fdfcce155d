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
this much better after it took effect than before (the geometric mean over its verified runs), and the 95%
interval of that gain over its runs excludes 1 (results.intervals: at least 3 runs)."""
IMPRECISE = "not measured precisely enough"

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
        """tactic x workload kind -> the measured gain (geometric mean over runs, with its 95% interval from
        the runs, or their spread below 3 runs) and cost (medians); runs that failed to verify or whose
        tactic failed are left out."""
        from ..results.intervals import ratio_interval

        if self.rows.empty:
            return pd.DataFrame()
        df = self.rows.copy()
        df["usable"] = (df["verify_ok"] == True) & (df.get("tactic_error", "").fillna("") == "")  # noqa: E712
        good = df[df["usable"]]
        out = []
        for (kind, tactic), runs in good.groupby(["workload_kind", "tactic"]):
            row = {"workload_kind": kind, "tactic": tactic, "runs": len(runs)}
            for name, ratios in (("p95_gain", 1 / runs["p95_after_vs_before"].where(runs["p95_after_vs_before"] > 0)),
                                 ("throughput_gain", runs["throughput_after_vs_before"])):
                found = ratio_interval(ratios.dropna())
                row.update({name: None if found is None else round(found.estimate, 2), f"{name}_low": None if found is None else found.low,
                            f"{name}_high": None if found is None else found.high, f"{name}_text": "" if found is None else found.text(),
                            f"{name}_precise": found is not None and found.has_interval and found.low > 1})
            row.update({"took_s": runs["took_s"].median(), "p95_during_vs_before": runs["p95_during_vs_before"].median(),
                        "errors_during": runs["during_errors"].median()})
            if "p95_settling_vs_before" in runs:
                row["p95_settling_vs_before"] = runs["p95_settling_vs_before"].median()
            out.append(row)
        return pd.DataFrame(out)

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
            lines.append(f"{r['tactic']}: gain {r[gain_col + '_text'] or 'not measured'} over {r['runs']} run(s); cost: took {r['took_s']:.1f} s, "
                         f"p95 while it ran {r['p95_during_vs_before']:.2g}x the p95 before"
                         + (f" ({r['p95_settling_vs_before']:.2g}x while it settled)" if pd.notna(r.get("p95_settling_vs_before")) else "")
                         + f", {r['errors_during']:.0f} failed transactions meanwhile")
        large = measured.dropna(subset=[gain_col])
        large = large[large[gain_col] >= MIN_GAIN].sort_values(gain_col, ascending=False)
        if large.empty:
            lines.append(f"none of them made {goal} at least {MIN_GAIN}x better: no tactic recommended")
            return Advice(kind, goal, None, lines)
        precise = large[large[gain_col + "_precise"]]
        if precise.empty:
            names = ", ".join(f"{r['tactic']} ({r[gain_col + '_text']})" for _i, r in large.iterrows())
            lines.append(f"{names}: {IMPRECISE} (a gain is recommended only when its 95% interval over 3 or more verified runs "
                         "excludes 1): no tactic recommended; run each tactic again")
            return Advice(kind, goal, None, lines)
        top = precise.iloc[0]
        lines.append(f"{top['tactic']} has the largest gain measured precisely ({top[gain_col + '_text']}, at least {MIN_GAIN}x, interval above 1)")
        return Advice(kind, goal, str(top["tactic"]), lines)
