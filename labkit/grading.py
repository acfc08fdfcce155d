"""Exercise notebooks in the form nbgrader reads, so an instructor's grading set-up takes them as they are; and the
grade cell's check, run where the student's kernel cannot reach it.

`solutions/` is the source. In each solution notebook the cell a student writes is an nbgrader solution cell
(its answers between `### BEGIN SOLUTION` and `### END SOLUTION`, the TODO hints outside them), and the grade cell
after it is a locked autograded cell whose number is the check's score. `exercises/` is generated from
`solutions/` with nbgrader's own preprocessors (ClearSolutions, ClearOutput): `python -m labkit.grading
generate`; `python -m labkit.grading check` says which exercise no longer matches its solution. `grade()`
scores an executed notebook's autograded cells with nbgrader's rule (a graded cell that raised scores nothing;
one whose result is a number scores that number: the check's partial credit); each exercise also has a
manually graded answer ("why your design"), which `manual_points()` lists.

The grade cell calls `graded()`: the student's class or function, pickled by value (cloudpickle), goes to a fresh
Python (`python -m labkit.grading run FOLDER`) that imports labkit from its files, reaches the same cluster, runs
the exercise's real `check_exercise` and hands back the report and the score. So a student's cell that rebinds
`report`, replaces `check_exercise` or patches the report's scoring in the kernel changes nothing the grade reads
(docs/exercises.md says what this does and does not defend against).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import linecache
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections import deque
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import nbformat  # imported where used: the check's own Python (`run`) starts without it

STUB = 'raise NotImplementedError("not written yet: see the TODO comments above")'
ROOT = Path(__file__).resolve().parents[1]
CHECKS: dict[str, tuple[str, str]] = {
    "replication": ("labkit.lessons.replication.exercise", "cluster"),
    "uuid_key": ("labkit.patterns.uuid_key.exercise", "cluster"),
    "index_table": ("labkit.patterns.index_table.exercise", "cluster"),
    "enumerable_keys": ("labkit.patterns.enumerable_keys.exercise", "cluster"),
    "fan_out": ("labkit.patterns.fan_out.exercise", "cluster"),
    "knee": ("labkit.workloads.ycsb.exercise", "slot"),
    "tactic": ("labkit.tactics.exercise", "slot"),
    "distorted_replicas": ("labkit.patterns.distorted_replicas.exercise", "cluster"),
    "your_design": ("labkit.profiles.exercise", "cluster"),
}
"""Each exercise's check, by the name its grade cell gives (its grade ids' prefix): the module whose `check_exercise`
grades it, and what that check is handed, the notebook's running `cluster` or, where the check starts the budgeted
node it measures, a `slot` like the notebook's."""
GRADE_MARGIN_S = 180.0
"""How much longer than the check's own time limit the grade cell waits for the check's Python (its start, a
cluster the check starts or a node it restarts, its tidying up) before stopping it."""


def student_version(solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The exercise a student gets: every solution region replaced by the stub, every output cleared."""
    from nbgrader.preprocessors import ClearOutput, ClearSolutions

    nb = copy.deepcopy(solution)
    nb, _ = ClearSolutions(code_stub={"python": STUB}).preprocess(nb, {})
    nb, _ = ClearOutput().preprocess(nb, {})
    return nb


def _normal(nb: nbformat.NotebookNode) -> str:
    import nbformat

    return nbformat.writes(nb)


def generate(solutions: Path = ROOT / "solutions", exercises: Path = ROOT / "exercises") -> list[Path]:
    """Write exercises/<name> for every solutions/<name>; return the files written."""
    import nbformat

    written = []
    for path in sorted(solutions.glob("*.ipynb")):
        target = exercises / path.name
        target.write_text(_normal(student_version(nbformat.read(path, as_version=4))))
        written.append(target)
    return written


def stale(solutions: Path = ROOT / "solutions", exercises: Path = ROOT / "exercises") -> list[str]:
    """Names whose exercise is missing or differs from what its solution generates."""
    import nbformat

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


def graded(exercise: str, design: Any, *, cluster: Any = None, slot: Any = None, **options: Any) -> float:
    """The grade cell's check: `design` (the student's class or function) checked by the exercise's real check in a
    fresh Python on the same cluster (`cluster`, or for a check that starts its own node, `slot`); prints the
    report and returns the score out of 10, which nbgrader reads as the cell's partial credit. `options` are the
    check's own (e.g. 08's `queries=`), given as literals: they travel as JSON.

    Why: a check run in the student's kernel reads what the kernel holds, and any cell can rebind `report`, the
    module's `check_exercise` or the report's scoring; the fresh Python gets only the design, the way to the cluster
    and the options."""
    module, kind = _check_of(exercise)
    reach = _reach(kind, cluster, slot)
    try:
        options = json.loads(json.dumps(options))
    except (TypeError, ValueError) as exc:
        from .errors import ConfigError

        raise ConfigError(f"the check's options travel as JSON: give them as literals in the grade cell ({exc})") from None
    try:
        sent = {"exercise": exercise, "design": _pickled(design), "sources": _sources(design), "reach": reach, "options": options}
    except Exception as exc:  # what the design holds cannot leave the kernel: say so, score nothing
        print(_refused(exercise, design, exc))
        return 0.0
    result = _run_fresh(sent)
    print(result["report"])
    return float(result["score"])


def _check_of(exercise: str) -> tuple[str, str]:
    if exercise not in CHECKS:
        from .errors import ConfigError

        raise ConfigError(f"no exercise named {exercise!r}: choose one of {', '.join(CHECKS)}")
    return CHECKS[exercise]


def _reach(kind: str, cluster: Any, slot: Any) -> tuple[str, Any]:
    """How the fresh Python reaches the notebook's cluster: the cluster itself, pickled (a provider's own class, no
    driver sessions: stdlib pickle cannot load a class a cell defined), or what makes a slot like the notebook's."""
    from .errors import ConfigError

    if kind == "slot":
        if slot is None or getattr(slot, "provider", None) is None:
            raise ConfigError("this check starts the node it measures: give the grade cell the notebook's slot (ClusterSlot.for_engine)")
        if slot.cluster is not None:  # one cluster at a time: the check's own Python starts the one it measures
            slot.on_change("stopping the notebook's cluster: the check starts the one it measures")
            slot.stop()
        return "slot", {"engine": slot.engine, "provider": slot.provider, "options": dict(slot.options or {})}
    cluster = cluster if cluster is not None else getattr(slot, "cluster", None)
    if cluster is None:
        raise ConfigError("no cluster to check on: run the cell that starts it (above your code) first")
    try:
        return "cluster", pickle.dumps(cluster)
    except Exception as exc:
        raise ConfigError(f"the cluster cannot be handed to the check's own Python ({type(exc).__name__}: {exc}): give the grade cell "
                          "the cluster the notebook's slot started") from None


def _pickled(design: Any) -> bytes:
    """The design by value (a notebook's class or function: its code, its attributes, what its globals name), the
    labkit classes and modules it uses by name, so the fresh Python's own, clean ones are what it runs with."""
    import cloudpickle

    return cloudpickle.dumps(design)


def _functions(design: Any) -> list[Any]:
    """The functions the design defines itself: a class's own methods and properties (not labkit's), or the function."""
    if not isinstance(design, type):
        return [design] if isinstance(getattr(design, "__code__", None), CodeType) else []
    found = []
    for klass in design.__mro__:
        if klass.__module__ == "builtins" or klass.__module__.split(".")[0] == "labkit":
            continue
        for value in vars(klass).values():
            for function in (getattr(value, "__func__", value), *(getattr(value, part, None) for part in ("fget", "fset", "fdel"))):
                if isinstance(getattr(function, "__code__", None), CodeType):
                    found.append(function)
    return found


def _sources(design: Any) -> dict[str, dict[str, Any]]:
    """Where each of the design's functions was written and that cell's text (IPython keeps a cell's source in
    linecache under a file name that is no file; cloudpickle sends code as "<dynamic-code>"), so a check that reads
    the source (exercise_paths.still_the_stub) reads it in the fresh Python too, and a traceback names the cell."""
    files = {f.__qualname__: f.__code__.co_filename for f in _functions(design)}
    lines = {name: list(linecache.getlines(name)) for name in set(files.values()) if not os.path.exists(name)}
    return {"files": files, "lines": {name: text for name, text in lines.items() if text}}


def _written_where_it_was(design: Any, sources: dict[str, dict[str, Any]]) -> None:
    """The fresh Python's side of `_sources`: each function's code named after its cell again, the cells in linecache."""
    for name, lines in sources["lines"].items():
        linecache.cache[name] = (sum(map(len, lines)), None, lines, name)  # mtime None: linecache keeps it, as IPython's own
    for function in _functions(design):
        cell_file = sources["files"].get(function.__qualname__)
        if cell_file and function.__code__.co_filename != cell_file:
            function.__code__ = _in_file(function.__code__, cell_file)


def _in_file(code: CodeType, name: str) -> CodeType:
    return code.replace(co_filename=name, co_consts=tuple(_in_file(c, name) if isinstance(c, CodeType) else c for c in code.co_consts))


def _refused(exercise: str, design: Any, exc: Exception) -> str:
    what = getattr(design, "__name__", type(design).__name__)
    return (f"NOT YET: {exercise} exercise ({what})\n"
            f"  ✗ your code reaches the check: {what} could not be sent to the check's own Python ({type(exc).__name__}: {exc}). "
            "Keep what it uses inside the class or function: a session, a lock or an open file of the notebook's cannot travel\n"
            "  score: 0 of 10")


def _run_fresh(sent: dict[str, Any]) -> dict[str, Any]:
    """Run `python -m labkit.grading run` on what the grade cell sent; its output shown as it comes (a check that
    starts a node says so), its report and score read back. -P: the notebook's folder is not on its path, so a
    `labkit` folder handed in beside the notebook is not what it imports."""
    from .errors import LabkitError
    from .patterns.exercise import time_limit_s

    with tempfile.TemporaryDirectory(prefix="labkit-grade-") as tmp:
        folder = Path(tmp)
        (folder / "sent.pickle").write_bytes(pickle.dumps(sent))
        child = subprocess.Popen([sys.executable, "-P", "-m", "labkit.grading", "run", str(folder)], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", bufsize=1,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})  # each line shown when it is said
        limit = time_limit_s() + GRADE_MARGIN_S
        watchdog = threading.Timer(limit, _stop, (child,))
        watchdog.daemon = True
        watchdog.start()
        said: deque[str] = deque(maxlen=30)
        try:
            assert child.stdout is not None
            for line in child.stdout:
                print(line, end="", flush=True)
                said.append(line)
            child.wait()
        finally:
            watchdog.cancel()
            if child.poll() is None:  # interrupted: the check's Python must not go on alone
                _stop(child)
        result = folder / "result.json"
        if child.returncode != 0 or not result.exists():
            why = f"stopped after {limit:g} s" if child.returncode in (-15, -9) else f"exit code {child.returncode}"
            raise LabkitError(f"the check's own Python ended without a report ({why}); its last lines:\n{''.join(said)[-3000:]}")
        return json.loads(result.read_text())


def _stop(child: subprocess.Popen) -> None:
    """SIGTERM first (labkit stops a cluster the check started on it), SIGKILL if it does not end."""
    child.terminate()
    try:
        child.wait(15)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def run_sent(folder: Path) -> int:
    """The check's own Python: read what the grade cell sent, run the exercise's check on it, write the report and
    the score to `folder`/result.json. labkit here is imported from its files; the kernel's rebindings never came."""
    sent = pickle.loads((folder / "sent.pickle").read_bytes())
    check = importlib.import_module(_check_of(sent["exercise"])[0]).check_exercise
    report = _checked(check, sent)
    (folder / "result.json").write_text(json.dumps({"report": str(report), "score": report.score(out_of=10)}))
    return 0


def _checked(check: Any, sent: dict[str, Any]) -> Any:
    """The check's report on the design, on the cluster reached afresh; a design or cluster that cannot be loaded
    here is a report too (its one criterion failed), never a traceback."""
    from .patterns.exercise import CheckReport

    try:
        design = pickle.loads(sent["design"])
        _written_where_it_was(design, sent["sources"])
    except Exception as exc:  # e.g. a module beside the notebook that the design names
        return _not_loaded(sent["exercise"], "your code reaches the check", f"it could not be loaded in the check's own Python ({type(exc).__name__}: {exc}): "
                           "define what it uses in the notebook's cell")
    kind, how = sent["reach"]
    try:
        reached, let_go = _reattached(kind, how)
    except Exception as exc:
        return _not_loaded(sent["exercise"], "the check reaches the cluster", f"the notebook's cluster could not be reached from the check's own Python "
                           f"({type(exc).__name__}: {exc}): give the grade cell the cluster the notebook started")
    try:
        report = check(design, reached, **sent["options"])
    finally:
        let_go()
    if not isinstance(report, CheckReport):
        raise TypeError(f"{sent['exercise']}'s check returned {type(report).__name__}, not a CheckReport")
    return report


def _not_loaded(exercise: str, step: str, detail: str) -> Any:
    """A report of one failed criterion, for what stopped the check before it began."""
    from .patterns.exercise import CheckReport

    report = CheckReport(f"{exercise} exercise")
    report.add(step, False, detail)
    report.criteria.append((step, 0.0, 1.0))
    return report


def _reattached(kind: str, how: Any) -> tuple[Any, Any]:
    """(what the check is handed, what lets it go afterwards): the notebook's cluster, unpickled (its servers keep
    running: only this copy's sessions close), or a slot like the notebook's, whose cluster is stopped at the end."""
    if kind == "slot":
        from .clusters.slot import ClusterSlot

        slot = ClusterSlot.for_engine(how["engine"], how["provider"], on_change=lambda message: print(message, flush=True), **how["options"])
        return slot, slot.stop
    cluster = pickle.loads(how)
    adoption = cluster.adoption()
    return cluster, (adoption.release if adoption is not None else lambda: None)  # an adopted cluster: `release` lets go, servers up


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labkit.grading", description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["generate", "check", "run"],
                        help="generate: write exercises/ from solutions/; check: list exercises that differ; run: the grade cell's own Python")
    parser.add_argument("folder", nargs="?", type=Path, help="run: the folder holding what the grade cell sent")
    args = parser.parse_args(argv)
    if args.action == "run":
        if args.folder is None:
            parser.error("run needs the folder a grade cell wrote")
        return run_sent(args.folder)
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
