"""Exercises and their solutions, executed as a student's kernel would (papermill, real servers) and graded
as nbgrader grades them: a solution passes its check and scores full marks; an untouched exercise says
what is missing (no traceback in the check), leaves no server of its own running, and scores zero (the
graded cell's number, nbgrader's partial credit).

Two ways a student gets a cluster, both run here: the exercises whose check needs a cluster of its own (MongoDB's
stand-in, a node its check holds to a CPU budget) start and stop it in the notebook; those that need one Cassandra
node, three nodes (00: its check stops one and starts it again) or two datacenters (01) run on the cluster of that
shape `labkit up` started, as a student who started one does: the notebook uses it and leaves it up (one start for
them, the integration tests and lessons on that shape: fixtures `one_node_up`, `three_nodes_up`, `two_datacenters_up`,
tests/conftest.py).
Exercise 02 is not here: tests/notebooks/test_nbgrader_course.py submits it solved, untouched and half right on the
node `labkit up` started, so each of its versions executes once in make test."""

from __future__ import annotations

from pathlib import Path

import nbformat
import papermill as pm
import pytest

from labkit import grading
from shared_clusters import SHARED, jvms, said_in

REPO = Path(__file__).resolve().parents[2]
OWN_CLUSTER = ["03_enumerable_keys.ipynb", "05_ycsb_workloads.ipynb", "06_tactics.ipynb"]
ON_ONE_NODE_UP = ["04_fan_out_on_write.ipynb", "07_distorted_replicas.ipynb", "08_your_design.ipynb"]
ON_THREE_NODES_UP = ["00_getting_started.ipynb"]
ON_TWO_DATACENTERS_UP = ["01_uuid_key.ipynb"]


def execute(kind: str, name: str, out_dir: Path) -> nbformat.NotebookNode:
    """Run every cell; a notebook whose grade cell failed is kept for the checks below to say so."""
    out = out_dir / f"{kind}-{name}"
    try:
        pm.execute_notebook(str(REPO / kind / name), str(out), cwd=str(REPO / kind), progress_bar=False, execution_timeout=600)
    except pm.PapermillExecutionError:
        pass
    return nbformat.read(out, as_version=4)


def errors_in(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    return [(i, f"{o.ename}: {o.evalue}") for i, c in enumerate(nb.cells) if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]


def check_output(nb: nbformat.NotebookNode) -> str:
    """The report the grade cell printed (the check runs there, in a Python of its own)."""
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution"))
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, f"the grade cell raised instead of reporting: {errors[0].ename}: {errors[0].evalue}"
    text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    starts = [i for i in (text.find("PASSED:"), text.find("NOT YET:")) if i >= 0]
    return text[min(starts):] if starts else text  # from the report (a check that starts its own cluster says so first)


def check_solution(nb: nbformat.NotebookNode) -> None:
    text = check_output(nb)
    assert text.startswith("PASSED"), text
    assert "✗" not in text
    assert errors_in(nb) == []
    scored, possible = grading.grade(nb)
    assert possible > 0 and scored == possible


def check_untouched(nb: nbformat.NotebookNode) -> None:
    text = check_output(nb)
    assert text.startswith("NOT YET"), text
    assert "not written yet" in text and "TODO" in text, text
    assert "Traceback" not in text
    assert errors_in(nb) == []  # the grade cell gives its number (0) instead of failing
    assert grading.grade(nb) == (0, 10)


@pytest.mark.parametrize("name", OWN_CLUSTER)
def test_solution_passes_its_check_and_scores_full_marks(name, tmp_path):
    check_solution(execute("solutions", name, tmp_path))
    assert jvms() == set()  # the notebook stopped the cluster it started


@pytest.mark.full  # full tier: the untouched copies that start a cluster of their own or need three nodes or two datacenters (94 s); make test has the one-node ones
@pytest.mark.parametrize("name", OWN_CLUSTER + ON_THREE_NODES_UP + ON_TWO_DATACENTERS_UP)
def test_untouched_exercise_fails_its_check_helpfully_and_scores_zero(name, tmp_path):
    check_untouched(execute("exercises", name, tmp_path))
    assert jvms() == set()  # the stop cell after the grade stopped the cluster (05, 06: the check's own Python stopped the node it started)


@pytest.mark.parametrize("name", ON_THREE_NODES_UP)
def test_solution_on_the_three_nodes_labkit_up_started_scores_full_marks(name, tmp_path, three_nodes_up):
    nb = execute("solutions", name, tmp_path)
    check_solution(nb)
    SHARED.still_up(said_in(nb))


@pytest.mark.parametrize("name", ON_TWO_DATACENTERS_UP)
def test_solution_on_the_two_datacenters_labkit_up_started_scores_full_marks(name, tmp_path, two_datacenters_up):
    nb = execute("solutions", name, tmp_path)
    check_solution(nb)
    SHARED.still_up(said_in(nb))


def used_the_node_up(nb: nbformat.NotebookNode, jvms_up: set[int]) -> None:
    SHARED.still_up(said_in(nb))
    assert jvms() == jvms_up  # it started nothing of its own and left the node up


@pytest.mark.parametrize("name", ON_ONE_NODE_UP)
def test_solution_on_the_node_labkit_up_started_scores_full_marks(name, tmp_path, one_node_up):
    nb = execute("solutions", name, tmp_path)
    check_solution(nb)
    used_the_node_up(nb, one_node_up)


@pytest.mark.parametrize("name", ON_ONE_NODE_UP)
def test_untouched_exercise_on_the_node_labkit_up_started_scores_zero(name, tmp_path, one_node_up):
    nb = execute("exercises", name, tmp_path)
    check_untouched(nb)
    used_the_node_up(nb, one_node_up)
