"""The before/after table of re-measured ratios (benchmarks/remeasured.py): its verdicts, and that the
committed table is what the committed raw rows give."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from labkit.results.intervals import RatioInterval

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import remeasured  # noqa: E402


@pytest.mark.parametrize("before, after, expected", [
    (2.5, RatioInterval(2.4, 2.1, 2.8, 3, "t"), "held"),
    (2.5, RatioInterval(1.6, 1.4, 1.8, 3, "t"), "shrank"),
    (1.4, RatioInterval(2.2, 1.9, 2.6, 3, "t"), "grew"),
    (0.43, RatioInterval(0.30, 0.25, 0.36, 3, "t"), "grew"),  # further below 1 is a larger effect
    (0.43, RatioInterval(0.70, 0.60, 0.80, 3, "t"), "shrank"),
    (1.49, RatioInterval(0.91, 0.68, 1.2, 3, "t"), "within noise"),
    (1.3, RatioInterval(0.80, 0.70, 0.90, 3, "t"), "reversed"),
    (2.0, RatioInterval(2.0, 1.5, 2.5, 2, "spread"), "too few repeats"),
])
def test_a_verdict_compares_the_size_of_the_effect(before, after, expected):
    assert remeasured.verdict(before, after) == expected


@pytest.fixture(scope="module")
def recomputed():
    """Both tables recomputed once from remeasured.toml and the committed raw rows."""
    entries = remeasured.load_entries()
    return remeasured.table(entries), remeasured.fidelity(entries)


def committed(name: str, key: str) -> dict[str, dict[str, str]]:
    with open(ROOT / "benchmarks" / "results" / f"{name}.csv", newline="") as handle:
        return {r[key]: r for r in csv.DictReader(handle)}


def test_the_committed_table_is_what_the_raw_rows_give(recomputed):
    table, _ = recomputed
    rows = committed("remeasured", "ratio")
    assert set(rows) == set(table["ratio"]), "re-run benchmarks/remeasured.py: the table and remeasured.toml differ"
    for _, fresh in table.iterrows():
        row = rows[fresh["ratio"]]
        assert row["after (median, 95% interval)"] == fresh["after (median, 95% interval)"] and row["verdict"] == fresh["verdict"], (
            f"{fresh['ratio']}: the committed table says {row['after (median, 95% interval)']} ({row['verdict']}), "
            f"the rows give {fresh['after (median, 95% interval)']} ({fresh['verdict']})")


@pytest.mark.parametrize("source, ours, expected", [
    (9.0, RatioInterval(1.9, 1.1, 3.3, 3, "t"), "same"),
    (0.05, RatioInterval(0.04, 0.03, 0.05, 3, "t"), "same"),
    (1.4, RatioInterval(0.91, 0.68, 1.2, 3, "t"), "ours within noise"),
    (1.92, RatioInterval(0.8, 0.7, 0.9, 3, "t"), "opposite"),
    (1.0, RatioInterval(0.7, 0.6, 0.8, 3, "t"), "paper found no difference, ours did"),
])
def test_fidelity_says_whether_ours_points_the_papers_way(source, ours, expected):
    assert remeasured.direction(source, ours) == expected


def test_the_committed_fidelity_table_is_what_the_raw_rows_give(recomputed):
    _, faithful = recomputed
    rows = committed("fidelity", "result")
    assert set(rows) == set(faithful["result"]), "re-run benchmarks/remeasured.py: the fidelity table and remeasured.toml differ"
    for _, fresh in faithful.iterrows():
        assert rows[fresh["result"]]["ours (median, 95% interval)"] == fresh["ours (median, 95% interval)"]
        assert rows[fresh["result"]]["direction"] == fresh["direction"]


def test_the_readme_shows_the_tables_the_raw_rows_give(recomputed):
    block = remeasured.readme_tables(*recomputed)
    assert block in (ROOT / "benchmarks" / "README.md").read_text(), "re-run benchmarks/remeasured.py: benchmarks/README.md's tables are stale"


def test_every_entry_is_the_repeats_of_one_condition():
    """An "after" interval never pools thread or node counts (#68), nor a pattern's settings: each entry's rows are
    one condition, apart from the column it compares (`between`)."""
    from labkit.lessons import pattern_settings
    from labkit.results.intervals import mixed_conditions

    for entry in remeasured.load_entries():
        with open(ROOT / "benchmarks" / "results" / entry["file"], newline="") as handle:
            chosen = [r for r in csv.DictReader(handle) if remeasured.matches(r, entry.get("where", {}))]
        assert not mixed_conditions(chosen, between=entry.get("between", "approach"), settings=pattern_settings(chosen)), entry["what"]


def test_an_entry_over_several_thread_counts_is_refused():
    """The Index Table login on one node over 10-100 threads, as it was once pooled into one interval."""
    pooled = {"notebook": "02", "what": "pooled", "before": 0.54, "file": "index_table_login.csv", "where": {"nodes": 1},
              "numerator": "pattern", "denominator": "naive/legacy", "pair_on": ["threads"]}
    with pytest.raises(SystemExit, match="mix conditions"):
        remeasured.after_of(pooled)
    assert remeasured.after_of({**pooled, "where": {"nodes": 1, "threads": 100}}).pairs == 3
