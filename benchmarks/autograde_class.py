"""How long nbgrader takes to autograde a class: 40 submissions of one exercise, on real servers.

    .venv/bin/python benchmarks/autograde_class.py [--students 40] [--exercise 02_index_table.ipynb]

Builds an nbgrader course from solutions/<exercise>, releases it, and hands in `students` submissions as
`nbgrader collect` leaves them in `submitted/`: half solved, a quarter half right (a lookup table kept, but a login that
scans the users with ALLOW FILTERING), a quarter untouched. Then times `nbgrader autograde --create`
over all of them (each submission runs its notebook: its own cluster start, check and stop, one at a time) and
`nbgrader export`, and writes results/autograde_class.csv and .md: the total, the time per submission and the
scores each kind got. Measured once and written down (INSTRUCTORS.md); not part of `make test`.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import write  # noqa: E402

from labkit import grading  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "results"
NBGRADER = str(Path(sys.executable).with_name("nbgrader"))
ASSIGNMENT = "class-exercise"
HALF_RIGHT_02 = (REPO / "solutions" / "submissions" / "02_index_table_half_right.py").read_text()  # shared with the nbgrader test


def nbgrader(*args: str, cwd: Path) -> float:
    env = dict(os.environ, PATH=f"{Path(NBGRADER).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    started = time.monotonic()
    done = subprocess.run([NBGRADER, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return time.monotonic() - started


def kind_of(i: int, students: int) -> str:
    return "solved" if i < students // 2 else "half right" if i < students * 3 // 4 else "untouched"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--exercise", default="02_index_table.ipynb")
    args = parser.parse_args()
    if args.exercise != "02_index_table.ipynb":
        raise SystemExit("only 02_index_table.ipynb has a half-right submission written here; add one for another exercise first")
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        (course / "source" / ASSIGNMENT).mkdir(parents=True)
        shutil.copy(REPO / "solutions" / args.exercise, course / "source" / ASSIGNMENT / args.exercise)
        (course / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.course_id = 'lab'\nc.CourseDirectory.root = {str(course)!r}\n"
            "c.ExecutePreprocessor.timeout = 600\nc.Execute.timeout = 600\n")
        nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course)
        released = nbformat.read(course / "release" / ASSIGNMENT / args.exercise, as_version=4)
        solution = nbformat.read(REPO / "solutions" / args.exercise, as_version=4)
        kinds = {}
        for i in range(args.students):
            student = f"s{i + 1:02d}"
            kinds[student] = kind = kind_of(i, args.students)
            handed_in = course / "submitted" / student / ASSIGNMENT
            handed_in.mkdir(parents=True)
            nb = released if kind == "untouched" else grading.filled_in(released, solution, HALF_RIGHT_02 if kind == "half right" else None)
            nbformat.write(nb, handed_in / args.exercise)
            (handed_in / "timestamp.txt").write_text(datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z"))
        autograde_s = nbgrader("autograde", ASSIGNMENT, "--create", "--force", cwd=course)
        nbgrader("export", "--to", str(Path(tmp) / "grades.csv"), cwd=course)
        grades = {r["student_id"]: float(r["score"]) for r in csv.DictReader((Path(tmp) / "grades.csv").open()) if r["assignment"] == ASSIGNMENT}
    rows = []
    for kind in ("solved", "half right", "untouched"):
        scores = sorted(grades[s] for s, k in kinds.items() if k == kind)
        rows.append({"exercise": args.exercise, "students": args.students, "autograde_s": round(autograde_s), "s_per_submission": round(autograde_s / args.students, 1),
                     "kind": kind, "submissions": len(scores), "scores": ", ".join(f"{v:g}" for v in sorted(set(scores))),
                     "min_score": min(scores), "max_score": max(scores)})
    df = pd.DataFrame(rows)
    print(df.to_string(index=False))
    write(df, OUT, "autograde_class", f"nbgrader autograde of {args.students} submissions of {args.exercise}", machine(),
          f".venv/bin/python benchmarks/autograde_class.py --students {args.students}")


if __name__ == "__main__":
    main()
