"""Exercises are generated from the solutions with nbgrader's own preprocessors, and grade as nbgrader would.

Why: an instructor's grading set-up (nbgrader) reads solution regions and autograded cells; if exercises/ were
edited by hand they would drift from solutions/ and from what nbgrader's `generate_assignment` makes."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from labkit import grading

REPO = Path(__file__).resolve().parents[2]
NAMES = sorted(p.name for p in (REPO / "solutions").glob("*.ipynb"))


def test_every_solution_has_its_exercise():
    assert NAMES and NAMES == sorted(p.name for p in (REPO / "exercises").glob("*.ipynb"))


def test_exercises_are_what_the_solutions_generate():
    assert grading.stale() == [], "run `python -m labkit.grading generate` after editing solutions/"


@pytest.mark.parametrize("name", NAMES)
def test_solutions_are_nbgrader_notebooks(name):
    from nbgrader.utils import is_grade, is_solution

    nb = nbformat.read(REPO / "solutions" / name, as_version=4)
    code = [c for c in nb.cells if is_solution(c) and c.cell_type == "code"]
    why = [c for c in nb.cells if is_solution(c) and c.cell_type == "markdown"]
    graded = [c for c in nb.cells if is_grade(c) and not is_solution(c)]
    assert len(code) == 1 and "### BEGIN SOLUTION" in code[0].source and not is_grade(code[0])
    assert len(graded) == 1 and graded[0].metadata.nbgrader["points"] == 10 and graded[0].metadata.nbgrader["locked"]
    grade_cell(nb, graded[0], code[0])
    assert len(why) == 1 and is_grade(why[0]) and grading.manual_points(nb) == {why[0].metadata.nbgrader["grade_id"]: 4.0}
    assert "my check" in why[0].source.lower() or "my check's" in why[0].source.lower()  # the model answer quotes its own run's evidence
    assert len({c.metadata.nbgrader["grade_id"] for c in code + why + graded}) == 3
    exercise = grading.student_version(nb)
    stub = [c for c in exercise.cells if is_solution(c) and c.cell_type == "code"][0].source
    assert "BEGIN SOLUTION" not in stub and grading.STUB in stub and "# TODO" in stub
    assert [c.source for c in exercise.cells if is_solution(c) and c.cell_type == "markdown"] == ["YOUR ANSWER HERE"]
    assert " import exercise as " in nb.cells[2].source  # the exercise module, not the binding (the solution)


def grade_cell(nb: nbformat.NotebookNode, graded: nbformat.NotebookNode, code: nbformat.NotebookNode) -> None:
    """The check runs in the locked grade cell and nowhere else: after the student's code, before the cell that stops
    the cluster (the check needs it up); a fresh copy of the grader, the exercise's own check by name, its last line the
    score (nbgrader's partial credit)."""
    import ast
    import importlib

    cells = nb.cells
    at = {id(c): i for i, c in enumerate(cells)}
    stop = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "slot.stop()" in c.source)
    assert at[id(code)] < at[id(graded)] < stop
    assert not [c for c in cells if c is not graded and c.cell_type == "code" and re.search(r"check_exercise|^report\b", c.source, re.M)]
    assert 'importlib.reload(importlib.import_module("labkit.grading"))' in graded.source
    last = ast.parse(graded.source).body[-1]
    assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and last.value.func.attr == "graded"
    exercise, design = last.value.args[0].value, last.value.args[1].id
    module, reach = grading.CHECKS[exercise]
    assert graded.metadata.nbgrader["grade_id"] == f"{exercise}-check"
    assert [k.arg for k in last.value.keywords] == [reach] and last.value.keywords[0].value.id == reach
    assert re.search(rf"^(def|class) {design}\b", code.source, re.M)  # the student's own object
    assert module.rsplit(".", 1)[0] in cells[2].source and hasattr(importlib.import_module(module), "check_exercise")


@pytest.mark.parametrize("name", NAMES)
def test_todos_ask_for_the_decision_and_do_not_write_the_call(name):
    """The TODO comments a student gets state what the code must achieve; they name no statement to execute and
    no call to make (the decision is the exercise)."""
    import re

    stub = [c for c in grading.student_version(nbformat.read(REPO / "solutions" / name, as_version=4)).cells
            if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"][0].source
    todos = "\n".join(line for line in stub.splitlines() if line.strip().startswith("#"))
    for dictated in (r"st\.\w+", r"find_one_and_update|\$inc|\$in\b", r"BatchStatement|LOGGED", r"PRIMARY KEY|\(\(van, day\)|partitioned by what",
                     r"\.was_applied|uuid4", r"users_by_email|insert_lookup|by_email"):
        assert not re.search(dictated, todos), f"{name}: a TODO dictates {re.search(dictated, todos).group(0)!r}:\n{todos}"


@pytest.mark.parametrize("name", NAMES)
def test_the_exercise_base_class_holds_no_solution(name):
    """The class a student extends raises NotImplementedError for every method they write (a design exercise:
    the application's file the check reads has no design of the student's)."""
    import importlib
    import re

    nb = nbformat.read(REPO / "solutions" / name, as_version=4)
    module = importlib.import_module(re.search(r"from (labkit\.[\w.]+) import exercise", nb.cells[2].source).group(1) + ".exercise")
    code = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")][0].source
    if "def my_design(" in code:  # a design of one's own: the application's file holds only the naive design, never the student's
        import yaml

        designs = yaml.safe_load(module.BASE.read_text())["designs"]
        assert list(designs) == ["one_table"] and module.DESIGN not in designs
        return
    if not re.search(r"^class ", code, re.M):  # functions the student writes (notebook 00's choices): nothing in the module to inherit
        assert not any(hasattr(module, name) for name in re.findall(r"^def (\w+)\(", code, re.M))
        return
    base = getattr(module, re.search(r"class \w+\(\w+\.(\w+)\)", code).group(1))
    methods = re.findall(r"^    def (\w+)\(self", code, re.M)
    assert methods
    for method in methods:
        with pytest.raises(NotImplementedError, match="not written yet"):
            getattr(base, method)(object.__new__(base), *([None] * (getattr(base, method).__code__.co_argcount - 1)))


def test_grading_follows_nbgraders_rule():
    graded = nbformat.v4.new_code_cell("assert report.passed")
    graded.metadata["nbgrader"] = {"grade": True, "grade_id": "x", "locked": True, "points": 10, "schema_version": 3, "solution": False, "task": False}
    nb = nbformat.v4.new_notebook(cells=[graded])
    assert grading.grade(nb) == (10, 10)
    graded.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="not yet", traceback=[])]
    assert grading.grade(nb) == (0, 10)
