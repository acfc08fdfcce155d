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

    # Optional hooks (BaseWorkload gives each a default; `hooks()` supplies them for any other object):
    # open_process() and close_process(), called once in every client process around its worker threads (open
    # driver connections there, so connecting is not measured); check_run(threads=, processes=, operations=),
    # before anything starts; server_counters(), the server's own counters read before and after the run;
    # max_processes, for a workload that checks its results in one process's memory.


class BaseWorkload:
    """Convenience base class: every phase and hook but `transaction` does nothing."""

    name = "workload"
    max_processes: int | None = None
    """How many client processes may share a run; 1 for a workload that checks its results in one process's memory."""

    def open_process(self) -> None:
        """Called once in every client process before its workers start (open driver connections here)."""

    def close_process(self) -> None:
        """Called once in every client process after its workers stopped (and by the run's caller after verify)."""

    def check_run(self, *, threads: int, processes: int, operations: int) -> None:
        """Refuse (ConfigError) a run this workload cannot serve, before anything starts; remember its size."""

    def server_counters(self) -> dict[str, float] | None:
        """The server's own counters (e.g. write conflicts), read before and after the run; None: none."""
        return None

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
        invoke: Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any] | None = None,
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


def _nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


@dataclass(frozen=True)
class Hooks:
    """A workload's optional hooks, each callable (a no-op where the workload has none), and its name."""

    name: str
    open_process: Callable[[], None]
    close_process: Callable[[], None]
    check_run: Callable[..., None]
    server_counters: Callable[[], dict[str, float] | None]
    max_processes: int | None


def hooks(workload: Workload) -> Hooks:
    """The one adapter between the runner and a workload: its optional hooks, defaulted.

    Why: a BaseWorkload has every hook already, but the runner also drives plain objects that follow the
    Workload protocol (test doubles, a student's class); this is the only place that looks hooks up by name,
    so nothing else in the runner probes a workload."""
    from ..errors import ConfigError

    if not callable(getattr(workload, "transaction", None)):
        raise ConfigError(f"{workload!r} is not a workload: it needs a transaction(tx) method (see labkit.runner.Workload)")

    def hook(name: str) -> Callable[..., Any]:
        found = getattr(workload, name, None)
        return found if callable(found) else _nothing

    return Hooks(name=getattr(workload, "name", type(workload).__name__), open_process=hook("open_process"),
                 close_process=hook("close_process"), check_run=hook("check_run"), server_counters=hook("server_counters"),
                 max_processes=getattr(workload, "max_processes", None))
