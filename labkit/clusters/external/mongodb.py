"""An existing MongoDB deployment, reached through a connection URI (`labkit up mongodb --provider external
--uri mongodb://...`, or LABKIT_MONGODB_URI): a sharded cluster through its mongos, or one replica set or
server. A login and TLS come with the URI or from LABKIT_MONGODB_* (engines.credentials). The lab's node
count is the deployment's shard count (1 when it is not sharded); it never starts, resizes or stops it, and
patterns keep their data in databases of their own."""

from __future__ import annotations

import os
from typing import Any

from ...engines import mongodb_sharding as sharding
from ...errors import ConfigError, LabkitError
from . import records
from .base import ExternalCluster
from .records import ExternalNode

NAME = "external-mongodb"
URI_ENV = "LABKIT_MONGODB_URI"


def uri_from(uri: str | None, hosts: Any = None, port: int | None = None) -> str | None:
    """--uri as given, else one built from --hosts and --port (mongodb://h1:27017,h2:27017/)."""
    if uri:
        if not uri.startswith(("mongodb://", "mongodb+srv://")):
            raise ConfigError(f"a MongoDB URI starts with mongodb:// or mongodb+srv://; got {uri!r}")
        return uri
    given = records.hosts_option(hosts)
    if not given:
        return None
    return "mongodb://" + ",".join(h if ":" in h else f"{h}:{port or 27017}" for h in given) + "/"


def shards_of(client: Any) -> list[ExternalNode]:
    """The deployment as it describes itself: each shard behind a mongos, else the one server or replica set."""
    hello = sharding.hello(client)
    if hello.get("msg") == "isdbgrid":
        shards = client.admin.command("listShards")["shards"]
        return [ExternalNode(s["_id"], s["host"], "", "UP" if s.get("state", 1) == 1 else "DOWN") for s in sorted(shards, key=lambda s: s["_id"])]
    name = hello.get("setName") or "server"
    return [ExternalNode(name, ",".join(hello.get("hosts") or [hello.get("me") or "?"]), "")]


class ExternalMongoCluster(ExternalCluster):
    """A MongoDB deployment as the lab sees it: its shards and version, read from the deployment itself."""

    engine = "mongodb"
    uri: str = ""  # the connection view (clusters.contract.MongoConnection), set from --uri, --hosts or the saved record
    NAME = NAME

    def __init__(self, nodes: int | None = None, node_cpu: float | None = None, uri: str | None = None, hosts: Any = None,
                 port: int | None = None, **_ignored: Any):
        records.refuse_budget(node_cpu)
        saved = records.recorded(NAME) or {}
        given = uri_from(uri, hosts, port) or os.environ.get(URI_ENV) or saved.get("uri")
        if not given:
            raise ConfigError(f"no external MongoDB is recorded: run `labkit up mongodb --provider external --uri mongodb://HOST:PORT/` "
                              f"(or set {URI_ENV}) first")
        self.uri: str = given
        self.requested_nodes = nodes
        self.node_cpu = None
        self.nodes: list[ExternalNode] = []
        self._server_version = ""

    def start(self) -> "ExternalMongoCluster":
        """Connect, read the deployment's shards and version, and refuse a size the lab would have to make."""
        from pymongo.errors import PyMongoError

        client = self.client()
        try:
            self._server_version = client.server_info()["version"]
            self.nodes = shards_of(client)
        except PyMongoError as exc:
            raise LabkitError(f"MongoDB at {records.redacted(self.uri)} answered but would not describe itself ({exc}); "
                              "the lab needs a login allowed to run hello, buildInfo and (behind a mongos) listShards") from exc
        finally:
            client.close()
        if self.requested_nodes is not None and self.requested_nodes != len(self.nodes):
            raise ConfigError(f"the external MongoDB at {records.redacted(self.uri)} has {len(self.nodes)} shard(s); "
                              f"{records.NOT_OURS.format(what='resize')}. Run with {len(self.nodes)} node(s).")
        return self

    def purge(self, namespace: str) -> list[str]:
        """Drop this namespace's databases (and only those) on the shared deployment."""
        from ...engines import mongodb

        client = self.client()
        try:
            return mongodb.drop_namespace(client, namespace)
        finally:
            client.close()

    def client(self) -> Any:
        from ...engines import mongodb

        return mongodb.connect(self.uri)

    # ---- what the CLI and the registry use -------------------------------------------------------

    @classmethod
    def start_from_cli(cls, nodes: int | None, dcs: int | None = None, node_cpu: float | None = None, hosts: Any = None,
                       port: int | None = None, dc: str | None = None, uri: str | None = None) -> "ExternalMongoCluster":
        """`labkit up mongodb --provider external --uri ...`: check the deployment answers, then record it."""
        if dc or (dcs and dcs > 1):
            raise ConfigError("--dc and --dcs describe Cassandra datacenters; a MongoDB deployment is given by its URI")
        given = uri_from(uri, hosts, port) or os.environ.get(URI_ENV)
        if not given:
            raise ConfigError(f"--provider external needs --uri mongodb://HOST:PORT/ (or --hosts HOST[,HOST]), or {URI_ENV}")
        cluster = cls(nodes=nodes, node_cpu=node_cpu, uri=given).start()
        records.record(NAME, "mongodb", uri=given)
        return cluster

    @classmethod
    def from_record(cls, saved: dict[str, Any]) -> "ExternalMongoCluster":
        return cls(uri=saved.get("uri"))

    @classmethod
    def hosts_of(cls, saved: dict[str, Any]) -> list[str]:
        return [records.redacted(saved.get("uri", ""))]
