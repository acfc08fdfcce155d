"""Sweeps: one workload run per (nodes, approach, threads, repeat), each a tidy, fully labelled row."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..clusters.base import ClusterInfo
from ..errors import ConfigError
from ..runner import RunOptions, RunResult, Watch, run, validate
from ..runner.cpu import AUTO, auto_processes, cores_available, per_process_capacity
from ..runner.workload import hooks
from .metadata import run_metadata
from .offered_load import keeps_up
from . import sink
from .store import ResultsStore

APPROACH_KINDS = ("naive", "pattern", "baseline", "design")  # baseline: a workload outside any pattern; design: one of a profile's designs
SWEEP_WORKERS = "greenlets"
"""Sweeps (panels, `labkit run`, benchmarks) run the library's pattern code, which makes every database
call through `tx.call`, so they keep each process's transactions in flight as greenlets unless
run_options says otherwise (benchmarks/runner_vs_driver.py measures both against the driver's best loop)."""


def check_approach(name: str) -> None:
    """Approaches are 'naive' or 'pattern', optionally with a variant: 'naive/sai'."""
    kind = name.split("/", 1)[0]
    if kind not in APPROACH_KINDS or name.endswith("/"):
        raise ConfigError(
            f"approach {name!r} must be 'naive' or 'pattern' (or 'baseline' outside a pattern, 'design/NAME' of a profile), optionally with a variant like 'naive/sai'"
        )


def parse_range(text: str) -> list[int]:
    """'10:100:10' -> [10, 20, ..., 100]; '1,2,4' -> [1, 2, 4]; '8' -> [8]."""
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            start, stop = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else 1
            if step < 1 or stop < start:
                raise ValueError
            return list(range(start, stop + 1, step))
        return [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise ConfigError(
            f"cannot read {text!r} as a list of counts: write START:STOP:STEP (e.g. 10:100:10) or a comma list (e.g. 1,2,4)"
        ) from None


def _comparable(value: Any) -> Any:
    """A field's value in a form whose repr changes when it does (a tuple and a list of the same items alike)."""
    if isinstance(value, dict):
        return sorted((k, repr(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


SELF_WARMING_RUN = 1500
"""Unbudgeted warm-up transactions inside each run from which a sweep needs no warm-up block: with 1,500 the
first measured block landed 0-3% from the later ones without the block (benchmarks/warmup_block.py)."""


@dataclass
class SweepPlan:
    """What to measure: every combination of nodes x approaches x threads, `repeats` times each.

    `threads` are client threads in all (transactions in flight across the client processes), the x axis
    of every figure. `processes="auto"` spreads each point over as many client processes as help
    (runner.cpu.auto_processes: up to 64 greenlets or 16 threads each, at most one per core, one where
    the workload keeps its checks in one process); a number fixes it, and each thread count must then
    divide evenly. Every row records the processes used and `threads_per_process`."""

    pattern: str
    approaches: Sequence[str]
    threads: Sequence[int]
    operations: int
    nodes: Sequence[int] = (1,)
    processes: int | str = AUTO
    repeats: int = 1
    run_options: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, Any] = field(default_factory=dict)
    """Extra columns for every row, e.g. {"phase": "login"} when a pattern's test has phases."""
    targets: Sequence[float | None] = (None,)
    """Offered loads (transactions/s for the whole client), one paced run each at every thread count;
    None: a closed-loop run (as fast as the workers go). An offered-load sweep keeps threads fixed and
    raises the target until the cluster cannot keep up."""
    target_seconds: float | None = None
    """With targets: each paced run lasts about this long (target x seconds transactions, so every
    offered load is held equally long); None: every run has `operations` transactions."""

    past_knee: int | None = None
    """With targets: after this many overloaded offered loads in a row (results.offered_load.keeps_up),
    skip the higher ones of that curve; the knee is already found and each further load only takes longer.
    With repeats, an offered load counts as overloaded when most of its repeats did not keep up."""
    warmup_block: bool | None = None
    """Before the first measured run on a cluster the sweep started (or found cold), run every approach once
    at the highest thread count and the first offered load, unmeasured: the first runs on a fresh cluster
    (cold caches, JIT, a budget's first periods) land far from the later ones, and would otherwise fall on
    whichever approach runs first. None (the default): a block unless every run warms up by itself with at
    least SELF_WARMING_RUN transactions, where the block was measured to change nothing beyond noise
    (benchmarks/README.md, the warm-up block); True or False: always or never."""
    control: str | None = None
    """An A/A control: this approach runs twice in every block, the second time recorded with
    control_copy=True; the spread of copy / first is the noise floor of the sweep (results.intervals)."""

    def wants_warmup_block(self) -> bool:
        """Whether a cold cluster gets the warm-up block (see `warmup_block`)."""
        if self.warmup_block is not None:
            return bool(self.warmup_block)
        return int(self.run_options.get("warmup") or 0) < SELF_WARMING_RUN

    def operations_at(self, target: float | None) -> int:
        """Transactions of one run at an offered load."""
        if target is None or self.target_seconds is None:
            return self.operations
        return max(1, round(target * self.target_seconds))

    def check(self) -> None:
        """Refuse a plan that cannot run, with what to pass instead. The one place a plan is checked, and each
        state of it once: PatternSweep checks it when made and the sweep loop when it starts; a plan unchanged
        since its last check passes without being checked again."""
        state = self._checked_fields()
        if self.__dict__.get("_checked") == state:
            return
        self._check()
        self.__dict__["_checked"] = state

    def _checked_fields(self) -> str:
        """The plan's state as the check sees it: every field but the row labels, which it does not read."""
        return repr([(f.name, _comparable(getattr(self, f.name))) for f in fields(self) if f.name != "labels"])

    def _check(self) -> None:
        RunOptions.of(self.run_options)  # an option the runner does not know, named before anything runs
        if not self.approaches or not self.threads or not self.nodes:
            raise ConfigError("a sweep needs at least one approach, one thread count and one node count")
        for a in self.approaches:
            check_approach(a)
        if not self.targets:
            raise ConfigError("targets must hold at least one offered load (or None for a closed loop)")
        if self.target_seconds is not None and not self.target_seconds > 0:
            raise ConfigError(f"target_seconds must be a positive number of seconds to hold each offered load; got {self.target_seconds!r}")
        for t in self.threads:
            for target in self.targets:
                validate(t, self.operations, self.processes, target if target is not None else self.run_options.get("target_rate"),
                         self.run_options.get("warmup", 0), self.run_options.get("workers", SWEEP_WORKERS))
            if self.processes != AUTO and t % self.processes:
                raise ConfigError(f"{t} client threads do not divide evenly over {self.processes} processes: use a multiple of "
                                  f"{self.processes}, or processes='auto'")
        for n in self.nodes:
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ConfigError(f"node counts must be whole numbers of at least 1; got {n!r}")
        if isinstance(self.repeats, bool) or not isinstance(self.repeats, int) or self.repeats < 1:
            raise ConfigError(f"repeats must be a whole number of at least 1; got {self.repeats!r}")
        if self.control is not None and self.control not in self.approaches:
            raise ConfigError(f"the A/A control runs one of the sweep's approaches twice per block: {self.control!r} is not among "
                              f"{', '.join(self.approaches)}")

    def client_advice(self) -> str | None:
        """Before anything runs: a sentence when some point asks one process for more threads than it
        serves well, saying how many processes would do, or that this machine has no cores to add."""
        kind = self.run_options.get("workers", SWEEP_WORKERS)
        per_process = per_process_capacity(kind)
        cores = cores_available()
        most = max(self.threads)
        processes = auto_processes(most, kind) if self.processes == AUTO else self.processes
        busiest = -(-most // processes)
        if busiest <= per_process:
            return None
        head = (f"{most} client {kind} over {processes} process(es) is {busiest} per process, more than one Python "
                f"process drives well (about {per_process}); ")
        if processes < cores:
            suggested = auto_processes(most, kind)
            return head + (f"points with more {kind} may measure the client, not the database. Try processes={suggested} "
                           f"(or 'auto'). The `limit` column will say which points the client held back.")
        return head + (f"this machine has {cores} cores for the client and the servers together, so more processes would not help: "
                       "the `limit` column will say which points the client held back.")

    def block(self, repeat: int) -> list[tuple[str, bool]]:
        """The approaches of one block in the order they run, as (approach, control copy): the given order in
        even repeats and reversed in odd ones (A B, B A, A B: ABBA), so neither approach always runs first."""
        order = [(a, False) for a in self.approaches] + ([(self.control, True)] if self.control else [])
        return order if repeat % 2 == 0 else order[::-1]

    @property
    def runs(self) -> int:
        """Measured runs (the warm-up blocks are not counted)."""
        per_block = len(self.approaches) + (1 if self.control else 0)
        return len(self.nodes) * per_block * len(self.threads) * len(self.targets) * self.repeats


def nodes_in_order(nodes: Iterable[int], running: int | None) -> list[int]:
    """The plan's node counts, the running cluster's first when the plan has it (a restart saved)."""
    nodes = list(nodes)
    return [running] + [n for n in nodes if n != running] if running in nodes else nodes


def sweep(
    plan: SweepPlan,
    *,
    cluster_for: Callable[[int], ClusterInfo],
    workload_for: Callable[[str, ClusterInfo], Any],
    store: ResultsStore | str | Path | None = None,
    cancel: threading.Event | None = None,
    on_result: Callable[[dict[str, Any], RunResult], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    server_meter_for: Callable[[], Any] | None = None,
    echo: Callable[[str], None] | None = None,
    cold: Callable[[], bool] | None = None,
    running: Callable[[], int | None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Run the plan and yield one row per measured run, appending each to `store` as soon as it is measured.

    The order: for each node count, each point (threads, offered load), each repeat (a block), every
    approach once, in the order `plan.block(repeat)` gives; each row records its `repeat` and its `order`
    in the block. `cluster_for(n)` makes (or resizes to) an n-node cluster and describes it; `cold()` says
    whether that cluster has had no run yet (None: every cluster_for is a fresh cluster), and a cold one
    gets the plan's warm-up block first. `workload_for(approach, cluster)` builds a fresh workload for one
    run. A cancelled run is still recorded (complete=False), then the sweep ends; an exception ends it too,
    but every row measured before it is already stored. `server_meter_for()` (e.g. `ClusterSlot.cpu_meter`)
    gives each run a meter of the nodes' CPU, for server CPU per transaction and the `limit` column. `echo`
    gets the plan's client advice (if any) before the first run. `running()` gives the node count of the
    cluster already up (None: none); when the plan has it, that size goes first, so it is measured on the
    running cluster instead of being stopped and started again (the other sizes keep the plan's order).
    """
    plan.check()
    advice = plan.client_advice()
    if advice and echo is not None:
        echo(advice)
    if store is not None and not isinstance(store, ResultsStore):
        store = ResultsStore(store)
    cancel = cancel or threading.Event()

    def one_run(approach: str, cluster: ClusterInfo, threads: int, target: float | None) -> RunResult:
        workload = workload_for(approach, cluster)
        options = RunOptions.of({"workers": SWEEP_WORKERS, **plan.run_options}, processes=plan.processes,
                                **({"target_rate": target} if target is not None else {}))
        try:
            return run(workload, threads=threads, operations=plan.operations_at(target), options=options,
                       watch=Watch(progress=progress, cancel=cancel, server_meter=server_meter_for() if server_meter_for else None))
        finally:
            hooks(workload).close_process()  # the driver connections of this run's workload

    for nodes in nodes_in_order(plan.nodes, running() if running is not None else None):
        cluster = cluster_for(nodes)
        fresh = cold() if cold is not None else True  # asked once per cluster: the sweep's runs warm it either way
        warmed = fresh and plan.wants_warmup_block()
        if fresh and not warmed and plan.warmup_block is None and echo is not None:
            echo(f"no warm-up block on the {nodes}-node cluster: each run first warms up with {plan.run_options['warmup']} "
                 "unmeasured transactions of its own")
        if warmed:
            first_threads, first_target = max(plan.threads), plan.targets[0]  # the most in flight: the shortest run that warms every path
            if echo is not None:
                echo(f"warm-up block on the {nodes}-node cluster (not measured): {', '.join(plan.approaches)} once each at {first_threads} threads")
            for approach in plan.approaches:
                if cancel.is_set():
                    return
                result = one_run(approach, cluster, first_threads, first_target)
                if result.verification is not None and not result.verification.ok and echo is not None:
                    echo(f"the warm-up run of {approach} failed its verification: {'; '.join(result.verification.problems)}")
                if not result.complete:
                    return
        overloaded: dict[tuple[str, int], int] = {}  # (approach, threads) -> offered loads in a row the cluster did not keep up with
        for threads, target in itertools.product(plan.threads, plan.targets):
            kept_up: dict[str, list[bool]] = {}
            for repeat in range(plan.repeats):
                for order, (approach, copy) in enumerate(plan.block(repeat)):
                    if cancel.is_set():
                        return
                    if target is not None and plan.past_knee is not None and overloaded.get((approach, threads), 0) >= plan.past_knee:
                        continue
                    result = one_run(approach, cluster, threads, target)
                    row = run_metadata(
                        cluster,
                        pattern=plan.pattern,
                        approach=approach,
                        threads=threads,
                        processes=result.processes,
                        operations=plan.operations_at(target),
                        repeat=repeat,
                    )
                    row.update({"order": order, "control_copy": copy, "warmup_block": warmed})
                    row.update({k: v for k, v in plan.labels.items() if k not in row})
                    row.update({k: v for k, v in result.to_row().items() if k not in row})
                    if target is not None and not copy:
                        kept_up.setdefault(approach, []).append(keeps_up(row))
                    if store is not None:
                        store.append(row)
                    sink.record(row)  # a batch run's copy for its report (nothing outside `make run`)
                    if on_result is not None:
                        on_result(row, result)
                    yield row
                    if not result.complete:
                        return
            for approach, runs in kept_up.items():  # most repeats overloaded: this offered load is past the knee
                overloaded[(approach, threads)] = overloaded.get((approach, threads), 0) + 1 if sum(runs) * 2 < len(runs) else 0
