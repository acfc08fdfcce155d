"""`make run`: execute every notebook with papermill into build/ and write an HTML report there.

An instructor's overnight job: one failing notebook does not stop the others; the report says which
ones failed and where, and the exit code is non-zero when any did.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SIZES = ("smoke", "quick", "classroom")  # labkit.patterns.description.SIZES; each notebook reads its size as the parameter `profile`


@dataclass
class NotebookRun:
    name: str
    ok: bool
    seconds: float
    error: str = ""


def execute(notebook: Path, out_dir: Path, profile: str, timeout: int) -> NotebookRun:
    import os

    import papermill as pm

    from .predictions import BATCH_ENV
    from .report import export_html
    from .results.sink import SINK_ENV

    executed = out_dir / notebook.name
    rows = out_dir / f"{notebook.stem}.rows.csv"
    rows.unlink(missing_ok=True)
    before = {name: os.environ.get(name) for name in (SINK_ENV, BATCH_ENV)}  # the caller's, given back afterwards
    os.environ[SINK_ENV] = str(rows.resolve())  # the kernel inherits it: every sweep row lands there for the report
    os.environ[BATCH_ENV] = "1"  # no one answers a prediction here: recorded as absent, never awaited
    t0 = time.monotonic()
    error = ""
    try:
        pm.execute_notebook(
            str(notebook),
            str(executed),
            parameters={"profile": profile},
            cwd=str(notebook.parent),
            execution_timeout=timeout,
            progress_bar=False,
            log_output=False,
        )
    except Exception as exc:  # papermill still wrote the partly executed notebook with the error cell
        error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
    finally:
        for name, value in before.items():  # as the caller had them: a test session that runs nbval next stays a batch run
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    seconds = time.monotonic() - t0
    if executed.exists():
        export_html(executed, out_dir)
    return NotebookRun(notebook.stem, not error, seconds, error)


def write_report(runs: list[NotebookRun], out_dir: Path, profile: str) -> Path:
    from .report import write_report as write

    return write(runs, out_dir, profile)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labkit.batch", description=__doc__)
    parser.add_argument("--size", "--profile", dest="size", choices=SIZES, default="quick",
                        help="smoke: every cell at the smallest sizes (make test); quick: minutes (make run); classroom: the source's full sweeps "
                             "(--profile is the older name)")
    parser.add_argument("--notebooks", type=Path, default=Path("notebooks"))
    parser.add_argument("--out", type=Path, default=Path("build"))
    parser.add_argument("--timeout", type=int, default=3600, help="seconds one cell may run")
    parser.add_argument("names", nargs="*", help="only these notebooks (file names or stems)")
    args = parser.parse_args(argv)

    notebooks = sorted(args.notebooks.glob("[0-9]*.ipynb"))
    if args.names:
        notebooks = [n for n in notebooks if n.name in args.names or n.stem in args.names]
    if not notebooks:
        print(f"no notebooks to run in {args.notebooks}/ (expected files like 00_getting_started.ipynb)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    runs = []
    for nb in notebooks:
        print(f"running {nb.name} (size {args.size}) ...", flush=True)
        r = execute(nb, args.out, args.size, args.timeout)
        print(f"  {'ok' if r.ok else 'FAILED'} in {r.seconds:.0f} s {r.error}", flush=True)
        runs.append(r)
    report = write_report(runs, args.out, args.size)
    print(f"report: {report}")
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
