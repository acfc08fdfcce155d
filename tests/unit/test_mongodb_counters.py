"""MongoDB's contention evidence is read from serverStatus, and never invented where it is absent."""

from __future__ import annotations

from labkit.engines import mongodb


def test_write_conflicts_and_every_lock_wait_are_read():
    status = {
        "process": "mongod",
        "metrics": {"operation": {"writeConflicts": 42}},
        "locks": {"Global": {"acquireWaitCount": {"w": 2, "r": 1}}, "Collection": {"acquireWaitCount": {"w": 4}}, "Database": {"acquireCount": {"w": 9}}},
    }
    assert mongodb._contention_of(status) == {"write_conflicts": 42, "lock_waits": 7}


def test_a_server_that_does_not_report_write_conflicts_gives_none():
    assert mongodb._contention_of({"process": "mongo-java-server", "locks": {}}) is None


class Admin:
    def __init__(self, replies):
        self.replies = replies

    def command(self, name):
        return self.replies[name]


class Client:
    def __init__(self, **replies):
        self.admin = Admin(replies)


def test_a_plain_server_reports_its_own_counters():
    client = Client(serverStatus={"process": "mongod", "metrics": {"operation": {"writeConflicts": 3}}})
    assert mongodb.contention_counters(client) == {"write_conflicts": 3, "lock_waits": 0}


def test_through_mongos_each_shard_replica_set_is_asked():
    client = Client(listShards={"shards": [{"host": "shard0/127.0.0.1:27101"}, {"host": "shard1/127.0.0.1:27102,127.0.0.1:27103"}]})
    assert mongodb._shard_uris(client) == ["mongodb://127.0.0.1:27101/?replicaSet=shard0", "mongodb://127.0.0.1:27102,127.0.0.1:27103/?replicaSet=shard1"]


def test_an_unreachable_shard_is_asked_once_then_reported_as_none(monkeypatch):
    attempts = []

    class Unreachable:
        def __init__(self, uri, **_options):
            attempts.append(uri)
            self.admin = self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def command(self, name):
            from pymongo.errors import ServerSelectionTimeoutError

            raise ServerSelectionTimeoutError("shard0-a:27018: [Errno -2] Name or service not known")

    monkeypatch.setattr(mongodb, "MongoClient", Unreachable)
    monkeypatch.setattr(mongodb, "_UNREACHABLE_SHARDS", set())
    mongos = Client(serverStatus={"process": "mongos"}, listShards={"shards": [{"host": "shard0/shard0-a:27018"}]})
    assert mongodb.contention_counters(mongos) is None
    assert mongodb.contention_counters(mongos) is None
    assert attempts == ["mongodb://shard0-a:27018/?replicaSet=shard0"]
