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
