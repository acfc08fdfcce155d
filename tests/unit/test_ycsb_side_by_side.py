"""The HBase-Cassandra summary from rows alone: a point compares only the blocks both engines kept up in, pairs
the engines within a block, and says so when a block fell behind."""

from __future__ import annotations

import pandas as pd

from labkit.workloads.ycsb import side_by_side


def row(engine, block, mean_ms, kept_up=True, target=400, mix="baseline/c"):
    return {"engine": engine, "approach": mix, "target_rate": target, "repeat": block, "intended_mean_us": mean_ms * 1000,
            "kept_up": kept_up, "server_cpu_ms_per_tx": 1.0, "server_cpu_ms_per_tx_thrift": 0.4 if engine == "hbase" else None}


def test_only_blocks_both_engines_kept_up_in_are_compared():
    rows = [row("cassandra", b, 4.0) for b in range(4)] + [row("hbase", b, 2.0) for b in range(3)] + [row("hbase", 3, 90.0, kept_up=False)]
    table = side_by_side.summary(pd.DataFrame(rows))
    (point,) = table.to_dict("records")
    assert point["hbase_over_cassandra_mean"].startswith("0.50x")  # the fallen-behind block's 90 ms is left out
    assert point["blocks_kept_up"] == "cassandra 4, hbase 3 of 4"
    assert point["hbase_gateway_cpu_ms_per_tx"] == 0.4 and point["cassandra_mean_ms"] == 4.0


def test_a_point_no_block_kept_up_in_says_it_was_not_compared():
    rows = [row("cassandra", 0, 4.0, target=1600), row("hbase", 0, 400.0, kept_up=False, target=1600)]
    (point,) = side_by_side.summary(pd.DataFrame(rows)).to_dict("records")
    assert point["hbase_over_cassandra_mean"] == "not compared (a block fell behind)"


def test_blocks_alternate_which_engine_runs_first(monkeypatch):
    calls = []
    monkeypatch.setattr(side_by_side, "engine_block", lambda engine, size, block, order, echo, **narrowed: calls.append((block, order, engine)) or [])
    monkeypatch.setitem(side_by_side.SIZES, "quick", {**side_by_side.SIZES["quick"], "blocks": 3})
    side_by_side.side_by_side("quick")
    assert calls == [(0, 0, "cassandra"), (0, 1, "hbase"), (1, 0, "hbase"), (1, 1, "cassandra"), (2, 0, "cassandra"), (2, 1, "hbase")]


def test_the_latency_ratio_is_at_one_load_both_engines_kept_up_at():
    rows = [row("cassandra", b, 4.0, target=t) for b in range(2) for t in (400, 800)]
    rows += [row("hbase", b, 2.0, target=400) for b in range(2)] + [row("hbase", b, 99.0, kept_up=False, target=800) for b in range(2)]
    ratio = side_by_side.latency_ratio(pd.DataFrame(rows), "baseline/c")
    assert ratio.text().startswith("2.0x") and ratio.where() == "at 400/s offered"  # two pairs at 400/s; 800/s fell behind
    assert side_by_side.latency_ratio(pd.DataFrame(rows), "baseline/a") is None


def test_the_latency_ratio_never_pools_two_loads_into_one_interval():
    # one block per load at three loads: three pairs in all, but one per condition, so no interval
    rows = [row(e, 0, ms, target=t) for t, (c, h) in {200: (4.0, 2.0), 400: (6.0, 2.0), 800: (9.0, 2.0)}.items()
            for e, ms in (("cassandra", c), ("hbase", h))]
    ratio = side_by_side.latency_ratio(pd.DataFrame(rows), "baseline/c")
    assert not ratio.interval.has_interval and ratio.where() == "at 800/s offered"
    assert "3 points, 2.0x-4.5x over 200-800/s offered" in ratio.range_text()
