"""How sure a ratio is: paired repeats -> a 95% interval on known samples, the spread below 3 pairs, the
A/A noise floor, and the sweep loop that makes the pairs (ABBA blocks, a warm-up block, the control)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from fakes import CountingWorkload, sweep
from labkit.clusters.base import ClusterInfo
from labkit.errors import ConfigError
from labkit.sweeps import SELF_WARMING_RUN, SweepPlan, nodes_in_order
from labkit.results.intervals import (TOO_FEW, WITHIN_NOISE, control_ratios, noise_floor, paired_ratios, ratio_interval, ratio_table,
                                     unpaired_ratio_interval,
                                      ratio_text)

T_975_DF2 = 4.302652729911275  # Student's t, 97.5th percentile, 2 degrees of freedom (tables)


def test_t_interval_on_the_logs_of_three_pairs():
    found = ratio_interval([1.0, math.e, math.e ** 2])  # logs 0, 1, 2: mean 1, sd 1
    half = T_975_DF2 / math.sqrt(3)
    assert found.method == "t" and found.pairs == 3
    assert found.estimate == pytest.approx(math.e)
    assert found.low == pytest.approx(math.exp(1 - half)) and found.high == pytest.approx(math.exp(1 + half))
    assert found.within_noise and found.verdict == WITHIN_NOISE


def test_a_clear_effect_is_not_within_noise_and_prints_as_the_lab_writes_it():
    found = ratio_interval([2.5, 2.7, 2.6])
    assert not found.within_noise and found.verdict == "effect"
    assert found.text() == f"{ratio_text(found.estimate)}x ({ratio_text(found.low)}-{ratio_text(found.high)})"
    assert found.text().startswith("2.6x (")
    assert ratio_interval([0.43, 0.45, 0.44]).text().startswith("0.44x (0.4")


def test_ratios_below_one_are_as_far_from_one_as_their_inverses():
    up, down = ratio_interval([2.0, 2.2, 1.8]), ratio_interval([1 / 2.0, 1 / 2.2, 1 / 1.8])
    assert up.estimate == pytest.approx(1 / down.estimate)
    assert up.low == pytest.approx(1 / down.high) and up.high == pytest.approx(1 / down.low)


def test_fewer_than_three_pairs_give_the_spread_and_say_so():
    two = ratio_interval([2.0, 3.0])
    assert two.method == "spread" and (two.low, two.high) == (2.0, 3.0) and two.estimate == pytest.approx(math.sqrt(6))
    assert TOO_FEW in two.text() and "spread 2.0-3.0" in two.text() and two.verdict == TOO_FEW
    one = ratio_interval([2.0])
    assert "one pair" in one.text() and not one.has_interval
    assert ratio_interval([]) is None and ratio_interval([float("nan"), 0.0]) is None


def test_ten_pairs_and_more_are_bootstrapped_and_cover_their_geometric_mean():
    ratios = [2.1, 2.3, 2.6, 2.4, 2.2, 2.5, 2.45, 2.35, 2.0, 2.7]
    found = ratio_interval(ratios)
    assert found.method == "bootstrap" and found.pairs == 10
    assert found.low < found.estimate < found.high and 2.0 < found.low and found.high < 2.7
    assert ratio_interval(ratios) == found  # seeded: the same rows give the same interval


def test_identical_pairs_have_no_spread_to_estimate():
    found = ratio_interval([2.0, 2.0, 2.0])
    assert (found.low, found.estimate, found.high) == pytest.approx((2.0, 2.0, 2.0))


def _rows(pattern_tput, naive_tput, **extra):
    rows = []
    for repeat, (p, n) in enumerate(zip(pattern_tput, naive_tput)):
        for approach, value in (("pattern", p), ("naive/sai", n)):
            rows.append({"engine": "cassandra", "pattern": "index-table", "nodes": 3, "threads": 32, "approach": approach,
                         "repeat": repeat, "throughput": value, "complete": True, "control_copy": False, **extra})
    return pd.DataFrame(rows)


def test_two_independent_groups_get_a_welch_interval_on_their_logs():
    # logs 0,1,2 over logs 0,0.5,1: difference of means 0.5; variances 1 and 0.25, so se = sqrt(1/3 + 0.25/3)
    # and Welch's degrees of freedom (v1 + v2)^2 / (v1^2/2 + v2^2/2) with v = var/3, worked by hand here
    found = unpaired_ratio_interval([1, math.e, math.e ** 2], [1, math.e ** 0.5, math.e])
    v1, v2 = 1 / 3, 0.25 / 3
    df = (v1 + v2) ** 2 / (v1 ** 2 / 2 + v2 ** 2 / 2)
    from scipy.stats import t
    half = t.ppf(0.975, df) * math.sqrt(v1 + v2)
    assert found.method == "welch" and found.pairs == 3
    assert found.estimate == pytest.approx(math.exp(0.5))
    assert (found.low, found.high) == pytest.approx((math.exp(0.5 - half), math.exp(0.5 + half)))
    assert found.within_noise


def test_independent_groups_below_three_runs_give_the_spread_of_every_cross_ratio():
    found = unpaired_ratio_interval([4.0, 6.0], [1.0, 2.0, 2.0])
    assert found.method == "spread" and found.pairs == 2 and (found.low, found.high) == (2.0, 6.0)
    assert TOO_FEW in found.text()
    assert unpaired_ratio_interval([], [1.0]) is None


def test_ratios_pair_the_runs_of_one_block_and_leave_out_partial_runs_and_control_copies():
    df = _rows([300, 280, 310], [100, 140, 100])
    df.loc[len(df)] = {**df.iloc[0].to_dict(), "throughput": 1.0, "control_copy": True}  # a copy never enters a ratio
    df.loc[len(df)] = {**df.iloc[1].to_dict(), "repeat": 3, "complete": False}  # partial: its pair is dropped
    pairs = paired_ratios(df, "pattern", "naive/sai")
    assert list(pairs["ratio"]) == pytest.approx([3.0, 2.0, 3.1])
    table = ratio_table(df)
    assert len(table) == 1 and table.iloc[0]["pairs"] == 3 and table.iloc[0]["naive"] == "naive/sai"
    assert table.iloc[0]["text"] == ratio_interval([3.0, 2.0, 3.1]).text() and table.iloc[0]["verdict"] == "effect"


def test_the_control_copy_over_its_first_run_is_the_noise_floor():
    df = _rows([300, 280, 310], [100, 140, 100])
    copies = pd.DataFrame([{**df.iloc[i].to_dict(), "control_copy": True, "throughput": df.iloc[i]["throughput"] * f}
                           for i, f in ((1, 1.1), (3, 0.9), (5, 1.0))])
    df = pd.concat([df, copies], ignore_index=True)
    assert list(control_ratios(df)["ratio"]) == pytest.approx([1.1, 0.9, 1.0])
    floor = noise_floor(df)
    assert floor.pairs == 3 and floor.within_noise
    assert noise_floor(_rows([1], [1]).drop(columns=["control_copy"])) is None


# ---- the loop that makes the pairs --------------------------------------------------------------

def fake_cluster(n: int) -> ClusterInfo:
    return ClusterInfo(engine="cassandra", server_version="5.0.9", provider="local", nodes=n)


def test_every_approach_runs_once_per_block_alternating_which_goes_first():
    made = []
    plan = SweepPlan(pattern="index-table", approaches=["naive/sai", "pattern"], threads=[1, 2], operations=10, repeats=3, warmup_block=False)
    rows = list(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: made.append(a) or CountingWorkload()))
    assert [(r["threads"], r["repeat"], r["order"], r["approach"]) for r in rows] == [
        (t, rep, order, a) for t in (1, 2) for rep in range(3)
        for order, a in enumerate(["naive/sai", "pattern"] if rep % 2 == 0 else ["pattern", "naive/sai"])]
    assert made == [r["approach"] for r in rows] and len(rows) == plan.runs == 12


def test_a_cold_cluster_gets_one_unmeasured_warm_up_block_first():
    made, said = [], []
    plan = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[2, 4], nodes=[1, 2], operations=10, repeats=2)
    colds = iter([True, False])  # the 1-node cluster is fresh, the 2-node one was warmed by an earlier sweep
    rows = list(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: made.append((a, c.nodes)) or CountingWorkload(),
                      cold=lambda: next(colds), echo=said.append))
    assert made[:2] == [("naive", 1), ("pattern", 1)] and len(made) == len(rows) + 2  # the block, then the measured runs
    assert len(rows) == plan.runs == 16
    assert {r["warmup_block"] for r in rows if r["nodes"] == 1} == {True} and {r["warmup_block"] for r in rows if r["nodes"] == 2} == {False}
    assert any("warm-up block" in line and "not measured" in line for line in said)


def test_runs_that_warm_up_by_themselves_need_no_warm_up_block_unless_asked():
    said = []
    own = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[2], operations=10, run_options={"warmup": SELF_WARMING_RUN})
    made = []
    rows = list(sweep(own, cluster_for=fake_cluster, workload_for=lambda a, c: made.append(a) or CountingWorkload(), echo=said.append))
    assert len(made) == len(rows) == 2 and not any(r["warmup_block"] for r in rows)
    assert any("no warm-up block" in line and f"{SELF_WARMING_RUN} unmeasured transactions" in line for line in said)
    short = SweepPlan(pattern="fan-out", approaches=["naive"], threads=[2], operations=10, run_options={"warmup": SELF_WARMING_RUN - 1})
    forced = SweepPlan(pattern="fan-out", approaches=["naive"], threads=[2], operations=10, run_options={"warmup": 5000}, warmup_block=True)
    assert short.wants_warmup_block() and forced.wants_warmup_block() and not own.wants_warmup_block()
    assert SweepPlan(pattern="fan-out", approaches=["naive"], threads=[2], operations=10).wants_warmup_block()


def test_the_node_count_already_running_goes_first_and_is_not_warmed_again():
    made, started = [], []
    plan = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[2], nodes=[1, 3], operations=10, repeats=1)
    colds = iter([False, True])  # the running 3-node cluster was warmed by an earlier sweep; the 1-node one is fresh

    def cluster_for(n):
        started.append(n)
        return fake_cluster(n)

    rows = list(sweep(plan, cluster_for=cluster_for, workload_for=lambda a, c: made.append((a, c.nodes)) or CountingWorkload(),
                      cold=lambda: next(colds), running=lambda: 3))
    assert started == [3, 1] and [r["nodes"] for r in rows] == [3, 3, 1, 1]
    assert made == [("naive", 3), ("pattern", 3), ("naive", 1), ("pattern", 1), ("naive", 1), ("pattern", 1)]  # 1 node: block first
    assert nodes_in_order([1, 3], None) == [1, 3] and nodes_in_order([1, 3], 2) == [1, 3] and nodes_in_order([1, 2, 4], 4) == [4, 1, 2]


def test_an_a_a_control_runs_one_approach_twice_per_block():
    plan = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[1], operations=10, repeats=2, control="naive", warmup_block=False)
    rows = list(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload()))
    assert [(r["approach"], r["control_copy"]) for r in rows] == [("naive", False), ("pattern", False), ("naive", True),
                                                                   ("naive", True), ("pattern", False), ("naive", False)]
    assert len(control_ratios(pd.DataFrame(rows))) == 2
    with pytest.raises(ConfigError, match="A/A control"):
        SweepPlan(pattern="fan-out", approaches=["naive"], threads=[1], operations=10, control="pattern")


def test_offered_load_curves_skip_past_their_knee_per_approach_with_repeats(monkeypatch):
    import importlib

    sweep_module = importlib.import_module("labkit.sweeps.loop")
    # naive keeps up only at the lowest load, pattern at every load (the row's approach decides)
    monkeypatch.setattr(sweep_module, "keeps_up", lambda row: row["approach"] == "pattern" or row["target_rate"] <= 100)
    plan = SweepPlan(pattern="fan-out", approaches=["naive", "pattern"], threads=[2], operations=10, repeats=2, warmup_block=False,
                     targets=[100.0, 200.0, 300.0, 400.0], target_seconds=0.05, past_knee=2)
    rows = list(sweep(plan, cluster_for=fake_cluster, workload_for=lambda a, c: CountingWorkload()))
    loads = lambda a: sorted({r["target_rate"] for r in rows if r["approach"] == a})
    assert loads("naive") == [100.0, 200.0, 300.0] and loads("pattern") == [100.0, 200.0, 300.0, 400.0]
    assert all(sum(1 for r in rows if r["approach"] == "naive" and r["target_rate"] == t) == 2 for t in loads("naive"))


def test_a_bootstrapped_interval_does_not_depend_on_the_order_of_the_pairs():
    pairs = [0.70, 0.50, 0.58, 0.67, 0.64, 0.69, 0.62, 0.48, 0.55, 0.59, 0.48, 0.53]
    assert ratio_interval(pairs).method == "bootstrap"
    assert ratio_interval(pairs) == ratio_interval(sorted(pairs)) == ratio_interval(pairs[::-1])


def test_a_paired_ratio_between_two_values_of_another_column_pairs_by_block():
    """The last run of a growing series over its first: both ran within one series (`repeat`), so they pair."""
    from labkit.results.intervals import interval_of, ratio_interval

    rows = [{"repeat": r, "comments": c, "page": v} for r, (first, last) in enumerate(((1.5, 9.0), (1.8, 10.8), (1.2, 7.2)))
            for c, v in ((1000, first), (10000, last))]
    found = interval_of(rows, "page", 10000, 1000, between="comments", paired=True)
    assert found == ratio_interval([6.0, 6.0, 6.0])
    assert interval_of(rows, "page", 10000, 1000, between="comments").method == "welch"


def test_a_profiles_designs_compare_each_later_design_over_the_first_one_run():
    from labkit.sweeps import ratio_lines
    from labkit.results.intervals import comparisons

    rows = []
    for repeat, values in enumerate(((100, 300, 150), (110, 310, 160), (90, 290, 140))):
        for design, value in zip(("design/by_index", "design/by_query", "design/by_both"), values):
            rows.append({"engine": "cassandra", "pattern": "chat", "nodes": 1, "threads": 16, "approach": design, "repeat": repeat,
                         "throughput": value, "complete": True, "control_copy": False})
    table = comparisons(rows)
    assert list(zip(table["numerator"], table["denominator"])) == [("design/by_query", "design/by_index"), ("design/by_both", "design/by_index")]
    assert table.iloc[0]["text"] == ratio_interval([3.0, 310 / 110, 290 / 90]).text()
    assert ratio_lines(rows)[0].startswith("design/by_query / design/by_index throughput at 1 node(s), 16 threads: ")
    assert list(comparisons(_rows([300, 280, 310], [100, 140, 100]))["numerator"]) == ["pattern"]  # a pattern's sweep as before
