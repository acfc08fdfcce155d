"""A sweep as asked for (SweepRequest) and as resolved once (Sweep): what the CLI, the panel, notebooks and
benchmarks build and pass on whole.

`resolve(request)` checks everything that can be refused before a server starts (phase, settings, approaches on
the engine, the plan's own check, the engine binding's `check_sweep`, the node budget, `--clients`) and fixes each
value once: the phase, the engine, the settings, the cluster's options and the labelled plan. Nothing after it
derives them again or writes to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from ..clusters.contract import check_cores
from ..errors import ConfigError
from ..patterns.binding import EngineBinding
from ..patterns.description import NamedSweep, Pattern
from ..runner.remote import ClientHosts, parse_clients
from ..runner.workload import Workload
from .plan import SweepPlan

if TYPE_CHECKING:
    from ..clusters.contract import Cluster


@dataclass(frozen=True)
class SweepRequest:
    """What to sweep and where: the pattern's `plan` for one `phase` (None: the plan's label, else the pattern's
    default) with `settings` over the plan's labels over the phase's defaults, on `engine` (None: the pattern's
    first) from `provider` with each node's CPU budget `node_cpu` (cores; None: shared), the client processes
    here or on Dask workers (`clients`: 'local:N' or 'dask://HOST:PORT')."""

    pattern: Pattern
    plan: SweepPlan
    phase: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    engine: str | None = None
    provider: str = "auto"
    node_cpu: float | None = None
    clients: str | None = None


@dataclass(frozen=True)
class Sweep:
    """A request resolved: every value the sweep's parts read, fixed once (see `resolve`)."""

    pattern: Pattern
    plan: SweepPlan
    """The request's plan labelled with the phase and every setting (each becomes a column of each row)."""
    phase: str
    engine: str
    values: Mapping[str, Any]
    """The phase's settings, resolved: defaults, the plan's labels, the request's settings."""
    binding: EngineBinding
    cluster_options: Mapping[str, Any]
    """What the phase's cluster is started with (UUID Key's two datacenters, YCSB's chunk cache)."""
    provider: str
    node_cpu: float | None
    clients: ClientHosts | None

    def workload(self, approach: str, cluster: "Cluster", resources: Mapping[str, Any]) -> Workload:
        """A fresh workload for one run of `approach` on `cluster` (the only place sweeps make one), from the binding
        with the settings as resolved (nothing checked again per run)."""
        return self.binding.workload(approach, self.phase, cluster, self.plan.operations, **self.values, **dict(resources))

    def hooks(self) -> dict[str, Any]:
        """What this sweep takes from the engine binding (for tests and for a reader who wants to know)."""
        return {"engine": self.engine, "phase": self.phase, "settings": dict(self.values), "cluster_options": dict(self.cluster_options),
                "check_sweep": self.binding.has_check_sweep, "sweep_resources": self.binding.has_resources}


PANEL_THREADS = tuple(range(1, 9))
"""Client threads a request without a named sweep starts from (a panel's range 1..8, step 1)."""


def request_for(pattern: Pattern, size: NamedSweep | None = None, *, phase: str | None = None, engine: str | None = None,
                settings: Mapping[str, Any] | None = None, clients: str | None = None, **changes: Any) -> SweepRequest:
    """The request a control panel starts from: `size` (one of the description's named sweeps) or, without one, the
    panel's own start on `phase` (client threads 1..8, one node, 1,000 transactions, every approach); `settings`
    over the size's, and `changes` replace fields of its plan (e.g. nodes=[1]). Its node budget is the size's."""
    given = dict(settings or {})
    if size is not None:
        if phase is not None and phase != size.phase:
            raise ConfigError(f"the size given is for phase {size.phase}, the request's phase is {phase}")
        plan = pattern.plan_of(size, engine=engine, **changes)
        return SweepRequest(pattern, plan, phase=size.phase, settings=given, engine=engine, node_cpu=size.node_cpu, clients=clients)
    chosen = pattern.check_phase(phase or pattern.default_phase)
    fields: dict[str, Any] = dict(pattern=pattern.name, approaches=pattern.approaches_for(chosen, engine), threads=PANEL_THREADS, nodes=(1,),
                                  operations=1000, labels=pattern.labels(chosen))
    return SweepRequest(pattern, SweepPlan(**{**fields, **changes}), phase=chosen, settings=given, engine=engine, clients=clients)


def resolve(request: SweepRequest) -> Sweep:
    """The request checked and fixed, before any server starts (a clear sentence for what cannot run)."""
    pattern, plan = request.pattern, request.plan
    engine = pattern.check_engine(request.engine or pattern.engines[0])
    phase = pattern.check_phase(request.phase or plan.labels.get("phase") or pattern.default_phase)
    given = {s.name: plan.labels[s.name] for s in pattern.settings_for(phase) if s.name in plan.labels}  # e.g. from Pattern.sweep_plan
    values = pattern.resolve(phase, {**given, **dict(request.settings)})
    plan = plan.labelled(pattern.labels(phase, values))  # phase and settings (a profile adds its name and hash)
    pattern.check_plan(plan)
    pattern.check_approaches(plan.approaches, phase, engine)
    binding = pattern.engine_binding(engine)
    binding.check_sweep(phase, list(plan.approaches))  # what this engine's binding cannot run, before any server starts
    return Sweep(pattern=pattern, plan=plan, phase=phase, engine=engine, values=values, binding=binding,
                 cluster_options=cluster_options(pattern, binding, phase, values), provider=request.provider,
                 node_cpu=check_cores(request.node_cpu), clients=parse_clients(request.clients) if request.clients else None)


def cluster_options(pattern: Pattern, binding: EngineBinding, phase: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a phase's cluster must be started with: the description's options (UUID Key's two datacenters) and
    the engine binding's `cluster_options(phase, settings)` (YCSB's chunk cache for its cache phase)."""
    return {**pattern.cluster_options, **binding.cluster_options(phase, values)}
