"""Apache Cassandra from Maven Central: cassandra-all and its runtime jars, cached per version."""

from __future__ import annotations

from pathlib import Path

from .. import maven
from ...home import labkit_home, shared_cache
from . import jdk

DEFAULT_VERSION = "5.0.9"
MAIN_CLASS = "org.apache.cassandra.service.CassandraDaemon"
NODETOOL_CLASS = "org.apache.cassandra.tools.NodeTool"


def own_lib_dir(version: str = DEFAULT_VERSION) -> Path:
    """Where this labkit home keeps the jars it resolved itself."""
    return labkit_home() / "cassandra" / version / "lib"


def shared_lib_dir(version: str = DEFAULT_VERSION) -> Path | None:
    """The host's shared, read-only jars of `version` when an instructor provided them complete."""
    shared = shared_cache()
    lib = shared / "cassandra" / version / "lib" if shared else None
    return lib if lib is not None and (lib / ".complete").exists() else None


def lib_dir(version: str = DEFAULT_VERSION) -> Path:
    """The jars a node runs: the shared cache's when there is one, else this home's own."""
    return shared_lib_dir(version) or own_lib_dir(version)


def require_java17() -> str:
    """Path of a JDK 17 `java`, or an error that says how to get one."""
    return jdk.require_java17("Cassandra 5.0 needs JDK 17")


def install(version: str = DEFAULT_VERSION) -> Path:
    """Resolve cassandra-all `version` and its runtime dependencies into the cache (once; offline after),
    unless the host's shared cache already has them."""
    shared = shared_lib_dir(version)
    if shared is not None:
        return shared
    return maven.resolve([f"org.apache.cassandra:cassandra-all:{version}"], own_lib_dir(version), f"Apache Cassandra {version}'s jars")


def classpath(version: str = DEFAULT_VERSION) -> str:
    return str(lib_dir(version) / "*")
