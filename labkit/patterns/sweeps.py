"""Run a pattern's sweep outside a notebook (the CLI and the benchmarks): one resizable cluster, the
workloads its description makes, rows appended to a results file as they are measured."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable, Mapping

from ..clusters.slot import ClusterSlot
from ..results import ResultsStore, SweepPlan, sweep
from .description import Pattern


def run_pattern_sweep(
    pattern: Pattern,
    plan: SweepPlan,
    *,
    phase: str | None = None,
    settings: Mapping[str, Any] | None = None,
    engine: str = "cassandra",
    provider: str = "auto",
    out: str | Path | None = None,
    echo: Callable[[str], None] = print,
    slot: ClusterSlot | None = None,
    node_cpu: float | None = None,
    resources: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Sweep `plan` over `pattern`'s workloads for `phase` (default: the plan's `phase` label, else the
    pattern's last) with `settings` (then the plan's labels, then the defaults); the phase and every setting are columns of each row. Everything the description can
    refuse (phase, approaches, settings, engine, the plan's shape) is refused before any cluster starts.
    Pass `slot` to keep the cluster for the next sweep (the caller stops it then); otherwise it is
    stopped at the end, whatever happens. The engine binding's `sweep_resources` (e.g. a toxiproxy) are
    opened for the sweep unless `resources` are given, and its `cluster_options(phase, settings)` (e.g. a
    chunk cache size) start the cluster this call starts. `node_cpu` budgets each node of the cluster this
    call starts (a given `slot` keeps its own budget)."""
    phase = pattern.check_phase(phase or plan.labels.get("phase") or pattern.default_phase)
    given = {s.name: plan.labels[s.name] for s in pattern.settings_for(phase) if s.name in plan.labels}  # e.g. from Pattern.plan
    values = pattern.resolve(phase, {**given, **dict(settings or {})})
    plan.labels = {**plan.labels, "phase": phase, **values}
    pattern.check_plan(plan)
    pattern.check_approaches(plan.approaches, phase, engine)
    binding = pattern.binding(engine)
    refuse = getattr(binding, "check_sweep", None)  # what this engine's binding cannot run, before any server starts
    if callable(refuse):
        refuse(phase, list(plan.approaches))
    store = ResultsStore(out) if out is not None else None
    rows: list[dict[str, Any]] = []
    own = slot is None
    needs = getattr(binding, "cluster_options", None)  # e.g. the chunk cache a phase's nodes must have
    options = {**pattern.cluster_options, **(needs(phase, values) if callable(needs) else {})}
    slot = slot or ClusterSlot.for_engine(engine, provider, on_change=echo, node_cpu=node_cpu, **options)
    opened = getattr(binding, "sweep_resources", None)
    try:
        with opened(phase, values) if resources is None and opened is not None else contextlib.nullcontext(dict(resources or {})) as extra:
            rows.extend(_sweep(pattern, plan, phase, values, slot, extra, store, echo))
    finally:
        if own:
            slot.stop()
    return rows


def _sweep(pattern: Pattern, plan: SweepPlan, phase: str, values: dict[str, Any], slot: ClusterSlot, extra: dict[str, Any], store: Any, echo: Callable[[str], None]):
    def workload_for(approach: str, _info: Any) -> Any:
        return pattern.workload(approach, slot.cluster, plan.operations, phase=phase, resources=extra, **values)

    for row in sweep(plan, cluster_for=slot.info_for, workload_for=workload_for, store=store, server_meter_for=slot.cpu_meter, echo=echo):
        cpu = row.get("server_cpu_ms_per_tx")
        echo(
            f"{row['nodes']} nodes  {row['approach']:<14} threads={row['threads']:>3} in {row['processes']} process(es)  "
            + (f"offered {row['target_rate']:>7,.0f}/s  " if row.get("target_rate") else "") + f"{row['throughput']:>9,.0f} tx/s  "
            f"p95 {row['p95_us'] / 1000:7.1f} ms  " + (f"server {cpu:6.2f} ms CPU/tx  " if cpu is not None else "") +
            f"verify {row.get('verify_state')}  limit={row.get('limit')}"
        )
        yield row
