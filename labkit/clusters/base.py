"""What every provider's cluster tells the rest of labkit about itself (for labels and metadata)."""

from __future__ import annotations

from dataclasses import dataclass

PROVIDERS = ("local", "compose", "external", "standin")


@dataclass(frozen=True)
class ClusterInfo:
    """The labels every result row and plot carries: which engine, which version, from where, how big.

    `provider == "standin"` marks a wire-compatible test server, never the real engine; `label` then
    names what actually ran (e.g. "mongo-java-server 1.47.0").
    """

    engine: str
    server_version: str
    provider: str
    nodes: int
    label: str = ""
    node_cpu: float | None = None  # CPU budget of each node in cores; None = nodes share the machine

    @property
    def display(self) -> str:
        """One line for titles and banners, e.g. 'cassandra 5.0.9 · local · 3 nodes · 0.15 core per node'."""
        engine = f"{self.engine} {self.server_version}".strip()
        if self.provider == "standin":
            engine = f"STAND-IN {self.label or '?'} (not {self.engine})"
        return f"{engine} · {self.provider} · {self.nodes} node{'s' if self.nodes != 1 else ''} · {budget_text(self.node_cpu)}"


def budget_text(node_cpu: float | None) -> str:
    """How a figure or banner names a node budget: '0.15 core per node' or 'no node CPU budget'."""
    return "no node CPU budget" if node_cpu is None else f"{node_cpu:g} core per node"
