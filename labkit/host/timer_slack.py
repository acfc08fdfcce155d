"""How late the kernel may wake a server's timed sleeps: what keeps Cassandra's idle workers from filling a CPU budget.

Cassandra's shared worker pool (SEPWorker) keeps a worker that finds no task in a wait-spin: it parks for
10 us up to 1 ms (more the more workers spin), looks for work, and parks again, and the last spinner gives up
only after 10 ms alone. Linux lets a timed sleep end up to the thread's timer slack late (50 us unless a
process asks for more), so those parks end almost on time, thousands of times a second: one node under a
0.5-core budget woke its threads about 15,000-17,000 times a second and used 0.39-0.44 core at 100, 200
and 400 reads/s alike, so its CPU per request was its quota over the throughput. Each wake-up cost about
21 us of CPU, a read about 0.26 ms, the same at every rate (benchmarks/results/cpu_per_request_summary.md).
A larger slack lets each park run longer, so the spinners wake less often and the pool stops the surplus
ones sooner. A new thread takes its creator's slack, so setting it on the process as it
starts (or on every thread of a running one) covers the threads the server starts later.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from pathlib import Path
from typing import Iterator

LINUX_DEFAULT_NS = 50_000
"""The slack of init (PID 1), which every process inherits unless one in its ancestry asked for another."""
BUDGETED_NS = 1_000_000
"""What labkit gives a server process held to a CPU budget (every engine's alike, so a comparison of engines under
budgets gives both the same kernel setting); clusters.local.cassandra_config says what it changed for Cassandra."""
PR_SET_TIMERSLACK = 29
PR_GET_TIMERSLACK = 30


def supported() -> bool:
    return sys.platform.startswith("linux")


@contextlib.contextmanager
def for_children(slack_ns: int | None) -> Iterator[None]:
    """Processes started inside the block (from this thread) begin with `slack_ns` of timer slack; this
    thread's own slack is put back afterwards. No privilege needed: it is this thread's own setting, which
    a child inherits and keeps across exec. None, or a system without the setting: nothing changes."""
    if slack_ns is None or not supported():
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    before = libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)
    libc.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(slack_ns), 0, 0, 0)
    try:
        yield
    finally:
        if before > 0:
            libc.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(before), 0, 0, 0)


def set_for_process(pid: int, slack_ns: int | None) -> int:
    """Set the timer slack of every thread `pid` has now (None: each thread's default, the slack its
    creator had when it started, so a process spawned with a slack keeps that one); returns how many threads
    took it. Writing another process's slack needs CAP_SYS_NICE (Linux asks for it even for one's own child), so without it nothing changes and this returns 0:
    only the slack a process was spawned with (for_children, no privilege) applies then."""
    value = "0" if slack_ns is None else str(int(slack_ns))
    done = 0
    for tid in thread_ids(pid):
        try:
            Path(f"/proc/{tid}/timerslack_ns").write_text(value)
            done += 1
        except OSError:
            continue
    return done


def of_thread(tid: int) -> int | None:
    """A thread's current timer slack in nanoseconds (None: gone, not Linux, or not readable without CAP_SYS_NICE)."""
    try:
        return int(Path(f"/proc/{tid}/timerslack_ns").read_text())
    except (OSError, ValueError):
        return None


def thread_ids(pid: int) -> list[int]:
    try:
        return sorted(int(p.name) for p in Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []


def wakeups(pid: int) -> int | None:
    """Voluntary context switches of all of `pid`'s live threads so far (each time a thread slept and
    was woken: a spinning worker's every park counts); None when the process is gone or this is not Linux.
    A thread that exits takes its count with it, so read it around windows the server's pool outlives."""
    total, seen = 0, False
    for tid in thread_ids(pid):
        try:
            status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
                seen = True
                break
    return total if seen else None
