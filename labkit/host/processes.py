"""Server processes labkit starts: tracked by pidfile, stopped by PID, found again after a crash.

A process belongs to labkit when its command line contains the directory labkit created for it; that
is how a later start tells its own orphans from anybody else's JVMs (never by name: no pkill/killall).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import psutil

from . import timer_slack


def spawn(cmd: list[str], *, cwd: Path, log: Path, pidfile: Path, env: dict[str, str] | None = None, timer_slack_ns: int | None = None) -> int:
    """Start a detached server process (own session, so a Ctrl-C in a notebook does not hit it), with
    `timer_slack_ns` of timer slack when given (host.timer_slack: why a budgeted Cassandra node needs it).

    Returns once the process shows its own command line: for a moment after the fork /proc still
    shows the parent's, and a check in that moment would call a starting server dead."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out, timer_slack.for_children(timer_slack_ns):
        proc = subprocess.Popen(
            cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, env=env
        )
    pidfile.write_text(str(proc.pid))
    expected = " ".join(cmd[1:3])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if expected in " ".join(psutil.Process(proc.pid).cmdline()):
                break
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            break
        time.sleep(0.01)
    return proc.pid


def owned_process(pidfile: Path, marker: str) -> psutil.Process | None:
    """The live process named by `pidfile`, if its command line still contains `marker` (not a reused PID)."""
    try:
        pid = int(pidfile.read_text().strip())
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc if marker in " ".join(proc.cmdline()) else None
    except (FileNotFoundError, ValueError, psutil.NoSuchProcess, psutil.AccessDenied):
        return None


def exited(pidfile: Path) -> bool:
    """Has the process `pidfile` names ended (gone, or a zombie)? Unlike `owned_process`, a live process
    whose command line does not show its program yet (a slow exec on a loaded machine) has not exited."""
    try:
        proc = psutil.Process(int(pidfile.read_text().strip()))
        return proc.status() == psutil.STATUS_ZOMBIE
    except (FileNotFoundError, ValueError, psutil.NoSuchProcess):
        return True
    except psutil.AccessDenied:
        return False


def processes_under(directory: Path) -> list[psutil.Process]:
    """Every live process whose command line mentions `directory`: what labkit started there."""
    marker = str(directory)
    found = []
    # psutil caches the Process of each PID between calls; a process whose PID was reused since then
    # (thousands of starts in one CI run, pid_max 32768) is dropped as gone for one call, which would
    # let a live node go unseen. Every call starts from the live process table.
    psutil.process_iter.cache_clear()
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            if proc.pid != os.getpid() and marker in " ".join(proc.info["cmdline"] or []):
                if proc.status() != psutil.STATUS_ZOMBIE:
                    found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def reap_under(directory: Path) -> list[int]:
    """Kill every process labkit started under `directory` (pidfile or not) and remove its
    cluster.json, so status and down no longer list what is not there; return the PIDs killed."""
    killed = []
    for proc in processes_under(directory):
        killed.append(proc.pid)
        stop(proc, graceful=False)
    state = directory / "cluster.json"
    if state.exists():
        state.unlink()
    return killed


def _gone(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE  # dead; only its parent's wait() is missing
    except psutil.NoSuchProcess:
        return True


def _wait_gone(proc: psutil.Process, timeout: float) -> bool:
    try:
        proc.wait(0)  # reaps it when it is our own child
    except (psutil.TimeoutExpired, psutil.NoSuchProcess, ChildProcessError):
        pass
    deadline = time.monotonic() + timeout
    while not _gone(proc):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
        try:
            proc.wait(0)
        except (psutil.TimeoutExpired, psutil.NoSuchProcess, ChildProcessError):
            pass
    return True


def stop(proc: psutil.Process, *, graceful: bool, timeout: float = 30.0) -> None:
    """SIGTERM and wait (graceful), else SIGKILL; SIGKILL anyway if it outlives the timeout."""
    try:
        if graceful:
            proc.send_signal(signal.SIGTERM)
            if _wait_gone(proc, timeout):
                return
        proc.kill()
    except psutil.NoSuchProcess:
        return
    if not _wait_gone(proc, 15):
        raise TimeoutError(f"process {proc.pid} did not exit after SIGKILL")


def port_open(address: str, port: int) -> bool:
    """Does something accept TCP connections at address:port right now?"""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((address, port)) == 0


def wait_until(predicate, timeout: float, interval: float = 0.25, what: str = "condition") -> None:
    """Poll `predicate` until true; TimeoutError naming `what` otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)
