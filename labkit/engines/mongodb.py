"""MongoDB through pymongo: a MongoClient with clear errors, the server version, a clean slate.

Pattern code gets a plain `pymongo.MongoClient`; this module only saves it the ceremony.
"""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient
from pymongo.errors import PyMongoError

from ..errors import LabkitError

SYSTEM_DATABASES = {"admin", "config", "local"}


def security_options(environ=None) -> dict:
    """A login and TLS for a cluster the lab did not start, from LABKIT_MONGODB_* (engines.credentials), for
    every client process alike; nothing when unset (the lab's own clusters, or a URI that carries them)."""
    from .credentials import from_environment

    security = from_environment("mongodb", environ)
    options: dict = {}
    if security.username:
        options.update(username=security.username, password=security.password)
    if security.tls:
        options["tls"] = True
        if security.ca:
            options["tlsCAFile"] = security.ca
        if not security.verify:
            options["tlsAllowInvalidCertificates"] = True
    return options


def connect(uri: str, timeout_s: float = 10, **options) -> MongoClient:
    """A MongoClient that has already reached the server (so a wrong URI fails here, with advice)."""
    client = MongoClient(uri, serverSelectionTimeoutMS=int(timeout_s * 1000), **{**security_options(), **options})
    try:
        client.admin.command("ping")
    except PyMongoError as exc:
        from .credentials import redacted

        client.close()
        raise LabkitError(
            f"cannot reach MongoDB at {redacted(uri)} ({type(exc).__name__}: {exc}). Is the cluster up? "
            "`labkit status` shows it; `labkit up mongodb` starts one."
        ) from exc
    return client


class ClientPerProcess:
    """A workload's MongoClient, opened lazily in each client process and left out when the workload is
    pickled into a spawned one (a MongoClient holds sockets and threads). Set `uri`; `connected(client)`
    runs once per new connection (e.g. sharding the pattern's collections)."""

    uri: str
    _client: MongoClient | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_client": None}

    @property
    def client(self) -> MongoClient:
        if self._client is None:
            self._client = connect(self.uri)
            self.connected(self._client)
        return self._client

    def connected(self, client: MongoClient) -> None:
        """What to do once per connection (nothing by default)."""

    def use_client(self, client: MongoClient) -> None:
        """Talk to the servers through `client` from now on, in this process only (`connected` is not run): why, an
        exercise's check opens one that listens to the commands the student's code sends."""
        self._client = client

    def open_process(self) -> None:
        _ = self.client

    def close_process(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def server_version(client: MongoClient) -> str:
    return client.server_info()["version"]


def drop_namespace(client: MongoClient, namespace: str) -> list[str]:
    """Drop the databases of one namespace (its prefix), nobody else's; return their names."""
    if not namespace:
        raise ValueError("a namespace is needed to purge (without one every lab database would be everyone's)")
    dropped = sorted(n for n in client.list_database_names() if n.startswith(namespace + "_"))
    for n in dropped:
        client.drop_database(n)
    return dropped


def reset(client: MongoClient) -> list[str]:
    """Drop every user database (what a clean run starts from); return their names."""
    dropped = [n for n in client.list_database_names() if n not in SYSTEM_DATABASES]
    for name in dropped:
        client.drop_database(name)
    return dropped


def _contention_of(status: dict) -> dict[str, float] | None:
    """Write conflicts retried inside the server, and lock acquisitions that had to wait, from one
    mongod's serverStatus; None when it does not report them (a stand-in, or a mongos)."""
    conflicts = status.get("metrics", {}).get("operation", {}).get("writeConflicts")
    if conflicts is None:
        return None
    waits = sum(
        int(count)
        for lock in status.get("locks", {}).values() if isinstance(lock, dict)
        for count in lock.get("acquireWaitCount", {}).values()
    )
    return {"write_conflicts": int(conflicts), "lock_waits": waits}


def _shard_uris(client: MongoClient) -> list[str]:
    """A URI per shard replica set (listShards gives each as "replset/host:port,host:port")."""
    uris = []
    for shard in client.admin.command("listShards")["shards"]:
        name, _, seeds = shard["host"].rpartition("/")
        uris.append(f"mongodb://{seeds}/" + (f"?replicaSet={name}" if name else ""))
    return uris


_UNREACHABLE_SHARDS: set[str] = set()  # asked once; a shard behind Docker's network stays unreachable


def contention_counters(client: MongoClient) -> dict[str, float] | None:
    """The server's own evidence that writers of one document took turns, summed over every mongod
    that holds data (through a mongos, each shard's primary): cumulative `write_conflicts`
    (serverStatus metrics.operation.writeConflicts) and `lock_waits` (locks.*.acquireWaitCount).
    None when the server does not report them, so nothing is ever made up for it."""
    try:
        status = client.admin.command("serverStatus")
    except PyMongoError:
        return None
    if status.get("process", "").startswith("mongos"):
        totals: dict[str, float] = {}
        for uri in _shard_uris(client):
            if uri in _UNREACHABLE_SHARDS:
                return None
            shard: MongoClient[dict[str, Any]]
            with MongoClient(uri, serverSelectionTimeoutMS=5000) as shard:
                try:
                    found = _contention_of(shard.admin.command("serverStatus"))
                except PyMongoError:
                    _UNREACHABLE_SHARDS.add(uri)
                    return None  # a shard this client cannot reach directly (e.g. inside Docker's network)
            if found is None:
                return None
            for name, value in found.items():
                totals[name] = totals.get(name, 0) + value
        return totals
    return _contention_of(status)
