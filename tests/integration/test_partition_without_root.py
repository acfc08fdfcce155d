"""Partitions without root: the datacenters of a cluster started with internode_proxy=True reach each other
only through toxiproxy, so closing the proxies cuts them apart with no iptables rule. The UUID Key partition
test must come out as it does with iptables (tests/integration/test_uuid_key.py): the counter hands out
1..users in each region, every one of those keys collides, and UUIDs keep every record."""

from __future__ import annotations

import time

import pytest

from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.faults.links import ProxiedLinks
from labkit.faults.partition import rules
from labkit.patterns.uuid_key import cassandra as uuid_key

pytestmark = pytest.mark.full  # full tier (make test-full): the second kind of partition, proxies instead of iptables (77 s)

USERS = 40  # per region
THREADS = 4


@pytest.fixture(scope="module")
def proxied_regions():
    with LocalCassandraCluster(nodes=2, dcs=2, internode_proxy=True) as cluster:
        yield cluster


def ring_states(cluster) -> dict[str, str]:
    """node1's view of the ring: broadcast address -> UN / DN."""
    out = cluster.nodetool(1, "status")
    return {line.split()[1]: line.split()[0] for line in out.splitlines() if line[:2] in ("UN", "DN", "UJ", "UL")}


def test_the_other_datacenter_is_reached_only_through_the_proxies_and_closing_them_cuts_it(proxied_regions):
    links = proxied_regions.internode_links()
    assert isinstance(links, ProxiedLinks) and sorted(links.proxies.values()) == ["internode-node1", "internode-node2"]
    second = proxied_regions.node(2).spec.broadcast
    assert second != proxied_regions.node(2).address and ring_states(proxied_regions) == {proxied_regions.node(1).spec.broadcast: "UN", second: "UN"}
    links.cut(*proxied_regions.datacenters().values())
    try:
        assert links.is_cut() and not rules()  # no iptables rule: the proxies alone
        deadline = time.monotonic() + 60
        while ring_states(proxied_regions).get(second) != "DN":
            assert time.monotonic() < deadline, "node1 never saw dc2 down with the proxies closed"
            time.sleep(1)
    finally:
        links.heal()
    deadline = time.monotonic() + 60
    while ring_states(proxied_regions).get(second) != "UN":
        assert time.monotonic() < deadline, "node1 never saw dc2 again after the proxies opened"
        time.sleep(1)


def test_the_uuid_key_partition_loses_the_same_keys_as_with_iptables(proxied_regions):
    workload, result = uuid_key.partition_test(proxied_regions, "naive", USERS, THREADS)
    try:
        assert isinstance(workload.links, ProxiedLinks)
        assert result.complete and result.errors == 0, result.error_samples
        assert result.verification.ok, str(result.verification)
        collisions = workload.collision_table()
        assert sorted(c["key"] for c in collisions) == list(range(1, USERS + 1))  # each region counted 1..USERS on its own
        assert result.verification.checks["stored"] == USERS
    finally:
        workload.close_process()
    workload, result = uuid_key.partition_test(proxied_regions, "pattern", USERS, THREADS)
    try:
        assert not workload.links.is_cut() and not workload.partitioned  # verify() opened the proxies before counting
        assert result.verification.ok and result.verification.checks["stored"] == 2 * USERS, str(result.verification)
    finally:
        workload.close_process()
