"""What the servers spent while a run's workers ran: CPU seconds per node against each node's budget.

The runner knows nothing of clusters: a cluster hands it a meter (`start()`, then `stop()` returning a
ServerCpu), and the runner turns the reading into server CPU per transaction and into `limit`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import ContextManager, Protocol


@dataclass(frozen=True)
class NodeCpu:
    """One node's CPU in the measured window."""

    cpu_s: float  # CPU seconds the node's process used (all threads, user + system)
    budget_cores: float | None  # its CPU budget in cores, None when it has none
    throttled_s: float = 0.0  # time the kernel held it back for exceeding its budget
    wakeups: int | None = None
    """Times its threads slept and were woken in the window (voluntary context switches; None: not read).
    An idle worker's wait-spin wakes it thousands of times a second, each wake-up costing CPU whether or not
    it finds work (host.timer_slack), so this is the evidence of CPU spent looking for work."""

    def busy(self, wall_s: float) -> float | None:
        """Fraction of its budget the node used (None without a budget or a window)."""
        if not self.budget_cores or wall_s <= 0:
            return None
        return self.cpu_s / wall_s / self.budget_cores


@dataclass(frozen=True)
class ServerCpu:
    """Every node's CPU over one window of `wall_s` seconds."""

    wall_s: float
    nodes: dict[str, NodeCpu] = field(default_factory=dict)
    idle_cores: dict[str, float] = field(default_factory=dict)
    """Each node's CPU rate just before the window, with no client load (its own background work, 0.03-0.05
    core for a quiet Cassandra node here); empty when the meter did not measure it. It does not include the
    worker pool's wait-spin, which starts only once requests arrive (host.timer_slack)."""

    cap_throttled_s: float | None = None
    """Seconds the kernel held back the cluster's cap on all its processes together (budgets.cap_cluster; None: no cap)."""

    @property
    def total_s(self) -> float:
        return sum(n.cpu_s for n in self.nodes.values())

    def per_transaction_ms(self, transactions: int) -> dict[str, float]:
        """CPU milliseconds per transaction, in total and per node: the nodes' CPU over the window divided by
        the transactions. It includes what the nodes spent looking for work between requests (their wake-ups,
        `NodeCpu.wakeups`), which a slower run spreads over fewer transactions, so it is a request's cost only
        where the nodes were kept busy; benchmarks/cpu_per_request.py separates the two."""
        if transactions <= 0:
            return {}
        out = {"total": 1000.0 * self.total_s / transactions}
        out.update({name: 1000.0 * n.cpu_s / transactions for name, n in self.nodes.items()})
        return out

    def net_per_transaction_ms(self, transactions: int) -> float | None:
        """CPU milliseconds per transaction above the nodes' idle background (None without an idle
        reading), which an idle node's steady background would otherwise inflate more the more nodes there
        are. The wait-spin between requests is still in it (see per_transaction_ms)."""
        if transactions <= 0 or not self.nodes or not set(self.nodes) <= set(self.idle_cores):
            return None
        idle_s = sum(self.idle_cores[name] for name in self.nodes) * self.wall_s
        return max(0.0, 1000.0 * (self.total_s - idle_s) / transactions)

    def wakeups_per_s(self) -> float | None:
        """The nodes' wake-ups per second in all (None when any node's count is missing)."""
        counts = [n.wakeups for n in self.nodes.values()]
        if not counts or any(c is None for c in counts) or self.wall_s <= 0:
            return None
        return sum(c for c in counts if c is not None) / self.wall_s

    def busiest(self) -> tuple[str, float] | None:
        """(node, fraction of its budget used) of the busiest budgeted node."""
        used = [(name, b) for name, n in self.nodes.items() if (b := n.busy(self.wall_s)) is not None]
        return max(used, key=lambda x: x[1]) if used else None


class ServerMeter(Protocol):
    """What a cluster hands the runner to measure its nodes' CPU around the measured window (a cluster whose
    servers the lab cannot see hands None)."""

    def start(self) -> None: ...

    def stop(self) -> ServerCpu | None: ...

    def unbudgeted(self, settle: bool = True) -> ContextManager[None]:
        """The nodes' CPU budgets lifted while nothing is measured, put back on exit (settled first with `settle`)."""
        ...


class MeterWithoutBudgets:
    """A base for meters over nodes that run without CPU budgets: there is nothing to lift."""

    def unbudgeted(self, settle: bool = True) -> ContextManager[None]:
        return contextlib.nullcontext()
