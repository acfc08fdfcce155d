"""The written contract every provider's cluster keeps, and what each one can do, asked in types.

Callers (the cluster slot, sweeps, tactics, samplers) ask a cluster for a capability instead of probing it for
methods: `budgets()`, `membership()`, `node_admin()`, `node_faults()`, `internode_links()`, `local_servers()`,
`adoption()` and `cpu_meter()` each hand back the object that does it, or None where this cluster cannot (and
the caller says why). Every provider answers the same questions besides: start/stop (also as a context
manager), its nodes and live nodes, `info()` for labels, the loopback addresses and ports it holds
(`held_addresses()`) and whose it is (`owner`). What must be known before a cluster exists (may the slot
resize it, can it adopt what `labkit up` left) is the class's `capabilities`, under `ProviderClass`. So a new
provider, or per-user addresses and namespaces for a class on one machine, plug in at one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Protocol, runtime_checkable

from ..errors import ConfigError
from .base import ClusterInfo

if TYPE_CHECKING:
    from pathlib import Path

    import psutil

    from ..runner.server_cpu import ServerMeter


@dataclass(frozen=True)
class Capabilities:
    """What a provider's class can do before any of its clusters exists: the slot reads these on the class to
    decide how it will make clusters. Everything a running cluster can do is asked of the cluster itself
    (`budgets()`, `membership()`, ...): only what has no cluster to ask yet is a flag here."""

    resize: bool = False
    """The slot may start it at any node count (False: it keeps its own size, `fixed_size()`, e.g. a course's external cluster)."""
    adopt: bool = False
    """It can take over the cluster `labkit up` left running (`adopt`, `left_up` on the class)."""


NOTHING = Capabilities()


class ServerNode(Protocol):
    """One server of a cluster as a capability hands it back: the name nodetool and the budgets use, and its address."""

    @property
    def name(self) -> str: ...

    @property
    def address(self) -> str: ...


class NodeBudgets(Protocol):
    """Each node's CPU budget, changed in place while the cluster serves: a smaller or larger machine per node without a restart."""

    @property
    def node_cpu(self) -> float | None: ...

    def set_node_cpu(self, node_cpu: float | None) -> None: ...


class Membership(Protocol):
    """Nodes join and leave while the cluster serves (bootstrap and decommission stream the data), as the scaling tactics do."""

    def node(self, which: int | str) -> ServerNode: ...
    def add_node(self, dc: str = "dc1") -> ServerNode: ...
    def decommission(self, which: int | str) -> None: ...


class NodeAdmin(Protocol):
    """Per-node admin commands (nodetool: status, flush, repair, table statistics): evidence read from the servers themselves."""

    def nodetool(self, which: int | str, *args: str, timeout: float = 120) -> str: ...


class NodeFaults(Protocol):
    """One node stopped, killed or restarted while the others serve: what a lesson on replicas under failure needs."""

    def node(self, which: int | str) -> ServerNode: ...
    def stop_node(self, which: int | str) -> ServerNode: ...
    def kill_node(self, which: int | str) -> ServerNode: ...
    def restart_node(self, which: int | str) -> ServerNode: ...


class InternodeLinks(Protocol):
    """What cuts and heals the links between two datacenters (iptables with root, the cluster's toxiproxy without), for partition tests."""

    def cut(self, side_a: Iterable[str], side_b: Iterable[str]) -> None: ...
    def heal(self) -> None: ...
    def is_cut(self) -> bool: ...


class LocalServers(Protocol):
    """The servers are this machine's processes: samplers read each node's CPU, and their files lie under `directory`."""

    @property
    def directory(self) -> Path: ...

    def node_processes(self) -> dict[str, psutil.Process]: ...


class Adoption(Protocol):
    """Letting a cluster go without stopping its servers: the one `labkit up` left running, or a copy of a notebook's in another process."""

    @property
    def adopted(self) -> bool:
        """This object took over the cluster `labkit up` left (rather than starting it): it stays up when let go."""
        ...

    def release(self) -> None: ...


@runtime_checkable
class Cluster(Protocol):
    """What every provider's cluster offers (local, compose, external, standin)."""

    engine: str
    provider: str
    capabilities: Capabilities
    detached: bool
    """Started by `labkit up`: it outlives the process that started it (and is not stopped on its exit)."""

    @property
    def nodes(self) -> list[Any]:
        """Every node of the cluster, up or not (its length is the cluster's size; `live_nodes()` are those up)."""
        ...

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

    # Capabilities: the object that does it, or None where this cluster cannot.
    def budgets(self) -> NodeBudgets | None: ...
    def membership(self) -> Membership | None: ...
    def node_admin(self) -> NodeAdmin | None: ...
    def node_faults(self) -> NodeFaults | None: ...
    def internode_links(self) -> InternodeLinks | None: ...
    def local_servers(self) -> LocalServers | None: ...
    def adoption(self) -> Adoption | None: ...


class ContractOnly:
    """The capability answers of a provider that keeps the contract and nothing more: every one is None, on the
    cluster and on its class. Providers (and test doubles) inherit it and override what they can do, so a
    capability added here is None everywhere until a provider says otherwise."""

    @classmethod
    def fixed_size(cls) -> int | None:
        return None

    @classmethod
    def adopt(cls, *, nodes: int, node_cpu: float | None = None, **options: Any) -> Cluster | None:
        return None

    @classmethod
    def left_up(cls) -> str | None:
        return None

    def budgets(self) -> NodeBudgets | None:
        return None

    def membership(self) -> Membership | None:
        return None

    def node_admin(self) -> NodeAdmin | None:
        return None

    def node_faults(self) -> NodeFaults | None:
        return None

    def internode_links(self) -> InternodeLinks | None:
        return None

    def local_servers(self) -> LocalServers | None:
        return None

    def adoption(self) -> Adoption | None:
        return None


class ProviderClass(Protocol):
    """A provider's class, what the slot and the CLI hold before any cluster exists: how to make one, whether it
    resizes or keeps its own size, and what `labkit up` left running that it could adopt."""

    engine: str
    provider: str
    capabilities: Capabilities

    def __call__(self, *, nodes: int, node_cpu: float | None = None, **options: Any) -> Cluster: ...

    def fixed_size(self) -> int | None:
        """The node count of a cluster labkit cannot resize (asked where `capabilities.resize` is False)."""
        ...

    def adopt(self, *, nodes: int, node_cpu: float | None = None, **options: Any) -> Cluster | None:
        """The matching cluster `labkit up` left running, or None (asked where `capabilities.adopt` is True)."""
        ...

    def left_up(self) -> str | None:
        """What `labkit up` left running that does not match, in words (it is replaced, and the slot says so)."""
        ...


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

    @property
    def query_service(self) -> bool:
        """It answers SQL++ queries and keeps GSI indexes (a real cluster; the stand-in has no query service)."""
        ...

    def cluster(self) -> Any:
        """A connected Couchbase SDK Cluster (one per client process: the SDK's connection is not shared across a fork)."""
        ...


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
