"""Everything the lessons fetch or build on first use, in one step: Cassandra's and HBase's jars (and Cassandra's
class archive), the MongoDB and Couchbase stand-ins' jars, and toxiproxy and the linearizability checker (Porcupine) built
with Go.

Why: a student who goes offline, a lab server's image, and `make test` on a fresh machine (which fetches these
beside its unit tests, which start no server) should not wait for each piece in the middle of a lesson."""

from __future__ import annotations

from typing import Callable

from .errors import LabkitError

PARTS = ("cassandra", "hbase", "mongodb stand-in", "couchbase stand-in", "toxiproxy", "linearizability checker")


def _cassandra() -> str:
    from .clusters.local.cassandra import LocalCassandraCluster

    return LocalCassandraCluster.provision()


def _hbase() -> str:
    from .clusters.local.hbase import LocalHBaseCluster

    return LocalHBaseCluster.provision()


def _mongodb_standin() -> str:
    from .clusters.standin import mongodb

    mongodb.install()
    return f"the MongoDB stand-in (mongo-java-server {mongodb.VERSION}) ready"


def _couchbase_standin() -> str:
    from .clusters.standin import couchbase

    couchbase.install()
    return f"the Couchbase stand-in (CouchbaseMock {couchbase.VERSION}) ready"


def _toxiproxy() -> str:
    from .faults import latency

    return f"toxiproxy {latency.VERSION} ready in {latency.install()}"


def _checker() -> str:
    from .consistency import checker

    return f"the linearizability checker (Porcupine {checker.PORCUPINE}) ready in {checker.install()}"


STEPS: dict[str, Callable[[], str]] = dict(zip(PARTS, (_cassandra, _hbase, _mongodb_standin, _couchbase_standin, _toxiproxy, _checker)))


def provision_all(echo: Callable[[str], None] = print) -> list[str]:
    """Each part in turn, saying what is ready; a part that cannot be had here (no Go, no network) is named with its
    reason and the others still run. Returns the parts that failed."""
    failed = []
    for part, step in STEPS.items():
        try:
            echo(step())
        except LabkitError as exc:
            failed.append(part)
            echo(f"{part}: not ready: {exc}")
    return failed
