"""One cluster at a time, resized on demand: what the node slider and node-count sweeps stand on.

Resizing a lab cluster means stopping it and starting a fresh one of the new size (faster and more
predictable on a laptop than streaming data to joining nodes); workloads reload their data after it.
A node CPU budget, by contrast, changes in place: `node_cpu` is handed to every cluster the slot
starts, and setting it re-budgets the running one. A cluster `labkit up` left running that is exactly
the size and shape asked for is used as it is and left running at the end (the provider's `adopt`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..errors import ConfigError
from .contract import capabilities_of, check_cores

if TYPE_CHECKING:
    from ..runner.server_cpu import ServerMeter
    from .contract import Cluster, ProviderClass


class ClusterSlot:
    """Holds at most one running cluster, made by `start(nodes)`; `ensure(n)` swaps it for an n-node one."""

    def __init__(self, start: Callable[..., "Cluster"], on_change: Callable[[str], None] | None = None, node_cpu: float | None = None):
        self._start = start  # start(nodes, node_cpu=...) -> a started cluster
        self.on_change = on_change or (lambda message: None)  # progress messages (the panel shows them)
        self.cluster: Cluster | None = None
        self._node_cpu = node_cpu
        self.engine: str | None = None
        """The engine the slot's clusters run (set by `for_engine`; the panel offers that engine's approaches)."""
        self.provider: str | None = None
        """The provider asked for (set by `for_engine`, "auto" as given): with `engine` and `options`, what a fresh
        Python needs to make a slot like this one (labkit.grading runs a check that way)."""
        self.fixed_nodes: int | None = None
        """The node count of a cluster labkit cannot resize (an external one), else None."""
        self.adopt: Callable[..., "Cluster | None"] | None = None
        """adopt(nodes, node_cpu=...) -> the matching cluster `labkit up` left running, or None."""
        self.left_up: Callable[[], str | None] = lambda: None
        """What `labkit up` left running that does not match (it is replaced, and the slot says so)."""
        self.options: dict[str, Any] | None = None
        """The provider options every cluster of the slot starts with (e.g. {"dcs": 2}); None: not known."""
        self._cold = False  # the running cluster has had no run yet (a sweep gives it a warm-up block first)

    @classmethod
    def for_engine(
        cls, engine: str, provider: str = "auto", on_change: Callable[[str], None] | None = None, node_cpu: float | None = None, **options: Any
    ) -> "ClusterSlot":
        """A slot for `engine` from `provider` (clear errors for combinations this version lacks);
        `node_cpu` is each node's CPU budget in cores (None: nodes share the machine's cores)."""
        from . import provider_for

        cluster_class: ProviderClass = provider_for(engine, provider)
        slot = cls(lambda n, node_cpu=None: cluster_class(nodes=n, node_cpu=node_cpu, **options).start(), on_change, check_cores(node_cpu))
        slot.engine = engine
        slot.provider = provider
        slot.options = dict(options)
        can = capabilities_of(cluster_class)
        slot.fixed_nodes = None if can.resize else cluster_class.fixed_size()  # a cluster labkit did not start keeps its own size
        if can.adopt:
            slot.adopt = lambda n, node_cpu=None: cluster_class.adopt(nodes=n, node_cpu=node_cpu, **options)
            slot.left_up = cluster_class.left_up
        return slot

    @property
    def node_cpu(self) -> float | None:
        return self._node_cpu

    @node_cpu.setter
    def node_cpu(self, cores: float | None) -> None:
        """Budget every node the slot starts from now on, and the running cluster's nodes in place."""

        cores = check_cores(cores)
        if cores != self._node_cpu and self.cluster is not None:
            budgets = self.cluster.budgets()
            if budgets is None:
                self.stop()  # a provider that cannot re-budget in place starts afresh with the new budget
            else:
                self.on_change(f"setting each node's CPU budget to {cores} core(s)" if cores else "removing the nodes' CPU budgets")
                budgets.set_node_cpu(cores)
        self._node_cpu = cores

    def cpu_meter(self) -> ServerMeter | None:
        """The running cluster's meter of its nodes' CPU (None where the provider cannot see the servers)."""
        return self.cluster.cpu_meter() if self.cluster is not None else None

    @property
    def nodes(self) -> int | None:
        return len(self.cluster.nodes) if self.cluster is not None else None

    @property
    def running_nodes(self) -> int | None:
        """The node count of the cluster the slot holds while any of its nodes serves, else None."""
        return self.nodes if self.cluster is not None and self.cluster.live_nodes() else None

    def running(self) -> Cluster:
        """The cluster the slot holds now; a clear error before `ensure` started one."""
        if self.cluster is None:
            raise ConfigError("the slot holds no cluster yet: ensure(nodes) starts one")
        return self.cluster

    def ensure(self, nodes: int) -> Cluster:
        """The running cluster if it has `nodes` nodes; otherwise stop it and start one that has."""
        if self.cluster is not None and self.running_nodes == nodes:
            return self.cluster
        if self.cluster is not None:
            whose = " `labkit up` started" if self._adopted() else ""
            self.on_change(f"stopping the {self.nodes}-node cluster{whose}")
            self.cluster.stop()
            self.cluster = None
        elif self.adopt is not None:
            found = self.adopt(nodes, node_cpu=self._node_cpu)
            if found is not None:
                self.cluster, self._cold = found, True
                self.on_change(f"using the cluster `labkit up` started: {found.info().display} (it stays up afterwards; `labkit down` stops it)")
                return found
            other = self.left_up()
            if other:
                self.on_change(f"stopping the cluster `labkit up` started ({other}): this run asks for another shape")
        self.on_change(f"starting a {nodes}-node cluster (about {5 + 5 * nodes} s)")
        self.cluster = self._start(nodes) if self._node_cpu is None else self._start(nodes, node_cpu=self._node_cpu)
        self._cold = True
        self.on_change(f"ready: {self.cluster.info().display}")
        return self.cluster

    def take_cold(self) -> bool:
        """True once for each cluster the slot started or adopted, before its first sweep warms it up."""
        cold, self._cold = self._cold, False
        return cold

    def _adopted(self) -> bool:
        """The running cluster is the one `labkit up` left (it stays up after the slot lets it go)."""
        adoption = self.cluster.adoption() if self.cluster is not None else None
        return adoption is not None and adoption.adopted

    def stop(self) -> None:
        """Stop the cluster the slot started; one it adopted from `labkit up` is only let go (it keeps running)."""
        if self.cluster is not None:
            adoption = self.cluster.adoption()
            if adoption is not None and adoption.adopted:
                adoption.release()
            else:
                self.cluster.stop()
            self.cluster = None

    def __enter__(self) -> "ClusterSlot":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
