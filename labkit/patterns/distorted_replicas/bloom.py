"""A counting Bloom filter (Fan et al., 2000, the filter document 002 keeps per shard): like a Bloom filter it
answers "maybe here" or "certainly not here" for a key, and because each bucket holds a small counter
instead of one bit, a key can be taken out again when its last record leaves the shard."""

from __future__ import annotations

import hashlib
import math
import struct
from typing import Iterable

from ...errors import ConfigError

COUNTER_MAX = 255  # one byte per bucket; a counter that reaches it stays there (it can no longer be decremented safely)


class CountingBloomFilter:
    """`m` one-byte counters and `k` bucket choices per key (double hashing of one BLAKE2b digest). Keys are
    counted as a multiset: add a key once per record that carries it, remove it once per record removed,
    and it reads as present until its last record is gone. No false negatives while every removal matches
    an earlier add; a saturated counter is never decremented, which keeps that promise."""

    def __init__(self, buckets: int, hashes: int):
        if buckets < 1 or hashes < 1:
            raise ConfigError(f"a counting Bloom filter needs buckets >= 1 and hashes >= 1; got {buckets}, {hashes}")
        self.m = buckets
        self.k = hashes
        self.counters = bytearray(buckets)
        self.saturated = 0  # buckets that reached COUNTER_MAX

    @classmethod
    def for_capacity(cls, keys: int, false_positive_rate: float = 0.01) -> "CountingBloomFilter":
        """Sized for `keys` distinct keys at the given false-positive rate (m = -n ln p / ln² 2, k = m/n ln 2)."""
        if keys < 1 or not 0 < false_positive_rate < 1:
            raise ConfigError(f"size a filter with keys >= 1 and 0 < false_positive_rate < 1; got {keys}, {false_positive_rate}")
        m = math.ceil(-keys * math.log(false_positive_rate) / math.log(2) ** 2)
        return cls(m, max(1, round(m / keys * math.log(2))))

    @classmethod
    def with_bits_per_key(cls, keys: int, bits_per_key: float) -> "CountingBloomFilter":
        """`bits_per_key` buckets per distinct key, with the k that suits that size."""
        m = max(1, math.ceil(keys * bits_per_key))
        return cls(m, max(1, round(bits_per_key * math.log(2))))

    def buckets_of(self, key: str) -> list[int]:
        digest = hashlib.blake2b(key.encode(), digest_size=16).digest()
        h1, h2 = struct.unpack("<QQ", digest)
        h2 |= 1  # odd, so the k buckets differ whenever m allows it
        return [(h1 + i * h2) % self.m for i in range(self.k)]

    def add(self, key: str) -> None:
        for b in self.buckets_of(key):
            if self.counters[b] < COUNTER_MAX:
                self.counters[b] += 1
                if self.counters[b] == COUNTER_MAX:
                    self.saturated += 1

    def remove(self, key: str) -> None:
        """Take one record of `key` out; refuses a key the filter certainly does not hold (that would
        break other keys' counts and bring false negatives)."""
        buckets = self.buckets_of(key)
        if any(self.counters[b] == 0 for b in buckets):
            raise KeyError(f"{key!r} was never added to this filter (or was removed once more than it was added)")
        for b in buckets:
            if self.counters[b] < COUNTER_MAX:
                self.counters[b] -= 1

    def might_contain(self, key: str) -> bool:
        return all(self.counters[b] for b in self.buckets_of(key))

    __contains__ = might_contain

    def update(self, keys: Iterable[str]) -> None:
        for key in keys:
            self.add(key)

    def expected_false_positive_rate(self, distinct_keys: int) -> float:
        """(1 - e^(-kn/m))^k: the textbook estimate for n distinct keys."""
        return (1 - math.exp(-self.k * distinct_keys / self.m)) ** self.k

    @property
    def size_bytes(self) -> int:
        return self.m

    def to_bytes(self) -> bytes:
        return struct.pack("<II", self.m, self.k) + bytes(self.counters)

    @classmethod
    def from_bytes(cls, data: bytes) -> "CountingBloomFilter":
        m, k = struct.unpack_from("<II", data)
        made = cls(m, k)
        made.counters[:] = data[8:]
        made.saturated = made.counters.count(COUNTER_MAX)
        return made

    def __repr__(self) -> str:
        return f"CountingBloomFilter(buckets={self.m}, hashes={self.k}, occupied={self.m - self.counters.count(0)})"
