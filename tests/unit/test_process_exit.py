"""A server still exec'ing has not exited: start-up checks must not call a starting JVM dead.

Why: once, `labkit up` reported "node1 exited during start-up" while node1's JVM was alive; the check then
asked whether the pidfile's process showed the node's command line, which a process between fork and exec
(slow on a loaded machine) does not yet do."""

from __future__ import annotations

import sys
import time

from labkit.host import processes

SLOW_EXEC = "import os, time; time.sleep(1.5); os.execv('/bin/sleep', ['sleep', '3' + '0.5'])"  # "30.5" only after the exec


def test_a_process_before_its_exec_is_not_owned_yet_but_has_not_exited(tmp_path):
    pidfile = tmp_path / "pid"
    pid = processes.spawn([sys.executable, "-c", SLOW_EXEC], cwd=tmp_path, log=tmp_path / "log", pidfile=pidfile)
    try:
        assert processes.owned_process(pidfile, "30.5") is None  # what the old start-up check took for "exited"
        assert not processes.exited(pidfile)
        deadline = time.monotonic() + 10
        while processes.owned_process(pidfile, "30.5") is None:
            assert time.monotonic() < deadline, "the exec never happened"
            time.sleep(0.1)
    finally:
        proc = processes.owned_process(pidfile, "30.5")
        if proc is not None:
            processes.stop(proc, graceful=False)
    assert processes.exited(pidfile)
    assert pid > 0


def test_a_missing_or_garbled_pidfile_means_exited(tmp_path):
    assert processes.exited(tmp_path / "none")
    (tmp_path / "pid").write_text("not a pid")
    assert processes.exited(tmp_path / "pid")
