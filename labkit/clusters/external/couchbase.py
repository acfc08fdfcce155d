"""An existing Couchbase cluster, reached through an SDK connection string (`labkit up couchbase --provider
external --uri couchbase://...`, or LABKIT_COUCHBASE_CONNECTION_STRING) with the login from
LABKIT_COUCHBASE_USERNAME/PASSWORD (or _CREDENTIALS) and the bucket from LABKIT_COUCHBASE_BUCKET (default
`lab`; the patterns write their own documents into it and flush nothing they did not write). TLS: a
couchbases:// string, with LABKIT_COUCHBASE_TLS_CA for a private CA. Never started, resized or stopped."""

from __future__ import annotations

import os
from typing import Any

from ...errors import ConfigError
from . import records
from .base import ExternalCluster
from .records import ExternalNode

NAME = "external-couchbase"
CONNECTION_ENV = "LABKIT_COUCHBASE_CONNECTION_STRING"
BUCKET_ENV = "LABKIT_COUCHBASE_BUCKET"
DEFAULT_BUCKET = "lab"


def connection_string_from(uri: str | None, hosts: Any = None) -> str | None:
    """--uri as given, else couchbase://h1,h2 from --hosts."""
    if uri:
        if not uri.startswith(("couchbase://", "couchbases://")):
            raise ConfigError(f"a Couchbase connection string starts with couchbase:// or couchbases://; got {uri!r}")
        return uri
    given = records.hosts_option(hosts)
    return "couchbase://" + ",".join(given) if given else None


def login(environ: Any = None) -> tuple[str, str, str | None]:
    """(username, password, CA file) from the environment; the SDK needs a login, so its absence is an error."""
    from ...engines.credentials import from_environment, names

    security = from_environment("couchbase", environ)
    if not security.username:
        var = names("couchbase")
        raise ConfigError(f"a Couchbase cluster needs a login: set {var['username']} and {var['password']} (or {var['credentials']})")
    return security.username, security.password or "", security.ca


class ExternalCouchbaseCluster(ExternalCluster):
    """A Couchbase cluster as the lab sees it: its key-value nodes and version, read from the cluster itself."""

    engine = "couchbase"
    connection_string: str = ""  # the connection view (clusters.contract.CouchbaseConnection), with `bucket`
    bucket: str = ""
    query_service = True  # a real cluster: SQL++ queries and GSI indexes (the stand-in has none)
    NAME = NAME

    def __init__(self, nodes: int | None = None, node_cpu: float | None = None, uri: str | None = None, hosts: Any = None, **_ignored: Any):
        records.refuse_budget(node_cpu)
        saved = records.recorded(NAME) or {}
        given = connection_string_from(uri, hosts) or os.environ.get(CONNECTION_ENV) or saved.get("connection_string")
        if not given:
            raise ConfigError(f"no external Couchbase cluster is recorded: run `labkit up couchbase --provider external --uri couchbase://HOST` "
                              f"(or set {CONNECTION_ENV}) first")
        self.connection_string: str = given
        self.bucket = os.environ.get(BUCKET_ENV) or saved.get("bucket") or DEFAULT_BUCKET
        self.requested_nodes = nodes
        self.node_cpu = None
        self.nodes: list[ExternalNode] = []
        self._server_version = ""

    def start(self) -> "ExternalCouchbaseCluster":
        """Connect, read the version and the bucket's key-value nodes, and refuse a size the lab would have to make."""
        from ...engines import couchbase

        sdk = self.cluster()
        try:
            self._server_version = couchbase.server_version(sdk)
            self.nodes = _kv_nodes(sdk, self.bucket)
        finally:
            sdk.close()
        if self.requested_nodes is not None and self.requested_nodes != len(self.nodes):
            raise ConfigError(f"the external Couchbase cluster at {self.connection_string} has {len(self.nodes)} data node(s); "
                              f"{records.NOT_OURS.format(what='resize')}. Run with {len(self.nodes)} node(s).")
        return self

    def cluster(self) -> Any:
        """A connected SDK Cluster (what the patterns' client processes call)."""
        from ...engines import couchbase

        username, password, ca = login()
        return couchbase.connect(self.connection_string, username, password, cert_path=ca)

    def connection_strings(self) -> list[str]:
        return [self.connection_string]

    # ---- what the CLI and the registry use -------------------------------------------------------

    @classmethod
    def start_from_cli(cls, nodes: int | None, dcs: int | None = None, node_cpu: float | None = None, hosts: Any = None,
                       port: int | None = None, dc: str | None = None, uri: str | None = None) -> "ExternalCouchbaseCluster":
        """`labkit up couchbase --provider external --uri ...`: check the cluster answers, then record it."""
        if dc or port or (dcs and dcs > 1):
            raise ConfigError("--dc, --dcs and --port describe Cassandra clusters; a Couchbase cluster is given by its connection string (--uri)")
        given = connection_string_from(uri, hosts) or os.environ.get(CONNECTION_ENV)
        if not given:
            raise ConfigError(f"--provider external needs --uri couchbase://HOST (or --hosts HOST[,HOST]), or {CONNECTION_ENV}")
        cluster = cls(nodes=nodes, node_cpu=node_cpu, uri=given).start()
        records.record(NAME, "couchbase", connection_string=given, bucket=cluster.bucket)
        return cluster

    @classmethod
    def from_record(cls, saved: dict[str, Any]) -> "ExternalCouchbaseCluster":
        return cls(uri=saved.get("connection_string"))

    @classmethod
    def hosts_of(cls, saved: dict[str, Any]) -> list[str]:
        return [saved.get("connection_string", "")]


def _kv_nodes(sdk: Any, bucket: str) -> list[ExternalNode]:
    """The bucket's key-value nodes, from an SDK ping (one endpoint report per node and service)."""
    from couchbase.diagnostics import ServiceType

    report = sdk.bucket(bucket).ping()
    endpoints = report.endpoints.get(ServiceType.KeyValue, [])
    seen = sorted({str(e.remote) for e in endpoints})
    return [ExternalNode(f"node{i + 1}", address, "") for i, address in enumerate(seen)] or [ExternalNode("node1", "?", "")]
