"""Apache Cassandra from Maven Central: cassandra-all and its runtime jars, cached per version."""

from __future__ import annotations

import shutil
from pathlib import Path

from ...machine import java_major
from ...errors import NotAvailableError
from .. import maven
from ..base import labkit_home

DEFAULT_VERSION = "5.0.9"
MAIN_CLASS = "org.apache.cassandra.service.CassandraDaemon"
NODETOOL_CLASS = "org.apache.cassandra.tools.NodeTool"


def lib_dir(version: str = DEFAULT_VERSION) -> Path:
    return labkit_home() / "cassandra" / version / "lib"


def require_java17() -> str:
    """Path of a JDK 17 `java`, or an error that says how to get one."""
    major, line = java_major()
    if major != 17:
        found = f"found: {line}" if major is None else f"found Java {major}"
        raise NotAvailableError(
            "Cassandra 5.0 needs JDK 17 and none is usable here "
            f"({found}). Install it (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless; "
            "conda: conda install -c conda-forge openjdk=17) and put it on PATH or set JAVA_HOME."
        )
    import os

    return os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else shutil.which("java") or "java"


def install(version: str = DEFAULT_VERSION) -> Path:
    """Resolve cassandra-all `version` and its runtime dependencies into the cache (once; offline after)."""
    return maven.resolve([f"org.apache.cassandra:cassandra-all:{version}"], lib_dir(version), f"Apache Cassandra {version}'s jars")


def classpath(version: str = DEFAULT_VERSION) -> str:
    return str(lib_dir(version) / "*")
