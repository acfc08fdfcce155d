"""A real MongoDB sharded cluster from mongod/mongos binaries, where this machine has them."""

import os
import shutil

import pytest

from labkit.clusters.local.mongodb import LocalMongoCluster
from labkit.host.processes import processes_under

pytestmark = pytest.mark.skipif(
    not (os.environ.get("MONGOD_BIN") or shutil.which("mongod")),
    reason="no mongod on this machine (conda install -c conda-forge mongodb, or set MONGOD_BIN/MONGOS_BIN): local MongoDB provider not exercised",
)


def test_two_shards_take_a_hashed_collection_and_stop_by_pid():
    with LocalMongoCluster(nodes=2) as cluster:
        client = cluster.client()
        shards = client.admin.command("listShards")["shards"]
        assert len(shards) == 2
        client.admin.command("enableSharding", "lab")
        client.admin.command("shardCollection", "lab.users", key={"_id": "hashed"})
        client.lab.users.insert_many([{"_id": i} for i in range(1000)])
        assert client.lab.users.count_documents({}) == 1000
        client.close()
        directory = cluster.directory
    assert processes_under(directory) == []
