"""A student's namespace prefixes every keyspace the lab writes on a shared cluster, travels inside the
workload to every client process, and purging it touches nothing of anyone else's."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from labkit import namespace
from labkit.errors import ConfigError


def test_no_namespace_on_a_cluster_the_lab_started_and_the_user_on_a_shared_one(monkeypatch):
    monkeypatch.delenv(namespace.ENV, raising=False)
    monkeypatch.setattr("labkit.host.users.current_user", lambda: "Anna.Lee")
    assert namespace.namespace_for(SimpleNamespace(provider="local")) == ""
    assert namespace.namespace_for(SimpleNamespace(provider="external")) == "anna_lee"
    monkeypatch.setenv(namespace.ENV, "team7")
    assert namespace.namespace_for(SimpleNamespace(provider="local")) == "team7"
    assert namespace.namespace_for(SimpleNamespace(provider="external")) == "team7"


@pytest.mark.parametrize("bad", ["7team", "Team", "a-b", "x" * 21])
def test_a_namespace_that_cannot_prefix_a_keyspace_says_what_is_expected(monkeypatch, bad):
    monkeypatch.setenv(namespace.ENV, bad)
    with pytest.raises(ConfigError, match="LABKIT_NAMESPACE must start with a lowercase letter"):
        namespace.namespace_for(SimpleNamespace(provider="local"))


def test_user_names_become_namespaces():
    assert namespace.from_user("1234") == "u1234" and namespace.from_user("Ada Lovelace") == "ada_lovelace"
    assert namespace.checked(namespace.from_user("a" * 40)) == "a" * 20


@pytest.mark.parametrize("pattern, phase, settings", [
    ("index-table", "login", {"users": 10}),
    ("fan-out", "paginate", {}),
    ("enumerable-keys", "write", {}),
    ("distorted-replicas", "read", {}),
    ("ycsb", "mix", {}),
])
def test_every_binding_puts_its_keyspace_in_the_namespace_and_the_workload_carries_it(monkeypatch, pattern, phase, settings):
    from labkit.catalogue import describe

    monkeypatch.setenv(namespace.ENV, "anna")
    described = describe(pattern)
    resolved = described.resolve(phase, settings)
    cluster = SimpleNamespace(provider="external", addresses=["127.0.0.1"], datacenters=lambda: {"dc1": ["127.0.0.1"]})
    made = described.binding("cassandra").workload(described.approaches_for(phase=phase, engine="cassandra")[0], phase, cluster, 10, **resolved)
    assert made.keyspace.startswith("anna_") and made.keyspace != "anna_"
    monkeypatch.setenv(namespace.ENV, "bob")  # a client process's environment does not matter: the name went with the workload
    assert pickle.loads(pickle.dumps(made)).keyspace == made.keyspace


def test_purge_drops_only_the_namespace_prefix(monkeypatch):
    from labkit.engines import cassandra as cql

    dropped = []
    monkeypatch.setattr(cql, "execute_ddl", lambda session, statement: dropped.append(statement))

    class Session:
        def execute(self, statement, *args, **kwargs):
            statement = getattr(statement, "query_string", statement)
            if statement.startswith("SELECT keyspace_name"):
                return [SimpleNamespace(keyspace_name=n) for n in ("anna_ycsb", "anna_fan_out", "annabel_ycsb", "bob_ycsb", "ycsb", "system")]
            dropped.append(statement)
            return []

    assert cql.drop_namespace(Session(), "anna") == ["anna_fan_out", "anna_ycsb"]
    assert dropped == ["DROP KEYSPACE IF EXISTS anna_fan_out", "DROP KEYSPACE IF EXISTS anna_ycsb"]
    with pytest.raises(ValueError):
        cql.drop_namespace(Session(), "")


def test_a_row_on_a_shared_cluster_says_which_share_of_the_requests_was_not_its_own():
    from labkit.runner import RunOptions, run
    from test_runner import CountingWorkload

    class SharedCluster(CountingWorkload):
        """Each transaction is one request of ours; another student's client adds one for every two of ours."""

        def server_counters(self):
            with self._lock:
                ours = sum(self.per_worker.values())
            return {"requests_own": ours, "requests_foreign": ours // 2}

    row = run(SharedCluster(), threads=2, operations=40, options=RunOptions(warmup=0)).to_row()
    assert (row["server_counter_requests_own"], row["server_counter_requests_foreign"], row["foreign_request_share"]) == (40, 20, 0.333)
    plain = run(CountingWorkload(), threads=2, operations=10).to_row()
    assert "foreign_request_share" not in plain  # a cluster of one's own: no such column
