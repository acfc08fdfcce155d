"""The HBase-Cassandra summary from rows alone: a point compares only the blocks both engines kept up in, pairs
the engines within a block, and says so when a block fell behind."""

from __future__ import annotations

import pandas as pd

from labkit.workloads.ycsb import side_by_side


def row(engine, block, mean_ms, kept_up=True, target=400, mix="baseline/c", waited_ms=0.0):
    """`mean_ms` from the intended start; from the actual start `waited_ms` less (the time a paced request waited to be sent)."""
    return {"engine": engine, "approach": mix, "target_rate": target, "repeat": block, "intended_mean_us": mean_ms * 1000,
            "mean_us": (mean_ms - waited_ms) * 1000,
            "kept_up": kept_up, "server_cpu_ms_per_tx": 1.0, "server_cpu_ms_per_tx_thrift": 0.4 if engine == "hbase" else None}


def test_only_blocks_both_engines_kept_up_in_are_compared():
    rows = [row("cassandra", b, 4.0, waited_ms=1.0) for b in range(4)] + [row("hbase", b, 2.0) for b in range(3)] + [row("hbase", 3, 90.0, kept_up=False)]
    table = side_by_side.summary(pd.DataFrame(rows))
    (point,) = table.to_dict("records")
    assert point["hbase_over_cassandra_intended_mean"].startswith("0.50x")  # the fallen-behind block's 90 ms is left out
    assert point["hbase_over_cassandra_mean"].startswith("0.67x")  # from the actual start (document 004's measure): 2 over 3 ms
    assert point["blocks_kept_up"] == "cassandra 4, hbase 3 of 4"
    assert point["hbase_gateway_cpu_ms_per_tx"] == 0.4 and point["cassandra_mean_ms"] == 3.0 and point["cassandra_intended_mean_ms"] == 4.0


def test_a_point_no_block_kept_up_in_says_it_was_not_compared():
    rows = [row("cassandra", 0, 4.0, target=1600), row("hbase", 0, 400.0, kept_up=False, target=1600)]
    (point,) = side_by_side.summary(pd.DataFrame(rows)).to_dict("records")
    assert point["hbase_over_cassandra_mean"] == point["hbase_over_cassandra_intended_mean"] == "not compared (a block fell behind)"


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


def test_load_rates_count_only_runs_that_loaded():
    rows = [{"engine": "cassandra", "server_version": "5.0.9", "records": 1000, "load_s": s} for s in (2.0, 0.01, 4.0)]
    rows += [{"engine": "hbase", "server_version": "2.6.1", "records": 1000, "load_s": s} for s in (1.0, None)]
    table = side_by_side.load_rates(pd.DataFrame(rows)).set_index("engine")
    assert table.loc["cassandra", "loads"] == 2 and table.loc["cassandra", "records_per_s_range"] == "250-500"  # the 0.01 s run found its table loaded
    assert table.loc["hbase", "records_per_s_median"] == 1000


def test_the_load_times_pair_each_blocks_first_loads_only():
    """A reload after an inserting mix is not its block's load into a fresh cluster: the pairs are the first loads."""
    rows = []
    for block, (cassandra_s, hbase_s) in enumerate([(20.0, 10.0), (22.0, 11.0), (18.0, 9.0)]):
        for engine, first, reload in (("cassandra", cassandra_s, 99.0), ("hbase", hbase_s, 1.0)):
            rows += [{"engine": engine, "server_version": "x", "records": 1000, "repeat": block, "load_s": first},
                     {"engine": engine, "server_version": "x", "records": 1000, "repeat": block, "load_s": 0.0},
                     {"engine": engine, "server_version": "x", "records": 1000, "repeat": block, "load_s": reload}]
    df = pd.DataFrame(rows)
    assert list(side_by_side.first_loads(df)["load_s"]) == [20.0, 10.0, 22.0, 11.0, 18.0, 9.0]
    table = side_by_side.load_rates(df).set_index("engine")
    assert table.loc["hbase", "hbase_over_cassandra_load_time"] == "0.50x (0.50-0.50)"
    assert table.loc["cassandra", "loads"] == 6  # every load counts in the rates; only the first ones pair


def test_the_data_on_disk_counts_the_table_files_only(tmp_path):
    """Not the WAL, the commit log or the marker table: what the records took, to set beside the caches."""
    def put(relative, mib):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * int(mib * 2**20))
    put("data/data/default/usertable/0a1b/f/hfile1", 3)
    put("node1/data/data/ycsb/usertable-1234abcd/nb-1-big-Data.db", 1.5)
    put("data/WALs/rs1/wal.1", 64)
    put("node1/data/commitlog/CommitLog-7-1.log", 32)
    put("data/data/default/usertable_loaded/0c/f/hfile", 1)
    put("node1/data/data/ycsb/usertable-1234abcd/snapshots/truncated-1/nb-1-big-Data.db", 20)  # a TRUNCATE's snapshot
    put("data/archive/data/default/usertable/0a1b/f/old-hfile", 30)  # files HBase replaced
    assert side_by_side.data_mib(tmp_path) == 4.5
