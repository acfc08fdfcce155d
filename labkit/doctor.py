"""`labkit doctor`: what this machine can run, and why, before a student waits for a failed start."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass

from .clusters.base import ENGINES

CASSANDRA_PORTS = (9042, 7000, 7199)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = False  # a failed required check makes `labkit doctor` exit non-zero


def _run(cmd: list[str], timeout: float = 15) -> tuple[int, str]:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return proc.returncode, (proc.stdout + proc.stderr).strip()
    except FileNotFoundError:
        return 127, f"{cmd[0]}: not found"
    except subprocess.TimeoutExpired:
        return 124, f"{' '.join(cmd)}: no answer within {timeout:.0f} s"


def java_major() -> tuple[int | None, str]:
    """Major version of the `java` on PATH (or JAVA_HOME), and the line it printed."""
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    code, out = _run([java, "-version"])
    if code != 0:
        return None, out
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None, out.splitlines()[0] if out else "no version printed"
    major = int(m.group(1))
    if major == 1 and m.group(2):  # "1.8.0" style
        major = int(m.group(2))
    return major, out.splitlines()[0]


def check_java() -> Check:
    major, line = java_major()
    fix = "install JDK 17 (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless; conda: the environment.yml has openjdk=17) and put it on PATH or set JAVA_HOME"
    if major is None:
        return Check("JDK 17", False, f"no usable java ({line})", fix, required=True)
    if major != 17:
        return Check("JDK 17", False, f"found Java {major} ({line}); Cassandra 5.0 here is run and tested on 17", fix, required=True)
    return Check("JDK 17", True, line, required=True)


def check_tool(name: str, cmd: list[str], purpose: str, fix: str) -> Check:
    if shutil.which(cmd[0]) is None:
        return Check(name, False, f"not found ({purpose})", fix)
    code, out = _run(cmd)
    first = out.splitlines()[0] if out else ""
    first = re.sub(r"\x1b\[[0-9;]*m", "", first)
    return Check(name, code == 0, first or f"exit code {code}", "" if code == 0 else fix)


def docker_engine_usable() -> tuple[bool, str]:
    if shutil.which("docker") is None:
        return False, "no docker client on PATH"
    code, out = _run(["docker", "info", "--format", "{{.ServerVersion}}"], timeout=10)
    if code != 0:
        return False, "docker client present, but no Docker engine answers"
    return True, f"Docker engine {out.splitlines()[-1] if out else ''}".strip()


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def check_ports(hosts: tuple[str, ...] = ("127.0.0.1", "127.0.0.2", "127.0.0.3")) -> Check:
    taken = [f"{h}:{p}" for h in hosts for p in CASSANDRA_PORTS if not port_free(h, p)]
    if taken:
        return Check(
            "free ports",
            False,
            "taken: " + ", ".join(taken),
            "stop what holds them (`labkit down` for a labkit cluster; `ss -ltnp` shows the owner)",
        )
    return Check("free ports", True, f"Cassandra ports {', '.join(map(str, CASSANDRA_PORTS))} free on {', '.join(hosts)}")


def choose_provider(engine: str, docker: tuple[bool, str] | None = None) -> tuple[str, str]:
    """The provider `auto` picks for an engine on this machine, and why (`docker`: an answer of
    docker_engine_usable() already at hand; asking the engine can take seconds)."""
    from .clusters import IMPLEMENTED

    docker_ok, docker_detail = docker or docker_engine_usable()
    if engine == "cassandra":
        major, _ = java_major()
        if major == 17:
            return "local", "JDK 17 is here: real Apache Cassandra runs as local processes (jars from Maven Central)"
        if docker_ok:
            return "compose", f"no JDK 17, but {docker_detail} can run the official cassandra image"
        return "local", "needs JDK 17 (missing), or a Docker engine for the compose provider"
    binary = "mongod" if engine == "mongodb" else None
    if binary and (shutil.which(binary) or os.environ.get("MONGOD_BIN")):
        return "local", f"{binary} found: a real MongoDB sharded cluster can run as local processes"
    if docker_ok:
        return "compose", f"{docker_detail}: the official {engine} image can run"
    if (engine, "standin") in IMPLEMENTED:
        return "standin", f"no {engine} server binaries and no Docker engine here: only a labelled stand-in can run (never the real {engine})"
    return "external", f"no {engine} server binaries and no Docker engine here: point labkit at an existing cluster (--provider external)"


def run_checks() -> tuple[list[Check], dict[str, dict[str, str]]]:
    checks = [
        Check("Python", sys.version_info >= (3, 11), sys.version.split()[0], "use Python 3.11 or newer", required=True),
        check_java(),
        check_tool("Maven", ["mvn", "-v"], "resolves Cassandra's jars from Maven Central", "apt-get install maven"),
        check_tool("Go", ["go", "version"], "builds toxiproxy for latency faults", "install Go 1.22+ (https://go.dev/dl or apt-get install golang)"),
    ]
    checks.append(check_tool("iptables", ["iptables", "-V"], "network partitions between local datacenters (root)", "apt-get install iptables"))
    docker = docker_engine_usable()
    docker_ok, docker_detail = docker
    checks.append(Check("Docker engine", docker_ok, docker_detail, "" if docker_ok else "only needed for the compose provider"))
    if docker_ok:
        from .clusters.compose.provider import compose_available

        compose_ok, compose_detail = compose_available()
        checks.append(Check("docker compose", compose_ok, compose_detail, "" if compose_ok else "install docker-compose-plugin for the compose provider"))
    checks.append(check_ports())
    from .clusters import IMPLEMENTED

    engines = {}
    for engine in ENGINES:
        provider, reason = choose_provider(engine, docker)
        engines[engine] = {
            "provider": provider,
            "why": reason,
            "available_in_this_version": str((engine, provider) in IMPLEMENTED).lower(),
        }
    return checks, engines


def report_json() -> dict:
    checks, engines = run_checks()
    return {"checks": [asdict(c) for c in checks], "engines": engines}
