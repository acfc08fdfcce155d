"""Jars from Maven Central into labkit's cache, once per artifact set; offline afterwards."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import NotAvailableError

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>labkit</groupId><artifactId>resolved-jars</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
{dependencies}
  </dependencies>
</project>
"""


def resolve(coordinates: list[str], target: Path, what: str) -> Path:
    """Copy `group:artifact:version` jars and their runtime dependencies into `target` (a directory that
    appears whole or not at all). `what` names them in errors, e.g. "Cassandra's jars"."""
    if (target / ".complete").exists():
        return target
    mvn = shutil.which("mvn")
    if mvn is None:
        raise NotAvailableError(
            f"resolving {what} from Maven Central needs Maven (`mvn`), which is not on PATH: "
            "apt-get install maven (or conda install -c conda-forge maven), then try again"
        )
    dependencies = "\n".join(
        f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version></dependency>"
        for g, a, v in (c.split(":") for c in coordinates)
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one resolver at a time (`labkit provision all` beside a first start): the second finds it done
        if (target / ".complete").exists():
            return target
        return _resolve(mvn, dependencies, coordinates, target, what)


def _resolve(mvn: str, dependencies: str, coordinates: list[str], target: Path, what: str) -> Path:
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".resolve-") as tmp:
        work = Path(tmp)
        (work / "pom.xml").write_text(_POM.format(dependencies=dependencies))
        out = work / "lib"
        proc = subprocess.run(
            [mvn, "-q", "-B", "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={out}"],
            cwd=work,
            capture_output=True,
            text=True,
        )
        wanted = [f"{c.split(':')[1]}-{c.split(':')[2]}.jar" for c in coordinates]
        if proc.returncode != 0 or not all((out / name).exists() for name in wanted):
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise NotAvailableError(
                f"could not resolve {what} ({', '.join(coordinates)}) from Maven Central "
                f"(is https://repo.maven.apache.org reachable?). Maven said:\n{tail}"
            )
        (out / ".complete").write_text("\n".join(coordinates))
        if target.exists():
            shutil.rmtree(target)
        out.rename(target)
    return target
