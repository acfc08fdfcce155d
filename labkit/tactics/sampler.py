"""Per-second CPU of the machine and of each node while a tactic runs: nodes come and go during the run
(a node added, one decommissioned), so the sampler asks the cluster for its node processes every second."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

import psutil

from ..clusters.local.node_cpu import cpu_seconds

if TYPE_CHECKING:
    from ..clusters.contract import Cluster


class CpuSampler:
    """A daemon thread noting, about once a second, the machine's busy share and each node's cores used."""

    def __init__(self, cluster: Cluster, interval_s: float = 1.0):
        self.cluster = cluster
        self.interval_s = interval_s
        self.samples: list[dict[str, Any]] = []  # {"t": monotonic, "machine_busy": 0..1, "nodes": {name: cores}}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="labkit-cpu-sampler", daemon=True)

    def _processes(self) -> dict[str, Any]:
        servers = self.cluster.local_servers()
        if servers is None:
            return {}
        try:
            return servers.node_processes()
        except Exception:
            return {}  # a node list changing under us: the next second reads it again

    def _loop(self) -> None:
        psutil.cpu_percent(interval=None)
        last_t, last = time.monotonic(), {n: cpu_seconds(p) for n, p in self._processes().items()}
        while not self._stop.wait(self.interval_s):
            procs = self._processes()
            cpu = {n: cpu_seconds(p) for n, p in procs.items()}
            now = time.monotonic()  # after the readings: a slow look-up must not count CPU time against a shorter span
            span = now - last_t
            nodes = {n: round((c - was) / span, 3) for n, c in cpu.items() if c is not None and (was := last.get(n)) is not None}
            self.samples.append({"t": now, "machine_busy": psutil.cpu_percent(interval=None) / 100.0, "nodes": nodes})
            last_t, last = now, cpu

    def __enter__(self) -> "CpuSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def per_second(self, zero: float) -> dict[int, dict[str, Any]]:
        """Samples keyed by the second (since `zero`, a time.monotonic()) their interval ended in."""
        out: dict[int, dict[str, Any]] = {}
        for s in self.samples:
            second = int(s["t"] - zero - 1e-9)
            if second >= 0:
                out[second] = s
        return out
