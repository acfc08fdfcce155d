"""The instructor's nbgrader course flow, exactly as INSTRUCTORS.md lists it, with nbgrader's own command-line
tools on one exercise: generate, release, three students fetch and submit from JupyterLab's Assignments tab (one solves
it, one writes a half-right design, one leaves it untouched), collect, autograde on real servers (every submission on the one node `labkit up`
started, as INSTRUCTORS.md suggests for a class), export. The solved one scores full marks,
the half-right one partial credit with its failed criteria named, the untouched one zero. The half-right and the
untouched submissions each carry a cell that fakes a pass in the kernel (`report`, `check_exercise` as the module's
attribute and as a bare name, the report's scoring, the grading helper): they still score what their designs earn.
And a lesson notebook released ungraded: the student runs it, submits, and `labkit predictions` reads the
class's predictions from what nbgrader collected."""

from __future__ import annotations

import contextlib
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from labkit import grading
from labkit.predictions import JUDGED, TOO_FEW
from lesson_runs import check_lesson, execute_lesson
from shared_clusters import said_in

REPO = Path(__file__).resolve().parents[2]
NBGRADER = str(Path(sys.executable).with_name("nbgrader"))
LABKIT = str(Path(sys.executable).with_name("labkit"))
EXERCISE = "02_index_table.ipynb"  # one node, the shortest check
ASSIGNMENT = "index-table"


def nbgrader(*args: str, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(NBGRADER).parent}{os.pathsep}{os.environ.get('PATH', '')}")  # nbgrader calls alembic by name
    done = subprocess.run([NBGRADER, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def as_the_assignments_tab(step: str, assignment: str, home: Path, student: str) -> None:
    """A student's fetch or submit as JupyterLab's Assignments tab makes it: nbgrader's exchange classes called in the
    Jupyter server's Python with the config read from the student's home (what the tab's handler,
    nbgrader.server_extensions.assignment_list, does), not a command line of its own (6 s each, mostly imports).
    On a hub nbgrader names the student after the Unix user; here one user submits for three, so the name is set."""
    from nbgrader.apps import NbGrader
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory

    with contextlib.chdir(home):  # the tab's handler reads nbgrader_config.py from the directory it serves
        app = NbGrader()
        app.load_config_file()
        config = app.config
        config.CourseDirectory.root = str(home)
        config.CourseDirectory.course_id = "lab"
        config.CourseDirectory.assignment_id = assignment
        config.CourseDirectory.student_id = student
        exchange = ExchangeFactory(config=config)
        action = {"fetch": exchange.FetchAssignment, "submit": exchange.Submit}[step]
        action(coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config), config=config).start()


def config(course: Path, exchange: Path) -> str:
    return (f"c = get_config()\nc.CourseDirectory.course_id = 'lab'\nc.CourseDirectory.root = {str(course)!r}\n"
            f"c.Exchange.root = {str(exchange)!r}\nc.Exchange.path_includes_course = True\n"
            "c.ExecutePreprocessor.timeout = 600\nc.Execute.timeout = 600\n")


HALF_RIGHT = (REPO / "solutions" / "submissions" / "02_index_table_half_right.py").read_text()  # a lookup table kept, a filtering login
HALF_RIGHT_SCORE = 6.7
"""What the half-right design earns, honestly: registration 1 + its path 2 + the login run 1 of the check's 6 points, not the
login's path (2); benchmarks/results/autograde_class.md measured 6.7 for each of 10 such submissions."""
FAKING = (REPO / "solutions" / "submissions" / "02_index_table_faking.py").read_text()  # rebinds what the old grade cell read


def write_solution_into(notebook: Path, code: str | None = None) -> None:
    """What a student who solved it hands in: the released notebook with the solution cells filled in (`code`:
    another student's own code instead of the solution's)."""
    solution = nbformat.read(REPO / "solutions" / EXERCISE, as_version=4)
    nbformat.write(grading.filled_in(nbformat.read(notebook, as_version=4), solution, code), notebook)


def add_faking_cell(notebook: Path) -> None:
    """A cell of the student's own after their code, before the grade cell, that fakes a pass in the kernel."""
    nb = nbformat.read(notebook, as_version=4)
    code = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "index_table-code")
    nb.cells.insert(code + 1, nbformat.v4.new_code_cell(FAKING))
    nbformat.write(nb, notebook)


def test_generate_release_submit_collect_autograde_export(tmp_path, one_node_up):
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    exchange.mkdir()
    exchange.chmod(0o777)
    shutil.copy(REPO / "solutions" / EXERCISE, course / "source" / ASSIGNMENT / EXERCISE)
    (course / "nbgrader_config.py").write_text(config(course, exchange))

    nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course)
    released = nbformat.read(course / "release" / ASSIGNMENT / EXERCISE, as_version=4)
    assert not any("BEGIN SOLUTION" in c.source for c in released.cells)  # the answers stay with the instructor
    nbgrader("release_assignment", ASSIGNMENT, "--force", cwd=course)

    for student in ("alice", "bob", "carol"):
        home = tmp_path / student
        home.mkdir()
        (home / "nbgrader_config.py").write_text(config(course, exchange).replace(f"c.CourseDirectory.root = {str(course)!r}\n", ""))
        as_the_assignments_tab("fetch", ASSIGNMENT, home, student)
        if student == "alice":
            write_solution_into(home / "lab" / ASSIGNMENT / EXERCISE)  # fetched into <course>/<assignment>
        if student == "carol":
            write_solution_into(home / "lab" / ASSIGNMENT / EXERCISE, HALF_RIGHT)
        if student in ("bob", "carol"):  # the grade must not read what these cells rebind
            add_faking_cell(home / "lab" / ASSIGNMENT / EXERCISE)
        as_the_assignments_tab("submit", ASSIGNMENT, home, student)

    nbgrader("collect", ASSIGNMENT, cwd=course)
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["alice", "bob", "carol"]
    # one node for every submission: the one `labkit up` started for the exercises before (tests/conftest.py)
    nbgrader("autograde", ASSIGNMENT, "--create", "--force", cwd=course, timeout=1500)
    nbgrader("export", "--to", str(tmp_path / "grades.csv"), cwd=course)

    grades = {row["student_id"]: float(row["score"]) for row in csv.DictReader((tmp_path / "grades.csv").open()) if row["assignment"] == ASSIGNMENT}
    # the "why" answer is the instructor's to mark (manual, 4 points): export counts the autograded points until then
    # bob and carol faked a pass in the kernel: each scores what the design earns (the old grade cell gave both 10)
    assert grades["alice"] == 10.0 and grades["bob"] == 0.0 and grades["carol"] == HALF_RIGHT_SCORE, grades

    def outputs(student: str) -> str:
        graded = nbformat.read(course / "autograded" / student / ASSIGNMENT / EXERCISE, as_version=4)
        return "".join(o.get("text", "") for c in graded.cells if c.cell_type == "code" for o in c.get("outputs", []))

    assert all("using the cluster `labkit up` started" in outputs(student) for student in ("alice", "bob", "carol"))  # none started its own
    assert "not written yet" in outputs("bob") and "PASSED" not in outputs("bob")  # bob's check told him what is missing
    carol = outputs("carol")  # carol's names the criterion she failed, and what she earned
    assert "✗ a login reads at most two partitions" in carol and "ALLOW FILTERING" in carol and f"score: {grades['carol']:g} of 10" in carol, carol
    assert "✓ a registration writes the user row and one row into each of your tables" in carol, carol


LESSON = "02_index_table.ipynb"


@pytest.mark.replaces_shared_cluster  # its 2-node budgeted sweep replaces the node: last of the one-node block
def test_a_lesson_released_ungraded_gives_back_the_students_predictions(tmp_path, one_node_up):
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    (course / "source" / "lesson-02").mkdir(parents=True)
    exchange.mkdir()
    exchange.chmod(0o777)
    shutil.copy(REPO / "notebooks" / LESSON, course / "source" / "lesson-02" / LESSON)  # the lesson as it is: no graded cells
    (course / "nbgrader_config.py").write_text(config(course, exchange))
    nbgrader("generate_assignment", "lesson-02", "--force", cwd=course)
    nbgrader("release_assignment", "lesson-02", "--force", cwd=course)

    home = tmp_path / "carol"
    home.mkdir()
    (home / "nbgrader_config.py").write_text(config(course, exchange).replace(f"c.CourseDirectory.root = {str(course)!r}\n", ""))
    as_the_assignments_tab("fetch", "lesson-02", home, "carol")
    fetched = home / "lab" / "lesson-02" / LESSON
    # the student runs the lesson (here papermill at the smoke sizes, her answers given as the notebook's parameter):
    # lesson 02's one execution in make test, checked as tests/lessons checks the others; it begins on the node
    # `labkit up` started and replaces it for its budgeted sweep on 2 nodes, as it would a student's
    run = execute_lesson("02_index_table", fetched, source=fetched, answers={"index_nodes": 1, "login_winner": "the secondary index"})
    check_lesson(run)
    said = said_in(run)
    assert "using the cluster `labkit up` started" in said, said[:2000]
    as_the_assignments_tab("submit", "lesson-02", home, "carol")
    nbgrader("collect", "lesson-02", cwd=course)

    done = subprocess.run([LABKIT, "predictions", str(course / "submitted"), "--out", str(tmp_path / "class.csv")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {r["question"]: r for r in csv.DictReader((tmp_path / "class.csv").open())}
    assert set(rows) >= {"index_nodes", "lookup_nodes", "register_winner", "login_winner", "budget_growth"}, rows
    assert all(r["student"] == "carol" and r["notebook"] == "02_index_table" for r in rows.values())
    index_nodes = rows["index_nodes"]
    assert index_nodes["prediction"] == "1" and index_nodes["verdict"] == ("right" if index_nodes["measured"] == "1" else "wrong"), index_nodes
    assert rows["login_winner"]["prediction"] == "the secondary index" and rows["register_winner"]["verdict"] in (*JUDGED, TOO_FEW), rows
