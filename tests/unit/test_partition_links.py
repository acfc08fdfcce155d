"""Which way a partition is cut here (iptables for root, toxiproxy for everyone else), and what a cluster
with proxied internode links configures and holds."""

from __future__ import annotations

import json
import pickle

import pytest

from labkit.errors import ConfigError
from labkit.faults import links


def test_root_cuts_with_iptables_everyone_else_with_toxiproxy_unless_told(monkeypatch):
    monkeypatch.delenv(links.KIND_ENV, raising=False)
    monkeypatch.setattr("os.geteuid", lambda: 0)
    assert links.partition_kind() == "iptables"
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert links.partition_kind() == "toxiproxy"
    monkeypatch.setenv(links.KIND_ENV, "iptables")
    assert links.partition_kind() == "iptables"
    monkeypatch.setenv(links.KIND_ENV, "nftables")
    with pytest.raises(ConfigError, match="LABKIT_PARTITIONS is iptables"):
        links.partition_kind()


def test_the_uuid_key_partition_asks_for_proxied_links_only_where_iptables_cannot_cut(monkeypatch):
    from labkit.patterns.uuid_key import cassandra as uuid_key

    monkeypatch.setenv(links.KIND_ENV, "toxiproxy")
    assert uuid_key.cluster_options("partition") == {"internode_proxy": True} and uuid_key.cluster_options("availability") == {}
    monkeypatch.setenv(links.KIND_ENV, "iptables")
    assert uuid_key.cluster_options("partition") == {}


def test_a_proxied_cluster_advertises_a_second_address_and_holds_its_proxies(tmp_path, monkeypatch):
    from labkit.clusters.local.cassandra import LocalCassandraCluster
    from labkit.clusters.local.cassandra_config import cassandra_yaml

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = LocalCassandraCluster(nodes=2, dcs=2, internode_proxy=True)  # made, not started
    own = cluster.loopback
    second = cluster.node(2).spec
    assert (second.address, second.broadcast, second.ring_address) == (own.address(2), own.address(102), own.address(102))
    config = json.loads(cassandra_yaml(second, [n.spec.ring_address for n in cluster.nodes], "labkit"))
    assert config["listen_address"] == own.address(2) and config["broadcast_address"] == own.address(102)
    assert config["seed_provider"][0]["parameters"][0]["seeds"] == f"{own.address(101)}:7000,{own.address(102)}:7000"
    assert {(own.address(101), 7000), (own.address(102), 7000), (own.address(251), 8474)} <= set(cluster.held_addresses())
    made = cluster.internode_links()
    assert isinstance(made, links.ProxiedLinks) and made.proxies == {own.address(1): "internode-node1", own.address(2): "internode-node2"}
    assert pickle.loads(pickle.dumps(made)) == made  # travels inside the UUID Key workload
    plain = LocalCassandraCluster(nodes=2, dcs=2)
    assert plain.node(2).spec.broadcast is None and "broadcast_address" not in json.loads(cassandra_yaml(plain.node(2).spec, [], "labkit"))
    assert isinstance(plain.internode_links(), links.IptablesLinks)
