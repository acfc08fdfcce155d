"""The partition lesson's arithmetic and its reading of the nodes' histograms (the servers' part is in
tests/integration/test_patterns_cassandra.py)."""

from __future__ import annotations

import datetime
from types import SimpleNamespace

from labkit.profiles.cassandra_partitions import history, largest_partition, time_to_live

HISTOGRAM = """ks/history_by_room histograms
Percentile      Read Latency     Write Latency     SSTables    Partition Size        Cell Count
                    (micros)          (micros)                             (bytes)
50%                     0.00              0.00         0.00            654949              9887
Max                     0.00              0.00         0.00            785939             11864
"""
EMPTY = """ks/history_by_room histograms
Percentile      Read Latency     Write Latency     SSTables    Partition Size        Cell Count
Max                      NaN               NaN          NaN               NaN               NaN
"""


def test_a_history_has_its_days_in_order_and_each_day_its_messages_within_the_day():
    today = datetime.date(2026, 11, 27)
    messages = history(days=3, per_day=4, today=today)
    assert [d for d, *_ in messages] == [today - datetime.timedelta(days=2)] * 4 + [today - datetime.timedelta(days=1)] * 4 + [today] * 4
    assert all(sent.date() == day for day, sent, *_ in messages)
    assert [s for _, s, *_ in messages] == sorted(s for _, s, *_ in messages) and messages == history(3, 4, today)


def test_messages_past_the_retention_expire_at_once_and_the_rest_live_out_their_retention():
    today = datetime.date(2026, 11, 27)
    assert time_to_live(today, today, 7) == 7 * 86400
    assert time_to_live(today - datetime.timedelta(days=6), today, 7) == 86400
    assert time_to_live(today - datetime.timedelta(days=7), today, 7) == 1


def test_the_largest_partition_is_the_max_row_of_every_nodes_histogram_and_an_empty_node_counts_for_nothing():
    outputs = {"node1": HISTOGRAM, "node2": EMPTY}
    admin = SimpleNamespace(nodetool=lambda name, *args: outputs[name])
    cluster = SimpleNamespace(live_nodes=lambda: [SimpleNamespace(name=n) for n in outputs], node_admin=lambda: admin)
    assert largest_partition(cluster, "ks", "history_by_room") == {"bytes": 785939.0, "cells": 11864.0}
