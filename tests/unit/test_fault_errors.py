"""Faults that cannot run here say why and what to do, before touching anything."""

import os

import pytest

from labkit.errors import ConfigError, NotAvailableError
import importlib

part = importlib.import_module("labkit.faults.partition")
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.clusters.local.cassandra_config import balanced_tokens, dc_layout, split_largest_range, tokens_for


def test_partition_without_root_says_so(monkeypatch):
    monkeypatch.setattr(part.os, "geteuid", lambda: 1000)
    with pytest.raises(NotAvailableError, match="needs root"):
        part.cut(["127.0.0.1"], ["127.0.0.2"])


def test_partition_without_iptables_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(part.os, "geteuid", lambda: 0)
    monkeypatch.setattr(part.shutil, "which", lambda name: None)
    with pytest.raises(NotAvailableError, match="apt-get install iptables"):
        part.cut(["127.0.0.1"], ["127.0.0.2"])


@pytest.mark.parametrize("kwargs,match", [(dict(nodes=0), "from 1 to 8"), (dict(nodes=9), "from 1 to 8"), (dict(nodes=3, dcs=3), "dcs must be 1 or 2"), (dict(nodes=1, dcs=2), "at least 2 nodes")])
def test_bad_cluster_shapes_are_refused(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        LocalCassandraCluster(**kwargs)


def test_tokens_are_balanced_and_distinct_across_datacenters():
    layout = dc_layout(5, 2)
    assert layout == ["dc1", "dc1", "dc1", "dc2", "dc2"]
    tokens = tokens_for(layout)
    assert len(set(tokens)) == 5
    assert tokens[:3] == balanced_tokens(3)
    assert tokens[3:] == balanced_tokens(2, dc_offset=100)
    gaps = {b - a for a, b in zip(tokens[:3], tokens[1:3])}
    assert len(gaps) == 1  # evenly spaced within dc1


def test_a_joining_node_splits_the_largest_range():
    ring = balanced_tokens(2)  # [-2^63, 0]
    new = split_largest_range(ring)
    assert new in (-(2**62), 2**62)
    assert -(2**63) <= new < 2**63


def test_a_port_held_by_another_program_is_named(tmp_path, monkeypatch):
    from held_ports import held
    from labkit.errors import LabkitError

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = LocalCassandraCluster(nodes=5)  # made, not started: its range is this test home's own
    address = cluster.loopback.address(5)
    with held(address, 9042), pytest.raises(LabkitError, match=rf"port {address}:9042 \(needed by node5\) is taken by pid \d+ .*one of your own programs.*labkit down"):
        cluster._check_ports(grace=0.5)


@pytest.mark.skipif(os.geteuid() != 0, reason="holding a port as another user needs root to become that user")
def test_a_port_held_by_another_user_names_the_way_out_not_their_process(tmp_path, monkeypatch):
    import subprocess

    from labkit.errors import LabkitError

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = LocalCassandraCluster(nodes=2)
    address = cluster.loopback.address(2)
    script = (f"import socket, sys, time\ns = socket.socket(); s.bind(({address!r}, 7000)); s.listen()\n"
              "print('ready', flush=True); sys.stdin.read()")
    python = "/usr/bin/python3"  # the venv's interpreter may sit in root's home, which `nobody` cannot enter
    if not os.path.exists(python):
        pytest.skip("no system python3 for the other user's program")
    other = subprocess.Popen([python, "-c", script], user="nobody", stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "ready"
        with pytest.raises(LabkitError) as err:
            cluster._check_ports(grace=0.5)
        text = str(err.value)
        assert f"port {address}:7000 (needed by node2) is held by" in text and "not one of your programs" in text
        assert cluster.loopback.cidr in text and "LABKIT_LOOPBACK=127." in text and "labkit down" not in text and "Stop" not in text
    finally:
        other.kill()
        other.wait()


def test_a_cluster_owned_by_a_live_notebook_is_not_reaped(tmp_path, monkeypatch):
    import json
    import subprocess
    import sys

    from labkit.errors import LabkitError

    monkeypatch.setenv("LABKIT_HOME", str(tmp_path))
    cluster = LocalCassandraCluster(nodes=1)
    node_dir = cluster.nodes[0].spec.path
    node_dir.mkdir(parents=True)
    # a stand-in "node" process whose command line names the node's directory, owned by a live process
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(node_dir)])
    try:
        (cluster.directory / "cluster.json").write_text(json.dumps({"owner_pid": sleeper.pid}))
        with pytest.raises(LabkitError, match=f"started by process {sleeper.pid}.*labkit down"):
            cluster._refuse_if_owned_elsewhere()
        assert sleeper.poll() is None  # untouched
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_process_on_a_reused_pid_is_still_seen_under_its_directory(tmp_path):
    """psutil's cache of the last process on a PID must not hide a new process that got the same PID."""
    import subprocess
    import sys

    import psutil

    from labkit.host.processes import processes_under

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(tmp_path)])
    try:
        list(psutil.process_iter(["pid"]))  # psutil's cache now holds an entry for the sleeper's PID
        psutil._pmap[sleeper.pid] = psutil.Process(os.getpid())  # a stale entry, as if an older process had held that PID
        assert [p.pid for p in processes_under(tmp_path)] == [sleeper.pid]
    finally:
        psutil.process_iter.cache_clear()
        sleeper.kill()
        sleeper.wait()
