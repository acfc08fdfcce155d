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
