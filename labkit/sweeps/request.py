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
from ..patterns.binding import EngineBinding
from ..patterns.description import Pattern
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
        """A fresh workload for one run of `approach` on `cluster` (the only place sweeps make one)."""
        return self.pattern.workload(approach, cluster, self.plan.operations, phase=self.phase, engine=self.engine,
                                     resources=resources, **self.values)

    def hooks(self) -> dict[str, Any]:
        """What this sweep takes from the engine binding (for tests and for a reader who wants to know)."""
        return {"engine": self.engine, "phase": self.phase, "settings": dict(self.values), "cluster_options": dict(self.cluster_options),
                "check_sweep": self.binding.has_check_sweep, "sweep_resources": self.binding.has_resources}


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
