"""Exercises and their solutions, executed as a student's kernel would (papermill, real Cassandra):
solutions pass their check; an untouched exercise says what is missing, without a traceback."""

from __future__ import annotations

from pathlib import Path

import nbformat
import papermill as pm
import pytest

from labkit.clusters.local.processes import processes_under
from labkit.clusters.registry import clusters_dir

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = ["01_uuid_key.ipynb", "02_index_table.ipynb", "03_enumerable_keys.ipynb", "04_fan_out_on_write.ipynb", "07_distorted_replicas.ipynb"]


def execute(kind: str, name: str, out_dir: Path) -> nbformat.NotebookNode:
    out = out_dir / f"{kind}-{name}"
    pm.execute_notebook(str(REPO / kind / name), str(out), cwd=str(REPO / kind), progress_bar=False, execution_timeout=600)
    return nbformat.read(out, as_version=4)


def check_output(nb: nbformat.NotebookNode) -> str:
    cell = next(c for c in nb.cells if c.cell_type == "code" and "check_exercise" in c.source)
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, f"the check cell raised instead of reporting: {errors[0].ename}: {errors[0].evalue}"
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def no_jvm_left() -> bool:
    return not [p for p in processes_under(clusters_dir()) if "java" in p.name()]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_solution_passes_its_check(name, tmp_path):
    text = check_output(execute("solutions", name, tmp_path))
    assert text.startswith("PASSED"), text
    assert "✗" not in text
    assert no_jvm_left()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_untouched_exercise_fails_its_check_with_a_helpful_message(name, tmp_path):
    text = check_output(execute("exercises", name, tmp_path))
    assert text.startswith("NOT YET"), text
    assert "not written yet" in text and "TODO" in text, text
    assert "Traceback" not in text
    assert no_jvm_left()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_exercise_and_solution_differ_only_in_the_code_cell(name):
    exercise = nbformat.read(REPO / "exercises" / name, as_version=4)
    solution = nbformat.read(REPO / "solutions" / name, as_version=4)
    assert len(exercise.cells) == len(solution.cells)
    differing = [i for i, (a, b) in enumerate(zip(exercise.cells, solution.cells)) if a.source != b.source]
    todo = [i for i, c in enumerate(exercise.cells) if "todo" in c.metadata.get("tags", [])]
    assert len(todo) == 1 and set(differing) <= {0, todo[0], todo[0] - 1}  # title, the code cell and its intro
    assert "raise NotImplementedError" in exercise.cells[todo[0]].source
    assert "NotImplementedError" not in solution.cells[todo[0]].source
