"""CPU budgets that need no privilege: a small helper process pauses a node (SIGSTOP) once it has used its
share of CPU and lets it go on (SIGCONT) when its credit has grown back.

Where control groups are not writable (a student on a shared lab server, a hub pod) a user may still send
signals to their own processes. The helper reads each node's CPU time from /proc (user + system of all
its threads, in the kernel's 10 ms ticks) every TICK_S and keeps a credit per node: it grows by the
budget (cores x seconds) and shrinks by the CPU used, capped at one period's worth; below zero the node is
paused until the credit is back. Over a second the node gets its budget, as under a CFS quota with a
period of about 100 ms, and like a quota it holds every thread of the process. The helper's own cost
(reading /proc) is part of the machine's load; the benchmark that compared it with control groups is
benchmarks/unprivileged_budgets.py.

Each node has a small directory (its "group": `pid`, `quota`, `throttled_s`) under the cluster's
directory, which the rest of `budgets` reads and writes as it does a control group. One helper per
cluster; on SIGTERM (or when its cluster's nodes are gone) it lets every node run and exits.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

TICK_S = 0.01
PERIOD_S = 0.1
"""The most credit a node keeps (a burst of one period's budget), as a CFS period bounds a quota's burst."""
ENV = "LABKIT_BUDGETS"
"""`signals` makes budgets use this helper even where control groups are writable (to compare them)."""
_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def wanted() -> bool:
    return os.environ.get(ENV, "").strip() == "signals"


def root(directory: Path) -> Path:
    return directory / "budgets"


def group_path(directory: Path, node: str) -> Path:
    return root(directory) / node


def apply(directory: Path, node: str, pid: int, cores: float) -> Path:
    """Put the node's process under the helper with `cores`; start the cluster's helper if none runs."""
    group = group_path(directory, node)
    group.mkdir(parents=True, exist_ok=True)
    (group / "pid").write_text(str(pid))
    set_quota(group, cores)
    if not (group / "throttled_s").exists():
        (group / "throttled_s").write_text("0")
    _ensure_helper(directory)
    return group


def set_quota(group: Path, cores: float | None) -> None:
    tmp = group / "quota.tmp"
    tmp.write_text("max" if cores is None else repr(float(cores)))
    os.replace(tmp, group / "quota")


def budget_of(group: Path) -> tuple[float, int] | None:
    text = (group / "quota").read_text().strip()
    return None if text == "max" else (float(text), int(PERIOD_S * 1e6))


def throttling(group: Path) -> dict[str, float]:
    """Seconds the node spent paused so far (as a control group's throttled time)."""
    try:
        paused = float((group / "throttled_s").read_text() or 0)
    except (OSError, ValueError):
        paused = 0.0
    return {"periods": 0.0, "throttled_periods": 0.0, "throttled_s": paused}


def group_of(directory: Path, node: str) -> Path | None:
    group = group_path(directory, node)
    return group if (group / "quota").exists() else None


def remove(directory: Path, node: str | None = None) -> list[Path]:
    """Forget one node's budget, or stop the cluster's helper (which lets every node run) and forget all."""
    import shutil

    from ...host import processes

    groups = [group_path(directory, node)] if node else sorted(p for p in root(directory).glob("*") if p.is_dir())
    if node is None:
        for proc in processes.processes_under(root(directory)):
            processes.stop(proc, graceful=True, timeout=5)  # SIGTERM: it resumes every node first
    for group in groups:
        pid = _pid(group)
        if pid:
            _signal(pid, signal.SIGCONT)
        shutil.rmtree(group, ignore_errors=True)
    return groups


def _ensure_helper(directory: Path) -> None:
    from ...host import processes

    if processes.processes_under(root(directory)):
        return
    processes.spawn([sys.executable, "-m", "labkit.clusters.local.signal_budgets", str(root(directory))],
                    cwd=root(directory), log=root(directory) / "helper.log", pidfile=root(directory) / "helper.pid")


def _pid(group: Path) -> int | None:
    try:
        return int((group / "pid").read_text())
    except (OSError, ValueError):
        return None


def _signal(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def _cpu_s(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime, stime


class _Node:
    def __init__(self, group: Path):
        self.group = group
        self.pid = _pid(group)
        self.last = _cpu_s(self.pid) if self.pid else None
        self.credit = 0.0
        self.paused_at: float | None = None
        self.paused_s = throttling(group)["throttled_s"]

    def step(self, now: float, dt: float) -> None:
        pid = self.pid
        cpu = _cpu_s(pid) if pid else None
        if pid is None or cpu is None:
            return
        used, self.last = cpu - (self.last if self.last is not None else cpu), cpu
        try:
            budget = budget_of(self.group)
        except (OSError, ValueError):
            budget = None
        if budget is None:  # lifted: run freely, start again from no credit when the budget is back
            self.credit = 0.0
            self.resume(now)
            return
        cores = budget[0]
        self.credit = min(self.credit + cores * dt - used, cores * PERIOD_S)
        if self.credit < 0 and self.paused_at is None:
            if _signal(pid, signal.SIGSTOP):
                self.paused_at = now
        elif self.credit >= 0:
            self.resume(now)

    def resume(self, now: float) -> None:
        if self.paused_at is not None and self.pid is not None:  # paused only ever with a pid
            _signal(self.pid, signal.SIGCONT)
            self.paused_s += now - self.paused_at
            self.paused_at = None
            try:
                (self.group / "throttled_s").write_text(f"{self.paused_s:.4f}")
            except OSError:
                pass  # the node's budget was just removed: it runs on, nothing to record


def serve(budgets_dir: Path) -> None:
    """The helper's loop: every TICK_S, each node in `budgets_dir` gets its credit and is paused or resumed."""
    nodes: dict[Path, _Node] = {}
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    last = time.monotonic()
    idle_since = None
    try:
        while not stopping:
            time.sleep(TICK_S)
            now = time.monotonic()
            dt, last = now - last, now
            groups = {p for p in budgets_dir.glob("*") if (p / "quota").exists()}
            for gone in set(nodes) - groups:
                nodes.pop(gone).resume(now)
            for group in groups - set(nodes):
                nodes[group] = _Node(group)
            for node in nodes.values():
                node.step(now, dt)
            alive = [n for n in nodes.values() if n.pid and Path(f"/proc/{n.pid}").exists()]
            idle_since = None if alive else (idle_since or now)
            if idle_since is not None and now - idle_since > 5:
                break  # its cluster is gone
    finally:
        for node in nodes.values():
            node.resume(time.monotonic())


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
