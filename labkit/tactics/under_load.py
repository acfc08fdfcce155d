"""Run a workload at a fixed offered load and apply one tactic part-way through: one per-second timeline
with the moment the tactic started and the moment the server confirmed it, and the before / during /
after comparison that says what the tactic cost while it ran and what it bought afterwards."""

from __future__ import annotations

import math
import os
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..errors import ConfigError
from ..runner import RunOptions, Watch, run
from ..runner.limits import BUSY
from ..runner.result import RunResult
from ..runner.unmeasured import budgets_lifted, verified
from ..runner.workload import hooks
from .base import Tactic
from .sampler import CpuSampler

if TYPE_CHECKING:
    from ..clusters.contract import Cluster

WINDOWS = ("before", "during", "settling", "after")


@dataclass
class TacticRun:
    """One tactic applied under one workload: the run, when the tactic started and took effect (seconds
    since the workers' release), the server's evidence, and each second's CPU of the machine and nodes."""

    tactic: str
    title: str
    settle_s: float  # seconds after the effect kept out of `after` (Tactic.settle_s)
    workload: str  # the workload's kind (read-heavy, update-heavy, write-heavy, scan, query-by-tag)
    offered: float  # transactions per second the client schedules
    labels: dict[str, Any]  # engine, server_version, provider, nodes_before/after, node_cpu_before/after, threads
    result: RunResult
    started_s: float | None
    effective_s: float | None
    evidence: dict[str, Any] = field(default_factory=dict)  # what the server said when the tactic returned
    evidence_after: dict[str, Any] = field(default_factory=dict)  # and again once the load had stopped
    error: str | None = None  # the tactic failed (the measured run is kept)
    cpu: dict[int, dict[str, Any]] = field(default_factory=dict)  # second -> machine_busy, nodes {name: cores}
    node_cpu: dict[int, float | None] = field(default_factory=dict)  # second -> each node's budget then

    @property
    def took_s(self) -> float | None:
        """From the tactic's start to the server confirming it."""
        if self.started_s is None or self.effective_s is None:
            return None
        return self.effective_s - self.started_s

    def bounds(self) -> dict[str, tuple[int, int]]:
        """Whole seconds of each window: before = [1, start), during = [start, effective], settling = the
        tactic's settle_s after that, after = the rest but the last, partial second (second 0 is left
        out: the first second of a released client ramps up)."""
        last = len(self.result.timeline_rows())
        if self.started_s is None:
            return {"before": (1, last), "during": (last, last), "settling": (last, last), "after": (last, last)}
        start = max(1, int(self.started_s))
        effective = min(last, math.ceil(self.effective_s)) if self.effective_s is not None else last
        end = max(effective, last - 1 if last - effective > 2 else last)
        settled = min(end, effective + math.ceil(self.settle_s))
        return {"before": (1, start), "during": (start, max(start, effective)), "settling": (effective, settled), "after": (settled, end)}

    def window_of(self, second: int) -> str:
        for name, (first, last) in self.bounds().items():
            if first <= second < last:
                return name
        return ""

    def timeline_rows(self) -> list[dict[str, Any]]:
        """Per second: throughput, errors, latency (ms; from the scheduled start where paced), the machine's
        busy share and the nodes' cores, and which window the second belongs to."""
        out = []
        for r in self.result.timeline_rows():
            s = r["second"]
            cpu = self.cpu.get(s, {})
            ms = lambda us: None if us is None else us / 1000  # noqa: E731
            out.append({
                "second": s, "window": self.window_of(s), "throughput": r["throughput"], "errors": r["errors"],
                "p50_ms": ms(r["p50_us"]), "p95_ms": ms(r["p95_us"]), "p99_ms": ms(r["p99_us"]),
                "intended_p95_ms": ms(r.get("intended_p95_us")), "intended_p99_ms": ms(r.get("intended_p99_us")),
                "machine_busy": cpu.get("machine_busy"), "server_cores": round(sum(cpu.get("nodes", {}).values()), 3) if cpu else None,
                "nodes_serving": len(cpu.get("nodes", {})) if cpu else None,
            })
        return out

    def windows(self) -> dict[str, dict[str, Any]]:
        """Each window's throughput, errors, p95/p99 (intended where paced, ms), server cores and CPU per
        transaction, and what limited it (machine, the busiest budgeted node, or none)."""
        rows = {r["second"]: r for r in self.result.timeline_rows()}
        timeline = self.result.timeline
        out = {}
        for name, (first, last) in self.bounds().items():
            seconds = [s for s in range(first, last) if s in rows]
            span = sum(rows[s]["span_s"] for s in seconds)
            done = sum(rows[s]["transactions"] for s in seconds)
            errors = sum(rows[s]["errors"] for s in seconds)
            paced = bool(timeline is not None and timeline.intended)
            h = timeline.window(first, last, intended=paced) if timeline is not None and seconds else None
            service = timeline.window(first, last) if timeline is not None and seconds else None
            cores = [sum(self.cpu[s]["nodes"].values()) for s in seconds if s in self.cpu]
            busy = [self.cpu[s]["machine_busy"] for s in seconds if s in self.cpu]
            w = {
                "seconds": len(seconds),
                "throughput": round(done / span, 1) if span > 0 else None,
                "errors": errors,
                "p95_ms": h.get_value_at_percentile(95) / 1000 if h is not None and h.get_total_count() else None,
                "p99_ms": h.get_value_at_percentile(99) / 1000 if h is not None and h.get_total_count() else None,
                "service_p95_ms": service.get_value_at_percentile(95) / 1000 if service is not None and service.get_total_count() else None,
                "server_cores": round(sum(cores) / len(cores), 3) if cores else None,
                "server_cpu_ms_per_tx": round(1000 * sum(cores) / done, 3) if cores and done else None,
                "machine_busy": round(sum(busy) / len(busy), 3) if busy else None,
            }
            w["limit"] = self._limit(seconds, w["machine_busy"])
            out[name] = w
        return out

    def _limit(self, seconds: list[int], machine_busy: float | None) -> str:
        """The runner's rule per window: a budgeted node at >= 90% of its budget, else the machine at >= 90%."""
        used: dict[str, list[float]] = {}
        budget = [cores for s in seconds if (cores := self.node_cpu.get(s))]
        for s in seconds:
            for node, cores in self.cpu.get(s, {}).get("nodes", {}).items():
                used.setdefault(node, []).append(cores)
        if budget and used:
            node, mean = max(((n, sum(v) / len(v)) for n, v in used.items()), key=lambda x: x[1])
            if mean >= BUSY * min(budget):
                return f"server {node}"
        if machine_busy is not None and machine_busy >= BUSY:
            return "machine"
        return "none"

    def row(self) -> dict[str, Any]:
        """One tidy row: labels, the tactic's duration, each window's figures and the ratios that say what
        it cost (during vs before) and what it bought (after vs before)."""
        w = self.windows()
        ratio = lambda a, b: round(a / b, 3) if a is not None and b not in (None, 0) else None  # noqa: E731
        before, during, after = w["before"], w["during"], w["after"]
        extra = None
        if during["server_cores"] is not None and before["server_cores"] is not None:
            extra = round((during["server_cores"] - before["server_cores"]) * during["seconds"], 2)
        row = {
            **self.labels, "tactic": self.tactic, "tactic_title": self.title, "workload_kind": self.workload, "offered": self.offered,
            "settle_s": self.settle_s,
            "started_s": None if self.started_s is None else round(self.started_s, 2),
            "effective_s": None if self.effective_s is None else round(self.effective_s, 2),
            "took_s": None if self.took_s is None else round(self.took_s, 2),
            "effective_within_run": self.effective_s is not None and self.effective_s <= self.result.wall_s,
            "tactic_error": self.error or "",
            "evidence": "; ".join(f"{k}={v}" for k, v in self.evidence.items()),
            "throughput_after_vs_before": ratio(after["throughput"], before["throughput"]),
            "p95_after_vs_before": ratio(after["p95_ms"], before["p95_ms"]),
            "p95_during_vs_before": ratio(during["p95_ms"], before["p95_ms"]),
            "p95_settling_vs_before": ratio(w["settling"]["p95_ms"], before["p95_ms"]),
            "server_cpu_per_tx_after_vs_before": ratio(after["server_cpu_ms_per_tx"], before["server_cpu_ms_per_tx"]),
            "extra_server_core_s_during": extra,
            "verify_ok": None if self.result.verification is None else self.result.verification.ok,
            "verify_state": "not run" if self.result.verification is None else self.result.verification.state,
            "verify_problems": "" if self.result.verification is None else "; ".join(self.result.verification.problems),
            "client_limit": self.result.limit if self.result.limit == "client" else "",
        }
        for name in WINDOWS:
            for key, value in w[name].items():
                row[f"{name}_{key}"] = value
        return row


def _labels(cluster: Cluster, when: str) -> dict[str, Any]:
    info = cluster.info()
    return {f"nodes_{when}": info.nodes, f"node_cpu_{when}": info.node_cpu}


def run_under_load(
    cluster: Cluster,
    workload: Any,
    tactic: Tactic,
    *,
    kind: str,
    rate: float,
    threads: int = 32,
    before_s: float = 10,
    expect_s: float = 30,
    after_s: float = 15,
    warmup: int = 200,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> TacticRun:
    """Run `workload` paced at `rate` transactions/s on `threads` in-flight requests (one client process,
    greenlets) for about before_s + expect_s + after_s seconds, and apply `tactic` `before_s` seconds in.

    The run's length is fixed by its operation count (rate x those seconds) so that every transaction is
    verified after it; a tactic that takes longer than `expect_s` leaves a shorter "after" window, and
    one still running when the load ends is waited for and reported as effective after the run. A failing
    tactic does not lose the run: its error is kept in the result. Verification (no lost writes) runs
    after the tactic has finished."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate <= 0:
        raise ConfigError(f"rate must be a positive number of transactions per second; got {rate!r}")
    for name, value in (("before_s", before_s), ("after_s", after_s), ("expect_s", expect_s)):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1 second; got {value!r}")
    say = progress or (lambda message: None)
    tactic.check(cluster, workload)
    info = cluster.info()
    labels = {"engine": info.engine, "server_version": info.server_version, "provider": info.provider, "threads": threads,
              "machine_cores": os.cpu_count() or 1, **_labels(cluster, "before")}
    meter = cluster.cpu_meter()  # None where the lab cannot see the servers
    with budgets_lifted(meter, settle=False):  # not measured: dropping an earlier run's index must not crawl at 0.15 core
        tactic.prepare(cluster, workload)
    operations = int(rate * (before_s + expect_s + after_s))
    released = threading.Event()
    zero: list[float] = []
    moments: dict[str, Any] = {}
    budgets: dict[float, float | None] = {}
    stop_waiting = threading.Event()

    def apply_later() -> None:
        released.wait()
        if stop_waiting.wait(before_s):
            return
        moments["started"] = time.monotonic()
        budgets[moments["started"]] = cluster.info().node_cpu
        say(f"{tactic.title}: started")
        try:
            tactic.apply(cluster, workload)
            moments["effective"] = time.monotonic()
            moments["evidence"] = tactic.evidence(cluster, workload)
            say(f"{tactic.title}: effective after {moments['effective'] - moments['started']:.1f} s")
        except Exception as exc:  # the run goes on; the error is reported with it
            moments["error"] = f"{type(exc).__name__}: {exc}"
            moments["trace"] = traceback.format_exc()
            say(f"{tactic.title}: failed: {moments['error']}")
        budgets[time.monotonic()] = cluster.info().node_cpu

    def on_release() -> None:
        zero.append(time.monotonic())
        budgets[zero[0]] = cluster.info().node_cpu
        released.set()

    applier = threading.Thread(target=apply_later, name=f"labkit-tactic-{tactic.name}", daemon=True)
    applier.start()
    say(f"{kind} load at {rate:g}/s for about {before_s + expect_s + after_s:.0f} s; {tactic.title} at {before_s:g} s")
    try:
        with CpuSampler(cluster) as sampler:
            result = run(workload, threads=threads, operations=operations,
                options=RunOptions(processes=1, target_rate=rate, warmup=warmup, seed=seed, workers="greenlets", verify=False),
                watch=Watch(server_meter=meter, on_release=on_release))
            if applier.is_alive():
                say(f"the load has ended; waiting for {tactic.title} to take effect")
            if "started" not in moments:
                stop_waiting.set()  # the load ended before the tactic's moment came: it is not applied
            released.set()  # a run that never released (interrupted early) must not leave the applier waiting
            applier.join()
        evidence_after: dict[str, Any] = {}

        def confirm() -> None:
            nonlocal evidence_after
            if "error" not in moments and "started" in moments:
                try:
                    evidence_after = tactic.evidence(cluster, workload)
                except Exception as exc:
                    moments["error"] = f"after the run the server no longer confirms the tactic: {exc}"

        if tactic.evidence_under_budgets:
            confirm()
        with budgets_lifted(meter, settle=False):  # not measured: a budgeted node must not time the checks out
            if result.complete:
                result.verification = verified(workload)
            if not tactic.evidence_under_budgets:
                confirm()
    finally:
        hooks(workload).close_process()
    origin = zero[0] if zero else time.monotonic()
    since = lambda key: moments[key] - origin if key in moments else None  # noqa: E731
    changes = sorted(budgets.items())
    node_cpu = {}
    for second in range(len(result.timeline_rows()) + 1):
        at = origin + second + 0.5
        node_cpu[second] = next((b for t, b in reversed(changes) if t <= at), changes[0][1] if changes else None)
    labels.update(_labels(cluster, "after"))
    return TacticRun(
        tactic=tactic.name, title=tactic.title, settle_s=tactic.settle_s, workload=kind, offered=float(rate), labels=labels, result=result,
        started_s=since("started"), effective_s=since("effective"), evidence=moments.get("evidence", {}), evidence_after=evidence_after,
        error=moments.get("error"), cpu=sampler.per_second(origin), node_cpu=node_cpu,
    )
