"""Classroom runs of the UUID Key tests on the embedded two-datacenter Cassandra cluster.

    .venv/bin/python benchmarks/uuid_key.py           # availability sweep (70 ms one way) + partition totals
    .venv/bin/python benchmarks/uuid_key.py --quick   # a few-minute smoke version; claims nothing
    .venv/bin/python benchmarks/uuid_key.py --one-trip  # the availability test only, at 2, 8 and 16 threads, with the
                                                        # counter claimed without its read (naive/one-trip) beside both

Writes results/uuid_key_availability.csv (one labelled row per run, with each region's figures),
results/uuid_key_regions.csv and figures (latency and throughput per region and approach),
results/uuid_key_partition.csv (registered, collisions, stored per approach) and
results/uuid_key_ratios.md: the counter/UUID ratios per region that the notebook quotes. `--one-trip` writes
results/uuid_key_one_trip_{availability,regions,ratios,requests}: each counter's requests per registration, and
the ratios read+CAS / one-trip and one-trip / UUID per region. The cluster and toxiproxy are stopped at the end,
and the partition rules removed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
import plotly.express as px

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine, save_figure  # noqa: E402
from report import write  # noqa: E402

from labkit.clusters.slot import ClusterSlot  # noqa: E402
from labkit.faults import heal_all  # noqa: E402
from labkit.patterns import uuid_key  # noqa: E402
from labkit.sweeps import run_pattern_sweep  # noqa: E402
from labkit.patterns.uuid_key import cassandra as uuid_key_cassandra  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
COLUMNS = ["engine", "server_version", "provider", "pattern", "nodes", "phase", "one_way_ms", "approach", "threads", "repeat", "order",
           "control_copy", "warmup_block", "complete", "operations",
           "throughput", "mean_us", "p95_us", "errors", "verify_ok", "verify_checks", "client_cpu_cores", "client_saturated"]


def median_regions(regions: pd.DataFrame) -> pd.DataFrame:
    """Per region, approach and thread count, the median of the repeats (the A/A copies and partial runs left out):
    one point per line in the figures."""
    from labkit.results.intervals import usable

    return usable(regions).groupby(["region", "approach", "threads"], as_index=False)[["mean_ms", "throughput"]].median()


def region_ratios(regions: pd.DataFrame) -> pd.DataFrame:
    """Counter (naive) vs random UUID (pattern), per region and thread count: mean latencies (medians of the
    repeats) and both ratios paired within a block, with their 95% intervals (results.intervals)."""
    from labkit.results.intervals import interval_of, usable

    out = []
    for (region, threads), group in regions.groupby(["region", "threads"]):
        kept = usable(group)
        latency = interval_of(group, "mean_ms", "naive", "pattern")
        throughput = interval_of(group, "throughput", "pattern", "naive")
        out.append({"region": region, "threads": threads,
                    "counter mean ms": round(kept[kept["approach"] == "naive"]["mean_ms"].median(), 2),
                    "uuid mean ms": round(kept[kept["approach"] == "pattern"]["mean_ms"].median(), 2),
                    "latency counter/uuid": round(latency.estimate, 1), "latency interval": latency.text(),
                    "throughput uuid/counter": round(throughput.estimate, 1), "throughput interval": throughput.text()})
    return pd.DataFrame(out)


def one_trip_ratios(regions: pd.DataFrame) -> pd.DataFrame:
    """The counter with and without its read, per region and thread count: read+CAS over one-trip and one-trip
    over UUID mean registration latency, each paired within a block, with its 95% interval."""
    from labkit.results.intervals import interval_of, usable

    out = []
    for (region, threads), group in regions.groupby(["region", "threads"]):
        kept = usable(group)
        median = {a: round(kept[kept["approach"] == a]["mean_ms"].median(), 2) for a in ("naive", uuid_key.ONE_TRIP, "pattern")}
        read_and_cas = interval_of(group, "mean_ms", "naive", uuid_key.ONE_TRIP)
        one_trip = interval_of(group, "mean_ms", uuid_key.ONE_TRIP, "pattern")
        out.append({"region": region, "threads": threads, "read+cas mean ms": median["naive"], "one-trip mean ms": median[uuid_key.ONE_TRIP],
                    "uuid mean ms": median["pattern"], "read+cas/one-trip": read_and_cas.text(), "one-trip/uuid": one_trip.text()})
    return pd.DataFrame(out)


def counter_requests(df: pd.DataFrame) -> pd.DataFrame:
    """Each counter's requests per registration, per run and region: reads and compare-and-sets over the region's
    registrations (the client's own count of what it sent, as tx.call recorded each request)."""
    rows = []
    for _, r in df[df["approach"].isin(["naive", uuid_key.ONE_TRIP])].iterrows():
        for region in uuid_key.REGIONS:
            users = r[f"register_{region}_count"]
            reads = r.get(f"read_counter_{region}_count", 0)
            reads = 0 if pd.isna(reads) else reads
            cas = r[f"cas_counter_{region}_count"]
            rows.append({"approach": r["approach"], "threads": r["threads"], "repeat": r["repeat"], "region": region, "registrations": users,
                         "reads per registration": round(reads / users, 2), "compare-and-sets per registration": round(cas / users, 2),
                         "requests per registration": round((reads + cas) / users, 2),
                         "compare-and-set mean ms": round(r[f"cas_counter_{region}_mean_us"] / 1000, 1)})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script, claims nothing")
    parser.add_argument("--one-trip", action="store_true", help="the availability test at 2, 8 and 16 threads with every counter approach; no partition test")
    args = parser.parse_args()
    profile = "quick" if args.quick else "classroom"  # the sizes of uuid_key.PATTERN's sweeps: `labkit patterns uuid-key`
    stem = "uuid_key" + ("_one_trip" if args.one_trip else "") + ("_quick" if args.quick else "")
    command = ".venv/bin/python benchmarks/uuid_key.py" + (" --one-trip" if args.one_trip else "") + (" --quick" if args.quick else "")
    heal_all()
    slot = ClusterSlot.for_engine("cassandra", "local", dcs=2)
    try:
        if args.one_trip:
            availability(profile, slot, stem, command, overrides={"availability": {"threads": [2, 8, 16] if not args.quick else [2]}},
                         approaches=["naive", uuid_key.ONE_TRIP, "pattern"])
            return
        availability(profile, slot, stem, command)
        partition(profile, slot, stem, command)
    finally:
        slot.stop()
        heal_all()


def availability(profile: str, slot: ClusterSlot, stem: str, command: str, overrides: dict | None = None, approaches: list[str] | None = None) -> None:
    size = uuid_key.PATTERN.named_sweep(profile, "availability", overrides)
    plan = uuid_key.PATTERN.sweep_plan(profile, "availability", approaches=approaches or list(uuid_key.APPROACHES), overrides=overrides,
                                       control="pattern")  # the A/A control: UUID twice per block
    rows = run_pattern_sweep(uuid_key.PATTERN, plan, slot=slot)
    df = pd.DataFrame(rows)
    note = f"{size.operations // 2} users per region, Ireland-dc1 link {df.one_way_ms[0]} ms one way"
    write(df[COLUMNS + [c for c in df.columns if c.startswith(("register_", "cas_counter_", "read_counter_"))]].copy(), OUT, f"{stem}_availability",
          f"UUID Key, availability test ({note})", machine(), command)
    regions = uuid_key.by_region(df)
    write(regions.copy(), OUT, f"{stem}_regions", f"UUID Key, availability test per region ({note})", machine(), command)
    label = f"Cassandra {df.server_version[0]}, {df.provider[0]}, {df.nodes[0]} nodes in 2 DCs, {note}, median of {plan.repeats} repeats"
    medians = median_regions(regions)
    save_figure(px.line(medians, x="threads", y="mean_ms", color="approach", facet_col="region", markers=True, log_y=True,
                        title=f"Mean registration latency per region<br><sup>{label}</sup>", labels={"mean_ms": "mean latency (ms, log)"}), OUT / f"{stem}_latency")
    save_figure(px.line(medians, x="threads", y="throughput", color="approach", facet_col="region", markers=True,
                        title=f"Registrations per second per region<br><sup>{label}</sup>", labels={"throughput": "registrations/s"}), OUT / f"{stem}_throughput")
    if uuid_key.ONE_TRIP in plan.approaches:
        requests = counter_requests(df)
        write(requests, OUT, f"{stem}_requests", f"UUID Key: the counter's requests per registration, per run and region ({note})", machine(), command)
        print(requests.groupby(["approach", "region", "threads"])[["reads per registration", "compare-and-sets per registration"]].median().to_string())
        table = one_trip_ratios(regions)
        write(table, OUT, f"{stem}_ratios", f"UUID Key: the counter with and without its read, and UUID, per region ({note})", machine(), command)
    else:
        table = region_ratios(regions)
        write(table, OUT, f"{stem}_ratios", f"UUID Key: counter vs random UUID per region ({note})", machine(), command)
    print(table.to_string(index=False))


def partition(profile: str, slot: ClusterSlot, stem: str, command: str) -> None:
    size = uuid_key.PATTERN.named_sweep(profile, "partition")
    users, threads = size.operations // 2, size.threads[0]
    cluster = slot.ensure(max(size.nodes))
    rows = []
    for approach in uuid_key.PATTERN.approaches_for("partition"):
        workload, result = uuid_key_cassandra.partition_test(cluster, approach, users, threads)
        try:
            checks = result.verification.checks
            rows.append({"engine": "cassandra", "server_version": cluster.server_version, "provider": cluster.provider, "nodes": len(cluster.live_nodes()),
                         "approach": approach, "threads": threads, "users per region": users,
                         "registered": checks["registered_usa"] + checks["registered_ireland"], "keys handed out twice": checks["collisions"],
                         "stored after repair": checks["stored"], "lost": checks["registered_usa"] + checks["registered_ireland"] - checks["stored"],
                         "survivors from usa": sum(1 for c in workload.collision_table() if c["survivor region"] == "usa"),
                         "verify_ok": result.verification.ok, "errors": result.errors})
        finally:
            workload.close_process()
    df = pd.DataFrame(rows)
    write(df.copy(), OUT, f"{stem}_partition", "UUID Key, consistency test: partition dc1 | dc2, register, heal, repair, count", machine(), command)
    print(df.to_string(index=False))


if __name__ == "__main__":
    main()
