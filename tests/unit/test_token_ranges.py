"""Whole-table verification reads: the token ranges cover the ring once, a timed-out range is read again
and counted as retried, and a range that keeps timing out makes the verification unfinished (never a
short count, never a pass)."""

import pytest
from cassandra import ReadTimeout, Unavailable

from labkit.engines.cassandra_ranges import MAX_TOKEN, MIN_TOKEN, RangeReader, token_ranges
from labkit.errors import VerificationUnfinished


@pytest.mark.parametrize("splits", [1, 3, 64, 1000])
def test_ranges_cover_the_ring_once_without_gaps(splits):
    ranges = token_ranges(splits)
    assert len(ranges) == splits
    assert ranges[0][0] == MIN_TOKEN and ranges[-1][1] == MAX_TOKEN
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert all(start < end for start, end in ranges)


class _Rows(list):
    def one(self):
        return self[0]


class RingSession:
    """Answers range counts from a fixed set of tokens; `timeouts[n]` times out range n's first requests."""

    def __init__(self, tokens, timeouts=None, error=None):
        self.tokens = tokens
        self.timeouts = dict(timeouts or {})
        self.error = error
        self.asked = []

    def execute(self, statement, bounds, timeout=None):
        self.asked.append(bounds)
        if self.error is not None:
            raise self.error
        start, end = bounds
        if self.timeouts.get(bounds, 0) > 0:
            self.timeouts[bounds] -= 1
            raise ReadTimeout("Operation timed out - received only 0 responses.", consistency=4, required_responses=1, received_responses=0)
        inside = [t for t in self.tokens if start < t <= end]
        if "count(*)" in statement.query_string:
            return _Rows([(len(inside),)])
        return _Rows(inside)


TOKENS = [MIN_TOKEN + 1, -5, 0, 7, 2**62, MAX_TOKEN]


def test_counts_and_rows_see_every_token_once():
    reader = RangeReader(RingSession(TOKENS), splits=8, backoff_s=0)
    assert reader.count("ks.t", "id") == len(TOKENS)
    assert sorted(reader.rows("ks.t", "id", "id")) == sorted(TOKENS)
    assert reader.timeouts_retried == 0


def test_a_range_that_times_out_is_read_again_and_reported():
    third = token_ranges(8)[2]
    session = RingSession(TOKENS, timeouts={third: 2})
    reader = RangeReader(session, splits=8, backoff_s=0)
    assert reader.count("ks.t", ("a", "b")) == len(TOKENS)
    assert reader.timeouts_retried == 2
    assert session.asked.count(third) == 3


def test_a_range_that_keeps_timing_out_leaves_the_count_unknown():
    third = token_ranges(8)[2]
    reader = RangeReader(RingSession(TOKENS, timeouts={third: 99}), splits=8, attempts=3, backoff_s=0)
    with pytest.raises(VerificationUnfinished, match=r"ks\.t, token range 3 of 8 timed out 3 times .*ReadTimeout.*more CPU"):
        reader.count("ks.t", "id")


def test_errors_that_are_not_timeouts_are_not_retried():
    session = RingSession(TOKENS, error=Unavailable("Cannot achieve consistency level QUORUM"))
    with pytest.raises(Unavailable):
        RangeReader(session, splits=8, backoff_s=0).count("ks.t", "id")
    assert len(session.asked) == 1
