"""Every provider keeps the written cluster contract, and what it declares it can do it has the methods
for: callers ask `capabilities` instead of probing, so a declaration that lies would break them."""

from __future__ import annotations

import importlib

import pytest

from labkit.clusters import IMPLEMENTED
from labkit.clusters.contract import Capabilities, Cluster

CLASSES = {key: getattr(importlib.import_module(target.split(":")[0]), target.split(":")[1]) for key, target in IMPLEMENTED.items()}
CONTRACT = ("start", "stop", "__enter__", "__exit__", "live_nodes", "info", "cpu_meter", "held_addresses", "owner")
NEEDS = {"budgets": ("set_node_cpu",), "membership": ("add_node", "decommission"), "admin": ("nodetool",), "server_cpu": ("node_processes",),
         "adopt": ("adopt", "left_up", "release")}


@pytest.mark.parametrize("key", sorted(CLASSES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_each_provider_keeps_the_contract_and_has_what_it_declares(key):
    engine, provider = key
    cls = CLASSES[key]
    assert (cls.engine, cls.provider) == (engine, provider)
    assert isinstance(cls.capabilities, Capabilities)
    missing = [name for name in CONTRACT if not hasattr(cls, name)]
    assert missing == [], f"{cls.__name__} lacks {missing}"
    for capability, methods in NEEDS.items():
        if getattr(cls.capabilities, capability):
            assert all(callable(getattr(cls, m, None)) for m in methods), f"{cls.__name__} declares {capability} without {methods}"
    if not cls.capabilities.resize:
        assert callable(getattr(cls, "fixed_size", None)), f"{cls.__name__} keeps its own size but cannot say it"


def test_a_local_cluster_says_which_addresses_and_ports_it_holds_and_whose_it_is(tmp_path, monkeypatch):
    import getpass

    from labkit.clusters.local.cassandra import LocalCassandraCluster

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = LocalCassandraCluster(nodes=2)  # made, not started
    assert isinstance(cluster, Cluster)
    held = cluster.held_addresses()
    first, second = cluster.loopback.address(1), cluster.loopback.address(2)
    assert {(first, 9042), (second, 9042), (second, 7000), (first, 7199), (second, 7199)} <= set(held)
    assert len(held) == 6 and all(cluster.loopback.contains(host) for host, _port in held)  # JMX too: nothing on 127.0.0.1
    assert cluster.owner == getpass.getuser()


def test_capabilities_of_an_object_outside_the_contract_are_none():
    from labkit.clusters.contract import NOTHING, capabilities_of

    assert capabilities_of(object()) == NOTHING and not any(vars(NOTHING).values())


VIEWS = {"cassandra": ("addresses", "datacenters"), "mongodb": ("uri",), "couchbase": ("connection_string", "bucket"), "hbase": ("thrift_gateway", "create_table")}


@pytest.mark.parametrize("key", sorted(CLASSES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_each_provider_gives_its_engines_connection_view(key):
    """What the engine's bindings read (Cassandra's contact points by datacenter, MongoDB's URI, Couchbase's
    connection string and bucket) is declared in the contract and there on every provider of that engine."""
    engine, _provider = key
    lacking = [name for name in VIEWS[engine] if not hasattr(CLASSES[key], name)]
    assert lacking == [], f"{CLASSES[key].__name__} lacks {lacking} of the {engine} connection view"


def test_server_hosts_come_from_the_connection_view():
    from labkit.clusters.contract import server_hosts

    class Cassandra:
        addresses = ["127.0.5.1", "127.0.5.2"]

        def datacenters(self):
            return {"dc1": self.addresses}

    class Mongo:
        uri = "mongodb://lab:secret@mongos1.course.example:27017,mongos2.course.example/?tls=true"

    class Couchbase:
        connection_string, bucket = "couchbases://cb1.course.example,cb2.course.example", "lab"

    assert server_hosts(Cassandra()) == ["127.0.5.1", "127.0.5.2"]
    assert server_hosts(Mongo()) == ["mongos1.course.example", "mongos2.course.example"]
    assert server_hosts(Couchbase()) == ["cb1.course.example", "cb2.course.example"]
    assert server_hosts(object()) == []
