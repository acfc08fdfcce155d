"""YCSB on HBase and on Cassandra side by side: document 004's comparison (average latency at rising target
throughputs for workloads A, B, C and insert-mostly), at this machine's sizes (labkit.workloads.ycsb.side_by_side
says what is alike and what differs).

    .venv/bin/python benchmarks/ycsb_engines.py            # A, B, C, insert-mostly at 200-1,600 offered/s, 6 s each, 3 blocks (about 50 min)
    .venv/bin/python benchmarks/ycsb_engines.py --quick    # 2 offered loads, 2 s each, 1 block: checks the script, claims nothing
    .venv/bin/python benchmarks/ycsb_engines.py --targets 400,1600 --mixes a,b,c,insert-mostly   # the classroom size, narrowed
    .venv/bin/python benchmarks/ycsb_engines.py --targets 400,1600 --mixes d,e,f   # YCSB's other mixes: results/ycsb_engines_d_e_f*
    .venv/bin/python benchmarks/ycsb_engines.py --load-phase   # the load phase, timed on both engines alike: results/ycsb_engines_load_phase*

Writes results/ycsb_engines_runs.csv (every run, with every process's CPU per transaction and what the records took
on disk) and results/ycsb_engines.csv/.md (per mix and offered load: each engine's mean latency from the actual start,
document 004's measure, and from the intended start, with HBase's over Cassandra's and its 95% interval for each, and
CPU per transaction, medians of the blocks). labkit.workloads.ycsb.side_by_side says what is alike (the budget and its
total, HBase's gateway inside it, the timer slack, the flushed load, a block cache smaller than the data) and what
is not.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import profile_run, write  # noqa: E402

from labkit.workloads.ycsb import side_by_side  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
COLUMNS = ["engine", "server_version", "provider", "nodes", "node_cpu", "approach", "threads", "processes", "records", "repeat", "order",
           "target_rate", "throughput", "kept_up", "mean_us", "intended_mean_us", "p95_us", "intended_p95_us",
           "server_cpu_ms_per_tx", "server_wakeups_per_s", "node_throttled_s", "client_cpu_cores", "limit", "errors", "verify_ok", "outside_budget",
           "data_mib_on_disk", "block_cache_fraction", "load_s", "cluster_cap_throttled_s", "client_path"]
"""Besides these, each operation's mean service time (read_mean_us, update_mean_us, insert_mean_us: document 004
quotes the update's and the insert's) and every per-process CPU column (server_cpu_ms_per_tx_<process>: Cassandra's
nodes; HBase's region servers, ZooKeeper, master and Thrift gateway)."""
OPERATIONS = ("read", "update", "insert", "scan", "rmw_read", "rmw_update")


def options(parser) -> None:
    parser.add_argument("--mixes", type=lambda v: tuple(f"baseline/{m}" for m in v.split(",")),
                        help="narrow the mixes, e.g. a,c,insert-mostly (d, e, f: YCSB's other mixes, written to their own files)")
    parser.add_argument("--targets", type=lambda v: tuple(int(t) for t in v.split(",")), help="narrow the offered loads, e.g. 400,1600")
    parser.add_argument("--load-phase", action="store_true",
                        help="time YCSB's load phase on both engines: per block, each engine's cluster loads the records into an emptied "
                             "table (one per request, 64 in flight, budgets lifted) and runs insert-mostly at 400/s; "
                             "results/ycsb_engines_load_phase*")


def main() -> None:
    profile, stem, command, args = profile_run(__file__, __doc__, options)
    narrow = {k: v for k, v in (("mixes", args.mixes), ("targets", args.targets)) if v}
    if args.load_phase:  # an inserting mix reloads for every run, so each block's measured run times a load (the warm-up block's is not kept)
        narrow, stem = {"mixes": ("baseline/insert-mostly",), "targets": (400,)}, stem + "_load_phase"
    if args.mixes and not set(args.mixes) <= set(side_by_side.MIXES):  # beyond document 004's four: files of their own
        stem += "_" + "_".join(m.split("/")[1] for m in args.mixes)
    df = side_by_side.side_by_side(profile, **narrow)
    per_process = sorted(c for c in df if c.startswith("server_cpu_ms_per_tx_") and c != "server_cpu_ms_per_tx_net")
    per_operation = [f"{op}_mean_us" for op in OPERATIONS if f"{op}_mean_us" in df]
    write(df[[c for c in COLUMNS if c in df] + per_operation + per_process].copy(), OUT, stem.replace("ycsb_engines", "ycsb_engines_runs"),
          "YCSB on HBase and Cassandra: every run", machine(), command)
    table = side_by_side.summary(df)
    write(table, OUT, stem, f"YCSB on HBase and Cassandra side by side ({side_by_side.NODES} nodes at {side_by_side.NODE_CPU} core each, "
          "HBase's gateway inside the same total; mean latency from the actual start, and from the intended start)", machine(), command)
    print(table.to_string(index=False))
    loads = side_by_side.load_rates(df)
    write(loads, OUT, stem + "_load", "YCSB's load phase on HBase and Cassandra (records per second, flush included, budgets lifted)", machine(), command)
    print(loads.to_string(index=False))


if __name__ == "__main__":
    main()
