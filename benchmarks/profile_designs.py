"""The designs of an example profile side by side (notebook 08): the profile's classroom sweep (1 and 3 nodes;
8, 32 and 64 client threads; 6,000 operations per run; 3 blocks per point, the designs alternating within
each block) and the servers' traced access path of every operation at 3 nodes.

    .venv/bin/python benchmarks/profile_designs.py chat       # datasets/profiles/chat.yaml
    .venv/bin/python benchmarks/profile_designs.py fan_out    # datasets/profiles/fan_out.yaml
    .venv/bin/python benchmarks/profile_designs.py chat --quick   # the notebook's sizes: checks the script, claims nothing

Writes results/profile_<name>_mix.csv (one labelled row per run, with the profile's name and text hash),
results/profile_<name>_paths.csv (the traces), figures, and results/profile_<name>_ratios.md: each later
design over the first, per point, throughput with its 95% interval from the pairs of each block, and the
median server CPU per operation of each design. The cluster is stopped at the end.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import COLUMNS, machine, save_figures  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.sweeps import run_pattern_sweep  # noqa: E402
from labkit.profiles.cassandra import traced_designs  # noqa: E402
from labkit.profiles.description import PHASE, profile_pattern  # noqa: E402
from labkit.results.intervals import comparisons, usable  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
PROFILES = Path(__file__).resolve().parents[1] / "datasets" / "profiles"


def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Per point: each later design over the first (throughput, paired within blocks), and each side's median
    server CPU per operation (ms)."""
    table = comparisons(df)
    cpu = usable(df).groupby(["nodes", "threads", "approach"])["server_cpu_ms_per_tx"].median()
    out = []
    for _i, r in table.iterrows():
        out.append({"nodes": r["nodes"], "threads": r["threads"], "design": r["numerator"], "over": r["denominator"],
                    "throughput ratio": round(r["ratio"], 2), "low": round(r["low"], 2), "high": round(r["high"], 2), "pairs": r["pairs"],
                    "verdict": r["verdict"], "server CPU ms/op (design)": round(cpu[(r["nodes"], r["threads"], r["numerator"])], 3),
                    "server CPU ms/op (over)": round(cpu[(r["nodes"], r["threads"], r["denominator"])], 3)})
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", choices=sorted(p.stem for p in PROFILES.glob("*.yaml")), help="an example profile of datasets/profiles/")
    parser.add_argument("--quick", action="store_true", help="the notebook's sizes: checks the script, claims nothing")
    args = parser.parse_args()
    pattern = profile_pattern(PROFILES / f"{args.profile}.yaml")
    size = "quick" if args.quick else "classroom"
    stem = f"profile_{args.profile}" + ("_quick" if args.quick else "")
    command = f".venv/bin/python benchmarks/profile_designs.py {args.profile}" + (" --quick" if args.quick else "")
    slot = ClusterSlot.for_engine("cassandra", "local")
    try:
        df = pd.DataFrame(run_pattern_sweep(pattern, pattern.sweep_plan(size, PHASE), slot=slot))
        paths = pd.DataFrame(traced_designs(pattern.profile, slot.ensure(max(pattern.named_sweep(size, PHASE).nodes))))
    finally:
        slot.stop()
    title = f"{pattern.profile.name} (datasets/profiles/{args.profile}.yaml, text hash {pattern.text_hash})"
    write(df[COLUMNS + ["profile", "profile_hash"]].copy(), OUT, f"{stem}_mix", f"{title}: every run", machine(), command)
    save_figures(df, OUT / f"{stem}_mix")
    write(paths.drop(columns=["steps"]), OUT, f"{stem}_paths", f"{title}: traced access path per operation", machine(), command)
    table = ratios(df)
    write(table, OUT, f"{stem}_ratios", f"{title}: each design over the first, measured", machine(), command)
    print(paths.drop(columns=["steps"]).to_string(index=False))
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
