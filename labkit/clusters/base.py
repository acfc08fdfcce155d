"""What every provider's cluster tells the rest of labkit about itself (for labels and metadata)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

ENGINES = ("cassandra", "mongodb", "couchbase", "hbase")
PROVIDERS = ("local", "compose", "external", "standin")


def labkit_home() -> Path:
    """Where labkit keeps caches and cluster state (LABKIT_HOME, else ~/.cache/labkit)."""
    return Path(os.environ.get("LABKIT_HOME", Path.home() / ".cache" / "labkit"))


SHARED_CACHE_ENV = "LABKIT_SHARED_CACHE"
DEFAULT_SHARED_CACHE = Path("/opt/labkit/cache")


def shared_cache() -> Path | None:
    """A read-only cache of server jars (and their class archive) an instructor filled once for every user
    of the host (`labkit provision --shared DIR`): LABKIT_SHARED_CACHE, else /opt/labkit/cache when it
    exists. Forty students then start clusters from one copy instead of downloading forty."""
    chosen = os.environ.get(SHARED_CACHE_ENV)
    if chosen:
        return Path(chosen)
    return DEFAULT_SHARED_CACHE if DEFAULT_SHARED_CACHE.is_dir() else None


def clusters_dir() -> Path:
    """One directory per cluster labkit started: its state file, node directories, logs."""
    return labkit_home() / "clusters"


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
