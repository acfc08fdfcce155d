"""The tactic advisor decides only from measured rows, says why, and says when it does not know."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.tactics.advisor import IMPRECISE, MIN_GAIN, Advisor, kind_of


def row(tactic, kind, p95_ratio, tput_ratio=1.0, verify_ok=True, error=""):
    return {"tactic": tactic, "tactic_title": tactic, "workload_kind": kind, "p95_after_vs_before": p95_ratio,
            "throughput_after_vs_before": tput_ratio, "p95_during_vs_before": 2.0, "took_s": 10.0, "during_errors": 0,
            "verify_ok": verify_ok, "tactic_error": error}


@pytest.mark.parametrize("shares, kind", [
    ({"reads": 0.95, "updates": 0.05}, "read-heavy"),
    ({"reads": 0.5, "updates": 0.5}, "update-heavy"),
    ({"inserts": 9, "reads": 1}, "write-heavy"),
    ({"scans": 0.95, "inserts": 0.05}, "scan"),
    ({"non_key_queries": 1}, "query-by-tag"),
    ({"reads": 0.6, "inserts": 0.4}, None),
])
def test_a_mix_is_matched_to_the_kind_it_resembles(shares, kind):
    assert kind_of(**shares) == kind


def test_bad_shares_are_refused():
    with pytest.raises(ConfigError, match="non-negative"):
        kind_of(reads=-1, scans=2)


def runs(tactic, kind, p95_ratios, **kw):
    """Several runs of one tactic (each its own after / before)."""
    return [row(tactic, kind, r, **kw) for r in p95_ratios]


def test_the_largest_gain_measured_precisely_wins_and_the_reasoning_lists_every_tactic():
    rows = runs("create-index", "query-by-tag", [0.01, 0.011, 0.009]) + runs("add-node", "query-by-tag", [0.8, 0.75, 0.85])
    advice = Advisor(rows).recommend(non_key_queries=1)
    assert advice.tactic == "create-index"
    text = str(advice)
    assert "create-index: gain 100x (" in text and "add-node: gain 1.3x (1.07-1.5)" in text and "over 3 run(s)" in text


def test_a_gain_from_too_few_runs_or_whose_interval_holds_one_is_not_recommended():
    once = Advisor([row("add-node", "scan", 1 / 2.7)]).recommend(scans=1)  # one run: no interval, whatever its size
    assert once.tactic is None and IMPRECISE in str(once) and "too few repeats for an interval" in str(once)
    noisy = Advisor(runs("add-node", "scan", [1 / 2.7, 1 / 0.8, 1 / 1.9])).recommend(scans=1)  # 1.6x on average, interval holds 1
    assert noisy.tactic is None and IMPRECISE in str(noisy) and "within noise" in str(noisy)
    table = Advisor(runs("add-node", "scan", [1 / 2.7, 1 / 0.8, 1 / 1.9])).table()
    assert table["p95_gain_low"].iloc[0] < 1 < table["p95_gain_high"].iloc[0] and not table["p95_gain_precise"].iloc[0]


def test_nothing_measured_for_the_kind_means_it_does_not_know():
    advice = Advisor([row("create-index", "query-by-tag", 0.01)]).recommend(reads=1)
    assert advice.tactic is None and "I do not know" in str(advice) and "read-heavy" in str(advice)


def test_an_unrecognised_mix_means_it_does_not_know():
    advice = Advisor([row("add-node", "read-heavy", 0.5)]).recommend(reads=0.6, inserts=0.4)
    assert advice.tactic is None and "I do not know" in str(advice)


def test_gains_below_the_threshold_and_unverified_runs_recommend_nothing():
    rows = [*runs("add-node", "read-heavy", [1 / (MIN_GAIN - 0.1)] * 3), *runs("node-cpu", "read-heavy", [0.1] * 3, verify_ok=False),
            *runs("consistency", "read-heavy", [0.1] * 3, error="TacticError: no")]
    advice = Advisor(rows).recommend(reads=1)
    assert advice.tactic is None and "no tactic recommended" in str(advice)
    assert "node-cpu" not in str(advice) and "consistency" not in str(advice)  # failed runs are not evidence


def test_the_throughput_goal_reads_throughput():
    rows = [*runs("add-node", "update-heavy", [1.0, 1.01, 0.99], tput_ratio=1.5), *runs("node-cpu", "update-heavy", [0.5, 0.52, 0.48], tput_ratio=1.0)]
    assert Advisor(rows).recommend(goal="throughput", updates=1, reads=1).tactic == "add-node"
    assert Advisor(rows).recommend(goal="latency", updates=1, reads=1).tactic == "node-cpu"
