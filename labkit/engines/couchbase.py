"""Couchbase through the Python SDK 4: a connected Cluster and the lab bucket's default Collection.

Pattern code gets the SDK's own `Cluster` and `Collection`; this module only saves it the ceremony
(authenticating, waiting until the services answer, saying clearly when they do not).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..errors import LabkitError


def connect(connection_string: str, username: str, password: str, timeout_s: float = 30, cert_path: str | None = None) -> Any:
    """A couchbase Cluster that is ready for key-value and query requests (`cert_path`: a CA for couchbases://)."""
    from couchbase.auth import PasswordAuthenticator
    from couchbase.cluster import Cluster
    from couchbase.exceptions import CouchbaseException
    from couchbase.options import ClusterOptions

    try:
        auth = PasswordAuthenticator(username, password, cert_path=cert_path) if cert_path else PasswordAuthenticator(username, password)
        cluster = Cluster(connection_string, ClusterOptions(auth))
        cluster.wait_until_ready(timedelta(seconds=timeout_s))
    except CouchbaseException as exc:
        raise LabkitError(
            f"cannot reach Couchbase at {connection_string} ({type(exc).__name__}: {exc}). Is the cluster up? "
            "`labkit status` shows it; `labkit up couchbase --provider compose` starts one."
        ) from exc
    return cluster


def collection(cluster: Any, bucket: str) -> Any:
    """The default collection of `bucket` (what the patterns read and write)."""
    return cluster.bucket(bucket).default_collection()


class ClusterPerProcess:
    """A workload's SDK Cluster and the lab bucket's collection, opened lazily in each client process and
    left out when the workload is pickled into a spawned one. Set `connect` (() -> a connected SDK
    Cluster, e.g. a labkit cluster's `cluster` method) and `bucket`."""

    connect: Any
    bucket: str
    _cluster: Any = None
    _collection: Any = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_cluster": None, "_collection": None}

    @property
    def cluster(self) -> Any:
        if self._cluster is None:
            self._cluster = self.connect()
            self._collection = collection(self._cluster, self.bucket)
        return self._cluster

    @property
    def collection(self) -> Any:
        _ = self.cluster
        return self._collection

    def open_process(self) -> None:
        _ = self.cluster

    def close_process(self) -> None:
        if self._cluster is not None:
            self._cluster.close()
        self._cluster = self._collection = None


def server_version(cluster: Any) -> str:
    info = cluster.cluster_info()
    version = getattr(info, "server_version_short", None) or getattr(info, "server_version", None)
    return str(version) if version else "?"


def reset(cluster: Any, bucket: str) -> None:
    """Empty the lab bucket (what a clean run starts from). The compose topology creates it with flush
    enabled; a bucket without flush, or one replicating out over XDCR (Couchbase refuses to flush those),
    gets an error that says what to do."""
    from couchbase.exceptions import CouchbaseException

    try:
        cluster.buckets().flush_bucket(bucket)
    except CouchbaseException as exc:
        raise LabkitError(
            f"cannot empty Couchbase bucket {bucket!r} ({type(exc).__name__}: {exc}). Enable flush on it "
            f"(`couchbase-cli bucket-edit --bucket {bucket} --enable-flush 1`, or in the web console's bucket "
            "settings), pause any XDCR replication out of it, or recreate the cluster with `labkit down` and "
            "`labkit up couchbase`."
        ) from exc
