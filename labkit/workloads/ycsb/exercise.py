"""What notebook 05's exercise hands a student: a mix on one node held to a CPU budget, and the check of the
student's own offered-load experiment: their prediction of the knee, made before any run, and the offered loads
they choose to find it with.

The check runs the student's sweep for real (paced runs, latency from each transaction's intended start) and
grades what it found, not the numbers typed: whether the loads bracket the knee, how closely, whether the node
(not the client) ran out at the first overloaded load, and whether every run kept its records. The prediction
is shown beside the measurement and not graded: it is the student's, to compare.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ...errors import ConfigError

if TYPE_CHECKING:
    from ...patterns.exercise import CheckReport

MIX = "baseline/e"
"""YCSB's mix E (95% short scans, 5% inserts): its knee on a half-core node is low enough (a few hundred per
second in the committed classroom run) that the client, on the same machine, is never what runs out first."""
NODE_CPU = 0.5
THREADS = 32
SECONDS = 2.0
MAX_LOADS = 6
HIGHEST = 4000.0
"""The highest offered load the check runs: an overloaded paced run completes every transaction it scheduled,
so a load far past the knee takes far longer than its `SECONDS` (4,000/s for 2 s is 8,000 transactions; at the
605-612/s the half-core node served past its knee in the development machine's runs, about 13 s)."""
RESOLUTION = 2.0
"""Found closely enough: the first overloaded load at most this many times the last one kept up with."""


def read_experiment(my_experiment: Callable[[], Any]) -> tuple[float, list[float]]:
    """(predicted knee, offered loads in increasing order), checked for shape."""
    chosen = my_experiment()
    if not isinstance(chosen, dict) or set(chosen) != {"predicted_knee", "offered"}:
        raise ConfigError(f"my_experiment() returns {{'predicted_knee': <tx/s>, 'offered': [<tx/s>, ...]}} (got {chosen!r})")
    predicted, offered = chosen["predicted_knee"], chosen["offered"]
    if not isinstance(predicted, (int, float)) or predicted <= 0:
        raise ConfigError(f"predicted_knee is your guess in transactions per second, a number above 0 (got {predicted!r})")
    if not isinstance(offered, (list, tuple)) or not 2 <= len(offered) <= MAX_LOADS or not all(isinstance(r, (int, float)) and r > 0 for r in offered):
        raise ConfigError(f"offered is a list of 2 to {MAX_LOADS} offered loads in transactions per second (got {offered!r})")
    loads = sorted(float(r) for r in offered)
    if len(set(loads)) != len(loads):
        raise ConfigError(f"offered lists a load twice: {offered!r}")
    if loads[-1] > HIGHEST:
        raise ConfigError(f"the check runs offered loads up to {HIGHEST:,.0f}/s (a paced run past the knee completes every transaction it "
                          f"scheduled, so {loads[-1]:,.0f}/s would run for minutes); choose lower loads")
    return float(predicted), loads


def check_exercise(my_experiment: Callable[[], Any], slot: Any, seconds: float = SECONDS) -> "CheckReport":
    """The exercise's check: the student's offered loads run on one node held to NODE_CPU core (mix E, THREADS
    in flight, each load for `seconds`, stopping after the first load the node did not keep up with), then: the
    loads bracket the knee; the knee lies within a factor RESOLUTION; the first overloaded load ran out on the
    node's budget, not on the client; every run kept its records. The student's prediction is set beside it."""
    import pandas as pd

    from ...patterns.exercise import CheckReport, Graded, check_all, every_run_verified
    from ...sweeps import run_pattern_sweep
    from ...results.offered_load import keeps_up, knee
    from . import WORKLOAD

    found: dict[str, Any] = {}

    def your_experiment_is_complete(report: CheckReport) -> bool:
        try:
            found["predicted"], found["loads"] = read_experiment(my_experiment)
        except ConfigError as exc:
            return report.add("your experiment is complete", False, str(exc))
        return report.add("your experiment is complete", True, f"predicted {found['predicted']:,.0f}/s; loads {', '.join(f'{r:,.0f}' for r in found['loads'])}/s")

    def your_loads_bracket_the_knee(report: CheckReport) -> bool:
        plan = WORKLOAD.sweep_plan("quick", "offered-load", approaches=[MIX], threads=[THREADS], targets=found["loads"], target_seconds=seconds,
                                   past_knee=1, repeats=1, run_options={"warmup": 300})
        slot.node_cpu = NODE_CPU
        try:
            rows = pd.DataFrame(run_pattern_sweep(WORKLOAD, plan, slot=slot, echo=lambda line: None))
        finally:
            slot.node_cpu = None
        found["rows"] = rows
        found["knee"] = k = knee(rows)
        ran = ", ".join(f"{r['target_rate']:,.0f}/s -> {r['throughput']:,.0f}/s{'' if keeps_up(r) else ' (not kept up)'}" for _, r in rows.sort_values("target_rate").iterrows())
        step = f"your loads bracket the knee of {MIX} on one node of {NODE_CPU} core"
        if k.target is None:
            return report.add(step, False, f"{ran}: {k.why}" + ("; offer less at the low end" if k.first_overloaded is not None else ""))
        return report.add(step, True, f"{ran}: kept up at {k.target:,.0f}/s, not at {k.first_overloaded:,.0f}/s")

    def the_knee_is_placed_within_a_factor_of_two(report: CheckReport) -> bool:
        k = found["knee"]
        ratio = k.first_overloaded / k.target
        step = f"the knee is placed within a factor of {RESOLUTION:g}"
        if ratio > RESOLUTION:
            return report.add(step, False, f"it lies somewhere between {k.target:,.0f}/s and {k.first_overloaded:,.0f}/s ({ratio:.1f}x apart): add loads in between")
        return report.add(step, True, f"between {k.target:,.0f}/s and {k.first_overloaded:,.0f}/s ({ratio:.1f}x)")

    def the_node_ran_out_not_the_client(report: CheckReport) -> bool:
        rows, k = found["rows"], found["knee"]
        past = rows[rows.target_rate == k.first_overloaded].iloc[0]
        limit = str(past.get("limit") or "none")
        step = "at the first overloaded load the node ran out, not the client"
        if not limit.startswith("server"):
            return report.add(step, False, f"at {k.first_overloaded:,.0f}/s the limit was {limit!r} (client CPU {past.get('client_cpu_cores', float('nan')):.2f} cores): "
                                           "a knee is the database's only where the client had CPU to spare")
        return report.add(step, True, f"limit {limit}: the node was at its {NODE_CPU} core budget")

    def every_run_kept_its_records(report: CheckReport) -> bool:
        return every_run_verified(report, found["rows"])

    def your_prediction_beside_the_measurement(report: CheckReport) -> bool:
        k, predicted = found["knee"], found["predicted"]
        where = ("below it" if predicted < k.target else "above it" if predicted >= k.first_overloaded else "inside it")
        return report.add("your prediction beside the measurement", True,
                          f"you predicted {predicted:,.0f}/s; this sweep placed the knee between {k.target:,.0f} and {k.first_overloaded:,.0f}/s: {where} "
                          "(one sweep: a repeat can land a load step off; not graded)")

    complete, bracket = your_experiment_is_complete, your_loads_bracket_the_knee
    return check_all(f"Finding the knee of YCSB {MIX.split('/')[1].upper()} on a budgeted node (notebook 05)", [
        Graded(complete, 0),
        Graded(bracket, 4, [complete]),
        Graded(the_knee_is_placed_within_a_factor_of_two, 3, [bracket]),
        Graded(the_node_ran_out_not_the_client, 2, [bracket]),
        Graded(every_run_kept_its_records, 1, [bracket]),
        Graded(your_prediction_beside_the_measurement, 0, [bracket]),
    ])
