"""What one run measured, in the units a plot or a table wants (microseconds, transactions/s)."""

from __future__ import annotations

import json

from dataclasses import dataclass, field
from typing import Any

from .measurements import INTENDED, TRANSACTION, Measurements, Series
from .server_cpu import ServerCpu
from .timeline import Timeline
from .workload import Verification


@dataclass(frozen=True)
class LatencyStats:
    """Latency summary of one series (a transaction type or an operation type)."""

    count: int
    errors: int
    retries: int
    mean_us: float | None
    p50_us: int | None
    p95_us: int | None
    p99_us: int | None
    max_us: int | None

    @classmethod
    def of(cls, series: Series) -> "LatencyStats":
        n = series.count
        h = series.histogram
        if n == 0:
            return cls(0, series.errors, series.retries, None, None, None, None, None)
        return cls(
            count=n,
            errors=series.errors,
            retries=series.retries,
            mean_us=series.sum_us / n,
            p50_us=h.get_value_at_percentile(50),
            p95_us=h.get_value_at_percentile(95),
            p99_us=h.get_value_at_percentile(99),
            max_us=h.get_max_value(),
        )


@dataclass
class RunResult:
    """One run of one workload at one thread count: throughput, latency, errors, client CPU, verification."""

    workload: str
    complete: bool
    threads: int  # workers (transactions in flight) in all client processes
    processes: int
    operations: int  # transactions requested
    warmup: int
    target_rate: float | None
    wall_s: float
    stats: LatencyStats  # whole transactions
    ops: dict[str, LatencyStats]  # per operation type
    client_cpu_cores: float  # cores' worth of CPU the client processes used during the measured window
    client_cores_available: int
    client_saturated: bool
    saturation_note: str
    machine_cpu_busy: float | None  # fraction of all the machine's cores busy (client + servers + rest)
    verification: Verification | None
    client_gil_wait_ms: float | None = None  # mean wait of a probe thread for the interpreter lock
    workers: str = "threads"  # how a process keeps transactions in flight: threads or greenlets
    client_calls: dict[str, int] = field(default_factory=dict)  # greenlets: the measured window's database calls per client path
    intended: LatencyStats | None = None  # paced runs: latency from each transaction's scheduled start
    timeline: Timeline | None = None  # per-second counts and latency percentiles (runner.timeline)
    client_run_queue_ms: float | None = None  # mean wait of that probe for a free core (the machine busy)
    server_cpu: ServerCpu | None = None  # each node's CPU in the measured window (local providers)
    machine_parts: dict[str, float] = field(default_factory=dict)  # MachineCpu.parts: busy cores, kernel interrupts, coordinator
    load_s: float | None = None
    """Seconds the workload's load phase took before the run (unmeasured, budgets lifted; a workload that finds its
    data already loaded returns at once, so only a run that loaded says how long loading takes); None: no load phase."""
    limit: str = "none"  # what limited the run: client, server nodeN, machine, none (runner.limits)
    limit_note: str = ""
    server: dict[str, float] = field(default_factory=dict)  # growth of the server's own counters during the run
    error_kinds: dict[str, int] = field(default_factory=dict)
    error_samples: dict[str, str] = field(default_factory=dict)
    measurements: Measurements | None = field(default=None, repr=False)
    parts: list[Measurements] = field(default_factory=list, repr=False)  # one per client process
    threads_per_process: list[int] = field(default_factory=list)  # how `threads` were spread over the processes
    cleanup_problem: str = ""  # what cleanup() could not do ('' when it worked or did not run)
    released_at: float | None = None  # time.monotonic() of the workers' release: second 0 of `timeline`
    client_hosts: list[tuple[str, int, float]] = field(default_factory=list)  # Dask clients: (host, processes, CPU cores used) per host
    client_problems: list[str] = field(default_factory=list)  # Dask clients: a worker lost mid-run, naming its host
    client_barrier_slack_s: float | None = None  # Dask clients: first release - last arrival at the start barrier (>= 0: it held)

    @property
    def count(self) -> int:
        """Transactions that succeeded."""
        return self.stats.count

    @property
    def errors(self) -> int:
        return self.stats.errors

    @property
    def retries(self) -> int:
        return sum(s.retries for s in self.ops.values())

    @property
    def throughput(self) -> float:
        """Successful transactions per second of wall time (release to last completion)."""
        return self.count / self.wall_s if self.wall_s > 0 else 0.0

    def to_row(self) -> dict[str, Any]:
        """A flat dict: transaction figures as plain columns, each operation type as `<op>_<figure>`."""
        row: dict[str, Any] = {
            "workload": self.workload,
            "complete": self.complete,
            "threads": self.threads,
            "processes": self.processes,
            "threads_per_process": "/".join(map(str, self.threads_per_process)) or str(self.threads),
            "operations": self.operations,
            "warmup": self.warmup,
            "target_rate": self.target_rate,
            "count": self.count,
            "errors": self.errors,
            "retries": self.retries,
            "wall_s": round(self.wall_s, 6),
            "load_s": None if self.load_s is None else round(self.load_s, 3),
            "throughput": round(self.throughput, 3),
            "mean_us": self.stats.mean_us,
            "p50_us": self.stats.p50_us,
            "p95_us": self.stats.p95_us,
            "p99_us": self.stats.p99_us,
            "max_us": self.stats.max_us,
            "client_cpu_cores": round(self.client_cpu_cores, 3),
            "client_cores_available": self.client_cores_available,
            "client_saturated": self.client_saturated,
            "machine_cpu_busy": None if self.machine_cpu_busy is None else round(self.machine_cpu_busy, 3),
            "client_gil_wait_ms": None if self.client_gil_wait_ms is None else round(self.client_gil_wait_ms, 3),
            "client_run_queue_ms": None if self.client_run_queue_ms is None else round(self.client_run_queue_ms, 3),
            "limit": self.limit,
            "limit_note": self.limit_note,
            "verify_ok": None if self.verification is None else self.verification.ok,
            "verify_state": "not run" if self.verification is None else self.verification.state,
            "verify_checks": "" if self.verification is None else ", ".join(f"{k}={v}" for k, v in self.verification.checks.items()),
            "verify_problems": "" if self.verification is None else "; ".join(self.verification.problems),
            "error_kinds": ";".join(f"{k}={v}" for k, v in sorted(self.error_kinds.items())),
            "cleanup_problem": self.cleanup_problem,
        }
        if self.client_hosts:  # client processes ran on Dask workers: where, how many, and each host's CPU
            row["client_hosts"] = ", ".join(f"{host} x{n}" for host, n, _ in self.client_hosts)
            row["client_host_cpu_cores"] = ", ".join(f"{host} {cores:.2f}" for host, _, cores in self.client_hosts)
            row["client_problems"] = "; ".join(self.client_problems)
            row["client_barrier_slack_s"] = None if self.client_barrier_slack_s is None else round(self.client_barrier_slack_s, 4)
        row["workers"] = self.workers
        row["client_path"] = self.client_path()
        row["timeline"] = json.dumps([[r["second"], round(r["span_s"], 3), r["transactions"], r["errors"], r["p50_us"], r["p95_us"], r["p99_us"]]
                                      for r in self.timeline_rows()], separators=(",", ":"))
        row["latency_measured_as"] = (
            "service time; intended_*: from the scheduled start" if self.target_rate else "service time (closed loop, no schedule)"
        )
        if self.intended is not None:
            for name in ("mean_us", "p50_us", "p95_us", "p99_us", "max_us"):
                row[f"intended_{name}"] = getattr(self.intended, name)
        row.update(self._server_cpu_columns())
        for counter, growth in sorted(self.server.items()):
            row[f"server_counter_{counter}"] = growth
        own, foreign = self.server.get("requests_own"), self.server.get("requests_foreign")
        if own is not None and foreign is not None:  # a shared cluster: how busy the class was
            row["foreign_request_share"] = round(foreign / (own + foreign), 3) if own + foreign > 0 else None
        for op, s in sorted(self.ops.items()):
            for name in ("count", "errors", "retries", "mean_us", "p50_us", "p95_us", "p99_us", "max_us"):
                row[f"{op}_{name}"] = getattr(s, name)
        return row

    def client_path(self) -> str:
        """Which client path carried the database calls: a driver's own (e.g. `acsylla 1.2.0`), the driver's
        asynchronous calls, helper threads, or each worker thread's blocking calls; shares when mixed."""
        if self.workers == "threads":
            return "blocking calls (threads)"
        total = sum(self.client_calls.values())
        if not total:
            return ""
        parts = sorted(self.client_calls.items(), key=lambda kv: -kv[1])
        if len(parts) == 1:
            return parts[0][0]
        return ", ".join(f"{path} {100 * n / total:.0f}%" for path, n in parts)

    def timeline_rows(self) -> list[dict[str, Any]]:
        """Per second of the measured window: transactions, errors, throughput and p50/p95/p99 (us);
        `span_s` is how much of that second the run covered (the last one is partial)."""
        rows = self.timeline.rows() if self.timeline is not None else []
        for r in rows:
            r["span_s"] = max(0.0, min(1.0, self.wall_s - r["second"]))
            r["throughput"] = r["transactions"] / r["span_s"] if r["span_s"] > 0.05 else None
        return rows

    def _server_cpu_columns(self) -> dict[str, Any]:
        """server_cpu_ms_per_tx (all nodes), server_cpu_ms_per_tx_net (above the idle background, where the
        meter measured it), server_cpu_ms_per_tx_<node>, server_wakeups_per_s (the nodes' threads woken per second: a
        spinning worker pool's evidence), node_throttled_s (seconds the kernel held budgeted nodes back, all
        nodes together), node_busy_max (of budget)."""
        cols_machine = self._machine_columns()
        if self.server_cpu is None:
            return {"server_cpu_ms_per_tx": None, **cols_machine}
        per_tx = self.server_cpu.per_transaction_ms(self.count)  # the meter covers the measured window only
        cols: dict[str, Any] = {"server_cpu_ms_per_tx": round(per_tx["total"], 4) if per_tx else None}
        net = self.server_cpu.net_per_transaction_ms(self.count)
        if net is not None:
            cols["server_cpu_ms_per_tx_net"] = round(net, 4)
            cols["server_idle_cores"] = round(sum(self.server_cpu.idle_cores.values()), 4)
        for node, cpu in sorted(self.server_cpu.nodes.items()):
            cols[f"server_cpu_ms_per_tx_{node}"] = round(per_tx[node], 4) if per_tx else None
            cols[f"server_cpu_s_{node}"] = round(cpu.cpu_s, 4)
        woken = self.server_cpu.wakeups_per_s()
        cols["server_wakeups_per_s"] = None if woken is None else round(woken)
        cols["node_throttled_s"] = round(sum(n.throttled_s for n in self.server_cpu.nodes.values()), 3)
        if self.server_cpu.cap_throttled_s is not None:
            cols["cluster_cap_throttled_s"] = round(self.server_cpu.cap_throttled_s, 3)
        busiest = self.server_cpu.busiest()
        cols["node_busy_max"] = None if busiest is None else round(busiest[1], 3)
        return {**cols, **cols_machine}

    def _machine_columns(self) -> dict[str, Any]:
        """Where the machine's busy cores went: client processes, nodes, the kernel's interrupt work, this
        coordinating process, and `machine_cpu_other_cores`, what none of these accounts for (other programs,
        the kernel outside interrupts)."""
        parts = self.machine_parts
        if not parts:
            return {}
        nodes = sum(c.cpu_s for c in self.server_cpu.nodes.values()) / self.server_cpu.wall_s if self.server_cpu and self.server_cpu.wall_s > 0 else None
        parts = dict(parts)
        if self.processes == 1:  # the client ran in the coordinating process itself: its CPU is the client's already
            parts["coordinator_cpu_cores"] = max(0.0, parts["coordinator_cpu_cores"] - self.client_cpu_cores)
        cols: dict[str, float | None] = {k: round(v, 3) for k, v in parts.items()}
        cols["server_cpu_cores"] = None if nodes is None else round(nodes, 3)
        if nodes is not None:
            known = self.client_cpu_cores + nodes + parts["kernel_interrupt_cores"] + parts["coordinator_cpu_cores"]
            cols["machine_cpu_other_cores"] = round(parts["machine_cpu_cores"] - known, 3)
        return cols

    def summary(self) -> str:
        s = self.stats
        state = "" if self.complete else " [INCOMPLETE: stopped early]"
        lines = [
            f"{self.workload}: {self.count}/{self.operations} transactions, {self.threads} workers in "
            f"{self.processes} process(es), {self.wall_s:.3f} s, {self.throughput:,.0f} tx/s{state}",
        ]
        if s.count:
            lines.append(
                f"  latency us: mean {s.mean_us:,.0f}  p50 {s.p50_us:,}  p95 {s.p95_us:,}  p99 {s.p99_us:,}  max {s.max_us:,}"
            )
        lines.append(f"  errors {self.errors}, retries {self.retries}")
        for kind, text in self.error_samples.items():
            lines.append(f"  {kind} x{self.error_kinds.get(kind, 0)}: {text}")
        if self.server_cpu is not None and self.count:
            lines.append(f"  server CPU {self.server_cpu.per_transaction_ms(self.count)['total']:.2f} ms per transaction")
        if self.limit != "none":
            lines.append(f"  limited by {self.limit}: {self.limit_note}")
        if self.verification is not None:
            lines.append("  " + str(self.verification))
        if self.cleanup_problem:
            lines.append("  " + self.cleanup_problem)
        return "\n".join(lines)


def op_stats(measurements: Measurements) -> dict[str, LatencyStats]:
    return {name: LatencyStats.of(s) for name, s in measurements.series.items() if name not in (TRANSACTION, INTENDED)}


def intended_stats(measurements: Measurements) -> LatencyStats | None:
    """Latency from each transaction's scheduled start (paced runs only; None otherwise)."""
    series = measurements.series.get(INTENDED)
    return LatencyStats.of(series) if series is not None and series.count else None
