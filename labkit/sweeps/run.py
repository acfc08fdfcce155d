"""A sweep from request to rows in one call, with a line per row and the ratios at the end: what `labkit run`,
benchmarks and notebooks call."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..clusters.slot import ClusterSlot
from ..results.store import ResultsStore
from .bench import Bench, on_slot
from .loop import SweepWatch, measure
from .plan import SweepPlan
from .request import SweepRequest, resolve

if TYPE_CHECKING:
    from ..patterns.description import Pattern


def run_sweep(request: SweepRequest, *, slot: ClusterSlot | None = None, resources: Mapping[str, Any] | None = None,
              out: str | Path | None = None, echo: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Resolve the request (everything it can refuse is refused before any cluster starts), open its bench on `slot`
    (None: one made for it and stopped at the end) with `resources` (None: the engine binding's own), measure it,
    echo one line per row and the ratios, and append the rows to `out`. With a slot and no engine asked for, the
    slot's engine runs."""
    sweep = resolve(on_slot(request, slot))
    store = ResultsStore(out) if out is not None else None
    rows: list[dict[str, Any]] = []
    with Bench(sweep, slot=slot, resources=resources, echo=echo) as bench:
        for row in measure(bench, store=store, watch=SweepWatch(echo=echo)):
            echo(row_line(row))
            rows.append(row)
    for line in ratio_lines(rows):
        echo(line)
    return rows


def run_pattern_sweep(pattern: "Pattern", plan: SweepPlan, *, phase: str | None = None, settings: Mapping[str, Any] | None = None,
                      slot: ClusterSlot | None = None, echo: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """`run_sweep` of a notebook's or benchmark's sweep on its own slot: the request made of the pattern, the plan, the
    phase and the settings (engine, provider and budget are the slot's)."""
    return run_sweep(SweepRequest(pattern, plan, phase=phase, settings=dict(settings or {})), slot=slot, echo=echo)


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
