"""Classroom sweeps of the Index Table, Fan-out and Enumerable Keys patterns on the embedded Cassandra cluster.

    .venv/bin/python benchmarks/pattern_sweeps.py index-table      # register at 4 nodes; login at 1, 2, 4 nodes
    .venv/bin/python benchmarks/pattern_sweeps.py fan-out          # post and paginate at 4 nodes
    .venv/bin/python benchmarks/pattern_sweeps.py enumerable-keys  # Cassandra only: write and paginate at 3 nodes
    .venv/bin/python benchmarks/pattern_sweeps.py index-table --quick   # a 2-minute smoke version

Writes results/<pattern>_<phase>.csv (one labelled row per run), a figure per phase (.html, and .png
when kaleido finds a Chromium), and results/<pattern>_ratios.md: the pattern/naive ratios the
notebooks quote. The cluster is stopped at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.patterns import pattern_module  # noqa: E402
from labkit.patterns.sweeps import run_pattern_sweep  # noqa: E402
from labkit.results import SweepPlan, latency_figure, throughput_figure  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"

# (phase, nodes, threads, operations, data sizes): the source's shapes, scaled to a 2-core laptop
CLASSROOM = {
    "index-table": [
        ("register", [4], list(range(10, 101, 10)), 3000, {}),
        ("login", [1, 2, 4], list(range(10, 101, 10)), 3000, {"users": 20000}),
    ],
    "enumerable-keys": [
        ("write", [3], list(range(10, 101, 10)), 3000, {}),
        ("paginate", [3], list(range(10, 101, 10)), 3000, {"comments": 3000, "delete_every": 7}),
    ],
    "fan-out": [
        ("post", [4], [10, 20, 40, 60, 80, 100], 2000, {"users": 200, "follows": 20, "posts": 10}),
        ("paginate", [4], [10, 20, 40, 60, 80, 100], 2000, {"users": 200, "follows": 20, "posts": 10}),
    ],
}
QUICK = {
    "index-table": [("register", [2], [4, 16], 500, {}), ("login", [1, 2], [4, 16], 500, {"users": 1000})],
    "enumerable-keys": [("write", [1], [4, 16], 300, {}), ("paginate", [1], [4, 16], 300, {"comments": 300, "delete_every": 7})],
    "fan-out": [("post", [2], [4, 16], 300, {"users": 40, "follows": 10, "posts": 8}), ("paginate", [2], [4, 16], 300, {"users": 40, "follows": 10, "posts": 8})],
}
COLUMNS = ["engine", "server_version", "provider", "pattern", "nodes", "phase", "approach", "threads", "operations", "throughput",
           "mean_us", "p95_us", "p99_us", "errors", "retries", "verify_ok", "client_cpu_cores", "client_saturated"]


def machine() -> str:
    return f"{platform.node()} · {os.cpu_count()} cores · {platform.system()} {platform.release()} · Python {platform.python_version()}"


def save_figure(fig, stem: Path) -> None:
    """stem.html (plotly from its CDN) and, where kaleido finds a Chromium, stem.png."""
    fig.write_html(f"{stem}.html", include_plotlyjs="cdn")
    browser = shutil.which("chromium") or shutil.which("google-chrome")
    if browser:
        os.environ.setdefault("BROWSER_PATH", browser)
        try:
            fig.write_image(f"{stem}.png", width=1100, height=480)
        except Exception as exc:  # the HTML figure is the one that counts; say why the PNG is missing
            print(f"no PNG for {stem.name}: {type(exc).__name__}: {exc}")


def save_figures(df: pd.DataFrame, stem: Path) -> None:
    for kind, fig in (("throughput", throughput_figure(df)), ("latency", latency_figure(df))):
        save_figure(fig, stem.with_name(f"{stem.name}_{kind}"))


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Pattern vs each naive approach, per phase, nodes and threads: throughput and p95 ratios."""
    out = []
    for (phase, nodes, threads), group in df.groupby(["phase", "nodes", "threads"]):
        by = group.set_index("approach")
        if "pattern" not in by.index:
            continue
        for naive in [a for a in by.index if a.startswith("naive")]:
            out.append({
                "phase": phase, "nodes": nodes, "threads": threads, "naive": naive,
                "throughput pattern/naive": round(by.loc["pattern", "throughput"] / by.loc[naive, "throughput"], 2),
                "p95 naive/pattern": round(by.loc[naive, "p95_us"] / by.loc["pattern", "p95_us"], 2),
            })
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", choices=sorted(CLASSROOM))
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--phases", default="", help="comma list of phases to run (default: all)")
    args = parser.parse_args()
    module = pattern_module(args.pattern)
    stem = args.pattern.replace("-", "_") + ("_quick" if args.quick else "")
    command = f".venv/bin/python benchmarks/pattern_sweeps.py {args.pattern}" + (" --quick" if args.quick else "")
    frames = []
    slot = ClusterSlot.for_engine("cassandra", "local")
    try:
        frames = sweep_phases(args, module, slot, stem, command)
    finally:
        slot.stop()
    table = ratios(pd.concat(frames))
    write(table, OUT, f"{stem}_ratios", f"{args.pattern}: pattern vs naive, measured", machine(), command)
    print(table.to_string(index=False))


def sweep_phases(args, module, slot, stem: str, command: str) -> list[pd.DataFrame]:
    frames = []
    for phase, nodes, threads, operations, sizes in (QUICK if args.quick else CLASSROOM)[args.pattern]:
        if args.phases and phase not in args.phases.split(","):
            continue
        plan = SweepPlan(pattern=args.pattern, approaches=module.APPROACHES, threads=threads, nodes=nodes, operations=operations, run_options={"warmup": 0 if phase in ("register", "post", "write") else 200})
        rows = run_pattern_sweep(module, plan, options={"phase": phase, **sizes}, slot=slot)
        df = pd.DataFrame(rows)
        frames.append(df)
        size_note = ", ".join(f"{k}={v}" for k, v in sizes.items()) or "users = operations"
        write(df[COLUMNS].copy(), OUT, f"{stem}_{phase}", f"{args.pattern}, phase {phase} ({size_note})", machine(), command)
        save_figures(df, OUT / f"{stem}_{phase}")
    return frames


if __name__ == "__main__":
    main()
