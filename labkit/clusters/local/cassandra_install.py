"""Apache Cassandra from Maven Central: cassandra-all and its runtime jars, cached per version."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from ...doctor import java_major
from ...errors import NotAvailableError
from ..registry import labkit_home

DEFAULT_VERSION = "5.0.9"
MAIN_CLASS = "org.apache.cassandra.service.CassandraDaemon"
NODETOOL_CLASS = "org.apache.cassandra.tools.NodeTool"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>labkit</groupId><artifactId>cassandra-jars</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.cassandra</groupId><artifactId>cassandra-all</artifactId><version>{version}</version></dependency>
  </dependencies>
</project>
"""


def lib_dir(version: str = DEFAULT_VERSION) -> Path:
    return labkit_home() / "cassandra" / version / "lib"


def is_installed(version: str = DEFAULT_VERSION) -> bool:
    return (lib_dir(version) / ".complete").exists()


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
    target = lib_dir(version)
    if is_installed(version):
        return target
    mvn = shutil.which("mvn")
    if mvn is None:
        raise NotAvailableError(
            "resolving Cassandra's jars from Maven Central needs Maven (`mvn`), which is not on PATH: "
            "apt-get install maven (or conda install -c conda-forge maven), then try again"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".resolve-") as tmp:
        work = Path(tmp)
        (work / "pom.xml").write_text(_POM.format(version=version))
        out = work / "lib"
        proc = subprocess.run(
            [mvn, "-q", "-B", "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={out}"],
            cwd=work,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0 or not any(out.glob("cassandra-all-*.jar")):
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise NotAvailableError(
                f"could not resolve org.apache.cassandra:cassandra-all:{version} from Maven Central "
                f"(is https://repo.maven.apache.org reachable?). Maven said:\n{tail}"
            )
        (out / ".complete").write_text(version)
        if target.exists():
            shutil.rmtree(target)
        out.rename(target)  # whole directory appears at once: an interrupted install leaves no half cache
    return target


def classpath(version: str = DEFAULT_VERSION) -> str:
    return str(lib_dir(version) / "*")
