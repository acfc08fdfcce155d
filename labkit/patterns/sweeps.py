"""Run a pattern's sweep outside a notebook (the CLI and the benchmarks): one resizable cluster,
the pattern module's own `workload_for`, rows appended to a results file as they are measured."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable

from ..clusters.slot import ClusterSlot
from ..errors import ConfigError
from ..results import ResultsStore, SweepPlan, sweep


def run_pattern_sweep(
    module: Any,
    plan: SweepPlan,
    *,
    engine: str = "cassandra",
    provider: str = "auto",
    out: str | Path | None = None,
    options: dict[str, Any] | None = None,
    echo: Callable[[str], None] = print,
    slot: ClusterSlot | None = None,
    node_cpu: float | None = None,
) -> list[dict[str, Any]]:
    """Sweep `plan` with `module.workload_for(approach, cluster, operations, **options)`; every option is
    also a column of each row (e.g. phase). Pass `slot` to keep the cluster for the next sweep (the
    caller stops it then); otherwise it is stopped at the end, whatever happens. A module may ask for
    cluster options (CLUSTER_OPTIONS, e.g. two datacenters) and extra resources for the sweep's
    duration (sweep_resources(**options), a context manager yielding more workload_for arguments), and
    check a plan before anything starts (check_plan(plan)). `node_cpu` budgets each node of the
    cluster this call starts (a given `slot` keeps its own budget)."""
    options = dict(options or {})
    plan.labels = {**options, **plan.labels}
    check = getattr(module, "check_plan", None)
    if callable(check):
        check(plan)  # refuse a plan the pattern cannot run before any cluster starts
    engines = getattr(module, "ENGINES", ("cassandra",))
    if engine not in engines:
        name = getattr(module, "PATTERN", module.__name__.rsplit(".", 1)[-1])
        raise ConfigError(f"{name} has no workload for {engine} in this version: it runs on {', '.join(engines)}. "
                          f"Choose --engine {engines[0]}.")
    store = ResultsStore(out) if out is not None else None
    rows: list[dict[str, Any]] = []
    own = slot is None
    slot = slot or ClusterSlot.for_engine(engine, provider, on_change=echo, node_cpu=node_cpu, **getattr(module, "CLUSTER_OPTIONS", {}))
    resources = getattr(module, "sweep_resources", None)
    try:
        with resources(**options) if resources else contextlib.nullcontext({}) as extra:
            rows.extend(_sweep(module, plan, slot, options, extra, store, echo))
    finally:
        if own:
            slot.stop()
    return rows


def _sweep(module: Any, plan: SweepPlan, slot: ClusterSlot, options: dict[str, Any], extra: dict[str, Any], store: Any, echo: Callable[[str], None]):
    workload_for = lambda approach, info: module.workload_for(approach, slot.cluster, plan.operations, **options, **extra)  # noqa: E731
    for row in sweep(plan, cluster_for=slot.info_for, workload_for=workload_for, store=store, server_meter_for=slot.cpu_meter, echo=echo):
        cpu = row.get("server_cpu_ms_per_tx")
        echo(
            f"{row['nodes']} nodes  {row['approach']:<14} threads={row['threads']:>3} in {row['processes']} process(es)  {row['throughput']:>9,.0f} tx/s  "
            f"p95 {row['p95_us'] / 1000:7.1f} ms  " + (f"server {cpu:6.2f} ms CPU/tx  " if cpu is not None else "") +
            f"verify={row.get('verify_ok')}  limit={row.get('limit')}"
        )
        yield row
