"""Sharding the patterns' collections, without a server: what is sent to a mongos, and what is not sent elsewhere."""

from __future__ import annotations

import pytest
from pymongo.errors import OperationFailure

from labkit.engines import mongodb_sharding as sharding
from labkit.errors import LabkitError


class FakeDb:
    def __init__(self, client, name):
        self.client, self.name = client, name

    def __getitem__(self, collection):
        return FakeCollection(self.client, f"{self.name}.{collection}")

    def command(self, name, *args, **kwargs):
        self.client.sent.append((self.name, name, args, kwargs))
        if name == "hello":
            if self.client.old:
                raise OperationFailure("no such command: 'hello'", code=59)
            return {"msg": "isdbgrid"} if self.client.mongos else {"isWritablePrimary": True}
        if name == "isMaster":
            return {"msg": "isdbgrid"} if self.client.mongos else {"ismaster": True}
        if name == "explain":
            return {"queryPlanner": {"winningPlan": {"shards": [{"shardName": s} for s in self.client.asked]}}}
        return {"ok": 1}


class FakeCollection:
    def __init__(self, client, namespace):
        self.client, self.namespace = client, namespace

    def find_one(self, query):
        key = self.client.sharded.get(query["_id"])
        return {"_id": query["_id"], "key": key} if key else None


class FakeClient:
    def __init__(self, mongos=True, old=False, sharded=None, asked=("s1",)):
        self.mongos, self.old, self.sharded, self.asked = mongos, old, dict(sharded or {}), asked
        self.sent = []

    def __getitem__(self, name):
        return FakeDb(self, name)

    @property
    def admin(self):
        return FakeDb(self, "admin")


def commands(client):
    return [(name, args) for _db, name, args, _kw in client.sent if name not in ("hello", "isMaster")]


def test_collections_are_sharded_hashed_on_their_key_through_a_mongos():
    client = FakeClient()
    done = sharding.shard_collections(client, "enumerable_keys", {"posts": "_id", "comments": "_id"})
    assert done == ["enumerable_keys.posts", "enumerable_keys.comments"]
    sent = [(db, name, args, kw) for db, name, args, kw in client.sent if name not in ("hello", "isMaster")]
    assert sent[0][1:3] == ("enableSharding", ("enumerable_keys",))
    assert [(a, kw) for _db, n, a, kw in sent if n == "shardCollection"] == [
        (("enumerable_keys.posts",), {"key": {"_id": "hashed"}}), (("enumerable_keys.comments",), {"key": {"_id": "hashed"}})]


def test_sharding_again_on_the_same_key_sends_nothing_new():
    client = FakeClient(sharded={"enumerable_keys.posts": {"_id": "hashed"}})
    assert sharding.shard_collections(client, "enumerable_keys", {"posts": "_id"}) == []
    assert [n for n, _a in commands(client)] == ["enableSharding"]


def test_a_collection_sharded_on_another_key_is_an_error_with_what_to_do():
    client = FakeClient(sharded={"index_table.users": {"email": "hashed"}})
    with pytest.raises(LabkitError, match="drop the lab's database"):
        sharding.shard_collections(client, "index_table", {"users": "_id"})


def test_nothing_is_sent_to_a_replica_set_or_a_stand_in():
    for client in (FakeClient(mongos=False), FakeClient(mongos=False, old=True)):
        assert sharding.shard_collections(client, "enumerable_keys", {"posts": "_id"}) == []
        assert commands(client) == []
        assert sharding.shards_asked(client, "db", "c", {"_id": 1}) is None


def test_shards_asked_comes_from_the_mongos_explain():
    client = FakeClient(asked=("s1", "s2", "s3"))
    assert sharding.shards_asked(client, "index_table", "users", {"email": "a@b"}) == 3
    assert sharding.is_sharded(FakeClient(old=True))  # isMaster answers where hello does not


def test_ycsb_usertable_is_sharded_after_it_is_dropped_for_a_fresh_load(monkeypatch):
    from unittest.mock import MagicMock

    from labkit.workloads.ycsb import mongodb as ycsb_mongodb
    from labkit.workloads.ycsb.core import YcsbSettings

    sent = []
    monkeypatch.setattr(ycsb_mongodb, "shard_collections", lambda client, database, keys: sent.append((database, dict(keys))))
    workload = ycsb_mongodb.YcsbMongo("mongodb://fake/", "baseline/a", "mix", YcsbSettings(records=10, fields=2, field_length=8, max_scan=5,
                                                                                   insert_order="hashed", distribution="default"))
    client = MagicMock()
    client.__getitem__.return_value.__getitem__.return_value.database.loaded.find_one.return_value = None
    workload._client = client
    workload.setup()
    collection = client["ycsb"]["usertable"]
    assert collection.drop.called and sent == [("ycsb", {"usertable": "_id"})]
