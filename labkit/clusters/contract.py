"""The written contract every provider's cluster keeps, and what each one can do, declared.

Callers (the cluster slot, sweeps, tactics, samplers) ask a cluster's `capabilities` instead of probing it
for methods, and every provider answers the same questions: start/stop (also as a context manager), its
nodes and live nodes, `info()` for labels, `cpu_meter()` (None where the lab cannot see the servers), the
loopback addresses and ports it holds (`held_addresses()`) and whose it is (`owner`). So a new provider, or
per-user addresses and namespaces for a class on one machine, plug in at one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import ConfigError
from .base import ClusterInfo

if TYPE_CHECKING:
    from ..runner.server_cpu import ServerMeter


@dataclass(frozen=True)
class Capabilities:
    """What a provider's clusters can do; False means the lab must not try (and says why where it is asked)."""

    resize: bool = False
    """The slot may start it at any node count (False: it keeps its own size, e.g. a course's external cluster)."""
    budgets: bool = False
    """Each node's CPU budget can be set at start and changed in place (`set_node_cpu`)."""
    datacenters: bool = False
    """It can run its nodes in two datacenters (`dcs=2`)."""
    membership: bool = False
    """Nodes can join and leave while it serves (`add_node`, `decommission`)."""
    admin: bool = False
    """Per-node admin commands run (`nodetool`: flush, repair, ...)."""
    server_cpu: bool = False
    """`cpu_meter()` and `node_processes()` see the server processes (local ones only)."""
    adopt: bool = False
    """It can take over the cluster `labkit up` left running (`adopt`, `left_up`)."""
    proxied_links: bool = False
    """Its datacenters can be made to reach each other through toxiproxy (`internode_proxy=True`), and
    `internode_links()` cuts and heals them without root (faults/links)."""


NOTHING = Capabilities()


@runtime_checkable
class Cluster(Protocol):
    """What every provider's cluster offers (local, compose, external, standin)."""

    engine: str
    provider: str
    capabilities: Capabilities
    detached: bool
    """Started by `labkit up`: it outlives the process that started it (and is not stopped on its exit)."""
    nodes: list[Any]
    """Every node of the cluster, up or not (its length is the cluster's size; `live_nodes()` are those up)."""

    def start(self) -> Any: ...
    def stop(self) -> None: ...
    def __enter__(self) -> Any: ...
    def __exit__(self, *exc: Any) -> None: ...
    def live_nodes(self) -> list[Any]: ...
    def info(self) -> ClusterInfo: ...
    def cpu_meter(self) -> "ServerMeter | None": ...
    def held_addresses(self) -> list[tuple[str, int]]: ...

    @property
    def owner(self) -> str: ...


@runtime_checkable
class CassandraConnection(Protocol):
    """How a client reaches a Cassandra cluster (local, compose, external): its contact points, and which of
    them are in which datacenter (a binding that talks to one region connects to its datacenter's)."""

    @property
    def addresses(self) -> list[str]: ...

    def datacenters(self) -> dict[str, list[str]]: ...


@runtime_checkable
class MongoConnection(Protocol):
    """How a client reaches a MongoDB deployment (a mongos, a replica set or one server): its URI."""

    @property
    def uri(self) -> str: ...


@runtime_checkable
class CouchbaseConnection(Protocol):
    """How a client reaches a Couchbase cluster: the SDK's connection string and the lab's bucket."""

    @property
    def connection_string(self) -> str: ...

    @property
    def bucket(self) -> str: ...


@runtime_checkable
class HBaseConnection(Protocol):
    """How a client reaches an HBase cluster: its Thrift 1 gateway, "host:port" (happybase speaks only Thrift 1), and
    a pre-split table (Thrift 1 cannot split one)."""

    @property
    def thrift_gateway(self) -> str: ...

    def create_table(self, name: str, family: str = "f", splits: list[str] | tuple[str, ...] = ()) -> None: ...

    def flush_table(self, name: str) -> None: ...


class CassandraCluster(Cluster, CassandraConnection, Protocol):
    """A Cassandra cluster of any provider, as its bindings use it: the contract and the connection view."""


class MongoCluster(Cluster, MongoConnection, Protocol):
    """A MongoDB deployment of any provider, as its bindings use it."""


class CouchbaseCluster(Cluster, CouchbaseConnection, Protocol):
    """A Couchbase cluster of any provider, as its bindings use it."""


class HBaseCluster(Cluster, HBaseConnection, Protocol):
    """An HBase cluster of any provider, as its bindings use it."""


MIN_CORES = 0.01


def check_cores(node_cpu: object) -> float | None:
    """A node CPU budget as every provider takes it: None (no budget) or a positive number of cores per node; a clear error otherwise."""
    if node_cpu is None:
        return None
    if isinstance(node_cpu, bool) or not isinstance(node_cpu, (int, float)) or not MIN_CORES <= node_cpu <= 64:
        raise ConfigError(
            f"node_cpu is the CPU budget of each node in cores (e.g. 0.15 = 15% of one core), from {MIN_CORES} to 64, "
            f"or None for no budget; got {node_cpu!r}"
        )
    return float(node_cpu)


def server_hosts(cluster: Cluster) -> list[str]:
    """The hosts a client connects to, read from the cluster's engine's connection view (none for a test double
    outside the contract): what a run with client processes on other machines checks they can reach."""
    from urllib.parse import urlsplit

    if isinstance(cluster, CassandraConnection):
        return [str(a) for a in cluster.addresses]
    if isinstance(cluster, MongoConnection):
        netloc = urlsplit(cluster.uri).netloc.rsplit("@", 1)[-1]
        return [h.rsplit(":", 1)[0] if not h.startswith("[") else h.split("]")[0] + "]" for h in netloc.split(",") if h]
    if isinstance(cluster, CouchbaseConnection):
        netloc = urlsplit(cluster.connection_string).netloc
        return [h.rsplit(":", 1)[0] for h in netloc.split(",") if h]
    if isinstance(cluster, HBaseConnection):
        return [cluster.thrift_gateway.rsplit(":", 1)[0]]
    return []


def capabilities_of(cluster: Any) -> Capabilities:
    """The cluster's (or its class's) declared capabilities; nothing for an object outside the contract (a test double)."""
    declared = getattr(cluster, "capabilities", None)
    return declared if isinstance(declared, Capabilities) else NOTHING
