"""Tactics applied under a fixed offered load on budgeted Cassandra nodes: per-second timelines with the
moment each tactic started and the moment the server confirmed it, and what it cost and bought.

    .venv/bin/python benchmarks/tactics.py            # classroom: labkit.tactics.scenarios.CLASSROOM, 3 rounds (about 60 min)
    .venv/bin/python benchmarks/tactics.py --quick    # the notebook's runs, one round: checks the script, claims nothing

Runs, in order: a storage-attached and a legacy index created under queries by a non-key column (1 node,
0.5 core, 20,000 records); the client switched from ONE to QUORUM (RF 3); the replication factor raised
from 1 to 3 with a repair, under inserts; and for a read-heavy, a write-heavy and a scan load on 3 nodes
of 0.25 core: each node's budget raised to 0.5 core, a fourth node added, and that node decommissioned.
Writes results/tactics.csv (one row per run, every column), results/tactics_timeline.csv (per second), results/tactics.md
and one figure per run (results/tactics_<run>.html/.png).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figure  # noqa: E402
from report import profile_run, write  # noqa: E402

from labkit.results.tactic_timeline import tactic_figure  # noqa: E402
from labkit.tactics.advisor import Advisor  # noqa: E402
from labkit.tactics.scenarios import run_scenarios, scenarios  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
REPEATS = 3
"""Rounds of every run (each tactic once per round): the advisor gives a gain an interval from 3 runs up."""
COLUMNS = ["run", "repeat", "engine", "server_version", "provider", "nodes_before", "nodes_after", "node_cpu_before", "node_cpu_after", "threads",
           "tactic", "workload_kind", "offered", "started_s", "took_s", "effective_within_run", "tactic_error", "evidence",
           "before_throughput", "during_throughput", "after_throughput", "before_p95_ms", "during_p95_ms", "settling_p95_ms", "after_p95_ms",
           "during_errors", "before_server_cpu_ms_per_tx", "after_server_cpu_ms_per_tx", "extra_server_core_s_during",
           "p95_during_vs_before", "p95_after_vs_before", "throughput_after_vs_before", "before_limit", "during_limit", "after_limit",
           "verify_ok"]


def main() -> None:
    profile, stem, command, _ = profile_run(__file__, __doc__)
    runs = run_scenarios(scenarios(profile), progress=print, repeats=1 if profile == "quick" else REPEATS)
    rows = [r.row() for r in runs]
    df = pd.DataFrame(rows)
    timeline = pd.DataFrame([{"run": r.labels["run"], "repeat": r.labels["repeat"], **t} for r in runs for t in r.timeline_rows()])
    OUT.mkdir(parents=True, exist_ok=True)
    timeline.to_csv(OUT / f"{stem}_timeline.csv", index=False)
    for r, row in zip(runs, rows):
        if r.labels["repeat"] == 0:  # one figure per run: the first round's (the table holds every round)
            save_figure(tactic_figure(r.timeline_rows(), row), OUT / f"{stem}_{r.labels['run']}", height=720)
    table = df[COLUMNS].copy()
    for col in ("before_p95_ms", "during_p95_ms", "settling_p95_ms", "after_p95_ms"):
        table[col] = table[col].round(1)
    write(table, OUT, stem, f"Tactics under load ({profile}): timelines, cost while running, gain afterwards", machine(), command)
    df.insert(0, "machine", machine())
    df.to_csv(OUT / f"{stem}.csv", index=False)  # every column of TacticRun.row(), the settling window's too (the .md keeps the main ones)
    advice = Advisor(rows).table()
    with open(OUT / f"{stem}.md", "a") as f:
        f.write("\n## What the advisor reads from these runs\n\n" + advice.to_markdown(index=False) + "\n")
    print(table.to_string(index=False))
    print(advice.to_string(index=False))


if __name__ == "__main__":
    main()
