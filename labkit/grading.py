"""Exercise notebooks in the form nbgrader reads, so an instructor's grading set-up takes them as they are.

`solutions/` is the source. In each solution notebook the cell a student writes is an nbgrader solution cell
(its answers between `### BEGIN SOLUTION` and `### END SOLUTION`, the TODO hints outside them), and the last
cell is an autograded test cell that fails until the exercise's check passes. `exercises/` is generated from
`solutions/` with nbgrader's own preprocessors (ClearSolutions, ClearOutput): `python -m labkit.grading
generate`; `python -m labkit.grading check` says which exercise no longer matches its solution. `grade()`
scores an executed notebook's autograded cells with nbgrader's rule (a graded cell that raised scores nothing;
one whose result is a number scores that number: the check's partial credit); each exercise also has a
manually graded answer ("why your design"), which `manual_points()` lists.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import nbformat

STUB = 'raise NotImplementedError("not written yet: see the TODO comments above")'
ROOT = Path(__file__).resolve().parents[1]


def student_version(solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The exercise a student gets: every solution region replaced by the stub, every output cleared."""
    from nbgrader.preprocessors import ClearOutput, ClearSolutions

    nb = copy.deepcopy(solution)
    nb, _ = ClearSolutions(code_stub={"python": STUB}).preprocess(nb, {})
    nb, _ = ClearOutput().preprocess(nb, {})
    return nb


def _normal(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb)


def generate(solutions: Path = ROOT / "solutions", exercises: Path = ROOT / "exercises") -> list[Path]:
    """Write exercises/<name> for every solutions/<name>; return the files written."""
    written = []
    for path in sorted(solutions.glob("*.ipynb")):
        target = exercises / path.name
        target.write_text(_normal(student_version(nbformat.read(path, as_version=4))))
        written.append(target)
    return written


def stale(solutions: Path = ROOT / "solutions", exercises: Path = ROOT / "exercises") -> list[str]:
    """Names whose exercise is missing or differs from what its solution generates."""
    out = []
    for path in sorted(solutions.glob("*.ipynb")):
        target = exercises / path.name
        if not target.exists() or _normal(nbformat.read(target, as_version=4)) != _normal(student_version(nbformat.read(path, as_version=4))):
            out.append(path.name)
    return out


def grade(nb: nbformat.NotebookNode) -> tuple[float, float]:
    """(points scored, points possible) of an executed notebook's autograded cells, by nbgrader's rule: a cell
    that raised scores nothing, a cell whose result is a number scores that number (partial credit)."""
    from nbgrader.utils import determine_grade, is_grade, is_solution

    scored = possible = 0.0
    for cell in nb.cells:
        if is_grade(cell) and cell.cell_type == "code" and not is_solution(cell):
            points, most = determine_grade(cell)
            scored += points or 0.0
            possible += most
    return scored, possible


def manual_points(nb: nbformat.NotebookNode) -> dict[str, float]:
    """The manually graded answers (grade_id -> points): the instructor's to mark, with INSTRUCTORS.md's rubric."""
    from nbgrader.utils import is_grade, is_solution

    return {c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"]) for c in nb.cells if is_grade(c) and is_solution(c)}


def filled_in(released: nbformat.NotebookNode, solution: nbformat.NotebookNode, code: str | None = None) -> nbformat.NotebookNode:
    """A released exercise with its answer cells filled in from the solution (`code`: other code for the code cell,
    e.g. a half-right design), as a student would hand it in: for trying a grading set-up before a class does."""
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in solution.cells if c.metadata.get("nbgrader", {}).get("solution")}
    if code is not None:
        answers = {k: (code if k.endswith("-code") else v) for k, v in answers.items()}
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labkit.grading", description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["generate", "check"], help="generate: write exercises/ from solutions/; check: list exercises that differ")
    args = parser.parse_args(argv)
    if args.action == "generate":
        for path in generate():
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    differing = stale()
    for name in differing:
        print(f"exercises/{name} differs from what solutions/{name} generates: run `python -m labkit.grading generate`")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
