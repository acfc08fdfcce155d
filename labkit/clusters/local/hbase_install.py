"""Apache HBase from Maven Central: hbase-server and hbase-thrift with their runtime jars, cached per version.

Only the Hadoop 2 build is on Maven Central for the Thrift gateway (`hbase-thrift:2.6.1-hadoop3` does not
resolve), so the lab runs HBase 2.6.1 on Hadoop 2.10.2's client jars; data lives on the local filesystem."""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import NotAvailableError
from .. import maven
from ...home import labkit_home, shared_cache
from . import jdk

DEFAULT_VERSION = "2.6.1"
ADMIN_SOURCE = Path(__file__).with_name("hbase_admin") / "LabkitHBaseAdmin.java"

JDK17_FLAGS = (
    # HBase's own launcher adds these on JDK 17 (its netty, protobuf and Hadoop's code reach into the JDK's
    # internals by reflection); without them the region servers log InaccessibleObjectException and run slower paths
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
    "--add-modules", "jdk.unsupported",
    "--add-opens", "java.base/java.nio=ALL-UNNAMED",
    "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens", "java.base/java.lang=ALL-UNNAMED",
    "--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens", "java.base/java.util=ALL-UNNAMED",
    "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports", "java.security.jgss/sun.security.krb5=ALL-UNNAMED",
    "--add-exports", "java.base/sun.net.dns=ALL-UNNAMED",
    "--add-exports", "java.base/sun.net.util=ALL-UNNAMED",
)


def coordinates(version: str = DEFAULT_VERSION) -> list[str]:
    return [f"org.apache.hbase:hbase-server:{version}", f"org.apache.hbase:hbase-thrift:{version}"]


def own_lib_dir(version: str = DEFAULT_VERSION) -> Path:
    return labkit_home() / "hbase" / version / "lib"


def shared_lib_dir(version: str = DEFAULT_VERSION) -> Path | None:
    """The host's shared, read-only jars of `version` when an instructor provided them complete."""
    shared = shared_cache()
    lib = shared / "hbase" / version / "lib" if shared else None
    return lib if lib is not None and (lib / ".complete").exists() else None


def lib_dir(version: str = DEFAULT_VERSION) -> Path:
    return shared_lib_dir(version) or own_lib_dir(version)


def install(version: str = DEFAULT_VERSION) -> Path:
    """Resolve HBase `version`'s server and Thrift gateway with their runtime jars into the cache (once; offline after)."""
    shared = shared_lib_dir(version)
    if shared is not None:
        return shared
    return maven.resolve(coordinates(version), own_lib_dir(version), f"Apache HBase {version}'s jars")


def java() -> str:
    """A JDK 17 `java` (HBase 2.6 supports 8, 11 and 17; the lab runs one JDK for every engine)."""
    return jdk.require_java17("the local HBase provider runs on JDK 17")


def admin_classes(version: str = DEFAULT_VERSION) -> Path:
    """LabkitHBaseAdmin compiled once against `version`'s jars (into this home's cache: a shared cache is read-only);
    compiled again when its source changed. Why: run from source, every call paid about 3 s of compiling."""
    out = labkit_home() / "hbase" / version / "admin"
    compiled = out / "LabkitHBaseAdmin.class"
    if compiled.exists() and compiled.stat().st_mtime >= ADMIN_SOURCE.stat().st_mtime:
        return out
    javac = Path(java()).with_name("javac")
    if not javac.exists():
        raise NotAvailableError(f"compiling labkit's HBase admin tool needs `javac` beside {java()} (a JDK, not only a JRE): "
                                "apt-get install openjdk-17-jdk-headless")
    out.mkdir(parents=True, exist_ok=True)
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".admin-") as tmp:
        done = subprocess.run([str(javac), "-nowarn", "-d", tmp, "-cp", str(lib_dir(version) / "*"), str(ADMIN_SOURCE)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise NotAvailableError(f"could not compile {ADMIN_SOURCE.name}:\n{done.stderr.strip()[-1500:]}")
        for built in Path(tmp).glob("*.class"):
            built.replace(out / built.name)
    return out


def classpath(conf_dir: Path, version: str = DEFAULT_VERSION) -> str:
    """The process's own configuration first (hbase-site.xml, log4j.properties), then the jars."""
    return f"{conf_dir}{os.pathsep}{lib_dir(version) / '*'}"
