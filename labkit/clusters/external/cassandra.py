"""An existing Cassandra cluster, reached through contact points (`labkit up cassandra --provider external
--hosts ...`, or LABKIT_CASSANDRA_HOSTS); credentials and TLS come from the environment (engines.cassandra
security_options). The lab records where it is so that `status`, sweeps and panels find it, and forgets it
on `labkit down`: nothing is ever stopped."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...engines import cassandra as cql
from ...errors import ConfigError
from . import records
from .base import ExternalCluster
from .records import ExternalNode

NAME = "external-cassandra"
HOSTS_ENV = "LABKIT_CASSANDRA_HOSTS"
NOT_OURS = records.NOT_OURS


def state_dir() -> Path:
    return records.state_dir(NAME)


def record(hosts: list[str], port: int = 9042, dc: str | None = None) -> Path:
    """Remember where the external cluster is (the state file `status`, sweeps and panels read)."""
    return records.record(NAME, "cassandra", hosts=hosts, port=port, dc=dc)


def recorded() -> dict[str, Any] | None:
    return records.recorded(NAME)


_hosts_option = records.hosts_option


class ExternalCassandraCluster(ExternalCluster):
    """The cluster as the lab sees it: its nodes, datacenters and version, read from the cluster itself."""

    engine = "cassandra"
    NAME = NAME

    def __init__(self, nodes: int | None = None, node_cpu: float | None = None, hosts: Any = None, port: int | None = None,
                 dc: str | None = None, dcs: int | None = None, **_ignored: Any):
        records.refuse_budget(node_cpu)
        saved = recorded() or {}
        self.hosts = _hosts_option(hosts) or _hosts_option(os.environ.get(HOSTS_ENV)) or list(saved.get("hosts") or [])
        if not self.hosts:
            raise ConfigError(f"no external Cassandra cluster is recorded: run `labkit up cassandra --provider external --hosts HOST[,HOST]` "
                              f"(or set {HOSTS_ENV}) first")
        self.port = int(port or saved.get("port") or 9042)
        self.dc = dc or saved.get("dc")
        self.requested_nodes = nodes
        self.requested_dcs = dcs
        self.node_cpu = None
        self.nodes: list[ExternalNode] = []
        self._server_version = ""
        self._sessions: list[Any] = []

    # ---- lifecycle: connect and look, never start or stop ----------------------------------------

    def start(self) -> "ExternalCassandraCluster":
        """Connect, read the cluster's own description, and refuse a shape the lab would have to make."""
        session = cql.connect(self.hosts, port=self.port, dc=self.dc)
        try:
            local = session.execute("SELECT rpc_address, data_center, release_version FROM system.local").one()
            peers = list(session.execute("SELECT peer, rpc_address, data_center FROM system.peers"))
            up = {str(h.endpoint.address) for h in session.cluster.metadata.all_hosts() if h.is_up}
        finally:
            session.cluster.shutdown()
        found = [(str(local.rpc_address), local.data_center)] + [(str(p.rpc_address or p.peer), p.data_center) for p in peers]
        found.sort(key=lambda a: a[0])
        self.nodes = [ExternalNode(f"node{i + 1}", addr, dc, "UP" if addr in up else "DOWN") for i, (addr, dc) in enumerate(found)]
        self._server_version = local.release_version
        if self.requested_nodes is not None and self.requested_nodes != len(self.nodes):
            raise ConfigError(f"the external cluster at {', '.join(self.hosts)} has {len(self.nodes)} nodes; {NOT_OURS.format(what='resize')}. "
                              f"Run with {len(self.nodes)} node(s).")
        if self.requested_dcs and self.requested_dcs > 1 and len(self.datacenters()) < self.requested_dcs:
            raise ConfigError(f"this needs {self.requested_dcs} datacenters; the external cluster has {', '.join(self.datacenters())}")
        return self

    def purge(self, namespace: str) -> list[str]:
        """Drop this namespace's keyspaces (and only those) on the shared cluster."""
        session = cql.connect(self.hosts, port=self.port, dc=self.dc)
        try:
            return cql.drop_namespace(session, namespace)
        finally:
            session.cluster.shutdown()

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the driver sessions (a copy in another process, such as the check's own Python a grade
        cell starts, opens its own)."""
        return {**self.__dict__, "_sessions": []}

    def stop(self) -> None:
        """Close the lab's own connections; the cluster keeps running."""
        for s in self._sessions:
            s.cluster.shutdown()
        self._sessions = []

    # ---- what notebooks use ----------------------------------------------------------------------

    @property
    def addresses(self) -> list[str]:
        return [n.address for n in self.nodes] or list(self.hosts)

    def datacenters(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for n in self.nodes:
            out.setdefault(n.dc, []).append(n.address)
        return out

    def session(self, dc: str | None = None, keyspace: str | None = None):
        s = cql.connect(self.datacenters()[dc] if dc else self.addresses, dc=dc or self.dc, keyspace=keyspace, port=self.port)
        self._sessions.append(s)
        return s

    def trace(self, statement: Any, params: Any = None, consistency: int | None = None, session=None) -> cql.TraceReport:
        from cassandra import ConsistencyLevel

        s = session or (self._sessions[0] if self._sessions else self.session())
        return cql.trace(s, statement, params, consistency if consistency is not None else ConsistencyLevel.ONE)

    # ---- what the CLI and the registry use -------------------------------------------------------

    @classmethod
    def start_from_cli(cls, nodes: int | None, dcs: int | None = None, node_cpu: float | None = None, hosts: Any = None,
                       port: int | None = None, dc: str | None = None) -> "ExternalCassandraCluster":
        """`labkit up cassandra --provider external --hosts ...`: check the cluster answers, then record it."""
        given = _hosts_option(hosts) or _hosts_option(os.environ.get(HOSTS_ENV))
        if not given:
            raise ConfigError(f"--provider external needs --hosts HOST[,HOST] (contact points of your cluster), or {HOSTS_ENV}")
        cluster = cls(nodes=nodes, node_cpu=node_cpu, hosts=given, port=port, dc=dc, dcs=dcs).start()
        record(given, cluster.port, dc)
        return cluster

    @classmethod
    def from_record(cls, saved: dict[str, Any]) -> "ExternalCassandraCluster":
        return cls(hosts=saved.get("hosts"), port=saved.get("port"), dc=saved.get("dc"))

    @classmethod
    def hosts_of(cls, saved: dict[str, Any]) -> list[str]:
        return list(saved.get("hosts") or [])

    def status_extra(self) -> dict[str, Any]:
        return {"dcs": len(self.datacenters())}
