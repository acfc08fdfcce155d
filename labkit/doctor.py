"""`labkit doctor`: what this machine can run, and why, before a student waits for a failed start."""

from __future__ import annotations

import re
import shutil
import sys
from dataclasses import asdict, dataclass

from .clusters import IMPLEMENTED, choose_provider
from .clusters.base import ENGINES
from .machine import docker_engine_usable, java_major, port_free, run_command

CASSANDRA_PORTS = (9042, 7000, 7199)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = False  # a failed required check makes `labkit doctor` exit non-zero


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
    code, out = run_command(cmd)
    first = out.splitlines()[0] if out else ""
    first = re.sub(r"\x1b\[[0-9;]*m", "", first)
    return Check(name, code == 0, first or f"exit code {code}", "" if code == 0 else fix)


def check_ports(hosts: tuple[str, ...] | None = None) -> Check:
    """The ports of the first three nodes, on this labkit home's own loopback range."""
    if hosts is None:
        from .host import loopback

        own = loopback.own_range()
        hosts = tuple(own.address(i) for i in (1, 2, 3))
    taken = [f"{h}:{p}" for h in hosts for p in CASSANDRA_PORTS if not port_free(h, p)]
    if taken:
        return Check(
            "free ports",
            False,
            "taken: " + ", ".join(taken),
            "stop what holds them (`labkit down` for a labkit cluster; `ss -ltnp` shows the owner)",
        )
    return Check("free ports", True, f"Cassandra ports {', '.join(map(str, CASSANDRA_PORTS))} free on {', '.join(hosts)}")


def check_lessons_without_root() -> list[Check]:
    """How this user's partitions and node budgets are made here (what a student on a lab server or a hub pod can run)."""
    from .clusters.local import budgets
    from .errors import ConfigError
    from .faults.links import partition_kind

    try:
        kind = partition_kind()
        partitions = Check("partitions", True, "iptables rules (root)" if kind == "iptables" else "toxiproxy links between the datacenters (no root needed)")
    except ConfigError as exc:
        partitions = Check("partitions", False, str(exc), "unset LABKIT_PARTITIONS or give iptables or toxiproxy")
    backend, why = budgets.detect()
    if backend is None:
        cpu = Check("node CPU budgets", False, why, "budgeted lessons need writable control groups (root) here; the rest of the lab runs")
    else:
        way = "a helper pausing each node with signals (no root needed)" if backend.version == "signals" else f"control groups ({backend.version})"
        cpu = Check("node CPU budgets", True, way)
    return [partitions, cpu]


def check_cql_driver() -> Check:
    """Which client path the measured Cassandra calls take here: the native core leaves the nodes more CPU."""
    from .engines.cassandra_calls import _acsylla, describe
    from .errors import ConfigError

    try:
        detail = describe()
    except ConfigError as exc:
        return Check("Cassandra client driver", False, str(exc), "set LABKIT_CQL_DRIVER to auto, acsylla or cassandra-driver")
    native = _acsylla() is not None
    return Check("Cassandra client driver", native, detail, "" if native else
                 "acsylla has wheels for Linux (x86_64, aarch64) and macOS, Python 3.11-3.13: `make venv` installs it there; "
                 "elsewhere the lab runs on cassandra-driver")


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
    checks.append(check_cql_driver())
    checks += check_lessons_without_root()
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
