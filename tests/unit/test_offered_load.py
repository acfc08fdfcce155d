"""The knee of an offered-load curve: the highest offered load still served before the first that was not."""

from __future__ import annotations

import pandas as pd
import pytest

from fakes import sweep

from labkit.errors import ConfigError
from labkit.results import knees, offered_load_figure
from labkit.results.offered_load import knee
from labkit.sweeps import SweepPlan


def curve(points, approach="baseline/c"):
    return pd.DataFrame([
        {"pattern": "ycsb", "engine": "cassandra", "server_version": "5.0.9", "provider": "local", "nodes": 1, "node_cpu": 0.5, "threads": 32,
         "approach": approach, "target_rate": t, "throughput": a, "p50_us": s // 2, "p95_us": s, "p99_us": s * 2, "intended_p50_us": i // 2,
         "intended_p95_us": i, "intended_p99_us": i * 2, "limit": "none"}
        for t, a, s, i in points
    ])


def test_the_knee_is_the_last_load_served_before_the_first_that_was_not():
    k = knee(curve([(100, 100, 2000, 2100), (200, 199, 2500, 2600), (400, 330, 9000, 400000), (800, 340, 9000, 900000)]))
    assert (k.target, k.achieved, k.first_overloaded) == (200, 199, 400)
    assert "achieved 330/s" in k.why


def test_queueing_alone_marks_an_overload_even_when_throughput_kept_up():
    k = knee(curve([(100, 100, 2000, 2100), (200, 200, 2000, 7000)]))
    assert k.target == 100 and k.first_overloaded == 200


def test_no_knee_inside_the_range_says_what_to_do():
    assert "offer more" in knee(curve([(100, 100, 2000, 2000), (200, 200, 2000, 2100)])).why
    low = knee(curve([(100, 50, 2000, 90000)]))
    assert low.target is None and low.first_overloaded == 100 and "lowest offered load" in low.why


def test_knees_are_found_per_curve_and_drawn():
    both = pd.concat([curve([(100, 100, 2000, 2000), (200, 120, 2000, 90000)], "baseline/e"),
                      curve([(100, 100, 1000, 1000), (200, 200, 1000, 1100)], "baseline/c")])
    table = knees(both).set_index("approach")
    assert table.loc["baseline/e", "knee_offered"] == 100 and pd.isna(table.loc["baseline/c", "knee_offered"])
    fig = offered_load_figure(both)
    assert "cassandra 5.0.9" in fig.layout.title.text and "0.5 core" in fig.layout.title.text
    assert any(t.marker.symbol == "star" for t in fig.data if t.mode == "markers")
    assert "baseline/e 100/s" in fig.layout.annotations[-1].text


def test_closed_loop_rows_have_no_knee():
    rows = curve([(100, 100, 2000, 2000)])
    rows["target_rate"] = None
    with pytest.raises(ConfigError, match="paced runs"):
        knee(rows)


def test_a_plan_holds_each_offered_load_equally_long():
    plan = SweepPlan(pattern="ycsb", approaches=["baseline/c"], threads=[8], operations=50, targets=[100, 400], target_seconds=2.5)
    assert [plan.operations_at(t) for t in plan.targets] == [250, 1000] and plan.operations_at(None) == 50
    assert plan.runs == 2
    with pytest.raises(ConfigError, match="target_rate must be a positive"):
        SweepPlan(pattern="ycsb", approaches=["baseline/c"], threads=[8], operations=50, targets=[0])


class SleepyWorkload:
    """Each transaction takes 20 ms: one worker keeps up with 20/s, never with 400/s."""

    name = "sleepy"

    def setup(self): ...
    def load(self): ...
    def verify(self): return None
    def cleanup(self): ...

    def transaction(self, tx):
        tx.call("nap", __import__("time").sleep, 0.02)


@pytest.mark.full  # full tier: a slow unit test (5.1 s of make test's unit run on 2026-12-03)
def test_an_offered_load_sweep_stops_a_curve_once_it_is_past_the_knee():
    from labkit.clusters.base import ClusterInfo

    plan = SweepPlan(pattern="ycsb", approaches=["baseline/c"], threads=[1], operations=5, targets=[20, 400, 800, 1600], target_seconds=0.5,
                     past_knee=1, processes=1, run_options={"workers": "threads"})
    rows = list(sweep(plan, cluster_for=lambda n: ClusterInfo(engine="cassandra", server_version="5.0.9", provider="local", nodes=n),
                      workload_for=lambda a, c: SleepyWorkload()))
    assert [r["target_rate"] for r in rows] == [20, 400]
    assert [r["operations"] for r in rows] == [10, 200]


def test_a_repeated_sweep_gives_a_knee_per_block_and_quotes_the_middle_one():
    blocks = []
    for repeat, last_served in enumerate((200, 400, 200)):  # one block kept up a step further
        points = [(100, 100, 2000, 2100), (200, 199, 2500, 2600), (400, 395 if last_served == 400 else 300, 3000, 3100 if last_served == 400 else 90000),
                  (800, 420, 9000, 900000)]
        blocks.append(curve(points).assign(repeat=repeat))
    both = pd.concat(blocks, ignore_index=True)
    (row,) = knees(both).to_dict("records")
    assert (row["knee_offered"], row["first_overloaded"], row["repeats"], row["knee_each"]) == (200, 400, 3, "200 / 400 / 200")
    fig = offered_load_figure(both)
    (line,) = [t for t in fig.data if t.mode == "lines+markers" and t.xaxis in (None, "x")]
    assert list(line.x) == [100, 200, 400, 800]  # one point per offered load: the blocks' median
    assert list(line.y) == [100, 199, 300, 420]
    assert "median of 3 blocks" in fig.layout.title.text


def test_a_control_copy_or_a_partial_run_does_not_move_a_knee():
    served = curve([(100, 100, 2000, 2100), (200, 199, 2500, 2600), (400, 300, 3000, 90000)]).assign(repeat=0, complete=True, control_copy=False)
    copy = curve([(100, 10, 2000, 90000)]).assign(repeat=0, complete=True, control_copy=True)
    cut = curve([(200, 5, 2000, 90000)]).assign(repeat=0, complete=False, control_copy=False)
    (row,) = knees(pd.concat([served, copy, cut], ignore_index=True)).to_dict("records")
    assert row["knee_offered"] == 200
