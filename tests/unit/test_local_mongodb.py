"""The local MongoDB launcher's layout and command lines (the real run is in tests/integration, where
mongod exists)."""

import pytest

from labkit.clusters.local import mongodb as lm
from labkit.errors import ConfigError, NotAvailableError


def fake_binaries(tmp_path, monkeypatch):
    for name, env in (("mongod", "MONGOD_BIN"), ("mongos", "MONGOS_BIN")):
        path = tmp_path / name
        path.write_text("#!/bin/sh\nexit 0\n")
        path.chmod(0o755)
        monkeypatch.setenv(env, str(path))
    return str(tmp_path / "mongod"), str(tmp_path / "mongos")


def test_layout_is_config_server_shards_and_mongos_on_loopback(tmp_path):
    procs = lm.layout(3, tmp_path)
    assert [p.name for p in procs] == ["config", "shard1", "shard2", "shard3", "mongos"]
    assert [p.port for p in procs] == [27019, 27101, 27102, 27103, 27017]
    assert [p.replica_set for p in procs] == ["labkit-config", "labkit-shard1", "labkit-shard2", "labkit-shard3", None]
    assert all(p.path.startswith(str(tmp_path)) for p in procs)


def test_command_lines_bind_to_loopback_and_name_their_directory(tmp_path, monkeypatch):
    mongod, mongos = fake_binaries(tmp_path, monkeypatch)
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path / "home"))
    cluster = lm.LocalMongoCluster(nodes=2)
    config, shard1, shard2, router = cluster.commands()
    assert config[:4] == [mongod, "--configsvr", "--replSet", "labkit-config"]
    assert shard2[:4] == [mongod, "--shardsvr", "--replSet", "labkit-shard2"]
    for cmd in (config, shard1, shard2, router):
        assert cmd[cmd.index("--bind_ip") + 1] == "127.0.0.1"
        assert str(cluster.directory) in " ".join(cmd)  # how a later start recognises its leftovers
    assert "--wiredTigerCacheSizeGB" in shard1 and shard1[shard1.index("--dbpath") + 1].endswith("shard1/data")
    assert router[:3] == [mongos, "--configdb", "labkit-config/127.0.0.1:27019"]
    assert cluster.uri == "mongodb://127.0.0.1:27017/" and len(cluster.nodes) == 2


def test_missing_binaries_say_where_to_get_them(tmp_path, monkeypatch):
    monkeypatch.delenv("MONGOD_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NotAvailableError, match="conda-forge mongodb"):
        lm.binaries()


@pytest.mark.parametrize("bad", [0, 9, True])
def test_shard_counts_are_checked(bad, tmp_path):
    with pytest.raises(ConfigError, match="from 1 to 8"):
        lm.layout(bad, tmp_path)
