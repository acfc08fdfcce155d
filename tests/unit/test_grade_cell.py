"""The grade cell's check runs in a Python of its own, so what a student's cell rebinds in the kernel (`report`, the
module's `check_exercise`, the report's scoring, the grading helper) does not reach the score. No server: the
exercises here fail before their check asks one (untouched methods, a malformed choice), so the whole path runs,
kernel to fresh Python and back, on a cluster object that was never started.

A notebook's cells are run here as IPython runs them: each cell's source kept in linecache under a file name that is
no file, the last expression's value the cell's result (what nbgrader reads)."""

from __future__ import annotations

import ast
import importlib
import linecache
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
FAKING = (REPO / "solutions" / "submissions" / "02_index_table_faking.py").read_text()
OLD_GRADE_CELL = "report.score(out_of=10)  # nbgrader reads this number as the cell's partial credit"  # before issue 67


class Kernel:
    """A notebook's namespace, its cells run as IPython would (a cell's source in linecache, the last expression its result)."""

    def __init__(self, **names: Any):
        self.names: dict[str, Any] = {"__name__": "__main__", **names}
        self.count = 0

    def run(self, source: str) -> Any:
        self.count += 1
        filename = f"/tmp/ipykernel_labkit_test/{self.count}.py"  # IPython's form; no such file
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, filename, "exec"), self.names)
        return eval(compile(ast.Expression(last.value), filename, "eval"), self.names) if last else None


def cell(kind: str, name: str, nbgrader: str) -> str:
    """The source of a notebook's code cell that is an nbgrader `nbgrader` cell ("solution" or "grade")."""
    nb = nbformat.read(REPO / kind / name, as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get(nbgrader)
                and not (nbgrader == "grade" and c.metadata["nbgrader"].get("solution")))


@pytest.fixture
def undone():
    """What the faking cell rebinds in this process, put back afterwards."""
    import labkit.grading
    import labkit.patterns.exercise
    from labkit.patterns.index_table import exercise as index_table
    from labkit.tactics import exercise as tactic

    saved = [(labkit.patterns.exercise.CheckReport, "score"), (index_table, "check_exercise"), (tactic, "check_exercise"), (labkit.grading, "graded")]
    values = [getattr(owner, name) for owner, name in saved]
    yield
    for (owner, name), value in zip(saved, values):
        setattr(owner, name, value)


def test_the_old_grade_cell_scored_a_faked_report_and_the_new_one_scores_the_design(undone, capsys):
    """An untouched exercise 02 with the faking cell: the old grade cell read the faked `report` (10 of 10); the new
    one runs the real check in its own Python and scores the untouched design 0, saying what is not written."""
    from labkit.clusters.local.cassandra import LocalCassandraCluster
    from labkit.patterns.index_table import exercise as index_table

    kernel = Kernel(index_table=index_table, cluster=LocalCassandraCluster(nodes=1))  # never started: the check stops before a server
    kernel.run(cell("exercises", "02_index_table.ipynb", "solution"))  # the TODO stubs, untouched
    kernel.run(FAKING)
    assert kernel.run(OLD_GRADE_CELL) == 10.0  # the defect: a grade read from what the student's cell rewrote
    assert kernel.run(cell("solutions", "02_index_table.ipynb", "grade")) == 0.0
    said = capsys.readouterr().out
    assert "NOT YET: Index Table exercise (MyIndexTable)" in said and "PASSED" not in said, said
    # read from the cell's source in the fresh Python (sent with the design), so no server was asked
    assert "register(), login(), lookup_tables() each still raise NotImplementedError" in said, said


@pytest.mark.full  # full tier: a slow unit test (3.0 s of make test's unit run on 2026-12-03)
def test_a_check_that_starts_its_own_node_is_run_on_a_slot_made_afresh(undone, capsys):
    """Exercise 06 hands its check a slot: the fresh Python makes one like the notebook's; a malformed choice with a
    faked check in the kernel still scores 0 with the real check's sentence."""
    from labkit.clusters.slot import ClusterSlot
    from labkit.tactics import exercise as tactic

    kernel = Kernel(tactic=tactic, slot=ClusterSlot.for_engine("cassandra", "local", on_change=print))
    kernel.run("def my_choice():\n    return {'tactic': 'more-memory', 'predicted_gain': 2}\n")
    kernel.run("class Passed:\n    def score(self, out_of=10):\n        return 10.0\n\n"
               "tactic.check_exercise = lambda *args, **kwargs: Passed()\nreport = Passed()\n")
    assert kernel.run(cell("solutions", "06_tactics.ipynb", "grade")) == 0.0
    said = capsys.readouterr().out
    assert "✗ your choice is complete: tactic 'more-memory' is not one of create-index-sai" in said, said


def test_a_design_that_cannot_leave_the_kernel_is_refused_in_a_sentence(capsys):
    """A function that holds something of the kernel's (a lock) cannot be sent: no score, a sentence, no traceback."""
    from labkit import grading
    from labkit.clusters.local.cassandra import LocalCassandraCluster

    kernel = Kernel(threading=threading)
    kernel.run("guard = threading.Lock()\n\ndef my_choices():\n    with guard:\n        return {}\n")
    assert grading.graded("replication", kernel.names["my_choices"], cluster=LocalCassandraCluster(nodes=3)) == 0.0
    said = capsys.readouterr().out
    assert said.startswith("NOT YET") and "my_choices could not be sent to the check's own Python" in said and "lock" in said, said


def test_every_exercise_names_a_check_the_grader_knows():
    from labkit import grading

    for exercise, (module, reach) in grading.CHECKS.items():
        assert reach in ("cluster", "slot") and callable(importlib.import_module(module).check_exercise), exercise
    with pytest.raises(Exception, match="no exercise named 'index-table'"):
        grading.graded("index-table", object)
