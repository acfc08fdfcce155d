"""Timestamp row keys against hashed ones on HBase: which servers took the writes, and the throughput.

    .venv/bin/python benchmarks/hbase_hot_spot.py                       # 1, 2 and 4 region servers, 4 blocks each
    .venv/bin/python benchmarks/hbase_hot_spot.py --servers 2 --repeats 2
    .venv/bin/python benchmarks/hbase_hot_spot.py --servers 4 --threads 8,32   # does the one Thrift gateway limit 4 servers? (results/hbase_hot_spot_threads_8_32*)

Each region server is held to 0.25 core (a small server of its own; ZooKeeper, the master and the gateway are not
budgeted), the table is pre-split into 16 regions spread over the servers, and the two approaches run in
interleaved blocks (sequential, hashed, then hashed, sequential...) after a warm-up block that is not kept, 8 client
workers, 3,000 measured writes each run after 300 unmeasured ones.
The headline is the servers' own count: the share of a run's writes the busiest server took (the master's
per-region write counts before and after the run). The throughput ratio hashed / sequential comes with its 95%
interval over the paired blocks; the gateway and the client share the machine's 2 cores, so where a run's
`limit` says machine or client, the ratio is the machine's, not HBase's.

Every client request passes the one Thrift gateway, so each row also says what held the run back
(`held_back_by`, from the runner's `limit`): the region servers (one at 90% of its budget), the machine (90% of its
cores busy), the client, or none of these, in which case the client's workers, each waiting for its reply, set the pace; `gateway_cores`
is what the gateway used meanwhile. Running the hashed keys at more workers is the test: if the gateway were the
limit, more workers would not raise the rate while the servers stay below their budgets.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

import report

from labkit import __version__
from labkit.clusters.local import hbase_install
from labkit.clusters.local.hbase import LocalHBaseCluster
from labkit.results.intervals import ratio_interval
from labkit.runner import RunOptions, Watch, run
from labkit.workloads.hbase_hot_spot import APPROACHES, hot_spot_writes, settled_region_writes

NODE_CPU = 0.25
THREADS = 8
OPERATIONS = 3000


def writes_by_server(regions: list[dict]) -> Counter:
    counts: Counter = Counter()
    for region in regions:
        counts[region["server"]] += region["writes"]
    return counts


def gateway_verdict(limit: str) -> str:
    """What held a run back, in the gateway question's words, from the runner's own `limit` (labkit.runner.limits: a
    budgeted node at 90% of its budget, the machine's cores at 90%, the client); the row's gateway_cores says what
    the gateway used meanwhile."""
    if limit.startswith("server"):
        return "region servers (one at its budget)"
    if limit == "machine":
        return "the machine's cores"
    if limit.startswith("client"):
        return "the client (its processes, or too few requests in flight)"
    return "the client's workers (servers, gateway and machine below their limits)"


def measured(cluster: LocalHBaseCluster, servers: int, threads: int, approach: str, block: int) -> dict:
    """One run's row: the rate, the servers' own write counts, and the CPU of the region servers, the gateway and the machine."""
    workload = hot_spot_writes(cluster, approach)
    result = run(workload, threads=threads, operations=OPERATIONS,
                 options=RunOptions(processes=1, warmup=300), watch=Watch(server_meter=cluster.cpu_meter()))
    regions = settled_region_writes(cluster, workload.table, OPERATIONS, within=15)
    counts = writes_by_server(regions)
    written = [r for r in regions if r["writes"] > 0]
    row = result.to_row()
    wall = result.server_cpu.wall_s if result.server_cpu is not None else 0.0

    def cores(name: str) -> float | None:
        return round(row.get(f"server_cpu_s_{name}", 0.0) / wall, 3) if wall > 0 else None

    gateway_cores = cores(cluster.gateway.name)
    return {"engine": "hbase", "server_version": cluster.server_version, "provider": "local",
            "region_servers": servers, "node_cpu": NODE_CPU, "threads": threads, "approach": approach, "repeat": block,
            "throughput": round(result.throughput, 1), "limit": result.limit,
            "verify_ok": bool(result.verification and result.verification.ok),
            "servers_written": sum(1 for c in counts.values() if c > 0),
            "busiest_server_share": round(max(counts.values()) / max(1, sum(counts.values())), 3),
            "writes_counted": sum(counts.values()),
            "regions_written": len(written),
            "region_that_took_all": f"{written[0]['start_key'] or '(first)'} on {written[0]['server']}" if len(written) == 1 else "",
            **{f"{rs.name}_cores": cores(rs.name) for rs in cluster.nodes},
            "busiest_server_of_budget": row.get("node_busy_max"), "gateway_cores": gateway_cores,
            "client_cores": row.get("client_cpu_cores"), "machine_busy": row.get("machine_cpu_busy"),
            "held_back_by": gateway_verdict(result.limit)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--threads", type=lambda s: [int(x) for x in s.split(",")], default=[THREADS],
                        help="client workers, e.g. 8,32 (each run at each)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    hbase_install.install()

    rows = []
    for servers in args.servers:
        with LocalHBaseCluster(nodes=servers, node_cpu=NODE_CPU) as cluster:
            for approach in APPROACHES:  # a warm-up block, not kept: the first block ran on cold servers (JIT, caches)
                measured(cluster, servers, args.threads[-1], approach, -1)
            for block in range(args.repeats):
                order = APPROACHES if block % 2 == 0 else APPROACHES[::-1]
                for threads in args.threads:
                    for approach in order:
                        rows.append(measured(cluster, servers, threads, approach, block))
                        print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    summary = []
    for (servers, threads), group in df.groupby(["region_servers", "threads"]):
        by = {a: group[group.approach == a].sort_values("repeat") for a in APPROACHES}
        ratios = (by["pattern/hashed"].throughput.values / by["naive/sequential"].throughput.values).tolist()
        interval = ratio_interval(ratios)
        summary.append({
            "region_servers": servers, "node_cpu": NODE_CPU, "threads": threads, "blocks": len(ratios),
            "sequential_busiest_share": f"{by['naive/sequential'].busiest_server_share.min():.2f}-{by['naive/sequential'].busiest_server_share.max():.2f}",
            "hashed_busiest_share": f"{by['pattern/hashed'].busiest_server_share.min():.2f}-{by['pattern/hashed'].busiest_server_share.max():.2f}",
            "sequential_servers_written": int(by["naive/sequential"].servers_written.max()),
            "sequential_regions_written": int(by["naive/sequential"].regions_written.max()),
            "hashed_servers_written": int(by["pattern/hashed"].servers_written.min()),
            "hashed_over_sequential": interval.text() if interval else "n/a",
            "limits": ", ".join(sorted(set(group["limit"]))),
            "hashed_rate": f"{by['pattern/hashed'].throughput.median():,.0f}/s",
            "hashed_gateway_cores": f"{by['pattern/hashed'].gateway_cores.median():.2f}",
            "hashed_busiest_server_of_budget": f"{by['pattern/hashed'].busiest_server_of_budget.median():.2f}",
            "hashed_machine_busy": f"{by['pattern/hashed'].machine_busy.median():.2f}",
            "hashed_held_back_by": "; ".join(f"{verdict} {n} of {len(ratios)}" for verdict, n in by["pattern/hashed"].held_back_by.value_counts().items()),
            "all_verified": bool(group.verify_ok.all()),
        })
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Java 17, HBase {hbase_install.DEFAULT_VERSION}, labkit {__version__}"
    command = (f".venv/bin/python benchmarks/hbase_hot_spot.py --servers {','.join(map(str, args.servers))} --repeats {args.repeats}"
               f" --threads {','.join(map(str, args.threads))}")
    stem = "hbase_hot_spot" + ("" if args.threads == [THREADS] else "_threads_" + "_".join(map(str, args.threads)))
    report.write(df, args.out, stem + "_runs", "HBase hot spot: every run", machine, command)
    report.write(pd.DataFrame(summary), args.out, stem, "HBase hot spot: timestamp keys vs hashed keys", machine, command)
    print(pd.DataFrame(summary).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
