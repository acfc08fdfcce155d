"""The workload runner: YCSB semantics (workload phases, exact op split, barrier start, retries,
HDR latency histograms), in Python, with honest client-CPU accounting."""

from .division import split_evenly
from .measurements import TRANSACTION, Measurements
from .result import LatencyStats, RunResult
from .retry import NO_RETRIES, PROGRAMMING_ERRORS, RetryPolicy
from .run import RunOptions, Watch, run, validate
from .tasks import WorkerLock
from .workload import BaseWorkload, Hooks, Transaction, Verification, Workload, hooks

__all__ = [
    "BaseWorkload",
    "Hooks",
    "LatencyStats",
    "Measurements",
    "NO_RETRIES",
    "PROGRAMMING_ERRORS",
    "RetryPolicy",
    "RunOptions",
    "RunResult",
    "TRANSACTION",
    "Transaction",
    "Verification",
    "Workload",
    "hooks",
    "Watch",
    "WorkerLock",
    "run",
    "split_evenly",
    "validate",
]
