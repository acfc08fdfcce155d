"""Which recorded clusters `labkit status` and `labkit down` see: leftovers of dead runs are forgotten."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from labkit.clusters import registry


def _record(name: str, **state) -> None:
    directory = registry.clusters_dir() / name
    directory.mkdir(parents=True)
    (directory / "cluster.json").write_text(json.dumps({"name": name, **state}))


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture(autouse=True)
def own_home(tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))


def test_a_dead_runs_stand_in_is_forgotten_and_its_state_file_removed():
    _record("standin-couchbase", engine="couchbase", provider="standin", owner_pid=_dead_pid(), port=18091)
    _record("detached-standin", engine="mongodb", provider="standin", owner_pid=None, port=27018)
    assert registry._recorded_clusters() == []
    assert not (registry.clusters_dir() / "standin-couchbase" / "cluster.json").exists()


def test_a_live_owner_keeps_its_cluster_listed_even_with_every_node_down():
    """A notebook that killed its only node still owns that cluster; its own stop() cleans up."""
    import os

    _record("cassandra", engine="cassandra", provider="local", owner_pid=os.getpid())
    assert [meta["name"] for meta, _cls, _dir in registry._recorded_clusters()] == ["cassandra"]


def test_a_cluster_with_a_process_under_its_directory_is_kept():
    _record("standin-mongodb", engine="mongodb", provider="standin", owner_pid=None, port=27018)
    directory = registry.clusters_dir() / "standin-mongodb"
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", str(directory)])
    try:
        assert [meta["name"] for meta, _cls, _dir in registry._recorded_clusters()] == ["standin-mongodb"]
    finally:
        holder.kill()
        holder.wait()


def test_compose_clusters_are_not_judged_by_local_processes():
    _record("compose-mongodb", engine="mongodb", provider="compose", owner_pid=None)
    assert [meta["name"] for meta, _cls, _dir in registry._recorded_clusters()] == ["compose-mongodb"]
