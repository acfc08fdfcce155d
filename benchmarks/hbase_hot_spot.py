"""Timestamp row keys against hashed ones on HBase: which servers took the writes, and the throughput.

    .venv/bin/python benchmarks/hbase_hot_spot.py                       # 1, 2 and 4 region servers, 4 blocks each
    .venv/bin/python benchmarks/hbase_hot_spot.py --servers 2 --repeats 2

Each region server is held to 0.25 core (a small server of its own; ZooKeeper, the master and the gateway are not
budgeted), the table is pre-split into 16 regions spread over the servers, and the two approaches run in
interleaved blocks (sequential, hashed, then hashed, sequential...), 8 client workers, 3,000 measured writes each
run after 300 unmeasured ones.
The headline is the servers' own count: the share of a run's writes the busiest server took (the master's
per-region write counts before and after the run). The throughput ratio hashed / sequential comes with its 95%
interval over the paired blocks; the gateway and the client share the machine's 2 cores, so where a run's
`limit` says machine or client, the ratio is the machine's, not HBase's.
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


def writes_by_server(cluster: LocalHBaseCluster, table: str, total: int) -> Counter:
    counts: Counter = Counter()
    for region in settled_region_writes(cluster, table, total, within=15):
        counts[region["server"]] += region["writes"]
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    hbase_install.install()

    rows = []
    for servers in args.servers:
        with LocalHBaseCluster(nodes=servers, node_cpu=NODE_CPU) as cluster:
            for block in range(args.repeats):
                order = APPROACHES if block % 2 == 0 else APPROACHES[::-1]
                for approach in order:
                    workload = hot_spot_writes(cluster, approach)
                    result = run(workload, threads=THREADS, operations=OPERATIONS,
                                 options=RunOptions(processes=1, warmup=300), watch=Watch(server_meter=cluster.cpu_meter()))
                    counts = writes_by_server(cluster, workload.table, OPERATIONS)
                    busiest = max(counts.values()) / max(1, sum(counts.values()))
                    row = {"region_servers": servers, "node_cpu": NODE_CPU, "threads": THREADS, "approach": approach, "repeat": block,
                           "throughput": round(result.throughput, 1), "limit": result.limit,
                           "verify_ok": bool(result.verification and result.verification.ok),
                           "servers_written": sum(1 for c in counts.values() if c > 0), "busiest_server_share": round(busiest, 3),
                           "writes_counted": sum(counts.values())}
                    rows.append(row)
                    print(row, flush=True)
    df = pd.DataFrame(rows)
    summary = []
    for servers, group in df.groupby("region_servers"):
        by = {a: group[group.approach == a].sort_values("repeat") for a in APPROACHES}
        ratios = (by["pattern/hashed"].throughput.values / by["naive/sequential"].throughput.values).tolist()
        interval = ratio_interval(ratios)
        summary.append({
            "region_servers": servers, "node_cpu": NODE_CPU, "blocks": len(ratios),
            "sequential_busiest_share": f"{by['naive/sequential'].busiest_server_share.min():.2f}-{by['naive/sequential'].busiest_server_share.max():.2f}",
            "hashed_busiest_share": f"{by['pattern/hashed'].busiest_server_share.min():.2f}-{by['pattern/hashed'].busiest_server_share.max():.2f}",
            "sequential_servers_written": int(by["naive/sequential"].servers_written.max()),
            "hashed_servers_written": int(by["pattern/hashed"].servers_written.min()),
            "hashed_over_sequential": interval.text() if interval else "n/a",
            "limits": ", ".join(sorted(set(group["limit"]))),
            "all_verified": bool(group.verify_ok.all()),
        })
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Java 17, HBase {hbase_install.DEFAULT_VERSION}, labkit {__version__}"
    command = f".venv/bin/python benchmarks/hbase_hot_spot.py --servers {','.join(map(str, args.servers))} --repeats {args.repeats}"
    report.write(df, args.out, "hbase_hot_spot_runs", "HBase hot spot: every run", machine, command)
    report.write(pd.DataFrame(summary), args.out, "hbase_hot_spot", "HBase hot spot: timestamp keys vs hashed keys", machine, command)
    print(pd.DataFrame(summary).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
