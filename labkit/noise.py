"""`labkit noise`: how far apart two runs of the same workload land on this machine, measured in a few minutes.

A ratio between two approaches means something only when it is larger than what separates two runs of one
approach. This runs an A/A control: YCSB workload A on primary keys (the getting-started baseline), every
block twice, blocks repeated, and reports the copy / first interval as the machine's noise floor. It goes
through the same entry point as every sweep (labkit.sweeps), so the rows look like any other sweep's.
"""

from __future__ import annotations

from typing import Any, Callable

from .clusters.slot import ClusterSlot
from .errors import ConfigError
from .results.intervals import RatioInterval, noise_floor

APPROACH = "baseline/a"


def noise_plan(*, nodes: int = 1, threads: int = 16, operations: int = 10000, repeats: int = 5, records: int = 2000) -> Any:
    """The A/A sweep: workload A on primary keys, `repeats` blocks of a run and its copy."""
    from .workloads.ycsb import WORKLOAD

    if repeats < 3:
        raise ConfigError(f"a noise floor needs at least 3 repeats for an interval; got {repeats}")
    return WORKLOAD.sweep_plan("quick", "primary-key", approaches=[APPROACH], overrides={"primary-key": {"settings": {"records": records}}},
                               nodes=[nodes], threads=[threads], operations=operations, repeats=repeats, control=APPROACH)


def measure_noise(plan: Any, *, provider: str = "auto", node_cpu: float | None = None, slot: ClusterSlot | None = None,
                  out: Any = None, echo: Callable[[str], None] = print) -> tuple[list[dict[str, Any]], RatioInterval | None]:
    """Run the A/A plan and return its rows and the noise floor (copy / first throughput over every block)."""
    from .sweeps import SweepRequest, run_sweep
    from .workloads.ycsb import WORKLOAD

    rows = run_sweep(SweepRequest(WORKLOAD, plan, provider=provider, node_cpu=node_cpu), slot=slot, out=out, echo=echo)
    import pandas as pd

    return rows, noise_floor(pd.DataFrame(rows))


def noise_sentence(floor: RatioInterval | None, rows: list[dict[str, Any]]) -> str:
    """What the floor means for the student's own ratios, in one or two sentences."""
    if floor is None:
        return "no A/A pair finished, so there is no noise floor: run `labkit noise` again"
    import pandas as pd

    from .results.intervals import control_ratios

    pairs = control_ratios(pd.DataFrame(rows))["ratio"]
    spread = max(abs(pairs.min() - 1), abs(1 / pairs.max() - 1) if pairs.max() > 0 else 0, abs(pairs.max() - 1))
    first = rows[0] if rows else {}
    setup = (f"{first.get('engine')} {first.get('server_version')} · provider {first.get('provider')} · {first.get('nodes')} node(s) · "
             f"{first.get('threads')} threads · {first.get('operations')} transactions per run")
    return (f"noise floor on this machine ({setup}): a run's copy / the run = {floor.text()} over {floor.pairs} blocks, "
            f"single pairs from {pairs.min():.2f}x to {pairs.max():.2f}x. Two runs of the same workload landed up to {spread:.0%} apart "
            f"here, so a ratio measured once between {1 / (1 + spread):.2f}x and {1 + spread:.2f}x says nothing; trust a ratio "
            "whose own interval (3 or more repeats) excludes 1.")
