"""How long a thread of this process waits for Python's interpreter lock: the client's hidden ceiling.

A process's threads share one interpreter lock, so a client can be the limit while it uses well under a
core (switching the lock between many threads costs time of its own). The probe sleeps briefly, over and
over, and records how late it wakes up. Lateness has two causes: waiting for the interpreter lock, and
waiting for a free core when the machine is busy (the servers share the cores). Only the first says the
client is in the way, so the probe reads its own thread's run-queue delay from the kernel
(/proc/self/task/<tid>/schedstat) and subtracts it; where the kernel does not report it, the lateness
stands as measured (and may include waiting for a core).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

SLEEP_S = 0.002


def run_queue_delay_s(native_id: int) -> float | None:
    """Seconds the thread has spent runnable but waiting for a core, or None where the kernel does not say."""
    try:
        fields = Path(f"/proc/self/task/{native_id}/schedstat").read_text().split()
        return int(fields[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


class GilProbe:
    """Start with `start()`, read the mean wait for the interpreter lock in milliseconds with `stop()`;
    `run_queue_ms` then holds the mean wait for a core that was taken out of it."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._late_s = 0.0
        self._samples = 0
        self._queued_s: float | None = None
        self.run_queue_ms: float | None = None
        self._thread = threading.Thread(target=self._loop, name="labkit-gil-probe", daemon=True)

    def start(self) -> "GilProbe":
        self._thread.start()
        return self

    def _loop(self) -> None:
        clock = time.perf_counter
        tid = threading.get_native_id()
        queued_before = run_queue_delay_s(tid)
        while not self._stop.is_set():
            before = clock()
            time.sleep(SLEEP_S)
            self._late_s += max(0.0, clock() - before - SLEEP_S)
            self._samples += 1
        queued_after = run_queue_delay_s(tid)
        if queued_before is not None and queued_after is not None:
            self._queued_s = max(0.0, queued_after - queued_before)

    def stop(self) -> float | None:
        """Mean wait for the interpreter lock (ms) since start, or None when the window was too short to tell."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self._samples < 5:
            return None
        late_s = self._late_s
        if self._queued_s is not None:
            self.run_queue_ms = 1000.0 * self._queued_s / self._samples
            late_s = max(0.0, late_s - self._queued_s)
        return 1000.0 * late_s / self._samples
