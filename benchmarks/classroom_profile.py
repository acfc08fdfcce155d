"""How long each notebook takes at the classroom profile on this machine, and what its live runs measured for
each question: the committed reference the class view sets beside a class's predictions.

    .venv/bin/python benchmarks/classroom_profile.py [names ...]
    .venv/bin/python benchmarks/classroom_profile.py --from-build DIR --log FILE [names ...]

The first form executes the notebooks (all nine: hours) with `labkit.batch` at `--profile classroom` into
build-classroom/; the second reads a run made with `python -m labkit.batch --profile classroom --out DIR`
(its printed log gives each notebook's time). Writes results/classroom_profile.csv/.md (notebook, ok, seconds)
and results/classroom_answers.csv (notebook, question, what the run measured, on the class view's axis), both
labelled with the machine and the date. Predictions are absent in a batch run; the measured answers are the point.

Eleven committed answers were withdrawn because their cards pooled conditions (#68): the "which serves more" cards
of 00, 02, 03, 04, 07 and 08 and 05's index saving put the runs of every thread count into one interval, 05's
HBase side by side those of both offered loads. The rows of those runs were not kept, so they cannot be read per
condition: the two whose runs had fewer than 3 repeats per condition (00 `faster_level`, one run per thread count;
05 `engines_reads`, 2 blocks per offered load) now answer "too few repeats to judge", the other nine
`labkit.class_view.WITHDRAWN`, until a classroom run of their notebook is measured again.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import date
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402

from labkit.batch import execute  # noqa: E402
from labkit.class_view import CLASSROOM_ANSWERS, class_rows  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "results"


def times_from_log(log: Path) -> dict[str, tuple[bool, float]]:
    """notebook stem -> (ok, seconds), from labkit.batch's printed lines."""
    found, current = {}, None
    for line in log.read_text().splitlines():
        started = re.match(r"running (\S+)\.ipynb \(profile classroom\)", line)
        if started:
            current = started.group(1)
        done = re.match(r"\s+(ok|FAILED) in (\d+) s", line)
        if done and current:
            found[current] = (done.group(1) == "ok", float(done.group(2)))
    return found


TIMES = OUT / "classroom_profile.csv"


def kept_with_their_labels(new: pd.DataFrame, committed: Path | None = None) -> pd.DataFrame:
    """`new` rows after the committed ones (`committed`: the times file by default) of the notebooks not run this
    time, each still labelled with the machine and date it was measured on (a run of one notebook must not relabel
    the others' rows as its own). Used for the times and for the measured answers."""
    committed = TIMES if committed is None else committed
    if not committed.exists():
        return new
    kept = pd.read_csv(committed, dtype=str if committed == CLASSROOM_ANSWERS else {"date": str})
    kept = kept[~kept.notebook.isin(new.notebook)][list(new.columns)]
    return pd.concat([kept, new], ignore_index=True).sort_values("notebook", kind="stable")


def write_times(profile: pd.DataFrame) -> None:
    """results/classroom_profile.csv and .md, one row per notebook with its own machine and date."""
    profile.to_csv(TIMES, index=False)
    table = profile.drop(columns=["machine"]).to_markdown(index=False)
    machines = "; ".join(f"{m} ({', '.join(profile[profile.machine == m].notebook)})" for m in profile.machine.unique())
    TIMES.with_suffix(".md").write_text("# Each notebook at profile classroom (papermill, one after another)\n\n"
                                        f"Machines: {machines}\n\nCommand: `.venv/bin/python benchmarks/classroom_profile.py [names ...]`\n\n{table}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from-build", type=Path, help="an existing classroom batch run's output folder")
    parser.add_argument("--log", type=Path, help="that run's printed log")
    parser.add_argument("names", nargs="*", help="only these notebooks (stems)")
    args = parser.parse_args()
    if args.from_build:
        if not args.log:
            raise SystemExit("--from-build needs --log: the batch run's printed lines give each notebook's time")
        build, times = args.from_build, times_from_log(args.log)
    else:
        build, times = REPO / "build-classroom", {}
        build.mkdir(exist_ok=True)
        for nb in sorted((REPO / "notebooks").glob("[0-9]*.ipynb")):
            if not args.names or nb.stem in args.names:
                print(f"running {nb.name} (profile classroom) ...", flush=True)
                run = execute(nb, build, "classroom", 3600)
                times[nb.stem] = (run.ok, run.seconds)
    if args.names:
        times = {k: v for k, v in times.items() if k in args.names}
    if not times:
        raise SystemExit("no notebook finished in that run")
    when, where = date.today().isoformat(), machine()
    profile = pd.DataFrame([{"notebook": k, "ok": ok, "seconds": round(s), "minutes": round(s / 60, 1), "date": when, "machine": where}
                            for k, (ok, s) in sorted(times.items())])
    profile = kept_with_their_labels(profile)
    write_times(profile)
    rows = class_rows([build / f"{k}.ipynb" for k, (ok, _s) in times.items() if ok and (build / f"{k}.ipynb").exists()])
    answers = rows[["notebook", "question", "measured", "measured_answer"]].copy()
    answers.insert(0, "date", when)
    answers.insert(0, "machine", where)
    kept_with_their_labels(answers, CLASSROOM_ANSWERS).to_csv(CLASSROOM_ANSWERS, index=False)
    print(profile.to_string(index=False))
    print(f"{len(answers)} answers from {answers.notebook.nunique()} notebooks written to {CLASSROOM_ANSWERS}")


if __name__ == "__main__":
    main()
