"""The counting Bloom filter the route phase keeps per shard: no false negatives, deletions, size vs errors."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.patterns.distorted_replicas.bloom import COUNTER_MAX, CountingBloomFilter


def keys(n, prefix="k"):
    return [f"{prefix}{i}" for i in range(n)]


def test_no_false_negatives_and_a_false_positive_rate_near_the_estimate():
    f = CountingBloomFilter.for_capacity(5000, 0.01)
    f.update(keys(5000))
    assert all(k in f for k in keys(5000))
    measured = sum(f.might_contain(k) for k in keys(20000, "other")) / 20000
    assert measured < 0.02 and abs(measured - f.expected_false_positive_rate(5000)) < 0.01


def test_removing_the_last_record_of_a_key_takes_it_out_and_keeps_the_others():
    f = CountingBloomFilter(2000, 5)
    f.update(keys(100))
    f.add("k7")  # two records of k7
    for k in keys(100)[50:]:
        f.remove(k)
    assert all(k in f for k in keys(50))
    assert "k7" in f
    f.remove("k7")
    assert "k7" in f  # one record left
    gone = [k for k in keys(100)[50:] if k not in f]
    assert len(gone) >= 45  # a few may collide with the remaining keys' buckets: false positives, never negatives


def test_removing_a_key_never_added_is_refused():
    f = CountingBloomFilter(1000, 4)
    f.add("a")
    with pytest.raises(KeyError, match="never added"):
        f.remove("b" * 40)


def test_saturated_counters_stay_saturated():
    f = CountingBloomFilter(8, 1)
    for _ in range(COUNTER_MAX + 10):
        f.add("hot")
    for _ in range(COUNTER_MAX + 10):
        f.remove("hot")
    assert "hot" in f  # cannot know how many it lost count of: keeps saying maybe (no false negative)
    assert f.saturated == 1


def test_bigger_filters_err_less():
    rates = []
    for bits in (2, 6, 12):
        f = CountingBloomFilter.with_bits_per_key(3000, bits)
        f.update(keys(3000))
        rates.append(sum(f.might_contain(k) for k in keys(10000, "x")) / 10000)
    assert rates[0] > rates[1] > rates[2]


def test_round_trip_through_bytes():
    f = CountingBloomFilter(500, 3)
    f.update(keys(40))
    g = CountingBloomFilter.from_bytes(f.to_bytes())
    assert (g.m, g.k, g.counters) == (f.m, f.k, f.counters)


@pytest.mark.parametrize("args", [(0, 1), (10, 0)])
def test_bad_sizes_are_refused(args):
    with pytest.raises(ConfigError):
        CountingBloomFilter(*args)
