"""The one Cassandra node `labkit up` starts, for the tests that run notebooks on it as a student who started one
does (two lessons, the one-node exercises, nbgrader's autograde and its lesson flow, on the same node: tests/conftest.py):
started and stopped with labkit's own commands, which track it by PID, and no JVM of labkit's before or after. One
place, so every test starts the node the same way a student and INSTRUCTORS.md do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from labkit.clusters.registry import clusters_dir
from labkit.host.processes import processes_under

LABKIT = str(Path(sys.executable).with_name("labkit"))


def jvms() -> set[int]:
    """The PIDs of the JVMs running from labkit's clusters folder."""
    return {p.pid for p in processes_under(clusters_dir()) if "java" in p.name()}


class NodeUp:
    """`labkit up cassandra --nodes 1` once for consecutive tests that use it, `labkit down` when the next one does not
    (tests/conftest.py), so they share one start. A test whose notebook replaced the node (a lesson's sweep on another
    shape stops it, as it would a student's) leaves it gone: the next test that asks for it gets a new one."""

    def __init__(self) -> None:
        self.pids: set[int] | None = None  # the node's JVM while it runs

    def start(self) -> set[int]:
        """The running node's JVM PID, after `labkit up` if it is not up yet."""
        if self.pids is not None and not self.pids <= jvms():
            self.stop()  # replaced by a notebook's own cluster, which that notebook stopped
        if self.pids is None:
            assert jvms() == set(), "a cluster is still running before `labkit up`"
            up = subprocess.run([LABKIT, "up", "cassandra", "--nodes", "1"], capture_output=True, text=True, timeout=300)
            assert up.returncode == 0, up.stdout + up.stderr
            started = jvms()
            assert len(started) == 1, started
            self.pids = started
        return self.pids

    def stop(self) -> None:
        """`labkit down`, and no JVM of labkit's left."""
        if self.pids is None:
            return
        self.pids = None
        down = subprocess.run([LABKIT, "down"], capture_output=True, text=True, timeout=180)
        assert down.returncode == 0, down.stdout + down.stderr
        assert jvms() == set()
