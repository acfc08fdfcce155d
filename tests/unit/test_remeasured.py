"""The before/after table of re-measured ratios (benchmarks/remeasured.py): its verdicts, and that the
committed table is what the committed raw rows give."""

from __future__ import annotations

import csv
import sys
import tomllib
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


def test_the_committed_table_is_what_the_raw_rows_give():
    entries = tomllib.loads((ROOT / "benchmarks" / "remeasured.toml").read_text())["ratio"]
    with open(ROOT / "benchmarks" / "results" / "remeasured.csv", newline="") as handle:
        committed = {r["ratio"]: r for r in csv.DictReader(handle)}
    assert set(committed) == {e["what"] for e in entries}, "re-run benchmarks/remeasured.py: the table and remeasured.toml differ"
    for entry in entries:
        found = remeasured.after_of(entry)
        row = committed[entry["what"]]
        assert row["after (median, 95% interval)"] == found.text() and row["verdict"] == remeasured.verdict(float(entry["before"]), found), (
            f"{entry['what']}: the committed table says {row['after (median, 95% interval)']} ({row['verdict']}), the rows give {found.text()}")


@pytest.mark.parametrize("source, ours, expected", [
    (9.0, RatioInterval(1.9, 1.1, 3.3, 3, "t"), "same"),
    (0.05, RatioInterval(0.04, 0.03, 0.05, 3, "t"), "same"),
    (1.4, RatioInterval(0.91, 0.68, 1.2, 3, "t"), "ours within noise"),
    (1.92, RatioInterval(0.8, 0.7, 0.9, 3, "t"), "opposite"),
    (1.0, RatioInterval(0.7, 0.6, 0.8, 3, "t"), "paper found no difference, ours did"),
])
def test_fidelity_says_whether_ours_points_the_papers_way(source, ours, expected):
    assert remeasured.direction(source, ours) == expected


def test_the_committed_fidelity_table_is_what_the_raw_rows_give():
    entries = [e for e in tomllib.loads((ROOT / "benchmarks" / "remeasured.toml").read_text())["ratio"] if "source_ratio" in e]
    with open(ROOT / "benchmarks" / "results" / "fidelity.csv", newline="") as handle:
        committed = {r["result"]: r for r in csv.DictReader(handle)}
    assert set(committed) == {e["what"] for e in entries}, "re-run benchmarks/remeasured.py: the fidelity table and remeasured.toml differ"
    for entry in entries:
        found = remeasured.after_of(entry)
        assert committed[entry["what"]]["ours (median, 95% interval)"] == found.text()
        assert committed[entry["what"]]["direction"] == remeasured.direction(float(entry["source_ratio"]), found)


def test_the_readme_shows_the_tables_the_raw_rows_give():
    entries = tomllib.loads((ROOT / "benchmarks" / "remeasured.toml").read_text())["ratio"]
    block = remeasured.readme_tables(remeasured.table(entries), remeasured.fidelity(entries))
    assert block in (ROOT / "benchmarks" / "README.md").read_text(), "re-run benchmarks/remeasured.py: benchmarks/README.md's tables are stale"
