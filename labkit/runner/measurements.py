"""Latency histograms and counters per worker; merged exactly across threads and processes.

Every worker thread owns one `Measurements`, so recording never takes a lock. Latencies are kept in
HDR histograms (microseconds, 3 significant digits) plus an exact sum for the mean; histograms travel
between processes in HdrHistogram's lossless encoding. Recording only appends to a flat array; values
reach the histogram when it is read (after the measured window) or every FOLD_EVERY values, so the
histogram's Python arithmetic (a few microseconds a value) stays out of the transactions' way.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hdrh.histogram import HdrHistogram

LOWEST_US = 1
HIGHEST_US = 3_600_000_000  # one hour: anything slower is clamped and still counted
SIGNIFICANT_DIGITS = 3
TRANSACTION = "transaction"
"""Name of the whole-transaction latency series (each operation type has its own series too)."""
INTENDED = "transaction from intended start"
"""Paced runs only: each transaction's latency from when the schedule said it should start, so time spent
waiting behind a stalled server counts (no coordinated omission); `transaction` stays the service time."""


FOLD_EVERY = 1 << 20
"""Values kept unfolded at most (8 MiB per series) before they go into the histogram mid-run."""


def new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


@dataclass
class Series:
    """One latency series: histogram, exact sum, final failures and retries."""

    _histogram: HdrHistogram = field(default_factory=new_histogram)
    sum_us: int = 0
    errors: int = 0
    retries: int = 0
    _pending: array = field(default_factory=lambda: array("q"))

    def record(self, micros: int) -> None:
        if micros < LOWEST_US:
            micros = LOWEST_US
        elif micros > HIGHEST_US:
            micros = HIGHEST_US
        self._pending.append(micros)
        self.sum_us += micros
        if len(self._pending) >= FOLD_EVERY:
            self._fold()

    def _fold(self) -> None:
        record = self._histogram.record_value
        for micros in self._pending:
            record(micros)
        self._pending = array("q")

    @property
    def histogram(self) -> HdrHistogram:
        """Every value recorded so far (folds the pending ones in first)."""
        if self._pending:
            self._fold()
        return self._histogram

    @property
    def count(self) -> int:
        return self._histogram.get_total_count() + len(self._pending)

    def add(self, other: "Series") -> None:
        self.histogram.add(other.histogram)
        self.sum_us += other.sum_us
        self.errors += other.errors
        self.retries += other.retries

    def to_wire(self) -> dict[str, Any]:
        encoded = self.histogram.encode() if self.count else b""
        return {"h": encoded, "sum": self.sum_us, "errors": self.errors, "retries": self.retries}

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> "Series":
        series = cls(sum_us=wire["sum"], errors=wire["errors"], retries=wire["retries"])
        if wire["h"]:
            series._histogram.decode_and_add(wire["h"])
        return series


class Measurements:
    """Everything one worker (or, after merging, one run) measured."""

    MAX_ERROR_SAMPLES = 5

    def __init__(self) -> None:
        self.series: dict[str, Series] = {TRANSACTION: Series()}
        self.error_kinds: Counter[str] = Counter()
        self.error_samples: dict[str, str] = {}

    @property
    def transactions(self) -> Series:
        return self.series[TRANSACTION]

    def op(self, name: str) -> Series:
        series = self.series.get(name)
        if series is None:
            series = self.series[name] = Series()
        return series

    def note_error(self, exc: BaseException) -> None:
        kind = type(exc).__name__
        self.error_kinds[kind] += 1
        if kind not in self.error_samples and len(self.error_samples) < self.MAX_ERROR_SAMPLES:
            self.error_samples[kind] = str(exc)[:500]

    def merge(self, other: "Measurements") -> None:
        for name, series in other.series.items():
            self.op(name).add(series)
        self.error_kinds.update(other.error_kinds)
        for kind, text in other.error_samples.items():
            if kind not in self.error_samples and len(self.error_samples) < self.MAX_ERROR_SAMPLES:
                self.error_samples[kind] = text

    def to_wire(self) -> dict[str, Any]:
        return {
            "series": {name: s.to_wire() for name, s in self.series.items()},
            "error_kinds": dict(self.error_kinds),
            "error_samples": dict(self.error_samples),
        }

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> "Measurements":
        m = cls()
        m.series = {name: Series.from_wire(s) for name, s in wire["series"].items()}
        m.series.setdefault(TRANSACTION, Series())
        m.error_kinds = Counter(wire["error_kinds"])
        m.error_samples = dict(wire["error_samples"])
        return m


def merged(parts: list[Measurements]) -> Measurements:
    total = Measurements()
    for part in parts:
        total.merge(part)
    return total
