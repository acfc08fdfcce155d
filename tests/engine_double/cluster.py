"""The double's cluster: the Cluster contract (clusters.contract) and its engine's connection view (`store`)."""

from __future__ import annotations

import threading
import zlib
from typing import Any

from labkit.clusters.base import ClusterInfo
from labkit.clusters.contract import Capabilities, ContractOnly

VERSION = "0.1-double"


class MemoryStore:
    """Rows per node, each key on the node its hash picks; every request counted per node (the servers' evidence)."""

    def __init__(self, nodes: int):
        self.nodes = [f"node{i}" for i in range(1, nodes + 1)]
        self.tables: dict[str, dict[str, dict[Any, Any]]] = {n: {} for n in self.nodes}
        self.requests = {n: 0 for n in self.nodes}
        self.lock = threading.Lock()

    def node_of(self, key: Any) -> str:
        return self.nodes[zlib.crc32(repr(key).encode()) % len(self.nodes)]

    def put(self, table: str, key: Any, value: Any) -> None:
        node = self.node_of(key)
        with self.lock:
            self.requests[node] += 1
            self.tables[node].setdefault(table, {})[key] = value

    def get(self, table: str, key: Any) -> Any:
        node = self.node_of(key)
        with self.lock:
            self.requests[node] += 1
            return self.tables[node].get(table, {}).get(key)

    def scan(self, table: str, where: Any) -> list[Any]:
        """Every node asked: what a query by a column that is not the key costs without an index table."""
        with self.lock:
            for node in self.nodes:
                self.requests[node] += 1
            return [v for node in self.nodes for v in self.tables[node].get(table, {}).values() if where(v)]

    def drop(self, table: str) -> None:
        with self.lock:
            for node in self.nodes:
                self.tables[node].pop(table, None)


class MemoryCluster(ContractOnly):
    """Starts nothing outside this process: the nodes are partitions of a MemoryStore."""

    engine = "memory"
    provider = "local"
    capabilities = Capabilities(resize=True)
    detached = False

    def __init__(self, nodes: int, node_cpu: float | None = None):
        if node_cpu is not None:
            raise ValueError("the memory double has no CPU budgets (its budgets() is None)")
        self.nodes = [f"node{i}" for i in range(1, nodes + 1)]
        self.store: MemoryStore | None = None

    def start(self) -> "MemoryCluster":
        self.store = MemoryStore(len(self.nodes))
        return self

    def stop(self) -> None:
        self.store = None

    def __enter__(self) -> "MemoryCluster":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def live_nodes(self) -> list[str]:
        return list(self.store.nodes) if self.store is not None else []

    def info(self) -> ClusterInfo:
        return ClusterInfo(engine=self.engine, server_version=VERSION, provider=self.provider, nodes=len(self.nodes))

    def cpu_meter(self) -> None:
        return None  # the double's "servers" are this process: there is no server CPU to tell apart

    def held_addresses(self) -> list[tuple[str, int]]:
        return []

    @property
    def owner(self) -> str:
        from labkit.host.users import current_user

        return current_user()
