"""YCSB on HBase and on Cassandra side by side: document 004's comparison (average latency at rising target
throughputs for workloads A, B, C and insert-mostly), at this machine's sizes (labkit.workloads.ycsb.side_by_side
says what is alike and what differs).

    .venv/bin/python benchmarks/ycsb_engines.py            # A, B, C, insert-mostly at 200-1,600 offered/s, 6 s each, 3 blocks (about 40 min)
    .venv/bin/python benchmarks/ycsb_engines.py --quick    # 2 offered loads, 2 s each, 1 block: checks the script, claims nothing
    .venv/bin/python benchmarks/ycsb_engines.py --targets 400,1600 --mixes a,b,c,insert-mostly   # the classroom size, narrowed

Writes results/ycsb_engines_runs.csv (every run, with every process's CPU per transaction) and
results/ycsb_engines.csv/.md (per mix and offered load: each engine's mean latency from the intended start and CPU
per transaction, medians of the blocks, and HBase's mean latency over Cassandra's with its 95% interval).
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
           "server_cpu_ms_per_tx", "client_cpu_cores", "limit", "errors", "verify_ok", "outside_budget"]
"""Besides these, each operation's mean service time (read_mean_us, update_mean_us, insert_mean_us: document 004
quotes the update's and the insert's) and every per-process CPU column (server_cpu_ms_per_tx_<process>: Cassandra's
nodes; HBase's region servers, ZooKeeper, master and Thrift gateway)."""
OPERATIONS = ("read", "update", "insert")


def narrowed() -> tuple[dict, str]:
    """--mixes a,c,insert-mostly and --targets 400,1600 narrow the classroom size (the rest of argv is profile_run's)."""
    chosen, said = {}, ""
    for flag, name, parse in (("--mixes", "mixes", lambda v: tuple(f"baseline/{m}" for m in v.split(","))),
                              ("--targets", "targets", lambda v: tuple(int(t) for t in v.split(",")))):
        if flag in sys.argv:
            at = sys.argv.index(flag)
            chosen[name] = parse(sys.argv[at + 1])
            said += f" {flag} {sys.argv[at + 1]}"
            del sys.argv[at:at + 2]
    return chosen, said


def main() -> None:
    narrow, said = narrowed()
    profile, stem, command = profile_run(__file__, __doc__)
    command += said
    df = side_by_side.side_by_side(profile, **narrow)
    per_process = sorted(c for c in df if c.startswith("server_cpu_ms_per_tx_") and c != "server_cpu_ms_per_tx_net")
    per_operation = [f"{op}_mean_us" for op in OPERATIONS if f"{op}_mean_us" in df]
    write(df[[c for c in COLUMNS if c in df] + per_operation + per_process].copy(), OUT, stem.replace("ycsb_engines", "ycsb_engines_runs"),
          "YCSB on HBase and Cassandra: every run", machine(), command)
    table = side_by_side.summary(df)
    write(table, OUT, stem, f"YCSB on HBase and Cassandra side by side ({side_by_side.NODES} nodes at {side_by_side.NODE_CPU} core each, "
          "mean latency from the intended start)", machine(), command)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
