"""Couchbase through the Python SDK 4: a connected Cluster and the lab bucket's default Collection.

Pattern code gets the SDK's own `Cluster` and `Collection`; this module only saves it the ceremony
(authenticating, waiting until the services answer, saying clearly when they do not).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..errors import LabkitError


def connect(connection_string: str, username: str, password: str, timeout_s: float = 30) -> Any:
    """A couchbase Cluster that is ready for key-value and query requests."""
    from couchbase.auth import PasswordAuthenticator
    from couchbase.cluster import Cluster
    from couchbase.exceptions import CouchbaseException
    from couchbase.options import ClusterOptions

    try:
        cluster = Cluster(connection_string, ClusterOptions(PasswordAuthenticator(username, password)))
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


def server_version(cluster: Any) -> str:
    info = cluster.cluster_info()
    version = getattr(info, "server_version_short", None) or getattr(info, "server_version", None)
    return str(version) if version else "?"
