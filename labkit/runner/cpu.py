"""Client CPU accounting: was the Python client, rather than the database, the limit of a run?"""

from __future__ import annotations

import os

import time

import psutil

from ..errors import ConfigError
from .division import split_evenly

SATURATION_THRESHOLD = 0.9


def cores_available() -> int:
    """Cores this process may run on (its CPU affinity, which containers and taskset narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def client_cores_available(processes: int) -> int:
    """A Python process runs about one core's worth of Python at a time (the GIL), so a client of P
    processes can use at most min(P, cores) cores for the work the runner and driver do in Python."""
    return max(1, min(processes, cores_available()))


def saturation(cpu_seconds: list[float], wall_s: float, processes: int) -> tuple[float, int, bool, str]:
    """(cores used, cores available, saturated?, explanation) for one run's client processes."""
    available = client_cores_available(processes)
    if wall_s <= 0:
        return 0.0, available, False, ""
    used = sum(cpu_seconds) / wall_s
    saturated = used >= SATURATION_THRESHOLD * available
    note = ""
    if saturated:
        note = (
            f"the client used {used:.2f} of the {available} core(s) it can use "
            f"({processes} Python process(es) on {cores_available()} core(s)); the curve shows the client's limit, "
            "not the database's. Add client processes, or run the client on another machine."
        )
    return used, available, saturated, note


class MachineCpu:
    """Fraction of all cores busy between start() and stop(), servers included; and, so that CPU the client
    and the nodes do not account for is not left unexplained, `parts` (cores over the window): the kernel's
    interrupt work (softirq + irq: on loopback, every request's packets are processed there, charged to no
    process), the coordinating process itself (this one: pacing, meters, progress), and the machine's
    busy cores in all."""

    def start(self) -> None:
        self._before = psutil.cpu_times()
        self._me_before = sum(psutil.Process().cpu_times()[:2])
        self._wall_before = time.monotonic()
        self.parts: dict[str, float] = {}

    def stop(self) -> float | None:
        after = psutil.cpu_times()
        busy_before = sum(self._before) - self._before.idle - getattr(self._before, "iowait", 0.0)
        busy_after = sum(after) - after.idle - getattr(after, "iowait", 0.0)
        total = sum(after) - sum(self._before)
        wall = time.monotonic() - self._wall_before
        if wall > 0:
            interrupts = sum(getattr(after, f, 0.0) - getattr(self._before, f, 0.0) for f in ("softirq", "irq"))
            self.parts = {"machine_cpu_cores": (busy_after - busy_before) / wall, "kernel_interrupt_cores": interrupts / wall,
                          "coordinator_cpu_cores": (sum(psutil.Process().cpu_times()[:2]) - self._me_before) / wall}
        return (busy_after - busy_before) / total if total > 0 else None


THREADS_PER_PROCESS = 16
"""Thread workers one client process drives well: above this, its threads queue for Python's interpreter
lock against a fast server (measured here: one process of 16 threads used 0.67 cores and its probe thread
waited 3.4 ms to run)."""
GREENLETS_PER_PROCESS = 64
"""Greenlet workers share one thread, so a process carries many more of them (benchmarks/runner_vs_driver.py
measures one process up to 64 in flight against the driver's best loop)."""
AUTO = "auto"


def per_process_capacity(workers: str) -> int:
    return GREENLETS_PER_PROCESS if workers == "greenlets" else THREADS_PER_PROCESS


def auto_processes(in_flight: int, workers: str, max_processes: int | None = None) -> int:
    """How many client processes carry `in_flight` workers: enough that none holds more than it drives
    well, but no more than the cores this client may run on (a second process on a core already taken
    only adds switching), nor than the workload allows (some keep their checks in one process's memory)."""
    wanted = -(-in_flight // per_process_capacity(workers))
    cap = min(cores_available(), max_processes or in_flight, in_flight)
    return max(1, min(wanted, cap))


def client_layout(threads: int, processes: int | str, workers: str, max_processes: int | None = None) -> list[int]:
    """Workers per client process: `threads` workers in all, spread as evenly as whole workers allow over
    `processes` processes, or over auto_processes() of them with "auto"."""
    if isinstance(processes, str):
        if processes != AUTO:
            raise ConfigError(f"processes is a number of client processes or {AUTO!r}; got {processes!r}")
        return split_evenly(threads, auto_processes(threads, workers, max_processes))
    if threads < processes:
        raise ConfigError(f"{threads} client threads cannot keep {processes} client processes busy (threads are counted in all, "
                          f"over every process): use threads={processes} or more, or fewer processes")
    return split_evenly(threads, processes)
