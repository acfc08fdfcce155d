"""YCSB workload A on every engine: one approach, one phase, and YCSB's request distributions."""

from __future__ import annotations

import itertools

NAME = "ycsb-a"
APPROACHES = ("baseline",)
PHASES = ("read-update",)
DISTRIBUTIONS = ("zipfian", "uniform")


def zipf_cumulative(n: int, theta: float = 0.99) -> list[float]:
    """Cumulative weights of a zipfian over n items (item i drawn with weight 1/(i+1)^theta), as YCSB's
    default request distribution: a few hot keys get most of the requests."""
    return list(itertools.accumulate(1.0 / (i + 1) ** theta for i in range(n)))
