"""A real MongoDB sharded cluster from `mongod`/`mongos` binaries on this machine (conda-forge's
`mongodb` package ships them): a one-member config server replica set, N one-member shard replica
sets and one mongos, all on 127.0.0.1, with the Cassandra provider's lifecycle guarantees (pidfiles,
stop by PID, leftovers of a crashed run reaped by the next start, atexit/SIGTERM cleanup).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from ...errors import ConfigError, LabkitError, NotAvailableError
from .. import exit_guard
from ..base import ClusterInfo
from ...host.users import current_user
from ..contract import Capabilities, LocalServers, NodeBudgets
from ..lifecycle import ProviderCluster, Ready
from ...home import clusters_dir
from ...host import processes
from . import budgets
from .node_cpu import NodeCpuMeter

NAME = "mongodb"
MAX_SHARDS = 8
HOST = "127.0.0.1"
MONGOS_PORT = 27017
CONFIG_PORT = 27019
FIRST_SHARD_PORT = 27101  # shard k listens on 27100 + k
CACHE_GB = "0.25"  # WiredTiger cache per mongod: 2 + N of them share a laptop


def binaries() -> tuple[str, str]:
    """(mongod, mongos) from MONGOD_BIN/MONGOS_BIN or PATH, or an error that says how to get them."""
    found = []
    for name, env in (("mongod", "MONGOD_BIN"), ("mongos", "MONGOS_BIN")):
        path = os.environ.get(env) or shutil.which(name)
        if not path or not os.access(path, os.X_OK):
            raise NotAvailableError(
                f"the local MongoDB provider needs `{name}` (set {env}, or put it on PATH: `conda install -c conda-forge mongodb`, "
                "or MongoDB's own packages). Without it, use --provider compose (Docker) or --provider external."
            )
        found.append(path)
    return found[0], found[1]


@dataclass(frozen=True)
class MongoProcess:
    """One server process of the cluster: what it is, where it listens, where its files live."""

    name: str  # config, shard1.., mongos
    role: str  # configsvr, shardsvr, mongos
    port: int
    path: str

    @property
    def replica_set(self) -> str | None:
        return None if self.role == "mongos" else f"labkit-{self.name}"

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"


def layout(shards: int, directory: Path) -> list[MongoProcess]:
    if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= MAX_SHARDS:
        raise ConfigError(f"shards must be a whole number from 1 to {MAX_SHARDS}; got {shards!r}")
    procs = [MongoProcess("config", "configsvr", CONFIG_PORT, str(directory / "config"))]
    procs += [MongoProcess(f"shard{k}", "shardsvr", FIRST_SHARD_PORT + k - 1, str(directory / f"shard{k}")) for k in range(1, shards + 1)]
    procs.append(MongoProcess("mongos", "mongos", MONGOS_PORT, str(directory / "mongos")))
    return procs


def command_line(proc: MongoProcess, mongod: str, mongos: str, config: MongoProcess) -> list[str]:
    """The exact command a process is started with; its path (under labkit's cluster directory) in
    the command line is how a later start recognises a leftover as labkit's own."""
    log = str(Path(proc.path) / "server.log")
    if proc.role == "mongos":
        return [mongos, "--configdb", f"{config.replica_set}/{config.address}", "--bind_ip", HOST, "--port", str(proc.port), "--logpath", log, "--pidfilepath", str(Path(proc.path) / "mongos.pid")]
    return [
        mongod, f"--{proc.role}", "--replSet", str(proc.replica_set), "--bind_ip", HOST, "--port", str(proc.port),
        "--dbpath", str(Path(proc.path) / "data"), "--logpath", log, "--wiredTigerCacheSizeGB", CACHE_GB,
    ]


class LocalMongoCluster(ProviderCluster):
    """`nodes` shards (one-member replica sets) behind one mongos on 127.0.0.1:27017."""

    provider = "local"
    engine = "mongodb"
    capabilities = Capabilities(resize=True)

    def __init__(self, nodes: int = 2, startup_timeout: float | None = None, detached: bool = False, node_cpu: float | None = None):
        """`node_cpu`: CPU budget of each shard's mongod in cores, applied once the cluster is ready (the
        config server and mongos stay unbudgeted: they are the cluster's plumbing, not its nodes)."""
        self.node_cpu = budgets.checked(node_cpu)
        self.directory = clusters_dir() / NAME
        self.procs = layout(nodes, self.directory)
        self.startup_timeout = startup_timeout or 60 + 10 * nodes
        self.detached = detached
        self._server_version: str | None = None

    @property
    def nodes(self) -> list[MongoProcess]:
        return [p for p in self.procs if p.role == "shardsvr"]

    @property
    def config(self) -> MongoProcess:
        return self.procs[0]

    @property
    def mongos(self) -> MongoProcess:
        return self.procs[-1]

    @property
    def uri(self) -> str:
        return f"mongodb://{self.mongos.address}/"

    def held_addresses(self) -> list[tuple[str, int]]:
        return [(HOST, p.port) for p in self.procs]

    @property
    def owner(self) -> str:
        return current_user()

    def node_processes(self) -> dict[str, psutil.Process]:
        """Each shard's mongod by name (what per-second CPU samplers read)."""
        return self._shard_processes()

    def pidfile(self, proc: MongoProcess) -> Path:
        return Path(proc.path) / "labkit.pid"

    def commands(self) -> list[list[str]]:
        mongod, mongos = binaries()
        return [command_line(p, mongod, mongos, self.config) for p in self.procs]

    # ---- lifecycle -------------------------------------------------------------------------------


    def start(self) -> "LocalMongoCluster":
        commands = self.commands()  # fails early, with advice, when the binaries are missing
        reap(self.directory, wipe=True)
        for proc in self.procs:
            if processes.port_open(HOST, proc.port):
                raise LabkitError(f"port {proc.address} (needed by {proc.name}) is taken; stop that process (`labkit down` if it is labkit's) and start again")
        self.directory.mkdir(parents=True, exist_ok=True)
        self._save_state()
        exit_guard.track(self)
        try:
            for proc, cmd in zip(self.procs[:-1], commands[:-1]):
                (Path(proc.path) / "data").mkdir(parents=True, exist_ok=True)
                processes.spawn(cmd, cwd=Path(proc.path), log=Path(proc.path) / "stdout.log", pidfile=self.pidfile(proc))
            for proc in self.procs[:-1]:
                self._wait_port(proc)
                self._initiate(proc)
            Path(self.mongos.path).mkdir(parents=True, exist_ok=True)
            processes.spawn(commands[-1], cwd=Path(self.mongos.path), log=Path(self.mongos.path) / "stdout.log", pidfile=self.pidfile(self.mongos))
            self._wait_port(self.mongos)
            self._add_shards()
            self.set_node_cpu(self.node_cpu)
        except BaseException:
            self.stop()
            raise
        return self

    def _shard_processes(self) -> dict[str, psutil.Process]:
        owned = {p.name: processes.owned_process(self.pidfile(p), p.path) for p in self.nodes}
        return {name: proc for name, proc in owned.items() if proc is not None}

    def set_node_cpu(self, node_cpu: float | None) -> None:
        """Give every shard's mongod a CPU budget of `node_cpu` cores (None removes the budgets)."""
        self.node_cpu = budgets.checked(node_cpu)
        budgets.budget_processes(self.directory, self._shard_processes(), self.node_cpu)

    def cpu_meter(self) -> NodeCpuMeter:
        """A meter of each shard's CPU for the runner."""
        return NodeCpuMeter.of(self.directory, self._shard_processes(), self.node_cpu)

    def _wait_port(self, proc: MongoProcess) -> None:
        def up() -> bool:
            owned = processes.owned_process(self.pidfile(proc), proc.path)
            if owned is None:
                raise LabkitError(f"MongoDB {proc.name} exited during start-up; see {proc.path}/server.log")
            return processes.port_open(HOST, proc.port)

        Ready(f"MongoDB {proc.name} on {proc.address}", up, self.startup_timeout).wait()

    def _initiate(self, proc: MongoProcess) -> None:
        """Make a one-member replica set of `proc` (idempotent) and wait until it is primary."""
        from pymongo import MongoClient
        from pymongo.errors import OperationFailure

        client: MongoClient[dict[str, Any]] = MongoClient(proc.address, directConnection=True, serverSelectionTimeoutMS=10_000)
        try:
            try:
                client.admin.command("replSetInitiate", {"_id": proc.replica_set, "configsvr": proc.role == "configsvr", "members": [{"_id": 0, "host": proc.address}]})
            except OperationFailure as exc:
                if exc.code != 23:  # AlreadyInitialized
                    raise
            Ready(f"{proc.name} to become primary", lambda: bool(client.admin.command("hello").get("isWritablePrimary", False)), self.startup_timeout).wait()
        finally:
            client.close()

    def _add_shards(self) -> None:
        from ...engines import mongodb

        client = mongodb.connect(self.uri, timeout_s=self.startup_timeout)
        try:
            have = {s["_id"] for s in client.admin.command("listShards")["shards"]}
            for shard in self.nodes:
                if shard.replica_set not in have:
                    client.admin.command("addShard", f"{shard.replica_set}/{shard.address}", name=shard.replica_set)
            self._server_version = mongodb.server_version(client)
        finally:
            client.close()

    def _save_state(self) -> None:
        state = {
            "engine": "mongodb", "provider": "local", "name": NAME, "owner_pid": None if self.detached else os.getpid(),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "shards": len(self.nodes),
            "processes": [p.__dict__ for p in self.procs],
        }
        (self.directory / "cluster.json").write_text(json.dumps(state, indent=1))

    def stop(self) -> None:
        reap(self.directory)
        exit_guard.untrack(self)

    # ---- what notebooks use ----------------------------------------------------------------------

    def live_nodes(self) -> list[MongoProcess]:
        return [p for p in self.nodes if processes.owned_process(self.pidfile(p), p.path) is not None]

    def client(self):
        from ...engines import mongodb

        return mongodb.connect(self.uri)

    @property
    def server_version(self) -> str:
        if self._server_version is None:
            from ...engines import mongodb

            client = mongodb.connect(self.uri)
            try:
                self._server_version = mongodb.server_version(client)
            finally:
                client.close()
        return self._server_version

    def info(self) -> ClusterInfo:
        return ClusterInfo(engine="mongodb", server_version=self.server_version, provider="local", nodes=len(self.nodes), node_cpu=self.node_cpu)

    # ---- CLI and registry hooks ------------------------------------------------------------------

    @classmethod
    def start_from_cli(cls, nodes: int, dcs: int, node_cpu: float | None = None) -> "LocalMongoCluster":
        if dcs != 1:
            raise ConfigError("--dcs applies to cassandra; a MongoDB cluster here has one region")
        return cls(nodes=nodes, detached=True, node_cpu=node_cpu).start()

    @classmethod
    def describe_state_dir(cls, directory: Path) -> dict[str, Any]:
        state = json.loads((directory / "cluster.json").read_text())
        nodes = []
        for p in (MongoProcess(**d) for d in state["processes"]):
            owned = processes.owned_process(Path(p.path) / "labkit.pid", p.path)
            nodes.append({"name": p.name, "address": p.address, "dc": "", "state": "UP" if owned else "DOWN", "pid": owned.pid if owned else None})
        return {"name": NAME, "engine": "mongodb", "provider": "local", "server_version": "?", "owner_pid": state.get("owner_pid"), "nodes": nodes}

    @classmethod
    def stop_state_dir(cls, directory: Path) -> None:
        reap(directory)

    # ---- what it can do (the contract's capabilities; after set_node_cpu, whose module `budgets` they would hide) ----

    def budgets(self) -> NodeBudgets:
        return self

    def local_servers(self) -> LocalServers:
        return self


def reap(directory: Path, wipe: bool = False) -> list[int]:
    """Stop every process labkit started under `directory` (by PID; found by pidfile or command line)."""
    killed = []
    for proc in processes.processes_under(directory):
        killed.append(proc.pid)
        processes.stop(proc, graceful=True, timeout=15)
    budgets.remove(directory)
    state = directory / "cluster.json"
    if state.exists():
        state.unlink()
    if wipe and directory.exists():
        for child in directory.iterdir():
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
    return killed
