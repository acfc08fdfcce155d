"""Measure local server processes' CPU around a run (the runner's ServerMeter for local providers).

CPU time comes from the kernel's per-process counters (user + system of every thread), so it works with
and without budgets; throttling comes from the node's control group when it has a budget.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Iterator

import psutil

from ...runner.server_cpu import NodeCpu, ServerCpu
from ...host import timer_slack
from . import budgets


SETTLED_CORES = 0.08
"""A node this quiet is doing only its background work (measured here: an idle Cassandra 5.0 node uses
0.03-0.05 cores; a node still compiling or flushing after a warm-up uses several times that)."""


def cpu_seconds(proc: psutil.Process) -> float | None:
    try:
        t = proc.cpu_times()
        return t.user + t.system
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None


class NodeCpuMeter:
    """start() / stop() -> ServerCpu over named node processes, each with its budget (or None)."""

    @classmethod
    def of(cls, directory: Path, processes: dict[str, psutil.Process], node_cpu: float | None) -> "NodeCpuMeter":
        """A meter over a local cluster's node processes, each with the cluster's budget and its group."""
        return cls({name: (proc, node_cpu, budgets.group_of(directory, name) if node_cpu else None) for name, proc in processes.items()})

    def __init__(self, nodes: dict[str, tuple[psutil.Process, float | None, Path | None]]):
        self.nodes = nodes  # name -> (process, budget cores, control group)
        self._cpu: dict[str, float | None] = {}
        self._throttled: dict[str, float] = {}
        self._wakeups: dict[str, int | None] = {}
        self._t0 = 0.0
        self.idle_cores: dict[str, float] = {}  # each node's CPU rate once settled, with no client load
        self.cap: Path | None = None
        """The cluster's own group when a cap on it (budgets.cap_cluster) bounds its processes together: lifted with
        the nodes' budgets, and its throttling read (the kernel counts a parent's throttling in the parent only)."""
        self._cap_throttled = 0.0

    def _throttled_s(self, group: Path | None) -> float:
        return budgets.throttling(group)["throttled_s"] if group is not None else 0.0

    @contextlib.contextmanager
    def unbudgeted(self, settle: bool = True) -> Iterator[None]:
        """Lift the nodes' budgets while nothing is measured (setup, loading, warm-up, verify, cleanup: at
        0.15 core a bulk load or a full-table read times out, and a fresh JVM compiles its hot code far
        slower), then put back each group's quota as it was when lifted, whatever happens. With `settle`
        (before a measured window) the nodes first finish what the unmeasured work queued."""
        lifted: list[tuple[Path, float]] = []
        cap = budgets.budget_of(self.cap) if self.cap is not None else None
        if self.cap is not None and cap is not None:
            lifted.append((self.cap, cap[0]))
        for _proc, budget, group in self.nodes.values():
            current = budgets.budget_of(group) if group is not None and budget else None
            if group is not None and current is not None:  # a tactic may have changed it since the meter was made: restore what is there now
                lifted.append((group, current[0]))
        for group, _cores in lifted:
            budgets.set_quota(group, None)
        try:
            yield
            if lifted and settle:
                self.settle()
        finally:
            for group, cores in lifted:
                budgets.set_quota(group, cores)

    def settle(self, quiet_cores: float = SETTLED_CORES, window_s: float = 1.0, timeout_s: float = 20.0) -> float:
        """Wait (up to `timeout_s`) until no node uses more than `quiet_cores` over `window_s`: the work a
        warm-up queued (JIT compilation, flushes) finishes at full speed instead of inside the first
        measured seconds. The last window's rates are the nodes' idle background (`idle_cores`), which
        the measured window's reading subtracts (server_cpu_ms_per_tx_net). Returns
        the seconds waited. A second, not half: half-second readings of an idle node scatter four times
        as widely (benchmarks/settle_window.py)."""
        began = time.monotonic()
        while time.monotonic() - began < timeout_s:
            before = self._cpu_now()
            time.sleep(window_s)
            after = self._cpu_now()
            used = {n: (now - was) / window_s for n, was in before.items() if was is not None and (now := after[n]) is not None}
            if not used or max(used.values()) <= quiet_cores:
                self.idle_cores = used
                break
        return time.monotonic() - began

    def _cpu_now(self) -> dict[str, float | None]:
        return {name: cpu_seconds(proc) for name, (proc, _b, _g) in self.nodes.items()}

    def start(self) -> None:
        self._cpu = self._cpu_now()
        self._throttled = {name: self._throttled_s(group) for name, (_p, _b, group) in self.nodes.items()}
        self._wakeups = {name: timer_slack.wakeups(proc.pid) for name, (proc, _b, _g) in self.nodes.items()}
        self._cap_throttled = self._throttled_s(self.cap)
        self._t0 = time.monotonic()

    def stop(self) -> ServerCpu:
        wall = time.monotonic() - self._t0
        out = {}
        for name, (proc, budget, group) in self.nodes.items():
            before, after = self._cpu.get(name), cpu_seconds(proc)
            if before is None or after is None:
                continue  # a node killed during the run (a fault lesson): no reading for it
            woke, woken = self._wakeups.get(name), timer_slack.wakeups(proc.pid)
            out[name] = NodeCpu(cpu_s=after - before, budget_cores=budget, throttled_s=self._throttled_s(group) - self._throttled.get(name, 0.0),
                                wakeups=None if woke is None or woken is None else max(0, woken - woke))
        capped = self._throttled_s(self.cap) - self._cap_throttled if self.cap is not None else None
        return ServerCpu(wall_s=wall, nodes=out, idle_cores=dict(self.idle_cores), cap_throttled_s=capped)
