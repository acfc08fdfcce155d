"""Exercises and their solutions, executed as a student's kernel would (papermill, real servers) and graded
as nbgrader grades them: a solution passes its check and scores full marks; an untouched exercise says
what is missing (no traceback in the check), stops its cluster, and scores zero (the graded cell's number,
nbgrader's partial credit)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import papermill as pm
import pytest

from labkit import grading
from labkit.host.processes import processes_under
from labkit.clusters.registry import clusters_dir

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = ["00_getting_started.ipynb", "01_uuid_key.ipynb", "02_index_table.ipynb", "03_enumerable_keys.ipynb", "04_fan_out_on_write.ipynb", "05_ycsb_workloads.ipynb", "06_tactics.ipynb", "07_distorted_replicas.ipynb", "08_your_design.ipynb"]


def execute(kind: str, name: str, out_dir: Path) -> nbformat.NotebookNode:
    """Run every cell; a failing graded cell (the last) is what an unpassed exercise does, so it is kept."""
    out = out_dir / f"{kind}-{name}"
    try:
        pm.execute_notebook(str(REPO / kind / name), str(out), cwd=str(REPO / kind), progress_bar=False, execution_timeout=600)
    except pm.PapermillExecutionError:
        pass
    return nbformat.read(out, as_version=4)


def errors_in(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    return [(i, f"{o.ename}: {o.evalue}") for i, c in enumerate(nb.cells) if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]


def check_output(nb: nbformat.NotebookNode) -> str:
    cell = next(c for c in nb.cells if c.cell_type == "code" and "check_exercise" in c.source)
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, f"the check cell raised instead of reporting: {errors[0].ename}: {errors[0].evalue}"
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    starts = [i for i in (text.find("PASSED:"), text.find("NOT YET:")) if i >= 0]
    return text[min(starts):] if starts else text  # from the report (a check that starts its own cluster says so first)


def no_jvm_left() -> bool:
    return not [p for p in processes_under(clusters_dir()) if "java" in p.name()]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_solution_passes_its_check_and_scores_full_marks(name, tmp_path):
    nb = execute("solutions", name, tmp_path)
    text = check_output(nb)
    assert text.startswith("PASSED"), text
    assert "✗" not in text
    assert errors_in(nb) == []
    scored, possible = grading.grade(nb)
    assert possible > 0 and scored == possible
    assert no_jvm_left()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_untouched_exercise_fails_its_check_helpfully_and_scores_zero(name, tmp_path):
    nb = execute("exercises", name, tmp_path)
    text = check_output(nb)
    assert text.startswith("NOT YET"), text
    assert "not written yet" in text and "TODO" in text, text
    assert "Traceback" not in text
    assert errors_in(nb) == []  # the graded cell gives its number (0) instead of failing
    assert grading.grade(nb) == (0, 10)
    assert no_jvm_left()  # the cell before the grade stopped the cluster
