"""YCSB's cache phase on a node of its own: a cache sweep starts its cluster with the chunk cache it asks for, reads
flushed data through it and counts the cache's hits. A module of its own, with no shared cluster (tests/integration/
conftest.py runs it before the shared ones start), because the sweep's start replaces whatever cluster runs."""

from __future__ import annotations

from labkit.workloads.ycsb import WORKLOAD


def test_a_cache_sweep_reads_flushed_data_through_the_chunk_cache_and_counts_hits():
    from labkit.sweeps import run_pattern_sweep
    from labkit.workloads.ycsb.cassandra import hit_ratios

    plan = WORKLOAD.sweep_plan("quick", "cache", nodes=[1], threads=[8], operations=400, run_options={"warmup": 0})
    rows = hit_ratios(run_pattern_sweep(WORKLOAD, plan, settings={"records": 3000, "chunk_cache_mb": 1}, echo=lambda line: None))
    row = rows.iloc[0]
    assert row.verify_ok and row.chunk_cache_mb == 1 and row.distribution == "uniform"
    assert row.server_counter_chunk_cache_requests >= 400  # every read went to an SSTable through the cache (the memtable was flushed)
    assert 0 <= row.chunk_cache_hit_ratio < 1  # 3,000 records of 1 KB do not fit 1 MiB
