"""How a cluster comes to exist: one module per provider, one per engine inside it.

`provider_for(engine, provider)` returns the class that starts that engine with that provider, or
raises NotAvailableError saying what exists instead. Providers register themselves in IMPLEMENTED.
"""

from __future__ import annotations

import importlib
import os
import shutil

from ..errors import ConfigError, NotAvailableError
from ..machine import docker_engine_usable, java_major
from .base import PROVIDERS, ClusterInfo

IMPLEMENTED: dict[tuple[str, str], str] = {
    ("cassandra", "local"): "labkit.clusters.local.cassandra:LocalCassandraCluster",
    ("cassandra", "compose"): "labkit.clusters.compose.provider:ComposeCassandraCluster",
    ("cassandra", "external"): "labkit.clusters.external.cassandra:ExternalCassandraCluster",
    ("mongodb", "local"): "labkit.clusters.local.mongodb:LocalMongoCluster",
    ("mongodb", "compose"): "labkit.clusters.compose.provider:ComposeMongoCluster",
    ("mongodb", "external"): "labkit.clusters.external.mongodb:ExternalMongoCluster",
    ("mongodb", "standin"): "labkit.clusters.standin.mongodb:StandinMongo",
    ("couchbase", "compose"): "labkit.clusters.compose.provider:ComposeCouchbaseCluster",
    ("couchbase", "external"): "labkit.clusters.external.couchbase:ExternalCouchbaseCluster",
    ("couchbase", "standin"): "labkit.clusters.standin.couchbase:StandinCouchbase",
    ("hbase", "local"): "labkit.clusters.local.hbase:LocalHBaseCluster",
}
"""(engine, provider) -> "module:Class" of the implementations this version ships: the one registry of engines."""

ENGINES = tuple(dict.fromkeys(engine for engine, _provider in IMPLEMENTED))
"""Every engine some provider can start or reach, in the order the registry names them (help texts, `labkit doctor`)."""


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ConfigError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")


def check_provider(provider: str) -> None:
    if provider != "auto" and provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r}: choose auto or one of {', '.join(PROVIDERS)}")


def provider_for(engine: str, provider: str):
    """The cluster class for (engine, provider); a clear error when this version cannot do it."""
    check_engine(engine)
    check_provider(provider)
    if provider == "auto":
        provider, _reason = choose_provider(engine)
    target = IMPLEMENTED.get((engine, provider))
    if target is None:
        have = sorted(f"{e} with {p}" for e, p in IMPLEMENTED) or ["none yet"]
        raise NotAvailableError(
            f"labkit {_version()} cannot start {engine} with the {provider!r} provider: that combination is not "
            f"part of this version. Available: {', '.join(have)}. Run `labkit doctor` to see what this machine can run."
        )
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def choose_provider(engine: str, docker: tuple[bool, str] | None = None) -> tuple[str, str]:
    """The provider `auto` picks for an engine on this machine, and why (`docker`: an answer of
    docker_engine_usable() already at hand; asking the engine can take seconds)."""
    docker_ok, docker_detail = docker or docker_engine_usable()
    if engine == "cassandra":
        major, _ = java_major()
        if major == 17:
            return "local", "JDK 17 is here: real Apache Cassandra runs as local processes (jars from Maven Central)"
        if docker_ok:
            return "compose", f"no JDK 17, but {docker_detail} can run the official cassandra image"
        return "local", "needs JDK 17 (missing), or a Docker engine for the compose provider"
    if engine == "hbase":
        major, _ = java_major()
        return "local", ("JDK 17 is here: real Apache HBase runs as local processes (jars from Maven Central)" if major == 17
                         else "needs JDK 17 (missing): HBase runs as local processes from Maven Central's jars")
    binary = "mongod" if engine == "mongodb" else None
    if binary and (shutil.which(binary) or os.environ.get("MONGOD_BIN")):
        return "local", f"{binary} found: a real MongoDB sharded cluster can run as local processes"
    if docker_ok:
        return "compose", f"{docker_detail}: the official {engine} image can run"
    if (engine, "standin") in IMPLEMENTED:
        return "standin", f"no {engine} server binaries and no Docker engine here: only a labelled stand-in can run (never the real {engine})"
    return "external", f"no {engine} server binaries and no Docker engine here: point labkit at an existing cluster (--provider external)"


def _version() -> str:
    from .. import __version__

    return __version__


__all__ = ["ClusterInfo", "ENGINES", "IMPLEMENTED", "PROVIDERS", "check_engine", "check_provider", "provider_for"]
