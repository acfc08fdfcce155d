"""An exercise cannot be passed by deleting the student's methods, or by extending the library's binding
(the solution) instead of the exercise's stub: each check stops at its first step and says whose methods
ran, scores zero, and checks nothing else (every later step needs it). No server is touched: the check stops
before it needs one."""

from __future__ import annotations

import pytest

from labkit.patterns.distorted_replicas import exercise as distorted_exercise
from labkit.patterns.distorted_replicas.cassandra import DistortedReplicas
from labkit.patterns.enumerable_keys import exercise as enumerable_exercise
from labkit.patterns.enumerable_keys.mongodb import MongoComments
from labkit.patterns.fan_out import exercise as fan_out_exercise
from labkit.patterns.fan_out.cassandra import FanOut
from labkit.patterns.index_table import exercise as index_table_exercise
from labkit.patterns.index_table.cassandra import IndexTable
from labkit.patterns.uuid_key import exercise as uuid_key_exercise
from labkit.patterns.uuid_key.cassandra import UuidKey

CASES = [
    (index_table_exercise, index_table_exercise.IndexTableExercise, IndexTable, ("register", "login", "lookup_tables")),
    (fan_out_exercise, fan_out_exercise.FanOutExercise, FanOut, ("post", "read_page_pattern", "feed_tables")),
    (uuid_key_exercise, uuid_key_exercise.UuidKeyExercise, UuidKey, ("next_key", "new_key")),
    (enumerable_exercise, enumerable_exercise.MongoCommentsExercise, MongoComments, ("add", "read_page", "key")),
    (distorted_exercise, distorted_exercise.DistortedReplicasExercise, DistortedReplicas, ("publish", "withdraw", "author_tables", "publications_of")),
]
IDS = [c[1].__name__ for c in CASES]


class Unreachable:
    """A cluster no check may touch before it has confirmed whose methods run."""

    def __getattr__(self, name):
        raise AssertionError(f"the check used the cluster ({name}) before checking the student's methods")


@pytest.mark.parametrize("module,stub,binding,methods", CASES, ids=IDS)
def test_deleting_the_students_methods_fails_first(module, stub, binding, methods):
    empty = type("MyEmptyClass", (stub,), {})
    report = module.check_exercise(empty, Unreachable())
    assert not report.passed and report.skipped == set(range(1, len(report.steps))) and report.score() == 0, str(report)
    step, ok, detail = report.steps[0]
    assert not ok and "your methods" in step and f"{methods[0]}()" in detail and stub.__name__ in detail, detail


@pytest.mark.parametrize("module,stub,binding,methods", CASES, ids=IDS)
def test_extending_the_librarys_binding_fails_first(module, stub, binding, methods):
    around = type("MyClassAroundTheExercise", (binding,), {})
    report = module.check_exercise(around, Unreachable())
    assert not report.passed and report.skipped == set(range(1, len(report.steps))) and report.score() == 0, str(report)
    assert f"{binding.__module__}.{binding.__qualname__}" in report.steps[0][2]


def not_yet(self, *args):
    """The exercise's TODO, untouched."""
    self.asked = args  # a line the TODO leaves above the raise, as 01's next_key() does
    # TODO: the student's code goes here
    raise NotImplementedError("not written yet: see the TODO comments above")


def written(self, *args):
    if args:
        return self
    raise NotImplementedError("an unwritten branch after code that returns: written")


@pytest.mark.parametrize("module,stub,binding,methods", CASES, ids=IDS)
def test_a_class_with_every_method_its_own_passes_the_first_step(module, stub, binding, methods):
    own = type("MyClass", (stub,), {methods[0]: written, **{m: not_yet for m in methods[1:]}})  # one written: partial credit is possible
    own.__module__ = "__main__"  # as a notebook defines it
    from labkit.patterns.exercise import CheckReport
    from labkit.patterns.exercise_paths import own_methods

    report = CheckReport("first step")
    assert own_methods(report, own, methods), str(report)


@pytest.mark.parametrize("module,stub,binding,methods", CASES, ids=IDS)
def test_every_method_still_the_todo_stub_fails_first_without_a_server(module, stub, binding, methods):
    untouched = type("MyClass", (stub,), {m: not_yet for m in methods})
    untouched.__module__ = "__main__"
    report = module.check_exercise(untouched, Unreachable())
    assert not report.passed and report.skipped == set(range(1, len(report.steps))) and report.score() == 0, str(report)
    step, ok, detail = report.steps[0]
    assert not ok and detail.startswith("not written yet") and "TODO" in detail and f"{methods[0]}()" in detail, detail


def test_the_stub_is_told_from_written_code_by_what_the_body_can_do():
    from labkit.patterns.exercise_paths import still_the_stub

    def returns_first(self):
        if self:
            return 1
        raise NotImplementedError

    def raises_another(self):
        raise ValueError("mine")

    def loops_then_raises(self):
        for _ in range(3):
            pass
        raise NotImplementedError()

    assert still_the_stub(not_yet) and still_the_stub(loops_then_raises)
    assert not still_the_stub(written) and not still_the_stub(returns_first) and not still_the_stub(raises_another)
    assert not still_the_stub(len)  # no Python source to read: counts as written, the check runs it


def test_a_step_that_raises_fails_with_a_sentence_not_a_traceback():
    from labkit.patterns.exercise import check_all

    def page_path(report):
        raise NotImplementedError("not written yet: see the TODO comments above")

    def later(report):
        raise AssertionError("never reached")

    report = check_all("t", [lambda r: r.add("first", True), page_path, later])
    assert not report.passed and report.steps[1] == ("page path", False, "not written yet: see the TODO comments above")
    assert report.steps[2] == ("later", False, "not checked: it needs “page path” to pass first")

    def broken(report):
        raise KeyError("count")

    assert check_all("t", [broken]).steps == [("broken", False, "KeyError: 'count'")]


def test_a_refused_read_is_judged_on_its_path_first_then_named_in_one_sentence():
    """A read the servers refuse (an index still building) is graded on its path first: the judge sees the statements
    it sent, a right path that raised is one sentence naming both, and an unwritten method still raises."""
    from labkit.patterns.exercise_paths import RecordingSession, judged_call

    class Refusing:
        def execute(self, statement, *args, **kwargs):
            raise RuntimeError("Error from server: code=1300 [Replica(s) failed to execute read]\n received 0 responses")

    recorder = RecordingSession(Refusing())

    def login(n):
        return recorder.execute("SELECT id FROM ks.users_pattern WHERE email = %s", (f"user{n}",))

    seen = []
    found, wrong = judged_call(recorder, "login(3)", lambda: login(3), lambda done: seen.extend(done))
    assert found is None and [(s.verb, s.table, s.where) for s in seen] == [("SELECT", "users_pattern", ("email",))]
    assert wrong == ("login(3) ran SELECT id FROM ks.users_pattern WHERE email = %s and raised RuntimeError: Error from server: code=1300 "
                     "[Replica(s) failed to execute read] received 0 responses")
    _, wrong = judged_call(recorder, "login(3)", lambda: login(3), lambda done: "login(3) read through a secondary index")
    assert wrong == "login(3) read through a secondary index"  # the path's fault is named, not the error

    def unwritten(n):
        raise NotImplementedError("login() is not written yet")

    with pytest.raises(NotImplementedError):
        judged_call(recorder, "login(3)", lambda: unwritten(3), lambda done: None)
    _, wrong = judged_call(recorder, "login(3)", lambda: (_ for _ in ()).throw(KeyError("users")), lambda done: None)
    assert wrong == "login(3) raised KeyError: 'users'"  # nothing sent: the error alone
