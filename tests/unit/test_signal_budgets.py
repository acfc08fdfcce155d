"""The unprivileged budget: a helper pauses a process that used its share of CPU and resumes it when its
credit grew back, so a busy process gets about its budget; lifted, it runs freely; removed, it is left running."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from labkit.clusters.local import budgets, signal_budgets

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def cores_used(proc: psutil.Process, seconds: float = 3.0) -> float:
    t0, c0 = time.monotonic(), sum(proc.cpu_times()[:2])
    time.sleep(seconds)
    return (sum(proc.cpu_times()[:2]) - c0) / (time.monotonic() - t0)


@pytest.mark.full  # full tier: a slow unit test (7.3 s of make test's unit run on 2026-12-03)
def test_a_busy_process_gets_its_budget_then_runs_freely_when_lifted(tmp_path, monkeypatch):
    monkeypatch.setenv(signal_budgets.ENV, "signals")  # the helper even where control groups are writable
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        proc = psutil.Process(busy.pid)
        assert budgets.detect()[0].version == "signals"
        group = budgets.apply(tmp_path, "node1", busy.pid, 0.2)
        assert budgets.group_of(tmp_path, "node1") == group and budgets.budget_of(group)[0] == 0.2
        assert budgets.threads_outside(tmp_path, "node1", busy.pid) == []
        time.sleep(0.5)
        held = cores_used(proc)
        assert 0.1 < held < 0.3, held
        deadline = time.monotonic() + 5  # the helper records a pause when it ends it
        while budgets.throttling(group)["throttled_s"] <= 1.0:
            assert time.monotonic() < deadline, budgets.throttling(group)  # paused most of the time
            time.sleep(0.2)
        budgets.set_quota(group, None)
        time.sleep(0.3)
        free = cores_used(proc, 2.0)
        assert free > 2 * held, (free, held)
        budgets.set_quota(group, 0.2)
        budgets.remove(tmp_path)
        assert budgets.group_of(tmp_path, "node1") is None and not [p for p in psutil.process_iter(["cmdline"])
                                                                    if str(signal_budgets.root(tmp_path)) in " ".join(p.info["cmdline"] or [])]
        assert proc.status() != psutil.STATUS_STOPPED and cores_used(proc, 1.0) > 2 * held  # left running, not paused
    finally:
        busy.kill()
        busy.wait()
