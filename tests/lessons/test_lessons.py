"""Every lesson notebook executed once, at the `smoke` sizes (every cell runs, each sweep at its smallest),
on real servers, with an answer given to every question: the notebook must run to its end, each verification
cell asserts what its runs verified (a failed or unfinished verify raises there), and every result card it
shows must carry a verdict on the answer given (tests/lesson_runs.py).

Lesson 02 is not here: the nbgrader lesson flow (tests/notebooks/test_nbgrader_course.py) executes it once at
the same sizes and checks it the same way, so no lesson runs twice in `make test`. make test-full runs every
lesson again at the quick sizes under nbval.

The lessons that begin on a cluster of one of the shared shapes (ON_SHARED: one unbudgeted node, three, two
datacenters) run on the cluster `labkit up` started, as a student who started one first does: the lesson says it uses
that cluster and leaves it up, or replaces it for a sweep of another shape as its slot would for a student
(tests/shared_clusters.py runs them in one block with the integration tests and exercises on that shape)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from labkit.home import clusters_dir
from labkit.host.processes import processes_under
from labkit.predictions import ABSENT, CARD_MIME, RIGHT, TOO_FEW, WRONG
from lesson_runs import check_lesson, execute_lesson, lessons
from shared_clusters import SHARED, said_in

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
EXECUTED_ELSEWHERE = {"02_index_table": "tests/notebooks/test_nbgrader_course.py (the lesson released through nbgrader)"}


NAMES = sorted(n for n in lessons() if n not in EXECUTED_ELSEWHERE)
ON_SHARED = {"03_enumerable_keys": "one_node", "08_your_design": "one_node", "01_uuid_key": "two_datacenters"}
REPLACES_SHARED = {"00_getting_started": "three_nodes"}  # its budget sweep's one node replaces the three (so it runs last on them)


def test_every_lesson_notebook_is_executed_once_by_make_test():
    on_disk = {p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert on_disk == set(lessons()), f"notebooks without a LESSON, or LESSONs without a notebook: {on_disk ^ set(lessons())}"
    assert set(NAMES) | set(EXECUTED_ELSEWHERE) == on_disk
    assert set(ON_SHARED) | set(REPLACES_SHARED) <= set(NAMES)


def labkit_jvms() -> set[int]:
    return {p.pid for p in processes_under(clusters_dir()) if "java" in p.name()}


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ON_SHARED and n not in REPLACES_SHARED])
def test_lesson_runs_every_cell_verifies_and_judges_every_card(name, tmp_path):
    before = labkit_jvms()
    check_lesson(execute_lesson(name, tmp_path / f"{name}.ipynb"))
    assert labkit_jvms() - before == set(), "the lesson left servers running: it must end by stopping what it started"


def on(shape: str) -> list[str]:
    return [name for name, its in ON_SHARED.items() if its == shape]


@pytest.mark.parametrize("name", on("one_node"))
def test_lesson_on_the_node_labkit_up_started_verifies_and_judges_every_card(name, tmp_path, one_node_up):
    nb = execute_lesson(name, tmp_path / f"{name}.ipynb")
    check_lesson(nb)
    SHARED.still_up(said_in(nb))


@pytest.mark.parametrize("name", on("two_datacenters"))
def test_lesson_on_the_two_datacenters_labkit_up_started_verifies_and_judges_every_card(name, tmp_path, two_datacenters_up):
    nb = execute_lesson(name, tmp_path / f"{name}.ipynb")
    check_lesson(nb)
    SHARED.still_up(said_in(nb))


@pytest.mark.replaces_shared_cluster
@pytest.mark.parametrize("name", [n for n, shape in REPLACES_SHARED.items() if shape == "three_nodes"])
def test_lesson_begins_on_the_three_nodes_labkit_up_started_verifies_and_judges_every_card(name, tmp_path, three_nodes_up):
    nb = execute_lesson(name, tmp_path / f"{name}.ipynb")
    check_lesson(nb)
    assert "using the cluster `labkit up` started" in said_in(nb), "the lesson started a cluster of its own beside the one `labkit up` started"
    assert labkit_jvms() == set(), "the lesson left servers running: it must end by stopping what it started"


def test_a_card_without_a_verdict_is_named():
    """The check above can fail: a card that lost the answer given, one that judged without a measurement and one
    with no verdict are each named; a card with too few repeats to judge is not a problem."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"parameters": {"predictions": {"a": 3, "b": 2, "c": 2, "d": 1, "e": 1}}}
    cards = [{"question": "a", "verdict": RIGHT, "measured": 3, "prediction": 3},
             {"question": "b", "verdict": ABSENT, "measured": 3, "prediction": None},
             {"question": "c", "verdict": WRONG, "measured": None, "prediction": 2},
             {"question": "d", "measured": 1, "prediction": 1},
             {"question": "e", "verdict": TOO_FEW, "measured": None, "prediction": 1}]
    cell = nbformat.v4.new_code_cell("card")
    cell.id = "cards"
    cell.outputs = [nbformat.v4.new_output("display_data", data={CARD_MIME: card, "text/plain": "card"}) for card in cards]
    nb.cells = [cell]
    with pytest.raises(AssertionError) as failed:
        check_lesson(nb)
    named = [line for line in str(failed.value).splitlines() if line.startswith("card ")]
    assert named == ["card b in cell cards: verdict 'no prediction' though the run answered it",
                     "card c in cell cards: verdict 'wrong' without a measured value (measured: None)",
                     "card d in cell cards: no verdict"], str(failed.value)
    nb.cells[0].outputs = nb.cells[0].outputs[:1] + nb.cells[0].outputs[4:]
    check_lesson(nb)  # a right card and a too-few-repeats one pass
    nb.cells[0].outputs = []
    with pytest.raises(AssertionError, match="showed no result card"):
        check_lesson(nb)
