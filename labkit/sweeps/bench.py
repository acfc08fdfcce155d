"""What a sweep runs on: the cluster slot, the per-sweep resources (a toxiproxy) and the Dask clients, opened
together and closed together (a context manager), and called down into by the loop.

Resources travel apart from settings: a workload gets the sweep's settings as values and its resources (live
objects) by name. A slot given by the caller (a notebook's, kept across cells) is the caller's to stop; one the
bench makes is stopped when the bench closes, whatever happens."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..clusters.base import ClusterInfo
from ..clusters.contract import server_hosts
from ..clusters.slot import ClusterSlot
from ..errors import ConfigError
from ..patterns.description import Pattern
from ..runner.remote import check_reachable, check_workers, connected
from ..runner.workload import Workload
from .plan import SweepPlan
from .request import Sweep, SweepRequest, cluster_options

if TYPE_CHECKING:
    from ..clusters.contract import Cluster
    from ..runner.server_cpu import ServerMeter


def on_slot(request: SweepRequest, slot: ClusterSlot | None) -> SweepRequest:
    """The request as it runs on `slot`: the slot's engine when the request names none (a notebook's slot of a stand-in
    MongoDB runs MongoDB's workloads)."""
    if request.engine is None and slot is not None and slot.engine:
        return replace(request, engine=slot.engine)
    return request


def check_slot(sweep: Sweep, slot: ClusterSlot) -> None:
    """Refuse a caller's slot the sweep cannot run on, before anything happens (a panel has not frozen the student's
    prediction yet): another engine, a cluster without what the phase needs (two datacenters, a chunk cache), or a node
    budget asked for beside a slot that keeps its own."""
    if slot.engine is not None and slot.engine != sweep.engine:
        raise ConfigError(f"the sweep runs {sweep.engine} and the slot given starts {slot.engine} clusters: ask for engine "
                          f"{slot.engine!r} or give a {sweep.engine} slot")
    lacking = {k: v for k, v in sweep.cluster_options.items() if slot.options is not None and slot.options.get(k) != v}
    if lacking:
        given = ", ".join(f"{k}={v!r}" for k, v in lacking.items())
        raise ConfigError(f"{sweep.pattern.name}'s phase {sweep.phase} needs a cluster started with {given}, and the slot given starts "
                          f"its clusters without: make it with ClusterSlot.for_engine({sweep.engine!r}, ..., {given}) or pattern_slot()")
    if sweep.node_cpu is not None and sweep.node_cpu != slot.node_cpu:
        raise ConfigError(f"node_cpu={sweep.node_cpu} was given with a slot whose nodes run at {slot.node_cpu or 'no budget'}: the slot's "
                          "clusters keep its budget, so set it there (slot.node_cpu = ...) and leave node_cpu out")


class Bench:
    """The sweep's cluster, resources and client processes: `with Bench(sweep) as bench:` opens them (a Dask
    scheduler that cannot be reached fails here, before a cluster starts) and `bench.plan` is the sweep's plan
    with what opening learned (processes='auto' with Dask workers: one process per worker)."""

    def __init__(self, sweep: Sweep, *, slot: ClusterSlot | None = None, resources: Mapping[str, Any] | None = None,
                 echo: Callable[[str], None] = print):
        if slot is not None:
            check_slot(sweep, slot)
        self.sweep = sweep
        self._given_slot = slot
        self._given_resources = None if resources is None else dict(resources)
        self._echo = echo
        self.slot: ClusterSlot | None = slot
        self.resources: dict[str, Any] = {}
        self.plan: SweepPlan = sweep.plan
        self._worker_hosts: dict[str, str] = {}
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> "Bench":
        try:
            if self._given_slot is None:  # made first (it starts nothing): an engine the provider cannot run is refused before Dask is asked
                self.slot = ClusterSlot.for_engine(self.sweep.engine, self.sweep.provider, on_change=self._echo, node_cpu=self.sweep.node_cpu,
                                                   **self.sweep.cluster_options)
                self._stack.callback(self.slot.stop)
            self._open_clients()
            opened = (contextlib.nullcontext(self._given_resources) if self._given_resources is not None
                      else self.sweep.binding.sweep_resources(self.sweep.phase, self.sweep.values))
            self.resources = dict(self._stack.enter_context(opened))
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _open_clients(self) -> None:
        """With `clients`: connect to the Dask workers (closed with the bench), refuse other versions, and run every
        client process of the plan on them."""
        hosts = self.sweep.clients
        if hosts is None:
            return
        client = self._stack.enter_context(connected(hosts))
        self._worker_hosts = check_workers(client)
        if not self._worker_hosts:
            raise ConfigError(f"the Dask scheduler at {hosts.text} has no workers: start at least one with `dask worker tcp://HOST:PORT`")
        machines = sorted(set(self._worker_hosts.values()))
        self._echo(f"client processes run on {len(self._worker_hosts)} Dask worker(s) on {', '.join(machines)} ({hosts.text})")
        plan = self.plan
        self.plan = replace(plan, processes=len(self._worker_hosts) if plan.processes == "auto" else plan.processes,
                            run_options={**plan.run_options, "clients": client})
        self.sweep.pattern.check_plan(self.plan)  # one process per worker may be more than the workload allows

    # ---- what the loop calls (sweeps.loop.Stand) ----------------------------------------------------

    def _slot(self) -> ClusterSlot:
        if self.slot is None:
            raise RuntimeError("the bench is used outside `with Bench(...)`: open it first")
        return self.slot

    def _cluster(self) -> "Cluster":
        return self._slot().running()

    def cluster(self, nodes: int) -> ClusterInfo:
        cluster = self._slot().ensure(nodes)
        if self._worker_hosts:
            check_reachable(server_hosts(cluster), self._worker_hosts)
        return cluster.info()

    def workload(self, approach: str) -> Workload:
        return self.sweep.workload(approach, self._cluster(), self.resources)

    def meter(self) -> "ServerMeter | None":
        return self._slot().cpu_meter()

    def cold(self) -> bool:
        return self._slot().take_cold()

    def running(self) -> int | None:
        return self._slot().running_nodes


def pattern_slot(pattern: Pattern, phase: str | None = None, *, settings: Mapping[str, Any] | None = None, engine: str | None = None,
                 provider: str = "auto", on_change: Callable[[str], None] | None = None, node_cpu: float | None = None) -> ClusterSlot:
    """A cluster slot whose clusters have what `pattern`'s phase needs: the slot a notebook keeps for its panels and cells."""
    engine = pattern.check_engine(engine or pattern.engines[0])
    phase = pattern.check_phase(phase or pattern.default_phase)
    options = cluster_options(pattern, pattern.engine_binding(engine), phase, pattern.resolve(phase, settings))
    return ClusterSlot.for_engine(engine, provider, on_change=on_change, node_cpu=node_cpu, **options)


def pattern_resources(pattern: Pattern, phase: str | None = None, *, settings: Mapping[str, Any] | None = None,
                      engine: str | None = None) -> "contextlib.AbstractContextManager[Mapping[str, Any]]":
    """What `pattern`'s phase needs besides the cluster (the engine binding's `sweep_resources`, e.g. UUID Key's
    toxiproxy), as a context manager yielding {name: resource}; {} when it needs nothing. A notebook that keeps
    them across cells enters it once and passes what it yields to its panels as `resources`."""
    engine = pattern.check_engine(engine or pattern.engines[0])
    phase = pattern.check_phase(phase or pattern.default_phase)
    return pattern.engine_binding(engine).sweep_resources(phase, pattern.resolve(phase, settings))
