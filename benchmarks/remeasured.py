"""Before and after: each ratio the notebooks quoted from a single run, next to the same ratio re-measured
with repeats (median and 95% interval from the raw rows), and the verdict.

    .venv/bin/python benchmarks/remeasured.py     # reads benchmarks/remeasured.toml, writes results/remeasured.{csv,md}

Each [[ratio]] in remeasured.toml names the single-run figure as it was committed (`before`, and where it
came from) and the raw rows that measure it now (`file`, `where`, `column`, `numerator` / `denominator`,
and `between` when they are two values of a column other than the approach, such as node counts, or
`numerator_column` / `denominator_column` for two columns of each run, such as a tactic's p95 before / after; `pair_on`
names further columns a pair shares). The rows of one entry are the repeats of one condition (one thread count,
node count, CPU budget, phase, and each setting of the rows' pattern and phase, e.g. Distorted Replicas' `groups`):
pairs at different conditions are not repeats, and an entry whose rows mix them is refused. The
verdict compares the two on the size of the effect (how far from 1, on a log scale):
- within noise: the new interval holds 1;
- held: the old figure lies inside the new interval;
- grew / shrank: the old figure lies outside, and the new estimate is further from 1 / closer to 1;
- reversed: the new interval excludes 1 on the other side of it;
- too few repeats: fewer than 3 runs to form an interval.

An entry measured with repeats from the start has no `before` and goes to the fidelity table only. An entry that a
notebook sets against the source paper also carries `source` (the paper's result as the
notebook quotes it) and `source_ratio` (the same comparison as ours, pattern over naive throughput: "48%
less time" is 1 / 0.52 = 1.92); those rows make the fidelity table, results/fidelity.{csv,md}: direction
(both on the same side of 1, or ours within noise) and how our ratio compares with the paper's.
"""

from __future__ import annotations

import csv
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import write  # noqa: E402

from labkit.lessons import pattern_settings  # noqa: E402
from labkit.results.intervals import RatioInterval, columns_interval, interval_of, mixed_conditions  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
README = HERE / "README.md"
START, END = "<!-- remeasured.py: before/after -->", "<!-- remeasured.py: end -->"
"""benchmarks/README.md holds the two tables between these markers; remeasured.py rewrites them."""


def verdict(before: float, after: RatioInterval) -> str:
    """What became of a single-run ratio once measured with repeats (see the module's docstring)."""
    if not after.has_interval:
        return "too few repeats"
    if after.within_noise:
        return "within noise"
    if after.low <= before <= after.high:
        return "held"
    if (before > 1) != (after.estimate > 1):
        return "reversed"
    return "grew" if abs(math.log(after.estimate)) > abs(math.log(before)) else "shrank"


def matches(row: dict[str, str], where: dict[str, Any]) -> bool:
    """A raw row has every `where` value (a list: any of them), compared as text or as numbers."""
    def same(value: str, wanted: Any) -> bool:
        try:
            return float(value) == float(wanted)
        except (TypeError, ValueError):
            return str(value) == str(wanted)

    return all(any(same(row.get(k, ""), w) for w in (v if isinstance(v, list) else [v])) for k, v in where.items())


def rows_of(entry: dict[str, Any]) -> list[dict[str, str]]:
    """The raw rows an entry names (its file's rows with every `where` value)."""
    with open(RESULTS / entry["file"], newline="") as handle:
        return [r for r in csv.DictReader(handle) if matches(r, entry.get("where", {}))]


def measured_on(entries: list[dict[str, Any]]) -> str:
    """The machines whose rows the entries read (each row carries its `machine`): what the tables are stamped
    with. Why: this script only recomputes intervals from committed rows, so the machine it runs on measured nothing."""
    found = dict.fromkeys(r.get("machine") or "not recorded" for e in entries for r in rows_of(e))
    return "; ".join(sorted(found))


def after_of(entry: dict[str, Any]) -> RatioInterval | None:
    chosen = rows_of(entry)
    if not chosen:
        raise SystemExit(f"remeasured.toml: no row of {entry['file']} has {entry.get('where')} ({entry['what']})")
    mixed = mixed_conditions(chosen, between=entry.get("between", "approach"), settings=pattern_settings(chosen))  # rows of a pattern and phase: its settings too
    if mixed:
        raise SystemExit(f"remeasured.toml: {entry['what']}: its rows mix conditions ({mixed}); an interval comes from the repeats of one")
    if "numerator_column" in entry:  # two columns of each run (a tactic's p95 before / after): one ratio per row
        return columns_interval(chosen, entry["numerator_column"], entry["denominator_column"])
    return interval_of(chosen, entry.get("column", "throughput"), entry["numerator"], entry["denominator"],
                       between=entry.get("between", "approach"), pair_on=entry.get("pair_on", []), paired=entry.get("paired", False))


def table(entries: list[dict[str, Any]]) -> pd.DataFrame:
    out = []
    for entry in (e for e in entries if "before" in e):  # an entry without one was measured with repeats from the start: fidelity only
        found = after_of(entry)
        if found is None:
            raise SystemExit(f"remeasured.toml: nothing to compare for {entry['what']} in {entry['file']}")
        out.append({"notebook": entry["notebook"], "ratio": entry["what"], "before (as committed)": entry["before"],
                    "after (median, 95% interval)": found.text(), "runs": found.pairs, "verdict": verdict(float(entry["before"]), found),
                    "rows": entry["file"]})
    return pd.DataFrame(out)


def direction(source_ratio: float, ours: RatioInterval) -> str:
    """Does our interval point the paper's way: same side of 1, the other side, or too close to 1 to say."""
    if ours.within_noise or not ours.has_interval:
        return "ours within noise" if ours.has_interval else "too few repeats"
    if abs(math.log(source_ratio)) < 1e-9:
        return "paper found no difference, ours did"
    return "same" if (source_ratio > 1) == (ours.estimate > 1) else "opposite"


def fidelity(entries: list[dict[str, Any]]) -> pd.DataFrame:
    out = []
    for entry in (e for e in entries if "source_ratio" in e):
        found = after_of(entry)
        out.append({"notebook": entry["notebook"], "result": entry["what"], "the source": entry["source"],
                    "source as pattern/naive": entry["source_ratio"], "ours (median, 95% interval)": found.text(),
                    "direction": direction(float(entry["source_ratio"]), found),
                    "ours / source": round(found.estimate / float(entry["source_ratio"]), 2)})
    return pd.DataFrame(out)


def readme_tables(before_after: pd.DataFrame, faithful: pd.DataFrame) -> str:
    """The README's block: the before/after table, and the fidelity table when there is one."""
    shown = before_after.drop(columns=[c for c in ("machine", "rows") if c in before_after])
    text = shown.to_markdown(index=False)
    if not faithful.empty:
        text += "\n\nAgainst the source:\n\n" + faithful.drop(columns=[c for c in ("machine",) if c in faithful]).to_markdown(index=False)
    return f"{START}\n{text}\n{END}"


def update_readme(block: str) -> None:
    """Replace the block between the markers in benchmarks/README.md (the markers must be there once each)."""
    text = README.read_text()
    if text.count(START) != 1 or text.count(END) != 1:
        raise SystemExit(f"benchmarks/README.md needs the markers {START} and {END} once each")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    README.write_text(head + block + tail)


def load_entries() -> list[dict[str, Any]]:
    """The [[ratio]] entries of remeasured.toml."""
    return tomllib.loads((HERE / "remeasured.toml").read_text())["ratio"]


def main() -> None:
    entries = load_entries()
    df = table(entries)
    command = ".venv/bin/python benchmarks/remeasured.py"
    write(df, RESULTS, "remeasured", "Ratios the notebooks quoted from one run, re-measured with repeats", measured_on(entries), command)
    print(df.drop(columns=["rows", "machine"]).to_string(index=False))
    faithful = fidelity(entries)
    if not faithful.empty:
        write(faithful, RESULTS, "fidelity", "The source's results the notebooks compare with, against ours re-measured with repeats",
              measured_on([e for e in entries if "source_ratio" in e]), command)
        print(faithful.drop(columns=["machine"]).to_string(index=False))
    update_readme(readme_tables(df, faithful))


if __name__ == "__main__":
    main()
