"""Target-rate pacing: each worker starts transaction k at a fixed schedule instead of as fast as it can."""

from __future__ import annotations

import threading
import time


class Pacer:
    """Schedules one worker's transactions at `rate` per second, offset so workers do not start in step.

    The schedule is absolute (release + offset + k / rate), so a slow transaction is caught up on
    instead of silently lowering the rate.
    """

    def __init__(self, rate_per_worker: float, worker_slot: int, workers: int):
        self.interval = 1.0 / rate_per_worker
        self.offset = self.interval * worker_slot / workers

    def wait_turn(self, k: int, release: float, cancel: threading.Event) -> bool:
        """Sleep until transaction k is due; False when the run was cancelled meanwhile."""
        delay = release + self.offset + k * self.interval - time.monotonic()
        if delay > 0:
            return not cancel.wait(delay)
        return not cancel.is_set()
