"""UUID Key's per-region table from a repeated sweep: region rows keep their block, the A/A copies and
partial runs stay out of the ratios, and each ratio pairs the counter and the UUID run of one block."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from labkit.patterns.uuid_key import by_region

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import uuid_key as uuid_key_benchmark  # noqa: E402


def sweep_row(approach: str, repeat: int, usa_ms: float, ireland_ms: float, *, copy: bool = False, complete: bool = True) -> dict:
    return {"engine": "cassandra", "server_version": "5.0.9", "provider": "local", "nodes": 4, "approach": approach,
            "phase": "availability", "one_way_ms": 70, "threads": 8, "repeat": repeat, "control_copy": copy, "complete": complete,
            "register_usa_mean_us": usa_ms * 1000, "register_usa_count": 100, "register_usa_p95_us": usa_ms * 2000,
            "register_ireland_mean_us": ireland_ms * 1000, "register_ireland_count": 100, "register_ireland_p95_us": ireland_ms * 2000}


@pytest.fixture
def regions() -> pd.DataFrame:
    rows = []
    for repeat, (counter_ireland, uuid_ireland) in enumerate([(300, 3), (330, 3.3), (270, 2.7)]):
        rows += [sweep_row("naive", repeat, 2, counter_ireland), sweep_row("pattern", repeat, 1, uuid_ireland),
                 sweep_row("pattern", repeat, 50, 50, copy=True)]  # an A/A copy far off: it must not count
    rows.append(sweep_row("naive", 3, 1, 1, complete=False))  # a run cut short: it must not count either
    return by_region(pd.DataFrame(rows))


def test_region_rows_keep_the_block_they_ran_in(regions):
    assert {"repeat", "control_copy", "complete"} <= set(regions.columns)
    assert len(regions) == 2 * 10


def test_the_ratios_pair_counter_and_uuid_within_a_block_and_leave_out_copies_and_partial_runs(regions):
    table = uuid_key_benchmark.region_ratios(regions).set_index("region")
    assert table.loc["ireland", "latency counter/uuid"] == 100.0  # 300/3, 330/3.3, 270/2.7: exactly 100 in every block
    assert table.loc["ireland", "counter mean ms"] == 300.0
    assert table.loc["usa", "latency counter/uuid"] == 2.0
    assert table.loc["ireland", "throughput uuid/counter"] == pytest.approx(100, rel=0.01)  # by_region rounds throughput to 0.1/s
    assert "100" in table.loc["ireland", "latency interval"]


def test_the_figures_plot_one_median_per_region_approach_and_thread_count(regions):
    medians = uuid_key_benchmark.median_regions(regions).set_index(["region", "approach"])
    assert len(medians) == 4
    assert medians.loc[("ireland", "pattern"), "mean_ms"] == 3.0


def test_the_one_trip_table_pairs_each_counter_with_its_neighbour_within_a_block():
    rows = []
    for repeat in range(3):
        rows += [sweep_row("naive", repeat, 8, 300), sweep_row("naive/one-trip", repeat, 4, 150), sweep_row("pattern", repeat, 2, 1.5)]
    table = uuid_key_benchmark.one_trip_ratios(by_region(pd.DataFrame(rows))).set_index("region")
    assert table.loc["ireland", "read+cas/one-trip"].startswith("2.0x")
    assert table.loc["ireland", "one-trip/uuid"].startswith("100x")
    assert table.loc["usa", "one-trip mean ms"] == 4.0


def test_counter_requests_count_reads_and_compare_and_sets_per_registration():
    read_and_cas = {**sweep_row("naive", 0, 8, 300), "read_counter_usa_count": 100, "read_counter_ireland_count": 100,
                    "cas_counter_usa_count": 120, "cas_counter_ireland_count": 250, "cas_counter_usa_mean_us": 3000, "cas_counter_ireland_mean_us": 145000}
    one_trip = {**sweep_row("naive/one-trip", 0, 4, 150), "cas_counter_usa_count": 100, "cas_counter_ireland_count": 130,
                "cas_counter_usa_mean_us": 3000, "cas_counter_ireland_mean_us": 145000}  # no read columns at all: it sent none
    table = uuid_key_benchmark.counter_requests(pd.DataFrame([read_and_cas, one_trip, sweep_row("pattern", 0, 2, 1.5)]))
    got = table.set_index(["approach", "region"])
    assert len(table) == 4  # the UUID run sends the counter nothing: no rows
    assert got.loc[("naive", "ireland"), "requests per registration"] == 3.5
    assert got.loc[("naive/one-trip", "ireland"), "reads per registration"] == 0
    assert got.loc[("naive/one-trip", "usa"), "requests per registration"] == 1.0
