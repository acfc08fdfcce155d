"""A budgeted node starts with the timer slack labkit asks for, a running one can be changed, and its wake-ups are counted.

Why: Cassandra's idle workers wait-spin; with Linux's 50 us of slack their wake-ups filled about 90% of a
node's CPU budget at any load, so the lab's CPU per request measured the budget, not the work
(benchmarks/results/cpu_per_request_summary.md). These run real child processes and read the kernel's
own /proc values."""

from __future__ import annotations

import sys
import time

import pytest

from labkit.host import processes, timer_slack

pytestmark = pytest.mark.skipif(not timer_slack.supported(), reason="timer slack is a Linux setting")

THREADED = "import threading, time; threading.Thread(target=time.sleep, args=(30,), daemon=True).start(); time.sleep(30)"
NAPPER = "import threading, time\ndef nap():\n    while True: time.sleep(0.001)\nthreading.Thread(target=nap, daemon=True).start(); time.sleep(30)"


def start(tmp_path, code: str, slack_ns: int | None = None) -> int:
    pid = processes.spawn([sys.executable, "-c", code], cwd=tmp_path, log=tmp_path / "log", pidfile=tmp_path / "pid", timer_slack_ns=slack_ns)
    deadline = time.monotonic() + 10
    while len(timer_slack.thread_ids(pid)) < 2:
        assert time.monotonic() < deadline, "the child never started its thread"
        time.sleep(0.05)
    return pid


@pytest.fixture
def child(tmp_path):
    started: list[int] = []
    yield lambda code, slack_ns=None: started.append(start(tmp_path, code, slack_ns)) or started[-1]
    for pid in started:
        proc = processes.owned_process(tmp_path / "pid", "-c")
        if proc is not None and proc.pid == pid:
            processes.stop(proc, graceful=False)


def slacks(pid: int) -> set[int | None]:
    found = {timer_slack.of_thread(tid) for tid in timer_slack.thread_ids(pid)}
    if found == {None}:  # reading (and writing) another process's slack needs CAP_SYS_NICE, even for one's own child
        pytest.skip("this user may not read another process's timer slack (CAP_SYS_NICE)")
    return found


def test_a_process_spawned_with_a_slack_has_it_on_every_thread_and_the_spawner_keeps_its_own(child):
    mine = timer_slack.of_thread(timer_slack.thread_ids(__import__("os").getpid())[0])
    pid = child(THREADED, 1_000_000)
    assert slacks(pid) == {1_000_000}
    assert timer_slack.of_thread(timer_slack.thread_ids(__import__("os").getpid())[0]) == mine


def test_a_process_spawned_without_a_slack_keeps_the_inherited_one(child):
    import os
    import threading

    mine = timer_slack.of_thread(threading.get_native_id()) or timer_slack.of_thread(os.getpid())
    pid = child(THREADED)
    assert slacks(pid) == {mine}


def test_a_running_process_takes_a_new_slack_on_every_thread_and_gives_it_back(child):
    pid = child(THREADED)
    before = slacks(pid)
    took = timer_slack.set_for_process(pid, 2_000_000)
    if took == 0:
        pytest.skip("this user may not change another process's timer slack (CAP_SYS_NICE): only a spawn's own slack applies")
    assert took == len(timer_slack.thread_ids(pid))
    assert slacks(pid) == {2_000_000}
    timer_slack.set_for_process(pid, None)
    assert slacks(pid) == before


def test_wake_ups_count_every_thread_that_sleeps_and_wakes(child):
    pid = child(NAPPER)
    first = timer_slack.wakeups(pid)
    time.sleep(0.5)
    woke = timer_slack.wakeups(pid) - first
    assert woke >= 200, f"a thread napping 1 ms at a time woke only {woke} times in 0.5 s"


def test_a_gone_process_has_no_wake_ups_and_no_threads():
    assert timer_slack.wakeups(2**22 + 12345) is None
    assert timer_slack.thread_ids(2**22 + 12345) == []
