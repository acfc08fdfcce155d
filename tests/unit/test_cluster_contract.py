"""Every provider keeps the written cluster contract, and answers every capability with the object that does it or
None: callers ask the accessor instead of probing, so a provider lacking one would break them."""

from __future__ import annotations

import importlib

import pytest

from labkit.clusters import IMPLEMENTED
from labkit.clusters.contract import Capabilities, Cluster

CLASSES = {key: getattr(importlib.import_module(target.split(":")[0]), target.split(":")[1]) for key, target in IMPLEMENTED.items()}
CONTRACT = ("start", "stop", "__enter__", "__exit__", "live_nodes", "info", "cpu_meter", "held_addresses", "owner")
ACCESSORS = ("budgets", "membership", "node_admin", "node_faults", "internode_links", "local_servers", "adoption")
CLASS_SIDE = ("fixed_size", "adopt", "left_up")


@pytest.mark.parametrize("key", sorted(CLASSES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_each_provider_keeps_the_contract_and_answers_every_capability(key):
    engine, provider = key
    cls = CLASSES[key]
    assert (cls.engine, cls.provider) == (engine, provider)
    assert isinstance(cls.capabilities, Capabilities)
    missing = [name for name in CONTRACT if not hasattr(cls, name)]
    assert missing == [], f"{cls.__name__} lacks {missing}"
    unanswered = [name for name in ACCESSORS + CLASS_SIDE if not callable(getattr(cls, name, None))]
    assert unanswered == [], f"{cls.__name__} cannot be asked {unanswered}"


def test_local_cassandra_answers_its_capabilities_with_itself_and_the_others_with_none(tmp_path, monkeypatch):
    from labkit.clusters.local.cassandra import LocalCassandraCluster
    from labkit.clusters.standin.mongodb import StandinMongo

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = LocalCassandraCluster(nodes=1)  # made, not started
    assert all(getattr(cluster, name)() is not None for name in ACCESSORS)
    standin = StandinMongo()
    assert all(getattr(standin, name)() is None for name in ACCESSORS)
    assert StandinMongo.fixed_size() is None and StandinMongo.adopt(nodes=1) is None and StandinMongo.left_up() is None


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
