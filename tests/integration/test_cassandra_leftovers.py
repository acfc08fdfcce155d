"""What a Cassandra run leaves outside its cluster: the JVM of a run killed by SIGKILL (the next start reaps it)
and a node's temporary files (kept in its own directory, gone with it). Each test starts a 1-node cluster of its own,
as a student's next run would."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import labkit_jvms
from labkit.clusters.local.cassandra import LocalCassandraCluster
from labkit.engines import cassandra as cql


def test_orphan_of_a_killed_run_is_reaped_by_the_next_start():
    # a python process starts a 1-node cluster, then dies by SIGKILL: its JVM is left behind
    script = textwrap.dedent(
        """
        import time
        from labkit.clusters.local.cassandra import LocalCassandraCluster
        c = LocalCassandraCluster(nodes=1).start()
        print(c.nodes[0].process().pid, flush=True)
        time.sleep(600)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        orphan_pid = int(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert [p.pid for p in labkit_jvms()] == [orphan_pid]  # the orphan is really there

    with LocalCassandraCluster(nodes=1) as cluster:
        assert orphan_pid not in [p.pid for p in labkit_jvms()]
        assert len(labkit_jvms()) == 1
        session = cluster.session()
        assert cql.server_version(session).startswith("5.0")
        assert cluster.info().nodes == 1
    assert labkit_jvms() == []


@pytest.mark.full  # full tier: a node's temporary files (11 s, a cluster of its own)
def test_a_nodes_temporary_files_live_in_its_own_directory_and_go_with_it():
    """lz4-java unpacks its native library into java.io.tmpdir at every start, and a killed JVM never
    deletes it: with the system's /tmp that was 202 files (21 MB) after one afternoon."""
    import tempfile
    from pathlib import Path

    system_tmp = Path(tempfile.gettempdir())
    before = set(system_tmp.glob("liblz4-java*"))
    cluster = LocalCassandraCluster(nodes=1).start()
    try:
        node_tmp = cluster.nodes[0].spec.path / "tmp"
        session = cluster.session()
        session.execute("SELECT release_version FROM system.local")
        assert list(node_tmp.glob("liblz4-java*")), sorted(p.name for p in node_tmp.iterdir())
        assert set(system_tmp.glob("liblz4-java*")) == before
    finally:
        cluster.stop()
    assert not node_tmp.exists()
