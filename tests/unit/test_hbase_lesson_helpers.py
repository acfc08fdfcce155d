"""Notebook 09's arithmetic without a server: which tables a student's runs write (their namespace), how the
servers' per-region counts become per-login evidence, and how a measured share is named."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.lessons.hbase_regions import HALF, SIXTEENTH, ALL, nearest_share
from labkit.workloads import hbase_hot_spot as hot_spot
from labkit.workloads import hbase_index_table as index_table


class Cluster:
    provider = "local"
    thrift_gateway = "127.0.0.1:9090"


def test_tables_carry_the_students_namespace(monkeypatch):
    monkeypatch.setenv("LABKIT_NAMESPACE", "anna")
    assert hot_spot.hot_spot_writes(Cluster(), "naive/sequential").table == "anna_hot_spot_sequential"
    logins = index_table.email_logins(Cluster(), "pattern/lookup", 10)
    assert (logins.users_table, logins.lookup_table) == ("anna_index_table_users", "anna_index_table_users_by_email")
    monkeypatch.delenv("LABKIT_NAMESPACE")
    assert hot_spot.hot_spot_writes(Cluster(), "pattern/hashed").table == "hot_spot_hashed"


def test_unknown_approaches_and_too_few_users_are_refused():
    with pytest.raises(ConfigError, match="choose naive/scan or pattern/lookup"):
        index_table.EmailLogins(Cluster(), "pattern/index", 10)
    with pytest.raises(ConfigError, match="users must be at least 2"):
        index_table.EmailLogins(Cluster(), "naive/scan", 1)
    with pytest.raises(ConfigError, match="choose naive/sequential or pattern/hashed"):
        hot_spot.HotSpotWrites(Cluster(), "pattern/salted")


def metrics(regions):
    return {"servers": [{"host": host, "regions": [{"table": t, "start_key": k, "reads": r, "filtered_reads": f, "writes": w}
                                                   for (t, k, h, r, f, w) in regions if h == host]}
                        for host in sorted({r[2] for r in regions})]}


def test_region_counts_become_per_login_evidence_and_regions_per_login():
    before = index_table.region_reads(metrics([("u", "", "a", 0, 0, 0), ("u", "8", "b", 0, 0, 0), ("l", "", "b", 0, 0, 0)]), ("u", "l"))
    scanned = metrics([("u", "", "a", 12, 990, 0), ("u", "8", "b", 13, 1008, 0), ("l", "", "b", 0, 0, 0)])  # 10 logins
    rows = index_table.reads_between(before, index_table.region_reads(scanned, ("u", "l")), 10)
    assert [r["rows_filtered_per_login"] for r in rows] == [0, 99.0, 100.8]  # sorted by table, then start key
    assert index_table.regions_per_login("naive/scan", rows) == 2
    looked_up = metrics([("u", "", "a", 4, 0, 0), ("u", "8", "b", 6, 0, 0), ("l", "", "b", 10, 0, 0)])
    rows = index_table.reads_between(before, index_table.region_reads(looked_up, ("u", "l")), 10)
    assert index_table.regions_per_login("pattern/lookup", rows) == pytest.approx(2.0)


def test_region_writes_come_in_key_order_with_their_server():
    counted = hot_spot.region_writes(metrics([("t", "8", "b", 0, 0, 5), ("t", "", "a", 0, 0, 3), ("x", "", "a", 0, 0, 9)]), "t")
    assert counted == [{"start_key": "", "server": "a", "writes": 3}, {"start_key": "8", "server": "b", "writes": 5}]


@pytest.mark.parametrize("share, named", [(1.0, ALL), (0.93, ALL), (0.52, HALF), (0.3, HALF), (0.07, SIXTEENTH)])
def test_a_measured_share_is_named_by_the_nearest_choice(share, named):
    assert nearest_share(share) == named


def test_usertable_is_cut_at_the_loaded_keys_into_equal_ranges():
    from labkit.workloads.ycsb.core import key_name
    from labkit.workloads.ycsb.hbase import split_points

    keys = [key_name(k) for k in range(2000)]
    points = split_points(keys, 20)
    assert len(points) == 19 and points == sorted(points)
    counts = [sum(1 for k in keys if (i == 0 or k >= points[i - 1]) and (i == len(points) or k < points[i])) for i in range(20)]
    assert counts == [100] * 20  # a region per 100 records
    assert split_points(keys[:3], 20) == sorted(keys[:3])[1:]  # never more regions than records
