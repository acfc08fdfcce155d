"""Retries: exponential backoff bounds, max tries, never-retried exceptions, per-operation counts."""

from __future__ import annotations

import threading

import pytest

from fakes import FlakyOp
from labkit.errors import ConfigError
from labkit.runner import BaseWorkload, RetryPolicy, RunOptions, run
from labkit.runner.measurements import Series
from labkit.runner.retry import Retrier


def retry_once(policy, op):
    sleeps: list[float] = []
    series = Series()
    retrier = Retrier(policy, threading.Event(), sleep=sleeps.append)
    try:
        op()
        outcome = "ok"
    except Exception as exc:
        try:
            outcome = retrier.after_failure(exc, series, op, (), {})
        except Exception as final:
            outcome = final
    return outcome, series, sleeps


def test_exponential_backoff_without_jitter_doubles_up_to_the_cap():
    policy = RetryPolicy(max_tries=6, initial_backoff=0.01, max_backoff=0.05, jitter=False)
    outcome, series, sleeps = retry_once(policy, FlakyOp(failures=5))
    assert outcome == "ok"
    assert sleeps == pytest.approx([0.01, 0.02, 0.04, 0.05, 0.05])
    assert series.retries == 5 and series.errors == 0


def test_jittered_backoff_stays_within_its_bounds():
    policy = RetryPolicy(max_tries=8, initial_backoff=0.01, max_backoff=0.1, jitter=True)
    for _ in range(20):
        _, _, sleeps = retry_once(policy, FlakyOp(failures=7))
        assert len(sleeps) == 7
        for k, s in enumerate(sleeps, start=1):
            assert 0 <= s <= policy.backoff_bound(k) + 1e-9


def test_gives_up_after_max_tries_and_counts_one_error():
    op = FlakyOp(failures=100)
    outcome, series, sleeps = retry_once(RetryPolicy(max_tries=4, jitter=False), op)
    assert isinstance(outcome, ConnectionError)
    assert op.calls == 4 and len(sleeps) == 3
    assert series.retries == 3 and series.errors == 1


def test_never_retried_exceptions_fail_at_once():
    op = FlakyOp(failures=1, exc=PermissionError)
    policy = RetryPolicy(max_tries=5, never_retry=(PermissionError,))
    outcome, series, sleeps = retry_once(policy, op)
    assert isinstance(outcome, PermissionError)
    assert op.calls == 1 and sleeps == [] and series.retries == 0 and series.errors == 1


def test_programming_errors_are_not_retried_by_default():
    op = FlakyOp(failures=1, exc=TypeError)
    outcome, series, _ = retry_once(RetryPolicy(max_tries=5), op)
    assert isinstance(outcome, TypeError) and op.calls == 1


def test_only_listed_exceptions_are_retried():
    op = FlakyOp(failures=1, exc=KeyError)
    outcome, _, _ = retry_once(RetryPolicy(max_tries=5, retry_on=(ConnectionError,)), op)
    assert isinstance(outcome, KeyError) and op.calls == 1


class TwoOps(BaseWorkload):
    """'read' fails once in every transaction then succeeds; 'write' never fails."""

    def transaction(self, tx):
        tx.call("read", FlakyOp(failures=1))
        tx.call("write", lambda: None)


def test_retries_are_counted_per_operation_type_in_a_run():
    r = run(TwoOps(), threads=3, operations=30, options=RunOptions(retry=RetryPolicy(max_tries=3, initial_backoff=0.0001, max_backoff=0.001)))
    assert r.count == 30 and r.errors == 0
    assert r.ops["read"].retries == 30 and r.ops["read"].errors == 0
    assert r.ops["write"].retries == 0
    assert r.retries == 30


def test_cancel_cuts_a_long_backoff_short():
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    retrier = Retrier(RetryPolicy(max_tries=5, initial_backoff=30, max_backoff=30, jitter=False), cancel)
    op = FlakyOp(failures=100)
    import time

    t0 = time.monotonic()
    with pytest.raises(ConnectionError):
        try:
            op()
        except ConnectionError as exc:
            retrier.after_failure(exc, Series(), op, (), {})
    assert time.monotonic() - t0 < 2


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(max_tries=0), "max_tries must be an integer of at least 1"),
        (dict(initial_backoff=-1), "backoffs must be zero or positive"),
        (dict(initial_backoff=2, max_backoff=1), "max_backoff"),
    ],
)
def test_bad_policies_say_what_to_do(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        RetryPolicy(**kwargs)
