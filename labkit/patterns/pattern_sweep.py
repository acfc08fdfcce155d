"""The one way into a sweep of a pattern: the CLI, the control panel, notebooks and benchmarks all go through
`PatternSweep`, so each check, each binding hook and the making of workloads exist once.

A PatternSweep is built from a pattern's description and a SweepPlan. Building it checks everything that can
be refused before a server starts (phase, settings, approaches on the engine, the plan's shape, the engine
binding's own `check_sweep`). `rows()` then opens the binding's per-sweep resources (`sweep_resources`, e.g.
a toxiproxy), starts or reuses the cluster slot (with the binding's `cluster_options`, e.g. a chunk cache),
makes each run's workload and yields one row per run from the sweep loop (results.sweep).
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from ..clusters.base import ClusterInfo
from ..clusters.contract import server_hosts
from ..clusters.slot import ClusterSlot
from ..errors import ConfigError
from ..results import ResultsStore, SweepPlan
from ..results.sweep import sweep
from ..runner.remote import check_reachable, check_workers, connected, parse_clients
from .binding import EngineBinding
from .description import Pattern

if TYPE_CHECKING:
    from ..clusters.contract import Cluster


@dataclass(frozen=True)
class SweepSite:
    """Where a sweep runs: the engine, provider and per-node CPU budget of the cluster it starts when no slot is
    given (a slot keeps its own engine and budget), and where its client processes run: `clients` 'local:N' or
    'dask://HOST:PORT' runs each run's client processes as tasks on Dask workers (runner.remote)."""

    engine: str | None = None
    provider: str = "auto"
    node_cpu: float | None = None
    clients: str | None = None


class PatternSweep:
    """One sweep of `pattern`'s workloads for one phase on one engine: checked when made, run by `rows()`.

    `settings` override the plan's labels, which override the phase's defaults; the phase and every setting
    become columns of each row. Pass `slot` to keep its cluster after the sweep (the caller stops it);
    otherwise the sweep makes one from `site` (SweepSite: engine, provider, node_cpu, with the description's
    and binding's cluster options) and stops it at the end, whatever happens. `resources` replace the
    binding's `sweep_resources` (a notebook that keeps its toxiproxy across cells passes its own). With
    `site.clients` the scheduler is reached and the workers' versions checked before any cluster starts, and
    processes='auto' becomes one process per worker."""

    def __init__(
        self,
        pattern: Pattern,
        plan: SweepPlan,
        *,
        phase: str | None = None,
        settings: Mapping[str, Any] | None = None,
        slot: ClusterSlot | None = None,
        site: SweepSite = SweepSite(),
        resources: Mapping[str, Any] | None = None,
    ):
        engine, provider, node_cpu, clients = site.engine, site.provider, site.node_cpu, site.clients
        self.pattern = pattern
        self.engine = engine or (slot.engine if slot is not None and slot.engine else pattern.engines[0])  # checked with the approaches
        self.phase = pattern.check_phase(phase or plan.labels.get("phase") or pattern.default_phase)
        given = {s.name: plan.labels[s.name] for s in pattern.settings_for(self.phase) if s.name in plan.labels}  # e.g. from Pattern.plan
        self.values = pattern.resolve(self.phase, {**given, **dict(settings or {})})
        plan.labels = {**plan.labels, **pattern.labels(self.phase, self.values)}  # phase and settings (a profile adds its name and hash)
        self.plan = plan
        pattern.check_plan(plan)
        pattern.check_approaches(plan.approaches, self.phase, self.engine)
        plan.check()
        self.binding = pattern.engine_binding(self.engine)
        self.binding.check_sweep(self.phase, list(plan.approaches))  # what this engine's binding cannot run, before any server starts
        self.cluster_options = cluster_options(pattern, self.binding, self.phase, self.values)
        if slot is not None and slot.options is not None:
            lacking = {k: v for k, v in self.cluster_options.items() if slot.options.get(k) != v}
            if lacking:
                given = ", ".join(f"{k}={v!r}" for k, v in lacking.items())
                raise ConfigError(f"{pattern.name}'s phase {self.phase} needs a cluster started with {given}, and the slot given starts "
                                  f"its clusters without: make it with ClusterSlot.for_engine({self.engine!r}, ..., {given}) or pattern_slot()")
        if slot is not None and node_cpu is not None and node_cpu != slot.node_cpu:
            raise ConfigError(f"node_cpu={node_cpu} was given with a slot whose nodes run at {slot.node_cpu or 'no budget'}: the slot's "
                              "clusters keep its budget, so set it there (slot.node_cpu = ...) and leave node_cpu out")
        self._own_slot = slot is None
        self.slot = slot if slot is not None else ClusterSlot.for_engine(self.engine, provider, node_cpu=node_cpu, **self.cluster_options)
        """The slot whose clusters the sweep runs on; one made here (node_cpu checked once, by the slot) is stopped by rows()."""
        self.resources: dict[str, Any] = dict(resources or {})
        self._given_resources = resources is not None
        self.clients = parse_clients(clients) if clients else None  # a bad --clients is refused here, before anything starts

    # ---- what the sweep loop calls ---------------------------------------------------------------

    def workload_for(self, approach: str, cluster: Cluster) -> Any:
        """A fresh workload for one run of `approach` on the running cluster (the only place sweeps make one)."""
        return self.pattern.workload(approach, cluster, self.plan.operations, phase=self.phase, engine=self.engine,
                                     resources=self.resources, **self.values)

    def hooks(self) -> dict[str, Any]:
        """What this sweep takes from the engine binding (for tests and for a reader who wants to know)."""
        return {"engine": self.engine, "phase": self.phase, "settings": dict(self.values), "cluster_options": dict(self.cluster_options),
                "check_sweep": self.binding.has_check_sweep,
                "sweep_resources": not self._given_resources and self.binding.has_resources}

    def _opened_resources(self) -> contextlib.AbstractContextManager:
        if self._given_resources:
            return contextlib.nullcontext(self.resources)
        return self.binding.sweep_resources(self.phase, self.values)

    # ---- running it -------------------------------------------------------------------------------

    def rows(
        self,
        *,
        store: ResultsStore | str | Path | None = None,
        cancel: threading.Event | None = None,
        on_result: Callable[[dict[str, Any], Any], None] | None = None,
        progress: Callable[[int, int], None] | None = None,
        echo: Callable[[str], None] = print,
        on_cluster: Callable[[ClusterInfo], None] | None = None,
        on_workload: Callable[[str], None] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Run the plan and yield one row per run (each appended to `store` as soon as it is measured).
        `echo` gets the cluster's and the plan's messages; `on_cluster(info)` hears of each cluster the
        sweep runs on, `on_workload(approach)` of each run about to start."""
        slot = self.slot
        with contextlib.ExitStack() as stack:
            worker_hosts = self._open_clients(stack, echo)  # an unreachable scheduler fails here, before a cluster starts
            if self._own_slot:
                slot.on_change = echo
                stack.callback(slot.stop)

            def cluster_for(nodes: int) -> ClusterInfo:
                info = slot.info_for(nodes)
                if worker_hosts:
                    check_reachable(server_hosts(slot.cluster), worker_hosts)
                if on_cluster is not None:
                    on_cluster(info)
                return info

            def workload_for(approach: str, _info: ClusterInfo) -> Any:
                if on_workload is not None:
                    on_workload(approach)
                return self.workload_for(approach, slot.cluster)

            with self._opened_resources() as extra:
                self.resources = dict(extra)
                yield from sweep(self.plan, cluster_for=cluster_for, workload_for=workload_for, store=store, cancel=cancel,
                                 on_result=on_result, progress=progress, server_meter_for=slot.cpu_meter, echo=echo,
                                 cold=slot.take_cold, running=lambda: slot.running_nodes)

    def _open_clients(self, stack: contextlib.ExitStack, echo: Callable[[str], None]) -> dict[str, str]:
        """With `clients`: connect to the Dask workers (closed by `stack`), refuse other versions, hand the
        connection to every run of the plan; returns worker address -> host ({} without clients)."""
        if self.clients is None:
            return {}
        client = stack.enter_context(connected(self.clients))
        worker_hosts = check_workers(client)
        if not worker_hosts:
            raise ConfigError(f"the Dask scheduler at {self.clients.text} has no workers: start at least one with `dask worker tcp://HOST:PORT`")
        hosts = sorted(set(worker_hosts.values()))
        echo(f"client processes run on {len(worker_hosts)} Dask worker(s) on {', '.join(hosts)} ({self.clients.text})")
        before = (self.plan.processes, dict(self.plan.run_options))
        if self.plan.processes == "auto":
            self.plan.processes = len(worker_hosts)
        self.plan.run_options = {**self.plan.run_options, "clients": client}

        def put_back() -> None:
            self.plan.processes, self.plan.run_options = before

        stack.callback(put_back)
        return worker_hosts


def cluster_options(pattern: Pattern, binding: EngineBinding, phase: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a phase's cluster must be started with: the description's options (UUID Key's two datacenters) and
    the engine binding's `cluster_options(phase, settings)` (YCSB's chunk cache for its cache phase)."""
    return {**pattern.cluster_options, **binding.cluster_options(phase, values)}


def pattern_slot(pattern: Pattern, phase: str | None = None, *, settings: Mapping[str, Any] | None = None, engine: str | None = None,
                 provider: str = "auto", on_change: Callable[[str], None] | None = None, node_cpu: float | None = None) -> ClusterSlot:
    """A cluster slot whose clusters have what `pattern`'s phase needs: the slot a notebook keeps for its panels and cells."""
    engine = pattern.check_engine(engine or pattern.engines[0])
    phase = pattern.check_phase(phase or pattern.default_phase)
    options = cluster_options(pattern, pattern.engine_binding(engine), phase, pattern.resolve(phase, settings))
    return ClusterSlot.for_engine(engine, provider, on_change=on_change, node_cpu=node_cpu, **options)


def pattern_resources(pattern: Pattern, phase: str | None = None, *, settings: Mapping[str, Any] | None = None,
                      engine: str | None = None) -> contextlib.AbstractContextManager:
    """What `pattern`'s phase needs besides the cluster (the engine binding's `sweep_resources`, e.g. UUID Key's
    toxiproxy), as a context manager yielding {name: resource}; {} when it needs nothing. A notebook that keeps
    them across cells enters it once and passes what it yields to its panels as `resources`."""
    engine = pattern.check_engine(engine or pattern.engines[0])
    phase = pattern.check_phase(phase or pattern.default_phase)
    return pattern.engine_binding(engine).sweep_resources(phase, pattern.resolve(phase, settings))


def run_pattern_sweep(
    pattern: Pattern,
    plan: SweepPlan,
    *,
    phase: str | None = None,
    settings: Mapping[str, Any] | None = None,
    slot: ClusterSlot | None = None,
    site: SweepSite = SweepSite(),
    out: str | Path | None = None,
    echo: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """A PatternSweep run to the end, one line echoed per row, rows appended to `out`: what the CLI, benchmarks
    and notebooks call. Everything the description can refuse is refused before any cluster starts."""
    chosen = PatternSweep(pattern, plan, phase=phase, settings=settings, slot=slot, site=site)
    store = ResultsStore(out) if out is not None else None
    rows: list[dict[str, Any]] = []
    for row in chosen.rows(store=store, echo=echo):
        echo(row_line(row))
        rows.append(row)
    for line in ratio_lines(rows):
        echo(line)
    return rows


def ratio_lines(rows: list[dict[str, Any]]) -> list[str]:
    """After a sweep: each point's pattern / naive (or design / first design) throughput with how sure it is,
    and the A/A noise floor if any."""
    import pandas as pd

    from ..results.intervals import comparisons, noise_floor

    df = pd.DataFrame(rows)
    if df.empty:
        return []
    table = comparisons(df)
    lines = [f"{r['numerator']} / {r['denominator']} throughput at {r['nodes']} node(s), {r['threads']} threads: {r['text']}"
             for _i, r in table.iterrows()]
    floor = noise_floor(df)
    if floor is not None:
        lines.append(f"A/A noise floor (a run's copy / the run): {floor.text()}")
    return lines


def row_line(row: Mapping[str, Any]) -> str:
    """One measured run in a line: nodes, approach, threads, throughput, p95, server CPU, verification, limit."""
    cpu = row.get("server_cpu_ms_per_tx")
    p95 = f"p95 {row['p95_us'] / 1000:7.1f} ms  " if row.get("p95_us") is not None else "no transaction succeeded  "
    return (f"{row['nodes']} nodes  {row['approach']:<14}{' (A/A copy)' if row.get('control_copy') else ''} threads={row['threads']:>3} "
            f"in {row['processes']} process(es)  " + (f"repeat {row['repeat']}  " if row.get("repeat") else "")
            + (f"offered {row['target_rate']:>7,.0f}/s  " if row.get("target_rate") else "") + f"{row['throughput']:>9,.0f} tx/s  "
            + p95 + (f"server {cpu:6.2f} ms CPU/tx  " if cpu is not None else "")
            + f"verify {row.get('verify_state')}  limit={row.get('limit')}")
