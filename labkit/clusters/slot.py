"""One cluster at a time, resized on demand: what the node slider and node-count sweeps stand on.

Resizing a lab cluster means stopping it and starting a fresh one of the new size (faster and more
predictable on a laptop than streaming data to joining nodes); workloads reload their data after it.
"""

from __future__ import annotations

from typing import Any, Callable

from .base import ClusterInfo


class ClusterSlot:
    """Holds at most one running cluster, made by `start(nodes)`; `ensure(n)` swaps it for an n-node one."""

    def __init__(self, start: Callable[[int], Any], on_change: Callable[[str], None] | None = None):
        self._start = start
        self.on_change = on_change or (lambda message: None)  # progress messages (the panel shows them)
        self.cluster: Any = None

    @classmethod
    def for_engine(cls, engine: str, provider: str = "auto", on_change: Callable[[str], None] | None = None, **options: Any) -> "ClusterSlot":
        """A slot for `engine` from `provider` (clear errors for combinations this version lacks)."""
        from . import provider_for

        cluster_class = provider_for(engine, provider)
        return cls(lambda n: cluster_class(nodes=n, **options).start(), on_change)

    @property
    def nodes(self) -> int | None:
        return len(self.cluster.nodes) if self.cluster is not None else None

    def ensure(self, nodes: int) -> Any:
        """The running cluster if it has `nodes` nodes; otherwise stop it and start one that has."""
        if self.cluster is not None and self.nodes == nodes and self.cluster.live_nodes():
            return self.cluster
        if self.cluster is not None:
            self.on_change(f"stopping the {self.nodes}-node cluster")
            self.stop()
        self.on_change(f"starting a {nodes}-node cluster (about {5 + 5 * nodes} s)")
        self.cluster = self._start(nodes)
        self.on_change(f"ready: {self.cluster.info().display}")
        return self.cluster

    def info_for(self, nodes: int) -> ClusterInfo:
        """`cluster_for` of a sweep: make sure an n-node cluster runs and describe it."""
        return self.ensure(nodes).info()

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None

    def __enter__(self) -> "ClusterSlot":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
