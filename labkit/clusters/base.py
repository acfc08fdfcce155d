"""What every provider's cluster tells the rest of labkit about itself (for labels and metadata)."""

from __future__ import annotations

from dataclasses import dataclass

ENGINES = ("cassandra", "mongodb", "couchbase")
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

    @property
    def display(self) -> str:
        """One line for titles and banners, e.g. 'cassandra 5.0.9 · local · 3 nodes'."""
        engine = f"{self.engine} {self.server_version}".strip()
        if self.provider == "standin":
            engine = f"STAND-IN {self.label or '?'} (not {self.engine})"
        return f"{engine} · {self.provider} · {self.nodes} node{'s' if self.nodes != 1 else ''}"
