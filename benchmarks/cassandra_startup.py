"""Time from start to ready, and resident memory per node, for local Cassandra clusters of 1-8 nodes.

    .venv/bin/python benchmarks/cassandra_startup.py              # 1, 3, 4, 8 nodes, 3 starts each
    .venv/bin/python benchmarks/cassandra_startup.py --nodes 3 --repeats 1

"Ready" is labkit's definition: every node answers CQL, lists all its peers in system.peers_v2, and all
report one schema version. The jars are already cached (run `labkit provision` first), so the figure
is JVM start-up plus cluster formation, not the download.
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
from labkit.clusters.local import cassandra_install
from labkit.clusters.local.cassandra import LocalCassandraCluster


def one_start(nodes: int) -> tuple[float, list[int]]:
    cluster = LocalCassandraCluster(nodes=nodes)
    t0 = time.monotonic()
    cluster.start()
    ready = time.monotonic() - t0
    try:
        time.sleep(2)  # let start-up allocations settle before reading RSS
        rss = [n.process().memory_info().rss for n in cluster.nodes]
    finally:
        cluster.stop()
    return ready, rss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=lambda s: [int(x) for x in s.split(",")], default=[1, 3, 4, 8])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    cassandra_install.install()

    rows = []
    for n in args.nodes:
        readies, rss_all = [], []
        for _ in range(args.repeats):
            ready, rss = one_start(n)
            readies.append(ready)
            rss_all.extend(rss)
            print(f"{n} nodes: ready in {ready:.1f} s, RSS/node {statistics.median(rss) / 2**30:.2f} GiB", flush=True)
        rows.append(
            {
                "nodes": n,
                "starts": args.repeats,
                "ready_s_median": round(statistics.median(readies), 1),
                "ready_s_min": round(min(readies), 1),
                "ready_s_max": round(max(readies), 1),
                "rss_gib_per_node_median": round(statistics.median(rss_all) / 2**30, 2),
                "rss_gib_per_node_max": round(max(rss_all) / 2**30, 2),
            }
        )
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Java 17, Cassandra {cassandra_install.DEFAULT_VERSION}, labkit {__version__}"
    df = pd.DataFrame(rows)
    report.write(
        df, args.out, "cassandra_startup", "Local Cassandra: start to ready", machine,
        f".venv/bin/python benchmarks/cassandra_startup.py --nodes {','.join(map(str, args.nodes))} --repeats {args.repeats}",
    )
    print(df.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
