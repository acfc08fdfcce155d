"""Target-rate pacing: each worker starts transaction k at a fixed schedule instead of as fast as it can."""

from __future__ import annotations

import time
from typing import Callable


class Pacer:
    """Schedules one worker's transactions at `rate` per second, offset so workers do not start in step.

    The schedule is absolute (release + offset + k / rate), so a slow transaction is caught up on
    instead of silently lowering the rate.
    """

    def __init__(self, rate_per_worker: float, worker_slot: int, workers: int):
        self.interval = 1.0 / rate_per_worker
        self.offset = self.interval * worker_slot / workers

    def due(self, k: int, release: float) -> float:
        """When transaction k is scheduled (time.monotonic() seconds)."""
        return release + self.offset + k * self.interval

    def wait_turn(self, k: int, release: float, sleep: Callable[[float], bool]) -> float | None:
        """Sleep (with `sleep(seconds) -> False when cancelled`) until transaction k is due; returns when it
        was due, or None when the run was cancelled meanwhile."""
        due = self.due(k, release)
        delay = due - time.monotonic()
        if delay > 0 and not sleep(delay):
            return None
        return due
