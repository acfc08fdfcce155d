"""Retries with exponential backoff (tenacity), the YCSB-extension "Submitter" of the source.

The first attempt runs without any retry machinery, so a healthy run pays nothing for it; only after a
failure does tenacity take over, counting that failure as attempt 1.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_when_event_set,
    wait_exponential,
    wait_random_exponential,
)
from tenacity.wait import wait_base

from ..errors import ConfigError
from .measurements import Series

PROGRAMMING_ERRORS: tuple[type[BaseException], ...] = (
    TypeError,
    AttributeError,
    NameError,
    AssertionError,
    NotImplementedError,
)
"""Never retried by default: a bug in workload code does not heal by trying again."""


@dataclass(frozen=True)
class RetryPolicy:
    """How a failed operation is retried.

    max_tries counts every attempt, the first included (1 = no retries). Backoff before retry k is
    initial_backoff * 2**(k-1), capped at max_backoff; with jitter it is drawn uniformly below that
    bound ("full jitter"), which spreads out threads that failed together.
    """

    max_tries: int = 3
    initial_backoff: float = 0.005
    max_backoff: float = 0.5
    jitter: bool = True
    retry_on: tuple[type[BaseException], ...] = (Exception,)
    never_retry: tuple[type[BaseException], ...] = PROGRAMMING_ERRORS

    def __post_init__(self) -> None:
        if not isinstance(self.max_tries, int) or self.max_tries < 1:
            raise ConfigError(
                f"RetryPolicy.max_tries must be an integer of at least 1 (1 means no retries); got {self.max_tries!r}"
            )
        if self.initial_backoff < 0 or self.max_backoff < 0:
            raise ConfigError("RetryPolicy backoffs must be zero or positive seconds")
        if self.max_backoff < self.initial_backoff:
            raise ConfigError(
                f"RetryPolicy.max_backoff ({self.max_backoff}) is below initial_backoff "
                f"({self.initial_backoff}); raise max_backoff or lower initial_backoff"
            )

    def is_retryable(self, exc: BaseException) -> bool:
        return isinstance(exc, self.retry_on) and not isinstance(exc, self.never_retry)

    def backoff_bound(self, retry_number: int) -> float:
        """Upper bound (seconds) of the wait before retry `retry_number` (1-based)."""
        return min(self.max_backoff, self.initial_backoff * 2 ** (retry_number - 1))


NO_RETRIES = RetryPolicy(max_tries=1)


class Retrier:
    """Applies a RetryPolicy to one worker's operations; stops early when the run is cancelled."""

    def __init__(self, policy: RetryPolicy, cancel: threading.Event, sleep: Callable[[float], Any] | None = None):
        self.policy = policy
        self._cancel = cancel
        self._sleep: Callable[[float], Any] = sleep or cancel.wait  # waking on cancel keeps Stop prompt during long backoffs
        self._wait: wait_base
        if policy.jitter:
            self._wait = wait_random_exponential(multiplier=policy.initial_backoff, max=policy.max_backoff)
        else:
            self._wait = wait_exponential(multiplier=policy.initial_backoff, max=policy.max_backoff)

    def after_failure(self, first_exc: Exception, series: Series, fn: Callable[..., Any], args, kwargs) -> Any:
        """Continue after a failed first attempt: retry while allowed, or re-raise the final failure."""
        if self.policy.max_tries == 1 or not self.policy.is_retryable(first_exc):
            series.errors += 1
            raise first_exc

        pending: list[Exception] = [first_exc]

        def attempt() -> Any:
            if pending:  # replay the failure that already happened as tenacity's attempt 1
                raise pending.pop()
            return fn(*args, **kwargs)

        def count_retry(_state: Any) -> None:
            series.retries += 1

        retrying = Retrying(
            stop=stop_after_attempt(self.policy.max_tries) | stop_when_event_set(self._cancel),
            wait=self._wait,
            retry=retry_if_exception(self.policy.is_retryable),
            sleep=self._sleep,
            before_sleep=count_retry,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except Exception:
            series.errors += 1
            raise
