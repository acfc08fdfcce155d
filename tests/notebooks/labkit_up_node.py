"""The one Cassandra node `labkit up` starts, for the tests that run notebooks on it as a student who started one
does (the exercises test's one-node exercises, then nbgrader's autograde, on the same node): started and stopped with
labkit's own commands, which track it by PID, and no JVM of labkit's before or after. One place, so both tests start
the node the same way a student and INSTRUCTORS.md do."""

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
    (tests/notebooks/conftest.py), so the exercises and nbgrader's autograde share one start."""

    def __init__(self) -> None:
        self.pids: set[int] | None = None  # the node's JVM while it runs

    def start(self) -> set[int]:
        """The running node's JVM PID, after `labkit up` if it is not up yet."""
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
