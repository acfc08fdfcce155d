"""Writes a benchmark's table as CSV and Markdown under benchmarks/results/, with machine and command."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def write(df: pd.DataFrame, out: Path, name: str, title: str, machine: str, command: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    df.insert(0, "machine", machine)
    df.to_csv(out / f"{name}.csv", index=False)
    table = df.drop(columns=["machine"]).to_markdown(index=False)
    (out / f"{name}.md").write_text(f"# {title}\n\nMachine: {machine}\n\nCommand: `{command}`\n\n{table}\n")


def profile_run(script: str, doc: str | None, extra=None):
    """The --quick switch every description-sized benchmark takes: (profile, file stem, command line, parsed
    arguments). `extra(parser)` adds a benchmark's own options; the command line is the one given."""
    import argparse
    import shlex
    import sys

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    name = Path(script).stem
    command = shlex.join([".venv/bin/python", f"benchmarks/{name}.py", *sys.argv[1:]])
    return "quick" if args.quick else "classroom", name + ("_quick" if args.quick else ""), command, args
