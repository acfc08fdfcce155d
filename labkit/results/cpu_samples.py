"""A server's CPU profile as samples (thread, stack) and their shares by part: the reading side of
labkit.clusters.local.jfr, kept here so an engine's module can name its server's parts without importing a cluster."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass(frozen=True)
class Sample:
    """One execution sample: the thread's name and its frames as 'package.Class.method', leaf first."""

    thread: str
    frames: tuple[str, ...]


def parse(text: str) -> list[Sample]:
    """Samples from `jfr print --json` output."""
    out = []
    for event in json.loads(text)["recording"]["events"]:
        values = event["values"]
        thread = (values.get("sampledThread") or {}).get("javaName") or ""
        frames = tuple(f"{f['method']['type']['name']}.{f['method']['name']}".replace("/", ".")  # jfr prints class names as org/apache/...
                       for f in ((values.get("stackTrace") or {}).get("frames") or []))
        out.append(Sample(thread, frames))
    return out


Part = tuple[str, Callable[[Sample], bool]]
"""(label, test): the first part of an engine's ordered list whose test a sample passes is where the sample counts."""


def part_of(sample: Sample, parts: Sequence[Part], other: str = "other") -> str:
    """The label of the first part whose test the sample passes, or `other`."""
    return next((label for label, test in parts if test(sample)), other)


def shares(samples: Sequence[Sample], parts: Sequence[Part], other: str = "other") -> dict[str, float]:
    """Fraction of the samples in each part (every label present, 0.0 when none), plus `other`."""
    counts = {label: 0 for label, _ in parts} | {other: 0}
    for sample in samples:
        counts[part_of(sample, parts, other)] += 1
    total = sum(counts.values())
    return {label: (n / total if total else 0.0) for label, n in counts.items()}


def anywhere(*markers: str) -> Callable[[Sample], bool]:
    """A part test: some frame of the stack contains one of `markers` ('package.Class' or 'Class.method' text)."""
    return lambda sample: any(m in frame for frame in sample.frames for m in markers)


def on_top(*markers: str) -> Callable[[Sample], bool]:
    """A part test: the leaf frame (what the thread was running) contains one of `markers`."""
    return lambda sample: bool(sample.frames) and any(m in sample.frames[0] for m in markers)
