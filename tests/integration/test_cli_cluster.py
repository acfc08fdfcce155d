"""The `labkit` CLI against a real cluster: up, status --json, down, and nothing left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import labkit_jvms
from labkit.host import loopback


def test_labkit_up_status_down_leave_no_jvm(tmp_path):
    labkit = str(Path(sys.executable).with_name("labkit"))
    up = subprocess.run([labkit, "up", "cassandra", "--nodes", "2"], capture_output=True, text=True, timeout=300)
    assert up.returncode == 0, up.stderr
    try:
        status = subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60)
        clusters = json.loads(status.stdout)["clusters"]
        assert len(clusters) == 1 and clusters[0]["server_version"].startswith("5.0")
        own = loopback.own_range()
        assert [(n["address"], n["state"]) for n in clusters[0]["nodes"]] == [(own.address(1), "UP"), (own.address(2), "UP")]
        assert len(labkit_jvms()) == 2
    finally:
        down = subprocess.run([labkit, "down"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 0 and "stopped: cassandra" in down.stdout
    assert labkit_jvms() == []
    again = subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60)
    after = json.loads(again.stdout)
    assert after["clusters"] == [] and not any(r["yours"] and r["serving"] for r in after["loopback_ranges"])


def test_an_interrupted_labkit_run_keeps_its_rows_and_exits_130(tmp_path):
    """Ctrl-C in the middle of a sweep: the rows measured so far (the last one partial) are in the file,
    the command says so and exits 130 like any interrupted command, and its cluster is stopped."""
    import os
    import signal
    import time

    import pandas as pd

    labkit = str(Path(sys.executable).with_name("labkit"))
    out = tmp_path / "r.csv"
    proc = subprocess.Popen([labkit, "run", "index-table", "--phase", "login", "--nodes", "1", "--threads", "2,4,6,8",
                             "--operations", "4000", "--set", "users=300", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        deadline = time.monotonic() + 300
        while not (out.exists() and len(pd.read_csv(out)) >= 1) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        time.sleep(1.0)  # into the next run's measured window
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (stdout, stderr)
    assert "interrupted" in stderr
    rows = pd.read_csv(out)
    assert len(rows) >= 1 and rows["complete"].iloc[:-1].all()
    assert labkit_jvms() == []
