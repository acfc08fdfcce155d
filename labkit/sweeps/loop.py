"""The sweep loop: the plan's runs in their order, each on the bench's cluster, each a tidy, fully labelled row.

The loop calls down, never up: it asks its bench (sweeps.bench) for an n-node cluster, a fresh workload per run
and the servers' CPU meter, and tells whoever watches (SweepWatch) what it is doing; it decides nothing the plan
did not say."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Protocol

from ..clusters.base import ClusterInfo
from ..results import sink
from ..results.metadata import run_metadata
from ..results.offered_load import keeps_up
from ..results.store import ResultsStore
from ..runner import RunResult, Watch, run
from ..runner.workload import Workload, hooks
from .plan import SweepPlan

if TYPE_CHECKING:
    from ..runner.server_cpu import ServerMeter


class Stand(Protocol):
    """What the loop runs on (sweeps.bench.Bench; a unit test's double): why a Protocol, so the loop's tests need
    no cluster."""

    @property
    def plan(self) -> SweepPlan:
        """What to measure, with what opening the stand learned (Dask's workers: one client process each)."""
        ...

    def cluster(self, nodes: int) -> ClusterInfo:
        """Make sure an n-node cluster runs (started, resized or reused) and describe it."""
        ...

    def workload(self, approach: str) -> Workload:
        """A fresh workload for one run of `approach` on the running cluster."""
        ...

    def meter(self) -> "ServerMeter | None":
        """The running cluster's meter of its nodes' CPU (None where the servers cannot be seen)."""
        ...

    def cold(self) -> bool:
        """True once per cluster that has had no run yet (it gets the plan's warm-up block)."""
        ...

    def running(self) -> int | None:
        """The node count of the cluster already up, else None (that size is measured first)."""
        ...


@dataclass(frozen=True)
class SweepWatch:
    """Who watches a sweep (none of it does the sweep's work): `progress(done, total)` within each run, `cancel` to
    stop after recording the run in progress as partial, `echo` for the plan's advice and the warm-up block,
    `on_cluster(info)` for each cluster the sweep runs on, `on_workload(approach)` before each run."""

    progress: Callable[[int, int], None] | None = None
    cancel: threading.Event | None = None
    echo: Callable[[str], None] = lambda _text: None
    on_cluster: Callable[[ClusterInfo], None] = lambda _info: None
    on_workload: Callable[[str], None] = lambda _approach: None


def nodes_in_order(nodes: Iterable[int], running: int | None) -> list[int]:
    """The plan's node counts, the running cluster's first when the plan has it (a restart saved)."""
    nodes = list(nodes)
    return [running] + [n for n in nodes if n != running] if running in nodes else nodes


def measure(bench: Stand, *, store: ResultsStore | str | Path | None = None, watch: SweepWatch = SweepWatch()) -> Iterator[dict[str, Any]]:
    """Run the bench's plan on it and yield one row per measured run, appending each to `store` as soon as it is measured.

    The order: for each node count (the running cluster's first), each point (threads, offered load), each repeat
    (a block), every approach once, in the order `plan.block(repeat)` gives; each row records its `repeat` and its
    `order` in the block. A cold cluster gets the plan's warm-up block first. A cancelled run is still recorded
    (complete=False), then the sweep ends; an exception ends it too, but every row measured before it is stored.
    """
    plan = bench.plan
    advice = plan.client_advice()
    if advice:
        watch.echo(advice)
    if store is not None and not isinstance(store, ResultsStore):
        store = ResultsStore(store)
    cancel = watch.cancel or threading.Event()

    def one_run(approach: str, threads: int, target: float | None) -> RunResult:
        watch.on_workload(approach)
        workload = bench.workload(approach)
        try:
            return run(workload, threads=threads, operations=plan.operations_at(target), options=plan.options(target),
                       watch=Watch(progress=watch.progress, cancel=cancel, server_meter=bench.meter()))
        finally:
            hooks(workload).close_process()  # the driver connections of this run's workload

    for nodes in nodes_in_order(plan.nodes, bench.running()):
        cluster = bench.cluster(nodes)
        watch.on_cluster(cluster)
        fresh = bench.cold()  # asked once per cluster: the sweep's runs warm it either way
        warmed = fresh and plan.wants_warmup_block()
        if fresh and not warmed and plan.warmup_block is None:
            watch.echo(f"no warm-up block on the {nodes}-node cluster: each run first warms up with {plan.run_options['warmup']} "
                       "unmeasured transactions of its own")
        if warmed:
            first_threads, first_target = max(plan.threads), plan.targets[0]  # the most in flight: the shortest run that warms every path
            watch.echo(f"warm-up block on the {nodes}-node cluster (not measured): {', '.join(plan.approaches)} once each at {first_threads} threads")
            for approach in plan.approaches:
                if cancel.is_set():
                    return
                result = one_run(approach, first_threads, first_target)
                if result.verification is not None and not result.verification.ok:
                    watch.echo(f"the warm-up run of {approach} failed its verification: {'; '.join(result.verification.problems)}")
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
                    result = one_run(approach, threads, target)
                    row = run_metadata(cluster, pattern=plan.pattern, approach=approach, threads=threads, processes=result.processes,
                                       operations=plan.operations_at(target), repeat=repeat)
                    row.update({"order": order, "control_copy": copy, "warmup_block": warmed})
                    row.update({k: v for k, v in plan.labels.items() if k not in row})
                    row.update({k: v for k, v in result.to_row().items() if k not in row})
                    if target is not None and not copy:
                        kept_up.setdefault(approach, []).append(keeps_up(row))
                    if store is not None:
                        store.append(row)
                    sink.record(row)  # a batch run's copy for its report (nothing outside `make run`)
                    yield row
                    if not result.complete:
                        return
            for approach, runs in kept_up.items():  # most repeats overloaded: this offered load is past the knee
                overloaded[(approach, threads)] = overloaded.get((approach, threads), 0) + 1 if sum(runs) * 2 < len(runs) else 0
