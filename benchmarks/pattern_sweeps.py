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
from labkit.catalogue import describe  # noqa: E402
from labkit.sweeps import SweepRequest, run_sweep  # noqa: E402
from labkit.results import latency_figure, throughput_figure  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"

PATTERNS = ("index-table", "enumerable-keys", "fan-out")
"""The patterns this script sweeps; their sizes (nodes, threads, operations, data, warm-up) come from each
pattern's description, the `classroom` profile (or `quick`): `labkit patterns NAME` prints them."""
COLUMNS = ["engine", "server_version", "provider", "pattern", "nodes", "node_cpu", "phase", "approach", "threads", "repeat", "order", "control_copy",
           "warmup_block", "complete", "operations",
           "throughput", "mean_us", "p95_us", "p99_us", "errors", "retries", "verify_ok", "client_cpu_cores", "client_saturated",
           "server_cpu_ms_per_tx", "machine_cpu_busy", "limit"]


def machine() -> str:
    return f"{platform.node()} · {os.cpu_count()} cores · {platform.system()} {platform.release()} · Python {platform.python_version()}"


def save_figure(fig, stem: Path, height: int = 480) -> None:
    """stem.html (plotly from its CDN) and, where kaleido finds a Chromium, stem.png."""
    fig.write_html(f"{stem}.html", include_plotlyjs="cdn")
    browser = shutil.which("chromium") or shutil.which("google-chrome")
    if browser:
        os.environ.setdefault("BROWSER_PATH", browser)
        try:
            fig.write_image(f"{stem}.png", width=1100, height=height)
        except Exception as exc:  # the HTML figure is the one that counts; say why the PNG is missing
            print(f"no PNG for {stem.name}: {type(exc).__name__}: {exc}")


def save_figures(df: pd.DataFrame, stem: Path) -> None:
    for kind, fig in (("throughput", throughput_figure(df)), ("latency", latency_figure(df))):
        save_figure(fig, stem.with_name(f"{stem.name}_{kind}"))


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Pattern vs each naive approach, per phase, nodes and threads: throughput and p95 ratios from the runs of
    the same block (results.intervals), each with its 95% interval (or the spread, below 3 repeats) and verdict.
    An interval only from the repeats of one point: across thread counts a reader takes the range of these rows
    (pairs at different thread counts are not repeats, so no row pools them)."""
    from labkit.results.intervals import paired_ratios, ratio_interval

    out = []
    keys = ["phase", "nodes", "threads"]
    for naive in sorted(a for a in df["approach"].unique() if str(a).startswith("naive")):
        tput = paired_ratios(df, "pattern", naive, keys=keys)
        p95 = paired_ratios(df, naive, "pattern", metric="p95_us", keys=keys)
        for (phase, nodes, threads), group in tput.groupby(keys):
            found = ratio_interval(group["ratio"])
            tail = ratio_interval(p95[(p95["phase"] == phase) & (p95["nodes"] == nodes) & (p95["threads"] == threads)]["ratio"])
            out.append({
                "phase": phase, "nodes": nodes, "threads": threads, "naive": naive,
                "throughput pattern/naive": round(found.estimate, 2), "low": round(found.low, 2), "high": round(found.high, 2),
                "pairs": found.pairs, "verdict": found.verdict,
                "p95 naive/pattern": None if tail is None else round(tail.estimate, 2),
            })
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", choices=PATTERNS)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--phases", default="", help="comma list of phases to run (default: all)")
    parser.add_argument("--threads", default="", help="comma list of client thread counts instead of the description's (e.g. 10,40,70,100)")
    parser.add_argument("--repeats", type=int, default=0, help="blocks per point instead of the description's (classroom: 3)")
    parser.add_argument("--control", default="pattern", help="the approach run twice per block as the A/A control ('' for none)")
    parser.add_argument("--clients", default="", help="local:N or dask://HOST:PORT: the client processes as tasks on Dask workers (labkit run --clients)")
    parser.add_argument("--tables-only", action="store_true", help="measure nothing: rebuild the ratios table from the committed rows")
    args = parser.parse_args()
    pattern = describe(args.pattern)
    stem = args.pattern.replace("-", "_") + ("_quick" if args.quick else "")
    command = (f".venv/bin/python benchmarks/pattern_sweeps.py {args.pattern}" + (" --quick" if args.quick else "")
               + "".join(f" --{k} {getattr(args, k)}" for k in ("phases", "threads", "repeats", "clients") if getattr(args, k)))
    if args.tables_only:
        frames = [pd.read_csv(OUT / f"{stem}_{phase}.csv") for phase in pattern.phases if (OUT / f"{stem}_{phase}.csv").exists() and phase != "volume"]
        command = open(OUT / f"{stem}_ratios.md").read().split("Command: `")[1].split("`")[0]  # the run that measured the rows
    else:
        slot = ClusterSlot.for_engine("cassandra", "local")
        try:
            frames = sweep_phases(args, pattern, slot, stem, command)
        finally:
            slot.stop()
    rows = pd.concat(frames)
    measured_on = "; ".join(dict.fromkeys(rows["machine"])) if args.tables_only and "machine" in rows else machine()  # where the rows ran
    table = ratios(rows)
    write(table, OUT, f"{stem}_ratios", f"{args.pattern}: pattern vs naive, measured", measured_on, command)
    print(table.to_string(index=False))


def sweep_phases(args, pattern, slot, stem: str, command: str) -> list[pd.DataFrame]:
    frames = []
    profile = "quick" if args.quick else "classroom"
    for phase in pattern.phases:
        if phase not in pattern.sizes[profile] or (args.phases and phase not in args.phases.split(",")) or phase == "volume":
            continue  # the volume test has its own script: enumerable_keys_volume.py
        size = pattern.named_sweep(profile, phase)
        changes = {"control": args.control or None}
        if args.threads:
            changes["threads"] = [int(t) for t in args.threads.split(",")]
        if args.repeats:
            changes["repeats"] = args.repeats
        rows = run_sweep(SweepRequest(pattern, pattern.sweep_plan(profile, phase, **changes), clients=args.clients or None), slot=slot)
        df = pd.DataFrame(rows)
        frames.append(df)
        size_note = ", ".join(f"{k}={v}" for k, v in size.settings.items()) or "users = operations"
        write(df[COLUMNS + [c for c in ("client_hosts", "client_host_cpu_cores", "client_problems") if c in df]].copy(), OUT, f"{stem}_{phase}", f"{pattern.name}, phase {phase} ({size_note})", machine(), command)
        save_figures(df, OUT / f"{stem}_{phase}")
    return frames


if __name__ == "__main__":
    main()
