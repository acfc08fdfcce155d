"""What is not measured runs without node budgets, and a verify() or cleanup() that cannot finish keeps
the measured run: the row says the verification was not done and why."""

import contextlib
import time

import pytest

from labkit.cli import _unverified
from labkit.errors import VerificationUnfinished
from labkit.results.verification import verification_report
from labkit.runner import RunOptions, Watch, run
from labkit.runner.server_cpu import NodeCpu, ServerCpu
from tests.fakes import CountingWorkload


class LiftingMeter:
    """Records when budgets were lifted (and whether it settled) and when its window opened."""

    def __init__(self):
        self.events = []
        self.lifted = False

    @contextlib.contextmanager
    def unbudgeted(self, settle=True):
        self.events.append(("lifted", settle))
        self.lifted = True
        try:
            yield
        finally:
            self.lifted = False
            self.events.append(("budgets back", None))

    def start(self):
        self.events.append(("meter start", None))
        self._t0 = time.monotonic()

    def stop(self):
        self.events.append(("meter stop", None))
        return ServerCpu(time.monotonic() - self._t0, {"node1": NodeCpu(0.01, 0.15)})


class NotesBudgets(CountingWorkload):
    def __init__(self, meter, verify_error=None, cleanup_error=None):
        super().__init__()
        self.meter, self.verify_error, self.cleanup_error = meter, verify_error, cleanup_error
        self.lifted_during = {}

    def __getstate__(self):
        state = super().__getstate__()
        state["meter"] = None
        return state

    def verify(self):
        self.lifted_during["verify"] = self.meter.lifted
        if self.verify_error:
            raise self.verify_error
        return super().verify()

    def cleanup(self):
        self.lifted_during["cleanup"] = self.meter.lifted
        if self.cleanup_error:
            raise self.cleanup_error


def test_verify_and_cleanup_run_without_budgets_and_the_window_keeps_them():
    meter = LiftingMeter()
    w = NotesBudgets(meter)
    r = run(w, threads=2, operations=20, options=RunOptions(warmup=4, cleanup=True), watch=Watch(server_meter=meter))
    assert r.verification.ok and w.lifted_during == {"verify": True, "cleanup": True}
    assert meter.events == [("lifted", True), ("budgets back", None), ("meter start", None), ("meter stop", None),
                            ("lifted", False), ("budgets back", None)]
    assert r.to_row()["verify_state"] == "ok" and r.to_row()["cleanup_problem"] == ""


@pytest.mark.parametrize("error", [VerificationUnfinished("reading ks.t, token range 3 of 64 timed out 4 times"), TimeoutError("coordinator gave up")])
def test_a_verify_that_cannot_finish_keeps_the_measured_row(error):
    meter = LiftingMeter()
    r = run(NotesBudgets(meter, verify_error=error), threads=2, operations=20, options=RunOptions(cleanup=True), watch=Watch(server_meter=meter))
    row = r.to_row()
    assert r.complete and row["count"] == 20 and row["throughput"] > 0
    assert row["verify_ok"] is None and row["verify_state"] == "unfinished"
    assert type(error).__name__ in row["verify_problems"] and str(error) in row["verify_problems"]
    assert ("budgets back", None) == meter.events[-1]  # the budgets came back although verify raised
    assert "NOT DONE" in r.summary()


def test_a_cleanup_that_fails_keeps_the_verified_row():
    r = run(NotesBudgets(LiftingMeter(), cleanup_error=RuntimeError("keyspace busy")), threads=1, operations=5, options=RunOptions(cleanup=True))
    assert r.verification.ok and r.to_row()["cleanup_problem"] == "cleanup() did not finish: RuntimeError: keyspace busy"


def test_reports_and_the_cli_say_when_verification_could_not_finish():
    import pandas as pd

    rows = [
        {"approach": "baseline/a", "nodes": 3, "threads": 8, "complete": True, "verify_ok": True, "verify_state": "ok"},
        {"approach": "baseline/a", "nodes": 3, "threads": 16, "complete": True, "verify_ok": None, "verify_state": "unfinished",
         "verify_problems": "verify() did not finish: VerificationUnfinished: reading ycsb.usertable, token range 3 of 64 timed out 4 times"},
    ]
    text = verification_report(pd.DataFrame(rows))
    assert "threads=16: NOT DONE" in text and "2 runs, 0 failed verification, 1 could not finish it" in text
    sentence = _unverified(rows)
    assert sentence.startswith("1 run(s) could not finish verifying (rows kept") and "baseline/a at 16 threads on 3 node(s)" in sentence
    assert _unverified(rows[:1]) == ""
