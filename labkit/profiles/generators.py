"""Values for a profile's columns: each generator of the format made into a function of a seeded random
source, so that a run with the same seed (and the same worker) replays the same values.

Why seeded per worker: a run's workers draw at the same time; giving each its own `random.Random(seed,
worker)` keeps every worker's stream reproducible whatever the interleaving, which one shared source
would not.
"""

from __future__ import annotations

import bisect
import datetime
import itertools
import random
import string
import time
import uuid
from functools import lru_cache
from typing import Any, Callable

from .format import (Boolean, Bucket, Collection, Date, Generator, Latest, MapOf, Real, Sequence, Template, Text, Timestamp, TimeUuid,
                     Uniform, Uuid, Zipfian)

Draw = Callable[[random.Random], Any]
DERIVED = (Template, Bucket)
"""Generators made from another column of the same row (its `source`), not drawn."""

LETTERS = string.ascii_lowercase + " " * 5  # words of about five letters
DATE_EPOCH = datetime.date(2026, 1, 1)
"""The newest day a date generator draws: fixed, so a seed replays the same days whatever the day it runs."""


@lru_cache(maxsize=64)
def zipf_cdf(n: int, exponent: float) -> tuple[float, ...]:
    """Cumulative weights of 0..n-1 with weight 1/(k+1)^exponent (computed once per shape)."""
    return tuple(itertools.accumulate(1.0 / (k + 1) ** exponent for k in range(n)))


def zipf_draw(rng: random.Random, n: int, exponent: float) -> int:
    cdf = zipf_cdf(n, exponent)
    return min(n - 1, bisect.bisect_left(cdf, rng.random() * cdf[-1]))


def drawer(generator: Generator, worker: int = 0, workers: int = 1) -> Draw:
    """A function rng -> value for one column's generator; a sequence is dealt out over the workers (worker w
    of W takes the w-th, (w + W)-th, ... of the whole sequence), so together they make each number once (or
`repeat` times)."""
    if isinstance(generator, Sequence):
        counter = itertools.count(worker, workers)
        start, repeat = generator.start, generator.repeat
        return lambda rng: start + next(counter) // repeat
    if isinstance(generator, Uniform):
        low, high = generator.low, generator.high
        return lambda rng: rng.randint(low, high)
    if isinstance(generator, Zipfian):
        n, exponent = generator.n, generator.exponent
        return lambda rng: zipf_draw(rng, n, exponent)
    if isinstance(generator, Latest):
        n, exponent = generator.n, generator.exponent
        return lambda rng: n - 1 - zipf_draw(rng, n, exponent)
    if isinstance(generator, Text):
        length = generator.length
        return lambda rng: "".join(rng.choices(LETTERS, k=length))
    if isinstance(generator, DERIVED):  # filled in by ColumnValues from the row's source value
        return lambda rng: None
    if isinstance(generator, Uuid):
        return lambda rng: uuid.UUID(int=rng.getrandbits(128), version=4)
    if isinstance(generator, TimeUuid):
        return lambda rng: uuid.uuid1(node=rng.getrandbits(48), clock_seq=rng.getrandbits(14))
    if isinstance(generator, Timestamp):  # strictly increasing per worker: rows drawn within one millisecond keep their own times
        last = [0]

        def moment(rng: random.Random) -> int:
            last[0] = max(int(time.time() * 1000), last[0] + 1)
            return last[0]
        return moment
    if isinstance(generator, Real):
        low_real, high_real = generator.low, generator.high
        return lambda rng: rng.uniform(low_real, high_real)
    if isinstance(generator, Boolean):
        share = generator.share
        return lambda rng: rng.random() < share
    if isinstance(generator, Date):
        days = generator.days
        return lambda rng: DATE_EPOCH - datetime.timedelta(days=rng.randint(0, days))
    if isinstance(generator, Collection):
        element, low, high = drawer(generator.of, worker, workers), generator.low, generator.high
        return lambda rng: [element(rng) for _ in range(rng.randint(low, high))]  # a set column keeps the distinct ones
    if isinstance(generator, MapOf):
        key, value, low, high = drawer(generator.keys, worker, workers), drawer(generator.values, worker, workers), generator.low, generator.high
        return lambda rng: {key(rng): value(rng) for _ in range(rng.randint(low, high))}
    raise ValueError(f"no drawer for generator kind {generator.kind!r}")  # the format admits no other kind


def bucket_of(value: Any, unit: str) -> Any:
    """The day (a date) or the hour (its first millisecond) of a timestamp in milliseconds or a version 1 UUID, in UTC."""
    millis = (value.time - 0x01B21DD213814000) // 10_000 if isinstance(value, uuid.UUID) else int(value)
    if unit == "day":
        return datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc).date()
    return millis - millis % 3_600_000


class ColumnValues:
    """The values one worker draws for a design's columns: `row(columns)` draws those columns together (a
    template after the column it is made from, drawn for it even when not asked for); `draw(column)` one."""

    def __init__(self, generators: dict[str, Generator], seed: int, worker: int = 0, workers: int = 1):
        self.rng = random.Random(f"{seed}/{worker}")
        self._generators = dict(generators)
        self._draws = {column: drawer(g, worker, workers) for column, g in generators.items()}

    def draw(self, column: str) -> Any:
        return self.row([column])[column]

    def row(self, columns: Any) -> dict[str, Any]:
        wanted = list(dict.fromkeys(columns))
        sources = [g.source for c in wanted if isinstance(g := self._generators[c], DERIVED)]
        values: dict[str, Any] = {}
        for column in dict.fromkeys([*sources, *wanted]):
            if not isinstance(self._generators[column], DERIVED):
                values[column] = self._draws[column](self.rng)
        for column in wanted:
            g = self._generators[column]
            if isinstance(g, Template):
                values[column] = g.text.replace("{}", str(values[g.source]), 1)
            elif isinstance(g, Bucket):
                values[column] = bucket_of(values[g.source], g.unit)
        return {column: values[column] for column in wanted}
