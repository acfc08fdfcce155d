"""The Workload contract (YCSB's Workload, Python-sized) and the handle a transaction works through."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any, Callable, Protocol, runtime_checkable

from .measurements import Measurements
from .retry import Retrier


@dataclass
class Verification:
    """What `verify()` found: ok, the numbers it checked, and a sentence per problem. `ok` is None when
    verify() could not finish (`unfinished`): the outcome is unknown, neither a pass nor a loss."""

    ok: bool | None
    checks: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def unfinished(cls, reason: str) -> "Verification":
        return cls(None, {}, [reason])

    @property
    def state(self) -> str:
        """ok, failed, or unfinished: the row's `verify_state`."""
        return {True: "ok", False: "failed", None: "unfinished"}[self.ok]

    def __str__(self) -> str:
        status = {True: "ok", False: "FAILED", None: "NOT DONE"}[self.ok]
        detail = ", ".join(f"{k}={v}" for k, v in self.checks.items())
        text = f"verify {status}" + (f" ({detail})" if detail else "")
        return text + "".join(f"\n  - {p}" for p in self.problems)


@runtime_checkable
class Workload(Protocol):
    """What the runner drives. One instance serves all threads of a process, so keep per-thread state in
    `tx.worker_state` (or thread-safe driver objects). With processes > 1 the instance is pickled into
    each worker process: open driver connections lazily (or in `open_process`), never in __init__.
    Workers may be greenlets sharing one thread (run(workers="greenlets")): state that workers share and
    hold across `tx.call` needs a `WorkerLock`, not a threading.Lock.
    """

    name: str

    def setup(self) -> None:
        """Create schema and indexes."""

    def load(self) -> None:
        """Insert the data the transactions need; not measured."""

    def transaction(self, tx: "Transaction") -> None:
        """One measured unit of work; time each database call with `tx.call(op_name, fn, ...)`."""

    def verify(self) -> Verification | None:
        """Check correctness after the run (counts, order, no lost writes)."""

    def cleanup(self) -> None:
        """Remove what setup and the run created."""

    # Optional: open_process() and close_process(), called once in every client process around its
    # worker threads (open driver connections there, so connecting is not measured).


class BaseWorkload:
    """Convenience base class: every phase but `transaction` does nothing."""

    name = "workload"

    def setup(self) -> None:
        pass

    def load(self) -> None:
        pass

    def transaction(self, tx: "Transaction") -> None:
        raise NotImplementedError(f"{type(self).__name__}.transaction is not written yet")

    def verify(self) -> Verification | None:
        return None

    def cleanup(self) -> None:
        pass


class Transaction:
    """Handed to `Workload.transaction`: which worker runs it, a seeded RNG, and timed, retried calls."""

    __slots__ = ("worker", "workers", "seq", "rng", "worker_state", "measurements", "_retrier", "_invoke")

    def __init__(
        self, worker: int, workers: int, seed: int, measurements: Measurements, retrier: Retrier,
        invoke: Callable[[Callable[..., Any], tuple, dict], Any] | None = None,
    ):
        self.worker = worker
        """Global index of the worker thread (0 .. workers-1, across processes)."""
        self.workers = workers
        self.seq = 0
        """Index of this transaction within the worker's share (warm-up transactions are negative)."""
        self.rng = random.Random(seed * 1_000_003 + worker)
        self.worker_state: dict[str, Any] = {}
        self.measurements = measurements
        self._retrier = retrier
        self._invoke = invoke  # how a call runs: None = directly in this thread; a hub's invoke for greenlets

    def call(self, op: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run one database operation of type `op`, retrying per the run's policy, and record its latency
        (retries and backoff included: that is what the application waits for). With greenlet workers the
        call goes through the driver's asynchronous form where the engine module names one (e.g.
        `session.execute` -> `execute_async`), so other workers run while this one waits."""
        series = self.measurements.op(op)
        invoke = self._invoke
        start = perf_counter_ns()
        try:
            result = fn(*args, **kwargs) if invoke is None else invoke(fn, args, kwargs)
        except Exception as exc:
            again = fn if invoke is None else (lambda *a, **k: invoke(fn, a, k))
            result = self._retrier.after_failure(exc, series, again, args, kwargs)
        series.record((perf_counter_ns() - start) // 1000)
        return result
