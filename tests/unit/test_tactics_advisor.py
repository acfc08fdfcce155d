"""The tactic advisor decides only from measured rows, says why, and says when it does not know."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.tactics.advisor import MIN_GAIN, Advisor, kind_of


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


def test_the_largest_measured_gain_wins_and_the_reasoning_lists_every_tactic():
    advice = Advisor([row("create-index", "query-by-tag", 0.01), row("add-node", "query-by-tag", 0.8)]).recommend(non_key_queries=1)
    assert advice.tactic == "create-index"
    text = str(advice)
    assert "create-index: gain 100.0x" in text and "add-node: gain 1.25x" in text


def test_nothing_measured_for_the_kind_means_it_does_not_know():
    advice = Advisor([row("create-index", "query-by-tag", 0.01)]).recommend(reads=1)
    assert advice.tactic is None and "I do not know" in str(advice) and "read-heavy" in str(advice)


def test_an_unrecognised_mix_means_it_does_not_know():
    advice = Advisor([row("add-node", "read-heavy", 0.5)]).recommend(reads=0.6, inserts=0.4)
    assert advice.tactic is None and "I do not know" in str(advice)


def test_gains_below_the_threshold_and_unverified_runs_recommend_nothing():
    rows = [row("add-node", "read-heavy", 1 / (MIN_GAIN - 0.1)), row("node-cpu", "read-heavy", 0.1, verify_ok=False),
            row("consistency", "read-heavy", 0.1, error="TacticError: no")]
    advice = Advisor(rows).recommend(reads=1)
    assert advice.tactic is None and "no tactic recommended" in str(advice)
    assert "node-cpu" not in str(advice) and "consistency" not in str(advice)  # failed runs are not evidence


def test_the_throughput_goal_reads_throughput():
    rows = [row("add-node", "update-heavy", 1.0, tput_ratio=1.5), row("node-cpu", "update-heavy", 0.5, tput_ratio=1.0)]
    assert Advisor(rows).recommend(goal="throughput", updates=1, reads=1).tactic == "add-node"
    assert Advisor(rows).recommend(goal="latency", updates=1, reads=1).tactic == "node-cpu"
