"""A class-data-sharing archive of Cassandra's classes, made once per version, so every node starts
with its classes already parsed and verified: about 25% less CPU per node start on this 2-core VM,
which is most of what a cluster start costs when all its JVMs share two cores.

The JVM writes the archive when a node that was started with -XX:ArchiveClassesAtExit exits normally,
so labkit starts one throwaway node, lets it come up, stops it with SIGTERM and keeps the file.
A node started with a stale or mismatched archive just ignores it (-Xshare:auto).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

from ..lifecycle import Ready
from ...home import clusters_dir, labkit_home
from . import cassandra_install as install
from ...host import processes
from ...host import loopback
from .cassandra_config import CQL_PORT, JMX_PORT, NodeSpec, server_command, write_node_files


def archive_path(version: str = install.DEFAULT_VERSION) -> Path:
    """Beside the shared jars when the host's shared cache has an archive made with them, else in this home
    (an archive only fits the class path it was made with: the jars a node runs, wherever they are)."""
    shared = install.shared_lib_dir(version)
    own = labkit_home() / "cassandra" / version
    if shared is not None and ((shared.parent / "app-cds.jsa").exists() or shared.parent == own):
        return shared.parent / "app-cds.jsa"  # (the second case: `labkit provision --shared` is making it)
    return own / ("app-cds.jsa" if shared is None else "app-cds-shared-jars.jsa")


def _cql_answers(address: str) -> bool:
    return processes.port_open(address, CQL_PORT)


def ensure_archive(version: str = install.DEFAULT_VERSION, timeout: float = 120) -> Path | None:
    """Make the archive unless it exists; None (and no archive) when the training start fails."""
    target = archive_path(version)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".app-cds.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one training node at a time (`labkit provision all` beside a first start): the second finds it made
        return target if target.exists() else _train(target, version, timeout)


def _train(target: Path, version: str, timeout: float) -> Path | None:
    work = clusters_dir() / "cassandra-cds"
    for proc in processes.processes_under(work):  # a training node an interrupted run left
        processes.stop(proc, graceful=False)
    shutil.rmtree(work, ignore_errors=True)
    address = loopback.own_range().address(1)  # the home's own first address: no other user's node is there
    if _cql_answers(address):
        return None  # something serves it; the cluster start will report it
    spec = NodeSpec(1, address, "dc1", "rack1", 0, JMX_PORT, str(work / "node1"))
    write_node_files(spec, [address], "labkit-cds")
    partial = target.with_suffix(".jsa.partial")
    cmd = server_command(install.require_java17(), install.classpath(version), spec, install.MAIN_CLASS)
    cmd.insert(1, f"-XX:ArchiveClassesAtExit={partial}")
    processes.spawn(cmd, cwd=spec.path, log=spec.path / "logs" / "stdout.log", pidfile=spec.path / "pid")
    proc = processes.owned_process(spec.path / "pid", str(spec.path))
    try:
        Ready("the class-archive training node", lambda: _cql_answers(address) or proc is None or not proc.is_running(), timeout).wait()
        time.sleep(1)
        if proc is not None:
            processes.stop(proc, graceful=True, timeout=60)  # a normal exit writes the archive
    except TimeoutError:
        if proc is not None:
            processes.stop(proc, graceful=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if partial.exists() and partial.stat().st_size > 0:
        os.replace(partial, target)
        return target
    partial.unlink(missing_ok=True)
    return None
