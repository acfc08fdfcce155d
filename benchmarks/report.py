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


def profile_run(script: str, doc: str | None) -> tuple[str, str, str]:
    """The --quick switch every description-sized benchmark takes: (profile, file stem, command line)."""
    import argparse

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    quick = parser.parse_args().quick
    name = Path(script).stem
    return ("quick" if quick else "classroom", name + ("_quick" if quick else ""), f".venv/bin/python benchmarks/{name}.py" + (" --quick" if quick else ""))
