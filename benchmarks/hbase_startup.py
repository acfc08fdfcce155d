"""Time from start to ready, and resident memory per process, for local HBase clusters of 1-4 region servers.

    .venv/bin/python benchmarks/hbase_startup.py                 # 1 and 3 region servers, 3 starts each, interleaved
    .venv/bin/python benchmarks/hbase_startup.py --nodes 4 --repeats 1

"Ready" is labkit's definition (labkit.clusters.local.hbase): every region server has checked in with the master,
and a table split in two regions takes a write in each through the Thrift gateway and gives both back. The jars are already cached
(`labkit provision hbase` first), so the figure is JVM start-up plus cluster formation, not the download.
Memory: each process's resident set 2 s after ready, and each region server's again after 20,000 rows of 100 bytes
went through the gateway into a table pre-split over all of them (what memory admission must leave room for).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

import report

from labkit import __version__
from labkit.clusters.local import hbase_install
from labkit.clusters.local.hbase import LocalHBaseCluster

GIB = 2**30
ROWS = 20_000


def one_start(nodes: int) -> dict[str, float | list[float]]:
    cluster = LocalHBaseCluster(nodes=nodes)
    t0 = time.monotonic()
    cluster.start()
    ready = time.monotonic() - t0
    try:
        time.sleep(2)  # let start-up allocations settle before reading RSS
        rss = {p.name: cluster._process(p).memory_info().rss / GIB for p in cluster.procs}
        cluster.create_table("load", "f", [str(k) for k in range(1, 10)])
        connection = cluster.connection()
        with connection.table("load").batch(batch_size=1000) as batch:
            for i in range(ROWS):
                batch.put(f"{i % 10}-{i:06d}".encode(), {b"f:v": b"x" * 100})
        connection.close()
        loaded = [cluster._process(p).memory_info().rss / GIB for p in cluster.nodes]
    finally:
        cluster.stop()
    return {"ready": ready, "rs_idle": [rss[p.name] for p in cluster.nodes], "rs_loaded": loaded,
            "zookeeper": rss["zookeeper"], "master": rss["master"], "thrift": rss["thrift"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=lambda s: [int(x) for x in s.split(",")], default=[1, 3])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    hbase_install.install()

    starts: dict[int, list[dict]] = {n: [] for n in args.nodes}
    for _ in range(args.repeats):  # interleaved, so a drift of the machine falls on every size alike
        for n in args.nodes:
            one = one_start(n)
            starts[n].append(one)
            print(f"{n} region server(s): ready in {one['ready']:.1f} s, region server RSS {max(one['rs_idle']):.2f} GiB idle, "
                  f"{max(one['rs_loaded']):.2f} GiB after {ROWS:,} rows", flush=True)
    rows = []
    for n, runs in starts.items():
        readies = [r["ready"] for r in runs]
        idle = [x for r in runs for x in r["rs_idle"]]
        loaded = [x for r in runs for x in r["rs_loaded"]]
        rows.append({
            "region_servers": n, "starts": len(runs),
            "ready_s_median": round(statistics.median(readies), 1), "ready_s_min": round(min(readies), 1), "ready_s_max": round(max(readies), 1),
            "rs_rss_gib_idle_median": round(statistics.median(idle), 2), "rs_rss_gib_loaded_median": round(statistics.median(loaded), 2),
            "rs_rss_gib_loaded_max": round(max(loaded), 2),
            "zookeeper_rss_gib_max": round(max(r["zookeeper"] for r in runs), 2), "master_rss_gib_max": round(max(r["master"] for r in runs), 2),
            "thrift_rss_gib_max": round(max(r["thrift"] for r in runs), 2),
        })
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Java 17, HBase {hbase_install.DEFAULT_VERSION}, labkit {__version__}"
    df = pd.DataFrame(rows)
    report.write(
        df, args.out, "hbase_startup", "Local HBase: start to ready, memory per process", machine,
        f".venv/bin/python benchmarks/hbase_startup.py --nodes {','.join(map(str, args.nodes))} --repeats {args.repeats}",
    )
    print(df.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
