"""Faults on a real two-datacenter cluster: a partition hides writes across DCs until heal + repair;
toxiproxy adds the latency it was asked for."""

from __future__ import annotations

import statistics
import time

import pytest
from cassandra import ConsistencyLevel
from cassandra.cluster import NoHostAvailable

from labkit.engines import cassandra as cql
from labkit.faults import Toxiproxy, heal_all, partition
from labkit.faults.partition import rules


SHARED_CLUSTERS = ("two_datacenters",)


@pytest.fixture(scope="module")
def two_dcs(shared_clusters):
    yield shared_clusters.get("two_datacenters", __name__)
    heal_all()


def test_nodes_are_split_into_two_datacenters(two_dcs):
    first, second = two_dcs.loopback.address(1), two_dcs.loopback.address(2)  # this home's own range
    assert two_dcs.datacenters() == {"dc1": [first], "dc2": [second]}
    session = two_dcs.session()
    seen = {}
    for host in session.cluster.metadata.all_hosts():
        deadline = time.monotonic() + 20
        while True:  # the driver may still be opening its pool to this host right after connecting
            try:
                local = session.execute("SELECT data_center FROM system.local", host=host).one().data_center
                peers = {r.data_center for r in session.execute("SELECT data_center FROM system.peers_v2", host=host)}
                break
            except NoHostAvailable:
                assert time.monotonic() < deadline, f"no connection to {host.address} within 20 s"
                time.sleep(0.5)
        seen[host.address] = (local, peers)
    assert seen == {first: ("dc1", {"dc2"}), second: ("dc2", {"dc1"})}


@pytest.mark.full  # full tier: lesson 01 at smoke cuts, heals and repairs the same way, and assert_partition_outcome needs the cut to have held both ways
def test_partition_hides_writes_in_both_directions_until_heal_and_repair(two_dcs):
    s1 = two_dcs.session(dc="dc1")
    s2 = two_dcs.session(dc="dc2")
    cql.create_keyspace(s1, "it_geo", {"dc1": 1, "dc2": 1})
    cql.execute_ddl(s1, "CREATE TABLE IF NOT EXISTS it_geo.users (id int PRIMARY KEY, name text)")
    write = s1.prepare("INSERT INTO it_geo.users (id, name) VALUES (?, ?)")
    write.consistency_level = ConsistencyLevel.LOCAL_ONE
    read = s2.prepare("SELECT name FROM it_geo.users WHERE id = ?")
    read.consistency_level = ConsistencyLevel.LOCAL_ONE
    write2 = s2.prepare("INSERT INTO it_geo.users (id, name) VALUES (?, ?)")
    write2.consistency_level = ConsistencyLevel.LOCAL_ONE
    read1 = s1.prepare("SELECT name FROM it_geo.users WHERE id = ?")
    read1.consistency_level = ConsistencyLevel.LOCAL_ONE

    s1.execute(write, (1, "before"))
    deadline = time.monotonic() + 10
    while s2.execute(read, (1,)).one() is None:  # replicated normally before the cut
        assert time.monotonic() < deadline
        time.sleep(0.2)

    with partition(two_dcs.datacenters()["dc1"], two_dcs.datacenters()["dc2"]):
        assert len(rules()) == 2
        s1.execute(write, (2, "during"))
        s2.execute(write2, (3, "during, from dc2"))
        time.sleep(3)
        assert s2.execute(read, (2,)).one() is None  # not visible in dc2 while cut off ...
        assert s1.execute(read1, (3,)).one() is None  # ... and the other way round
    assert rules() == []

    # hints may deliver it after the heal; repair makes sure of it
    two_dcs.nodetool(1, "repair", "it_geo")
    deadline = time.monotonic() + 60
    while (row := s2.execute(read, (2,)).one()) is None:
        assert time.monotonic() < deadline, "the write never reached dc2 after heal and repair"
        time.sleep(0.5)
    assert row.name == "during"
    while (row := s1.execute(read1, (3,)).one()) is None:
        assert time.monotonic() < deadline, "dc2's write never reached dc1 after heal and repair"
        time.sleep(0.5)
    assert row.name == "during, from dc2"


def test_toxiproxy_adds_the_configured_latency(two_dcs):
    node = two_dcs.node(1)
    with Toxiproxy() as toxi:
        assert two_dcs.loopback.contains(toxi.host)  # toxiproxy sits on this home's helper address, not 127.0.0.1
        toxi.proxy("node1", listen=f"{toxi.host}:19042", upstream=f"{node.address}:9042")
        session = cql.connect_through((toxi.host, 19042))
        cluster = session.cluster
        try:
            def median_ms(n=15):
                samples = []
                for _ in range(n):
                    t0 = time.perf_counter()
                    session.execute("SELECT release_version FROM system.local")
                    samples.append((time.perf_counter() - t0) * 1000)
                return statistics.median(samples)

            base = median_ms()
            toxi.set_latency("node1", 50)
            delayed = median_ms()
            assert delayed - base == pytest.approx(50, rel=0.2)
            toxi.set_latency("node1", 0)
            assert median_ms() < base + 10
        finally:
            cluster.shutdown()
