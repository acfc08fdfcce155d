"""Exercise checks score each criterion (partial credit a grader can read), keep checking what does not depend
on a failed step, and stop a runaway submission at the time limit with a sentence, keeping the points earned
before it. No server: fake steps and an in-memory workload (runner unit tests only)."""

from __future__ import annotations

import threading
import time

import nbformat
import pytest

from labkit import grading
from labkit.errors import ConfigError
from labkit.patterns.exercise import Graded, check_all, run_step, time_limit_s
from tests.fakes import CountingWorkload


def own(report):
    return report.add("your methods are the ones that run", True)


def writes(report):
    return report.add("writes", True, "200 rows")


def read_path(report):
    return report.add("a read is one partition", False, "it read 3 partitions with ALLOW FILTERING")


def reads_back(report):
    return report.add("reads back what was written", True)


def test_a_half_right_design_scores_between_zero_and_full_and_names_what_failed():
    report = check_all("t", [Graded(own, 0), Graded(writes, 1, needs=[own]), Graded(read_path, 2, needs=[own]), Graded(reads_back, 1, needs=[writes])])
    assert not report.passed
    assert report.score() == 5.0  # 2 of the 4 points
    assert report.failed() == ["a read is one partition: it read 3 partitions with ALLOW FILTERING"]
    text = str(report)
    assert "✗ a read is one partition" in text and "score: 5 of 10" in text and "read path 0/2" in text


def test_a_step_whose_need_failed_is_not_checked_and_says_which():
    def bad_writes(report):
        return report.add("writes", False, "verify() found: 3 rows missing")

    report = check_all("t", [Graded(own, 0), Graded(bad_writes, 1, needs=[own]), Graded(reads_back, 1, needs=[bad_writes])])
    assert report.steps[-1] == ("reads back", False, "not checked: it needs “bad writes” to pass first")
    assert "– reads back" in str(report) and report.score() == 0.0
    assert report.failed()[-1].startswith("reads back: not checked")  # the real failure is named first


def test_a_step_with_partly_passed_lines_earns_its_share():
    def two_queries(report):
        report.add("van_track reads 1 partition", True)
        return report.add("vans_in_zone reads 1 partition", False, "index scan")

    assert check_all("t", [Graded(two_queries, 2)]).score() == 5.0


def test_plain_steps_need_every_step_before_them():
    def first(report):
        return report.add("first", False, "no")

    report = check_all("t", [first, writes])
    assert report.steps[-1][2] == "not checked: it needs “first” to pass first"


@pytest.mark.full  # full tier: a slow unit test (7.5 s of make test's unit run on 2026-12-03)
def test_a_step_stuck_in_a_loop_is_stopped_at_the_time_limit_and_the_rest_not_checked():
    def runaway(report):
        while True:  # a student's loop that never calls the database again
            pass

    started = time.monotonic()
    report = check_all("t", [Graded(writes, 1), Graded(runaway, 1, needs=()), Graded(reads_back, 1, needs=())], time_limit=0.5)
    assert time.monotonic() - started < 10
    step, ok, detail = report.steps[1]
    assert step == "runaway" and not ok and "stopped at the check's time limit (0.5 s)" in detail
    assert report.steps[2][2] == "not checked: the check's time limit came first"
    assert report.score() == pytest.approx(3.3)  # the points earned before it stay
    time.sleep(4)  # no stray interruption reaches this thread after the check has returned


class RunawayTransactions(CountingWorkload):
    """Every transaction after the first few spins forever without a database call (a read-modify-write loop
    whose exit condition is never met)."""

    def transaction(self, tx):
        super().transaction(tx)
        if tx.seq >= 3:
            while True:
                pass


def test_a_run_of_runaway_transactions_on_worker_threads_is_stopped_and_said():
    def run_it(report):
        return run_step(report, "100 transactions", RunawayTransactions(), 100, threads=2)

    started = time.monotonic()
    report = check_all("t", [Graded(run_it, 1), Graded(reads_back, 1, needs=())], time_limit=1.0)
    assert time.monotonic() - started < 15
    step, ok, detail = report.steps[0]
    assert step == "100 transactions" and not ok and "time limit (1 s)" in detail, str(report)
    assert not [t for t in threading.enumerate() if t.name.startswith("labkit-worker-")]  # the spinning workers are gone
    assert report.score() == 0.0


def test_the_time_limit_comes_from_the_environment_and_refuses_nonsense(monkeypatch):
    monkeypatch.setenv("LABKIT_CHECK_TIME_LIMIT", "45")
    assert time_limit_s() == 45
    monkeypatch.setenv("LABKIT_CHECK_TIME_LIMIT", "soon")
    with pytest.raises(ConfigError, match="LABKIT_CHECK_TIME_LIMIT='soon'.*seconds"):
        time_limit_s()


def test_nbgrader_reads_the_graded_cells_number_as_partial_credit():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("report.score(out_of=10)")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "points": 10, "grade_id": "x-check", "schema_version": 3, "task": False}
    cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "6.5"}, execution_count=1)]
    nb.cells.append(cell)
    assert grading.grade(nb) == (6.5, 10.0)
