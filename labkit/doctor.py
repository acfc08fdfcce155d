"""`labkit doctor`: what this machine can run, and why, before a student waits for a failed start."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from .clusters import IMPLEMENTED, choose_provider
from .clusters import ENGINES
from .machine import docker_engine_usable, java_major, port_free, run_command

CASSANDRA_PORTS = (9042, 7000, 7199)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = False  # a failed required check makes `labkit doctor` exit non-zero


# The system packages `make` checks and installs (as root), one line each: labkit doctor gives the same advice.
SYSTEM_DEPS = Path(__file__).with_name("system-deps.sh")


@dataclass(frozen=True)
class SystemPackage:
    name: str
    package: str  # Debian/Ubuntu
    group: str  # required (make stops without it), optional, browser (make test's browser test)
    what: str  # what it does for the lab

    @property
    def required(self) -> bool:
        return self.group == "required"


def system_packages() -> dict[str, SystemPackage]:
    """The table of labkit/system-deps.sh (`need NAME PACKAGE GROUP TEST WHAT`), for this Python's version."""
    version = "%d.%d" % sys.version_info[:2]
    rows = {}
    for line in SYSTEM_DEPS.read_text().splitlines():
        if line.startswith("need "):
            _, name, package, group, _test, what = shlex.split(line)
            rows[name] = SystemPackage(name, package.replace("$PYVER", version), group, what.replace("$PYVER", version))
    return rows


def package_check(name: str, ok: bool, detail: str, more_fix: str = "") -> Check:
    """A check of one of `make`'s system packages: its advice names the same package."""
    p = system_packages()[name]
    fix = "" if ok else f"install {name}: apt-get install {p.package} (Debian/Ubuntu, as root; `make` does it when run as root){more_fix}"
    return Check(name, ok, detail if ok else f"{detail} (it {p.what})", fix, required=p.required)


def other_jdk17() -> str | None:
    """A Debian/Ubuntu JDK 17 that is installed but not the `java` labkit finds (another JDK is the default)."""
    found = sorted(Path("/usr/lib/jvm").glob("java-17-openjdk-*/bin/javac"))
    return str(found[0].parent.parent) if found else None


def check_java() -> Check:
    major, line = java_major()
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else shutil.which("java") or "java"
    if major is None:
        ok, detail = False, f"no usable java ({line})"
    elif major != 17:
        ok, detail = False, f"found Java {major} ({line}); Cassandra 5.0 here is run and tested on 17"
    elif not os.access(java + "c", os.X_OK):
        ok, detail = False, f"{line}, but no javac beside {java} (a JRE, not a JDK)"
    else:
        ok, detail = True, line
    elsewhere = other_jdk17()
    more = "; conda: the environment.yml has openjdk=17; put it on PATH or set JAVA_HOME"
    if elsewhere and not ok:
        more = f"; or use the one in {elsewhere}: export JAVA_HOME={elsewhere}" + more
    return package_check("JDK 17", ok, detail, more)


def check_package_tool(name: str, cmd: list[str]) -> Check:
    """One of `make`'s system packages that is a command: present when `cmd` answers."""
    if shutil.which(cmd[0]) is None:
        return package_check(name, False, "not found")
    code, out = run_command(cmd)
    first = re.sub(r"\x1b\[[0-9;]*m", "", out.splitlines()[0] if out else "")
    return package_check(name, code == 0, first or f"`{' '.join(cmd)}` exit code {code}")


def check_go() -> Check:
    """Go builds toxiproxy on first use (notebook 01, exercise 01, partitions without root): Go 1.19 or
    newer, since labkit fetches the Go release toxiproxy needs when this one is older; none once toxiproxy is built."""
    from .faults import latency

    built = latency.binary_path()
    go = shutil.which("go")
    if go is None:
        if built.exists():
            return package_check("Go", True, f"not needed here: toxiproxy {latency.VERSION} is built ({built})")
        return package_check("Go", False, "not found")
    code, out = run_command([go, "version"])
    version = latency.go_version(go)
    if code != 0 or version is None:
        return package_check("Go", False, f"`go version` answered: {out[:200]}")
    detail = out.splitlines()[0]
    if built.exists():
        detail += f"; toxiproxy {latency.VERSION} is built ({built})"
    elif version < latency.GO_NEEDED:
        detail += (f"; older than the Go {latency.GO_NEEDED[0]}.{latency.GO_NEEDED[1]} toxiproxy {latency.VERSION} needs, so its first "
                   f"build fetches {latency.TOOLCHAIN} from the Go module proxy (about 320 MB, once)")
    return package_check("Go", True, detail)


def check_venv() -> Check:
    """`make` creates .venv with `python -m venv`, which fails on Debian/Ubuntu without python3.X-venv (ensurepip)."""
    ok = importlib.util.find_spec("ensurepip") is not None
    return package_check("Python venv", ok, "ensurepip is here: `python -m venv` works" if ok else "no ensurepip module: `python -m venv` fails")


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


def system_checks() -> list[Check]:
    """`make`'s system packages (labkit/system-deps.sh), in its order, with its package names in the advice."""
    checks = {
        "JDK 17": check_java,
        "Maven": lambda: check_package_tool("Maven", ["mvn", "-v"]),
        "Go": check_go,
        "Python venv": check_venv,
        "iptables": lambda: check_package_tool("iptables", ["iptables", "-V"]),
        "Chromium": lambda: check_package_tool("Chromium", ["chromium", "--version"]),
    }
    return [checks[name]() for name in system_packages()]


def run_checks() -> tuple[list[Check], dict[str, dict[str, str]]]:
    checks = [
        Check("Python", sys.version_info >= (3, 11), sys.version.split()[0], "use Python 3.11 or newer", required=True),
        *system_checks(),
    ]
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
