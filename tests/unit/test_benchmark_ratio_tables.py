"""Ratio tables of the benchmarks re-run with repeats: ycsb_cache.py (spilling over fitting data pairs the
runs of one block; a gain from more nodes compares clusters started apart) and enumerable_keys_volume.py
(the largest post over the first, paired within a series)."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import ycsb_cache  # noqa: E402


@pytest.mark.full  # full tier: a slow unit test (3.0 s of make test's unit run on 2026-12-03)
def test_spills_over_fits_pairs_by_block_and_growth_is_unpaired():
    rows = []
    for repeat, drift in enumerate((1.0, 1.3, 0.8)):  # a block-wide drift the pairing cancels
        for nodes, fits, spills in ((1, 1800, 1200), (2, 2100, 2100)):
            rows += [{"nodes": nodes, "records": 4000, "repeat": repeat, "throughput": fits * drift},
                     {"nodes": nodes, "records": 40000, "repeat": repeat, "throughput": spills * drift}]
    table = ycsb_cache.cache_ratios(pd.DataFrame(rows), 4000, 40000).set_index("nodes")
    assert table.loc[1, "spills / fits"] == "0.67x (0.67-0.67)"  # 1200/1800 in every block: no spread left
    assert table.loc[2, "spills / fits"] == "1.00x (1.00-1.00, within noise)"
    assert table.loc[2, "spills: these nodes / 1 node"].startswith("1.8x (")  # 2100/1200 with the drift in both groups: an interval
    assert table.loc[2, "spills: these nodes / 1 node"] != "1.8x (1.8-1.8)"
    assert table.loc[1, "fits: these nodes / 1 node"] == ""


def test_the_volume_growth_pairs_the_last_run_with_the_first_of_the_same_series():
    import enumerable_keys_volume

    rows = []
    for repeat, drift in enumerate((1.0, 1.2, 0.9)):  # one series slower throughout: the pairing cancels it
        for run, comments in ((1, 1000), (2, 2000)):
            rows += [{"approach": "naive", "repeat": repeat, "run": run, "comments": comments, "write_mean_us": 2000 * drift,
                      "page_mean_us": 5000 * run * drift}]
    table = enumerable_keys_volume.growth(pd.DataFrame(rows)).set_index("operation")
    assert table.loc["newest page", "last / first"] == "2.0x (2.0-2.0)"
    assert table.loc["write", "last / first"] == "1.00x (1.00-1.00, within noise)"
    assert table.loc["newest page", "first mean ms (median)"] == 5.0 and table.loc["newest page", "series"] == 3
