"""The `labkit` CLI against a real cluster: up, status --json, down, and nothing left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import labkit_jvms


def test_labkit_up_status_down_leave_no_jvm(tmp_path):
    labkit = str(Path(sys.executable).with_name("labkit"))
    up = subprocess.run([labkit, "up", "cassandra", "--nodes", "2"], capture_output=True, text=True, timeout=300)
    assert up.returncode == 0, up.stderr
    try:
        status = subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60)
        clusters = json.loads(status.stdout)["clusters"]
        assert len(clusters) == 1 and clusters[0]["server_version"].startswith("5.0")
        assert [(n["address"], n["state"]) for n in clusters[0]["nodes"]] == [("127.0.0.1", "UP"), ("127.0.0.2", "UP")]
        assert len(labkit_jvms()) == 2
    finally:
        down = subprocess.run([labkit, "down"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 0 and "stopped: cassandra" in down.stdout
    assert labkit_jvms() == []
    again = subprocess.run([labkit, "status", "--json"], capture_output=True, text=True, timeout=60)
    assert json.loads(again.stdout) == {"clusters": []}
