"""A sweep of a pattern, from request to rows, in one room and in one direction.

The order a sweep runs in: a caller (the CLI, the control panel, a notebook, a benchmark) builds a `SweepRequest`
(the pattern, a frozen `SweepPlan`, the phase, settings, engine, provider, node budget, clients); `resolve`
checks it and fixes every value once (`Sweep`); a `Bench` opens what it runs on (the cluster slot, the binding's
resources, Dask clients); `measure` runs the plan's blocks on the bench and yields labelled rows. `run_sweep`
does all four in one call."""

from .bench import Bench, check_slot, on_slot, pattern_resources, pattern_slot
from .loop import Stand, SweepWatch, measure, nodes_in_order
from .plan import SELF_WARMING_RUN, SWEEP_WORKERS, SweepPlan, check_approach, parse_range
from .request import Sweep, SweepRequest, cluster_options, request_for, resolve
from .run import ratio_lines, row_line, run_pattern_sweep, run_sweep

__all__ = [
    "Bench",
    "SELF_WARMING_RUN",
    "SWEEP_WORKERS",
    "Stand",
    "Sweep",
    "SweepPlan",
    "SweepRequest",
    "SweepWatch",
    "check_approach",
    "check_slot",
    "cluster_options",
    "measure",
    "nodes_in_order",
    "on_slot",
    "parse_range",
    "pattern_resources",
    "pattern_slot",
    "ratio_lines",
    "request_for",
    "resolve",
    "row_line",
    "run_pattern_sweep",
    "run_sweep",
]
