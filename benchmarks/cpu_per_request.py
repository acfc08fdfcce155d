"""CPU per request on a budgeted Cassandra node, with Linux's default timer slack and with labkit's 1 ms: which figure measures work?

    .venv/bin/python benchmarks/cpu_per_request.py            # 1 node at 0.5 core, YCSB C, 100/200/400 reads/s, 4 ABBA blocks (about 12 min)
    .venv/bin/python benchmarks/cpu_per_request.py --quick    # two blocks of short runs: checks the script, claims nothing

A budgeted Cassandra node used about 90% of its quota at every load (benchmarks/results/tactics.csv,
ycsb_offered_load.csv), so its CPU per request was the quota over the throughput. The cause is its worker
pool's wait-spin between tasks, whose parks end as early as the kernel's timer slack lets them
(labkit/host/timer_slack.py). This benchmark runs one node under a 0.5-core budget (10 ms CFS period) and
switches the timer slack of every one of its threads between Linux's 50 us and the 1 ms labkit now gives
budgeted nodes, block by block in ABBA order, so both settings share one JVM, its compiled code and its
data. In each block and setting it paces YCSB C (point reads of 20,000 records, two client processes, 64
in flight) at 100, 200 and 400 reads/s (at 400/s on this VM the kernel throttled the 50 us node for 2.2 s of
the 8, the 1 ms node for 0.015 s; the committed offered-load rows put C's throughput knee far higher), through labkit's runner and its
node CPU meter (the same path every lesson's row takes), and records the node's CPU net of its idle
background, its threads' wake-ups (voluntary context switches), the time the kernel throttled it, and
latency from each read's intended start.

Tables (results/cpu_per_request.{csv,md}, results/cpu_per_request_summary.md):
- per setting and rate, the mean of the blocks with a 95% t-interval (the blocks are repeats of that one
  condition): cores, CPU per request net of idle, wake-ups/s, throttled s, intended p50/p95;
- per block, a least-squares fit over both settings' six points: cores = idle + work x rate + cost x
  wake-ups/s, whose `work` is the CPU a read costs apart from the wake-ups, with a t-interval over blocks;
  and that work per rate and setting ((cores - idle - cost x wake-ups/s) / rate with the block's fit).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pattern_sweeps import machine  # noqa: E402
from report import profile_run, write  # noqa: E402

from labkit.clusters.local.cassandra import LocalCassandraCluster  # noqa: E402
from labkit.clusters.local.cassandra_config import BUDGETED_TIMER_SLACK_NS  # noqa: E402
from labkit.host import timer_slack  # noqa: E402
from labkit.runner.run import RunOptions, Watch, run  # noqa: E402
from labkit.workloads.ycsb import cassandra as ycsb_cassandra  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
NODE_CPU = 0.5
SLACKS = {"50 us (Linux default)": timer_slack.LINUX_DEFAULT_NS, "1 ms (labkit, budgeted)": BUDGETED_TIMER_SLACK_NS}
SIZES = {
    "classroom": {"rates": (100, 200, 400), "seconds": 8, "blocks": 4, "records": 20000, "warmup": 2000},
    "quick": {"rates": (100, 400), "seconds": 2, "blocks": 2, "records": 2000, "warmup": 300},
}
IN_FLIGHT = 64
PROCESSES = 2
COLUMNS = ["engine", "server_version", "provider", "nodes", "node_cpu", "workload", "block", "order", "slack", "slack_ns", "threads_at_slack",
           "target_rate", "throughput", "operations", "server_cpu_cores", "server_cpu_ms_per_tx", "server_cpu_ms_per_tx_net", "server_idle_cores",
           "server_wakeups_per_s", "node_throttled_s", "node_busy_max", "intended_p50_us", "intended_p95_us", "p50_us", "p95_us", "limit",
           "errors", "complete"]


def abba(blocks: int) -> list[list[str]]:
    """Each block's order of the two settings: A B, B A, A B, ... (a drift over the run falls on both alike)."""
    names = list(SLACKS)
    return [names if b % 2 == 0 else names[::-1] for b in range(blocks)]


def measure(cluster: LocalCassandraCluster, size: dict, first: list[bool], rate: int) -> dict:
    """One paced run of YCSB C at `rate` reads/s through labkit's runner, metered like a lesson's row."""
    workload = ycsb_cassandra.workload("baseline/c", "offered-load", cluster, rate * size["seconds"], records=size["records"])
    options = RunOptions(processes=PROCESSES, target_rate=rate, warmup=size["warmup"] if first[0] else 200, setup=first[0], load=first[0], verify=False)
    first[0] = False
    result = run(workload, threads=IN_FLIGHT, operations=rate * size["seconds"], options=options, watch=Watch(server_meter=cluster.cpu_meter()))
    return result.to_row()


def work_fit(block: pd.DataFrame) -> tuple[float, float, float]:
    """(idle cores, CPU ms per read, CPU us per wake-up) fitted by least squares to one block's points."""
    a = np.column_stack([np.ones(len(block)), block["throughput"], block["server_wakeups_per_s"]])
    (idle, per_read, per_wake), *_ = np.linalg.lstsq(a, block["server_cpu_cores"].to_numpy(float), rcond=None)
    return idle, per_read * 1000.0, per_wake * 1e6


def number(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def mean_ci(values: pd.Series) -> str:
    """Mean of the blocks with its 95% t-interval ('0.21 (0.18 to 0.24)'); one block: the value alone."""
    v = values.dropna().to_numpy(float)
    if len(v) < 2:
        return number(v.mean()) if len(v) else "-"
    half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return f"{number(v.mean())} ({number(v.mean() - half)} to {number(v.mean() + half)})"


def main() -> None:
    profile, stem, command, _ = profile_run(__file__, __doc__)
    size = SIZES[profile]
    rows: list[dict] = []
    cluster = LocalCassandraCluster(nodes=1, node_cpu=NODE_CPU).start()
    try:
        pid = next(iter(cluster.node_processes().values())).pid
        first = [True]
        for block, order in enumerate(abba(size["blocks"])):
            for position, name in enumerate(order):
                took = timer_slack.set_for_process(pid, SLACKS[name])
                for rate in size["rates"]:
                    time.sleep(1.0)
                    row = measure(cluster, size, first, rate)
                    row.update(block=block, order=position, slack=name, slack_ns=SLACKS[name], threads_at_slack=took, workload="YCSB C (point reads)")
                    rows.append(row)
                    print(f"block {block} {name:24s} {rate:4d}/s: {row['throughput']:7.1f}/s  cores {row.get('server_cpu_cores')}  "
                          f"net {row.get('server_cpu_ms_per_tx_net')} ms/read  wake-ups {row.get('server_wakeups_per_s')}/s  "
                          f"throttled {row.get('node_throttled_s')} s  p50 {row.get('intended_p50_us')} us", flush=True)
    finally:
        cluster.stop()
    df = pd.DataFrame(rows)
    df = df[[c for c in COLUMNS if c in df.columns]]
    write(df.copy(), OUT, stem, "CPU per request on one budgeted Cassandra node: Linux's 50 us timer slack vs labkit's 1 ms", machine(), command)
    (OUT / f"{stem}_summary.md").write_text(summary(df, command))


def summary_from_csv(stem: str = "cpu_per_request") -> str:
    """The summary again from the committed rows (the command is the one the rows' table names)."""
    df = pd.read_csv(OUT / f"{stem}.csv")
    command = (OUT / f"{stem}.md").read_text().split("Command: `", 1)[1].split("`", 1)[0]
    return summary(df.drop(columns=["machine"]), command)


def summary(df: pd.DataFrame, command: str) -> str:
    """The side-by-side table per setting and rate, and the fitted work per read, each with its interval over blocks."""
    lines = [f"# CPU per request on one budgeted Cassandra node (summary)\n\nCommand: `{command}`\n",
             f"Machine: {machine()}\n", "Per setting and offered rate: mean of the blocks, 95% t-interval over the blocks (repeats of one condition).\n",
             "| slack | offered/s | blocks | cores | CPU ms/read net of idle | wake-ups/s | throttled s | intended p50 us | intended p95 us |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (name, rate), g in df.groupby(["slack", "target_rate"], sort=False):
        lines.append(f"| {name} | {rate:g} | {len(g)} | {mean_ci(g['server_cpu_cores'])} | {mean_ci(g['server_cpu_ms_per_tx_net'])} | "
                     f"{mean_ci(g['server_wakeups_per_s'])} | {mean_ci(g['node_throttled_s'])} | {mean_ci(g['intended_p50_us'])} | {mean_ci(g['intended_p95_us'])} |")
    fits = {b: work_fit(g) for b, g in df.groupby("block")}
    slopes = {name: pd.Series([1000.0 * np.polyfit(g["throughput"], g["server_cpu_cores"], 1)[0] for _, g in per.groupby("block")])
              for name, per in df.groupby("slack", sort=False)}
    fit = pd.DataFrame(fits, index=["idle", "per_read_ms", "per_wake_us"]).T
    lines += ["", "Per block, least squares over both settings' points: cores = idle + work x reads/s + cost x wake-ups/s.\n",
              f"- work per read: {mean_ci(fit['per_read_ms'])} ms of CPU",
              f"- cost per wake-up: {mean_ci(fit['per_wake_us'])} us of CPU",
              f"- idle: {mean_ci(fit['idle'])} cores", "",
              "Marginal CPU per read, the slope of cores over reads/s within one setting and block (least squares over its rates; the",
              "wake-ups each read itself causes included), a measure apart from the fit:\n",
              *(f"- {name}: {mean_ci(slopes[name])} ms" for name in slopes), "",
              "That work per read at each rate and setting, (cores - idle - cost x wake-ups/s) / reads/s with each block's fit. This is the",
              "fit plus its residual at each point, so the rows agreeing shows how well one line fits all six points of a block (a check",
              "of the model), not a second measurement:\n",
              "| slack | offered/s | work ms/read |", "|---|---|---|"]
    df = df.join(fit, on="block")
    df["work_ms"] = 1000.0 * (df["server_cpu_cores"] - df["idle"] - df["per_wake_us"] / 1e6 * df["server_wakeups_per_s"]) / df["throughput"]
    for (name, rate), g in df.groupby(["slack", "target_rate"], sort=False):
        lines.append(f"| {name} | {rate:g} | {mean_ci(g['work_ms'])} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
