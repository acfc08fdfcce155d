"""The pattern modules' data generators and pure helpers (no server needed)."""

import pytest

from labkit.errors import ConfigError
from labkit.catalogue import describe
from labkit.patterns import index_table
from labkit.patterns.fan_out import Network
from labkit.patterns.fan_out.cassandra import FanOut
from labkit.patterns.index_table.cassandra import IndexTable


def test_network_is_reproducible_and_consistent():
    a, b = Network(users=50, follows=7, posts=4, seed=3), Network(users=50, follows=7, posts=4, seed=3)
    assert a.following == b.following and a.schedule == b.schedule
    assert Network(users=50, follows=7, posts=4, seed=4).following != a.following
    for u, followed in a.following.items():
        assert len(followed) == 7 and u not in followed
        for v in followed:
            assert u in a.followers[v]
    assert sum(len(f) for f in a.followers.values()) == 50 * 7
    assert sorted(a.schedule) == [(u, k) for u in range(50) for k in range(4)]
    last = {}
    for u, k in a.schedule:  # each user's posts in order, one second apart
        assert k == last.get(u, -1) + 1
        last[u] = k


def test_expected_feed_is_newest_first_and_respects_what_was_posted():
    net = Network(users=10, follows=3, posts=5)
    feed = net.expected_feed(0)
    assert len(feed) == 15 and feed == sorted(feed, reverse=True)
    assert {a for _, a in feed} == set(net.following[0])
    posted = set(net.schedule[:20])
    partial = net.expected_feed(0, posted)
    assert all((a, (t - 1_700_000_000_000 - a) // 1000) in posted for t, a in partial)


@pytest.mark.parametrize("bad", [dict(users=1, follows=1, posts=1), dict(users=5, follows=5, posts=1), dict(users=5, follows=2, posts=0)])
def test_network_rejects_impossible_shapes(bad):
    with pytest.raises(ConfigError):
        Network(**bad)


def test_workloads_reject_unknown_approach_phase_and_sizes():
    net = Network(users=5, follows=2, posts=2)
    with pytest.raises(ConfigError, match="unknown approach"):
        FanOut(["127.0.0.1"], "naive/sai", "post", net)
    with pytest.raises(ConfigError, match="unknown phase"):
        FanOut(["127.0.0.1"], "naive", "read", net)
    with pytest.raises(ConfigError, match="posts must be"):
        FanOut(["127.0.0.1"], "naive", "post", net, posts=11)
    with pytest.raises(ConfigError, match="unknown approach"):
        IndexTable(["127.0.0.1"], "naive", "login", users=5)
    with pytest.raises(ConfigError, match="users must be"):
        IndexTable(["127.0.0.1"], "pattern", "login", users=0)


def test_user_numbers_round_trip_through_emails_and_ids_are_stable():
    for n in (0, 5, 1234567, -3):
        assert index_table.number_of(index_table.email_of(n)) == n
    assert index_table.id_of(5) == index_table.id_of(5) != index_table.id_of(6)


def test_patterns_are_found_by_name():
    assert describe("index-table") is index_table.PATTERN
    assert describe("fan-out").approaches == ("naive", "pattern")
    with pytest.raises(ConfigError, match="unknown pattern 'sharding': choose one of uuid-key, index-table"):
        describe("sharding")


def test_uuid_key_checks_its_inputs_and_counts_collisions():
    from labkit.patterns import uuid_key
    from labkit.patterns.uuid_key import cassandra as uuid_key_cql

    dcs = {"dc1": ["127.0.0.1"], "dc2": ["127.0.0.2"]}
    with pytest.raises(ConfigError, match="datacenters dc1 and dc2"):
        uuid_key_cql.UuidKey({"dc1": ["127.0.0.1"]}, "naive", "partition", 10)
    with pytest.raises(ConfigError, match="unknown test"):
        uuid_key_cql.UuidKey(dcs, "naive", "outage", 10)
    with pytest.raises(ConfigError, match="unknown approach"):
        uuid_key_cql.UuidKey(dcs, "naive/lwt", "partition", 10)
    with pytest.raises(ConfigError, match="wan_proxy"):
        uuid_key_cql.UuidKey(dcs, "naive", "availability", 10).counter_session("ireland")
    reg = uuid_key.Registered()
    for k in (1, 2, 3):
        reg.add("usa", k, f"usa-{k}")
    for k in (2, 3, 4):
        reg.add("ireland", k, f"ireland-{k}")
    assert reg.collisions() == [2, 3]


def test_uuid_key_refuses_runs_that_cannot_split_into_two_regions_before_touching_the_cluster():
    from labkit.patterns.uuid_key import cassandra as uuid_key_cql
    from labkit.runner import RunOptions, run

    dcs = {"dc1": ["127.0.0.1"], "dc2": ["127.0.0.2"]}
    workload = uuid_key_cql.UuidKey(dcs, "pattern", "availability", 10, wan_proxy=("127.1.2.250", uuid_key_cql.WAN_PROXY_PORT))
    workload.setup = lambda: pytest.fail("setup ran although the run was refused")
    with pytest.raises(ConfigError, match="even thread count"):
        run(workload, threads=3, operations=20)
    with pytest.raises(ConfigError, match="operations=20"):
        run(workload, threads=2, operations=30)
    with pytest.raises(ConfigError, match="processes=1"):
        run(workload, threads=2, operations=20, options=RunOptions(processes=2))
    with pytest.raises(ConfigError, match="converge"):
        run(uuid_key_cql.UuidKey(dcs, "pattern", "partition", 10), threads=2, operations=20)


def test_uuid_key_region_figures_come_from_each_regions_own_latency():
    import pandas as pd

    from labkit.patterns import uuid_key

    row = {"engine": "cassandra", "approach": "naive", "threads": 4, "register_usa_mean_us": 2000, "register_usa_p95_us": 3000,
           "register_usa_count": 10, "register_ireland_mean_us": 200_000, "register_ireland_p95_us": 250_000, "register_ireland_count": 10}
    regions = uuid_key.by_region(pd.DataFrame([row])).set_index("region")
    assert regions.loc["usa", "throughput"] == 1000.0  # 2 threads / 2 ms
    assert regions.loc["ireland", "throughput"] == 10.0  # 2 threads / 200 ms
    assert regions.loc["ireland", "p95_ms"] == 250.0


def test_an_index_query_that_keeps_failing_is_reported_as_an_error_not_as_a_lost_record():
    from labkit.patterns.index_table.core import email_of, id_of, judge
    stored = {id_of(n): email_of(n) for n in range(3)}
    found = [(email_of(0), True), (email_of(1), True)]
    v = judge(3, stored, index_found=found, index_errors={email_of(2): "ReadTimeout: timed out"})
    assert not v.ok and v.checks["index_queries_failed"] == 1 and v.checks["index_sample_found"] == "2/2"
    assert len(v.problems) == 1 and "kept failing" in v.problems[0] and "ReadTimeout" in v.problems[0]
    assert judge(3, stored, index_found=found + [(email_of(2), True)], index_errors={}).ok
