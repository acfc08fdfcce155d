"""Per-second throughput and latency of one run: what a run that changes mid-way (a node added, an index
built, a link cut) looks like over time, where a single summary row would average the change away.

Workers note each finished transaction's end time and latency in two flat arrays (cheap, no lock); the
pool turns them into one small histogram per second of the measured window (2 significant digits: a
per-second percentile needs no more), and processes merge second by second.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from hdrh.histogram import HdrHistogram

from .measurements import HIGHEST_US, LOWEST_US

DIGITS = 2


def _histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, DIGITS)


@dataclass
class Stamps:
    """One worker's finished transactions: end time (time.monotonic()) and latency in us (-1: failed);
    in a paced run also the latency from the scheduled start (`late`, -1 where there is none)."""

    ends: array = field(default_factory=lambda: array("d"))
    micros: array = field(default_factory=lambda: array("q"))
    late: array = field(default_factory=lambda: array("q"))

    def note(self, end: float, micros: int, intended: int = -1) -> None:
        self.ends.append(end)
        self.micros.append(micros)
        self.late.append(intended)


def _record(by_second: dict[int, HdrHistogram], second: int, micros: int) -> None:
    h = by_second.get(second)
    if h is None:
        h = by_second[second] = _histogram()
    h.record_value(min(max(micros, LOWEST_US), HIGHEST_US))


class Timeline:
    """Second k holds the transactions that finished in [release + k, release + k + 1)."""

    def __init__(self) -> None:
        self.latency: dict[int, HdrHistogram] = {}
        self.intended: dict[int, HdrHistogram] = {}  # paced runs: latency from each transaction's scheduled start
        self.errors: dict[int, int] = {}

    @classmethod
    def of(cls, release: float | None, stamps: list[Stamps]) -> "Timeline":
        timeline = cls()
        if release is None:
            return timeline
        for s in stamps:
            for end, micros, late in zip(s.ends, s.micros, s.late):
                second = max(0, int(end - release))
                if micros < 0:
                    timeline.errors[second] = timeline.errors.get(second, 0) + 1
                    continue
                _record(timeline.latency, second, micros)
                if late >= 0:
                    _record(timeline.intended, second, late)
        return timeline

    def merge(self, other: "Timeline") -> None:
        for mine_by_second, theirs in ((self.latency, other.latency), (self.intended, other.intended)):
            for second, h in theirs.items():
                mine = mine_by_second.get(second)
                if mine is None:
                    mine = mine_by_second[second] = _histogram()
                mine.add(h)
        for second, n in other.errors.items():
            self.errors[second] = self.errors.get(second, 0) + n

    def window(self, first: int, last: int, intended: bool = False) -> HdrHistogram:
        """One histogram of the seconds first..last-1 (service time, or from the scheduled start)."""
        out = _histogram()
        for second, h in (self.intended if intended else self.latency).items():
            if first <= second < last:
                out.add(h)
        return out

    @property
    def count(self) -> int:
        return sum(h.get_total_count() for h in self.latency.values())

    def rows(self) -> list[dict[str, Any]]:
        """One dict per second from 0 to the last: second, transactions, errors, p50_us, p95_us, p99_us, and in
        a paced run intended_p95_us and intended_p99_us (from the scheduled start)."""
        seconds = set(self.latency) | set(self.errors)
        out = []
        for second in range(max(seconds) + 1 if seconds else 0):
            h = self.latency.get(second)
            n = h.get_total_count() if h is not None else 0
            out.append({
                "second": second,
                "transactions": n,
                "errors": self.errors.get(second, 0),
                "p50_us": h.get_value_at_percentile(50) if h is not None and n else None,
                "p95_us": h.get_value_at_percentile(95) if h is not None and n else None,
                "p99_us": h.get_value_at_percentile(99) if h is not None and n else None,
            })
            if self.intended:
                late = self.intended.get(second)
                out[-1]["intended_p95_us"] = late.get_value_at_percentile(95) if late is not None else None
                out[-1]["intended_p99_us"] = late.get_value_at_percentile(99) if late is not None else None
        return out

    def to_wire(self) -> dict[str, Any]:
        return {"latency": {s: h.encode() for s, h in self.latency.items()}, "intended": {s: h.encode() for s, h in self.intended.items()},
                "errors": dict(self.errors)}

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> "Timeline":
        timeline = cls()
        for name in ("latency", "intended"):
            for second, encoded in wire.get(name, {}).items():
                h = getattr(timeline, name)[int(second)] = _histogram()
                h.decode_and_add(encoded)
        timeline.errors = {int(s): n for s, n in wire["errors"].items()}
        return timeline
