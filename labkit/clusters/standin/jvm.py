"""One stand-in server = one JVM process that labkit started: pidfile, loopback port, stop by PID,
leftovers of a crashed run reaped by the next start, stopped at interpreter exit."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any


from ...errors import ConfigError, LabkitError, NotAvailableError
from .. import exit_guard
from ..base import ClusterInfo
from ...host.users import current_user
from ..contract import Capabilities
from ..lifecycle import ProviderCluster, Ready
from ...host import processes
from ..local.cassandra_install import require_java17
from ...home import clusters_dir, labkit_home

HOST = "127.0.0.1"
BANNER = "stand-in for {engine}: mechanics only, performance not meaningful"


def cache_dir(name: str) -> Path:
    return labkit_home() / "standin" / name


class StandinServer(ProviderCluster):
    """Base of the stand-ins: subclasses say which command serves which port, and what it really is."""

    provider = "standin"
    engine = ""
    capabilities = Capabilities(resize=True)  # it accepts any node count and runs one process, for mechanics only
    name = ""  # directory under labkit's clusters dir, e.g. standin-mongodb
    label = ""  # what actually runs, e.g. "mongo-java-server 1.47.0"
    port = 0
    startup_timeout = 60.0

    def __init__(self, nodes: int = 1, detached: bool = False, node_cpu: float | None = None, **_options: Any):
        # `nodes` is accepted for the node slider's sake: a stand-in is one process, whatever it says
        if node_cpu is not None:
            raise ConfigError(
                f"a {self.engine} stand-in runs for mechanics only, so a CPU budget would measure nothing: leave node_cpu=None "
                "(budgets apply to real servers: local Cassandra, local mongod, compose)"
            )
        self.detached = detached  # started by `labkit up`: survives the starting process
        self.directory = clusters_dir() / self.name
        self.nodes = ["standin"]

    # ---- what a subclass supplies ----------------------------------------------------------------

    def command(self) -> list[str]:
        raise NotImplementedError

    def wait_engine_ready(self) -> None:
        pass

    # ---- lifecycle -------------------------------------------------------------------------------


    @property
    def pidfile(self) -> Path:
        return self.directory / "labkit.pid"

    def start(self):
        command = self.command()  # resolves jars first: fails early with advice
        processes.reap_under(self.directory)
        if processes.port_open(HOST, self.port):
            raise LabkitError(f"port {HOST}:{self.port} (needed by the {self.label} stand-in) is taken; stop that process (`labkit down` if it is labkit's) and start again")
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "cluster.json").write_text(json.dumps({
            "engine": self.engine, "provider": self.provider, "name": self.name, "label": self.label, "owner_pid": None if self.detached else os.getpid(),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "port": self.port,
        }, indent=1))
        exit_guard.track(self)
        try:
            processes.spawn(command, cwd=self.directory, log=self.directory / "server.log", pidfile=self.pidfile)
            Ready(f"the {self.label} stand-in on {HOST}:{self.port}", self._port_up, self.startup_timeout).wait()
            self.wait_engine_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _port_up(self) -> bool:
        if processes.owned_process(self.pidfile, str(self.directory)) is None:
            log = self.directory / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise LabkitError(f"the {self.label} stand-in exited during start-up:\n{tail}")
        return processes.port_open(HOST, self.port)

    def stop(self) -> None:
        processes.reap_under(self.directory)
        exit_guard.untrack(self)

    def held_addresses(self) -> list[tuple[str, int]]:
        return [(HOST, self.port)]

    @property
    def owner(self) -> str:
        return current_user()

    def cpu_meter(self) -> None:
        return None  # a stand-in's CPU says nothing about the engine it stands in for

    def live_nodes(self) -> list[str]:
        return self.nodes if processes.owned_process(self.pidfile, str(self.directory)) else []

    @property
    def server_version(self) -> str:
        """What every result row carries in its server_version column: never a MongoDB/Couchbase version."""
        return f"{self.label}, {self.banner}"

    def info(self) -> ClusterInfo:
        return ClusterInfo(engine=self.engine, server_version=self.server_version, provider=self.provider, nodes=1, label=self.label)

    @classmethod
    def start_from_cli(cls, nodes: int, dcs: int, node_cpu: float | None = None) -> "StandinServer":
        if node_cpu is not None:
            raise ConfigError(f"--node-cpu applies to real servers; a {cls.engine} stand-in runs for mechanics only")
        if dcs != 1:
            raise ConfigError(f"--dcs applies to cassandra; a {cls.engine} stand-in is one process")
        return cls(nodes=nodes, detached=True).start()

    @classmethod
    def describe_state_dir(cls, directory: Path) -> dict[str, Any]:
        """`labkit status`: the stand-in's one process, by its pidfile."""
        state = json.loads((directory / "cluster.json").read_text())
        owned = processes.owned_process(directory / "labkit.pid", str(directory))
        node = {"name": state["name"], "address": f"{HOST}:{state['port']}", "dc": "", "state": "UP" if owned else "DOWN", "pid": owned.pid if owned else None}
        return {"name": state["name"], "engine": state["engine"], "provider": "standin", "server_version": f"stand-in ({state['label']})",
                "owner_pid": state.get("owner_pid"), "nodes": [node]}

    @classmethod
    def stop_state_dir(cls, directory: Path) -> None:
        processes.reap_under(directory)

    @property
    def banner(self) -> str:
        return BANNER.format(engine={"mongodb": "MongoDB", "couchbase": "Couchbase"}.get(self.engine, self.engine))


def java() -> str:
    return require_java17()


def compiled_launcher(home: Path, name: str, source: str, lib: Path) -> str:
    """Compile a stand-in's small launcher class against its jars (once per source text) and return
    the classpath that runs it."""
    classes = home / f"classes-{hashlib.sha256(source.encode()).hexdigest()[:12]}"
    if not (classes / f"{name}.class").exists():
        javac = Path(java()).with_name("javac")
        if not javac.exists():
            raise NotAvailableError(f"compiling the stand-in launcher {name} needs javac next to {java()} (a JDK, not a JRE)")
        classes.mkdir(parents=True, exist_ok=True)
        (home / f"{name}.java").write_text(source)
        proc = subprocess.run([str(javac), "-cp", str(lib / "*"), "-d", str(classes), str(home / f"{name}.java")], capture_output=True, text=True)
        if proc.returncode != 0:
            raise NotAvailableError(f"compiling the stand-in launcher {name} failed:\n{proc.stderr[-2000:]}")
    return f"{classes}:{lib / '*'}"
