"""How long a thread of this process waits for Python's interpreter lock: the client's hidden ceiling.

A process's threads share one interpreter lock, so a client can be the limit while it uses well under a
core (switching the lock between many threads costs time of its own). The probe sleeps briefly, over and
over, and records how late it wakes up: a thread that wants to run Python again waits for the lock, so
the mean lateness tracks how many threads are queueing for it.
"""

from __future__ import annotations

import threading
import time

SLEEP_S = 0.002


class GilProbe:
    """Start with `start()`, read the mean lateness in milliseconds with `stop()`."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._late_s = 0.0
        self._samples = 0
        self._thread = threading.Thread(target=self._loop, name="labkit-gil-probe", daemon=True)

    def start(self) -> "GilProbe":
        self._thread.start()
        return self

    def _loop(self) -> None:
        clock = time.perf_counter
        while not self._stop.is_set():
            before = clock()
            time.sleep(SLEEP_S)
            self._late_s += max(0.0, clock() - before - SLEEP_S)
            self._samples += 1

    def stop(self) -> float | None:
        """Mean wake-up lateness (ms) since start, or None when the window was too short to tell."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        return 1000.0 * self._late_s / self._samples if self._samples >= 5 else None
