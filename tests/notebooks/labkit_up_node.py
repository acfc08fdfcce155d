"""The one Cassandra node `labkit up` starts, for the tests that run notebooks on it as a student who started one
does (the exercises test's four one-node exercises, nbgrader's autograde): started and stopped with labkit's own
commands, which track it by PID, and no JVM of labkit's before or after. One place, so both tests start the node
the same way a student and INSTRUCTORS.md do."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from labkit.clusters.registry import clusters_dir
from labkit.host.processes import processes_under

LABKIT = str(Path(sys.executable).with_name("labkit"))


def jvms() -> set[int]:
    """The PIDs of the JVMs running from labkit's clusters folder."""
    return {p.pid for p in processes_under(clusters_dir()) if "java" in p.name()}


@contextmanager
def labkit_up_node() -> Iterator[set[int]]:
    """`labkit up cassandra --nodes 1`, yielding its JVM's PID; `labkit down` afterwards, even when the body failed."""
    assert jvms() == set(), "a cluster is still running before `labkit up`"
    up = subprocess.run([LABKIT, "up", "cassandra", "--nodes", "1"], capture_output=True, text=True, timeout=300)
    assert up.returncode == 0, up.stdout + up.stderr
    started = jvms()
    assert len(started) == 1, started
    try:
        yield started
    finally:
        down = subprocess.run([LABKIT, "down"], capture_output=True, text=True, timeout=180)
    assert down.returncode == 0, down.stdout + down.stderr
    assert jvms() == set()
