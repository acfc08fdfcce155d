"""The choice exercises (notebooks 00, 05, 06) refuse a malformed answer with a sentence that says what to give,
before any server is touched, and an unwritten one says "not written yet". No server: the check stops at its
first criterion."""

from __future__ import annotations

import pytest

from labkit.errors import ConfigError
from labkit.lessons.replication import exercise as replication
from labkit.tactics import exercise as tactic
from labkit.workloads.ycsb import exercise as knee


class Untouchable:
    def __getattr__(self, name):
        raise AssertionError(f"the check used the cluster ({name}) before the answer was complete")


def test_replicas_waited_for_follow_the_levels():
    assert [replication.replicas_waited_for(level, 3) for level in ("ONE", "TWO", "QUORUM", "ALL")] == [1, 2, 2, 3]
    assert replication.replicas_waited_for("QUORUM", 2) == 2 and replication.replicas_waited_for("LOCAL_QUORUM", 5) == 3


@pytest.mark.parametrize("answer,said", [
    ({"cart": {"replication_factor": 3, "write": "QUORUM", "read": "QUORUM"}}, "one entry per application"),
    ({"cart": {"replication_factor": 4, "write": "ONE", "read": "ONE"}, "views": {"replication_factor": 1, "write": "ONE", "read": "ONE"}}, "from 1 to 3"),
    ({"cart": {"replication_factor": 2, "write": "THREE", "read": "ONE"}, "views": {"replication_factor": 1, "write": "ONE", "read": "ONE"}}, "waits for 3 replicas"),
    ({"cart": {"replication_factor": 2, "write": "MOST", "read": "ONE"}, "views": {"replication_factor": 1, "write": "ONE", "read": "ONE"}}, "is not one of"),
])
def test_a_malformed_replication_answer_is_refused_with_what_to_give(answer, said):
    with pytest.raises(ConfigError, match=said):
        replication.read_choices(lambda: answer)
    report = replication.check_exercise(lambda: answer, Untouchable())
    assert said in report.steps[0][2] and report.score() == 0 and report.skipped == set(range(1, len(report.steps)))


@pytest.mark.parametrize("answer,said", [
    ({"predicted_knee": 300}, "returns"),
    ({"predicted_knee": -1, "offered": [100, 200]}, "above 0"),
    ({"predicted_knee": 300, "offered": [100]}, "2 to 6"),
    ({"predicted_knee": 300, "offered": [100, 100, 200]}, "twice"),
    ({"predicted_knee": 300, "offered": [100, 20000]}, "up to 4,000/s"),
])
def test_a_malformed_experiment_is_refused_with_what_to_give(answer, said):
    with pytest.raises(ConfigError, match=said):
        knee.read_experiment(lambda: answer)
    assert said in knee.check_exercise(lambda: answer, Untouchable()).steps[0][2]


@pytest.mark.parametrize("answer,said", [
    ({"tactic": "add-node", "predicted_gain": 2}, "not one of"),
    ({"tactic": "create-index-sai", "predicted_gain": 0}, "above 0"),
    ("create-index-sai", "returns"),
])
def test_a_malformed_tactic_choice_is_refused_with_what_to_give(answer, said):
    with pytest.raises(ConfigError, match=said):
        tactic.read_choice(lambda: answer)
    assert said in tactic.check_exercise(lambda: answer, Untouchable()).steps[0][2]


@pytest.mark.parametrize("check", [replication.check_exercise, knee.check_exercise, tactic.check_exercise])
def test_an_unwritten_answer_says_not_written_yet(check):
    def stub():
        raise NotImplementedError("not written yet: see the TODO comments above")

    report = check(stub, Untouchable())
    assert report.steps[0][2] == "not written yet: see the TODO comments above" and report.score() == 0


def test_a_tactic_removes_the_cause_when_the_work_per_query_halves_beyond_noise():
    from labkit.results.intervals import RatioInterval

    assert tactic.removes_the_cause(RatioInterval(0.25, 0.11, 0.62, 3, "t"))  # SAI in a noisy CI run: a wide interval, still below 1
    assert not tactic.removes_the_cause(RatioInterval(0.95, 0.72, 1.2, 3, "t"))  # twice the CPU: the same work per query
    assert not tactic.removes_the_cause(RatioInterval(0.7, 0.6, 0.8, 3, "t"))  # a fall, but not the scan gone
    assert not tactic.removes_the_cause(RatioInterval(0.3, 0.2, 0.4, 1, "spread"))  # one pair: no interval
    assert not tactic.removes_the_cause(None)
