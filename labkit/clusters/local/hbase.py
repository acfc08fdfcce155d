"""A real Apache HBase cluster as local processes on the labkit home's loopback range: one ZooKeeper, one
master and a Thrift 1 gateway on 127.X.Y.240, and region server k on 127.X.Y.k, so each server's CPU budget,
its kill and its request counts are its own. The Cassandra provider's lifecycle guarantees hold (pidfiles,
stop by PID, a crashed run's leftovers reaped by the next start, atexit/SIGTERM cleanup, memory admission).

Data lives on the local filesystem under the cluster's directory: a region server's write-ahead log is not
synced to disk there (`hbase.unsafe.stream.capability.enforce=false`), so a killed server can lose its last writes,
which HDFS would have kept. Clients reach the cluster through the Thrift gateway (happybase); what Thrift 1 cannot
do (pre-split tables, the master's per-region request counts, the version) goes through `LabkitHBaseAdmin.java`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil

from ...errors import ConfigError, LabkitError
from ...host import loopback, processes, timer_slack
from ...host.users import current_user
from .. import exit_guard
from ..base import ClusterInfo
from ...home import clusters_dir
from ..contract import Capabilities, LocalServers, NodeBudgets
from ..lifecycle import ProviderCluster, Ready
from . import budgets, hbase_config as config, hbase_install as install, memory, ports
from .hbase_admin_session import AdminSession
from .node_cpu import NodeCpuMeter

NAME = "hbase"
MAX_REGION_SERVERS = 4
ZK_PORT, MASTER_PORT, REGION_SERVER_PORT, GATEWAY_PORT = 2181, 16000, 16020, 9090
HEAP_MB = {"zookeeper": 64, "master": 256, "regionserver": 384, "thrift": 128}
REGION_SERVER_BYTES = int(0.5 * memory.GIB)
"""What one region server may take: measured 0.21-0.23 GiB resident idle and 0.22-0.27 GiB after 20,000 rows
(benchmarks/results/hbase_startup.md); admitted at its 384 MiB heap's ceiling and the JVM around it, since its
memstores and block cache grow into the heap under a longer load."""
COORDINATION_BYTES = int(0.6 * memory.GIB)
"""ZooKeeper, the master and the Thrift gateway together (at most 0.08, 0.22 and 0.14 GiB resident in the benchmark, with heap room)."""


START_UP_FLAGS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
"""As the local Cassandra nodes run (cassandra_config): five JVMs start at once on a laptop's cores, and the C1
compiler and the serial collector cost them the least CPU to get there, for heaps of a few hundred MiB."""


@dataclass(frozen=True)
class HBaseProcess:
    """One server process of the cluster: what it is, where it listens, where its files live."""

    name: str  # zookeeper, master, rs1.., thrift
    role: str  # zookeeper, master, regionserver, thrift
    host: str
    port: int
    path: str

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def conf_dir(self) -> Path:
        return Path(self.path) / "conf"


def layout(nodes: int, directory: Path, own: loopback.LoopbackRange) -> list[HBaseProcess]:
    """ZooKeeper, the master, `nodes` region servers and the gateway, in the order they start."""
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_REGION_SERVERS:
        raise ConfigError(f"an HBase cluster here has 1 to {MAX_REGION_SERVERS} region servers (--nodes); got {nodes!r}")
    coordination = own.address(loopback.COORDINATION_INDEX)
    procs = [HBaseProcess("zookeeper", "zookeeper", coordination, ZK_PORT, str(directory / "zookeeper")),
             HBaseProcess("master", "master", coordination, MASTER_PORT, str(directory / "master"))]
    procs += [HBaseProcess(f"rs{k}", "regionserver", own.address(k), REGION_SERVER_PORT, str(directory / f"rs{k}")) for k in range(1, nodes + 1)]
    procs.append(HBaseProcess("thrift", "thrift", coordination, GATEWAY_PORT, str(directory / "thrift")))
    return procs


def command_line(proc: HBaseProcess, java: str, version: str = install.DEFAULT_VERSION) -> list[str]:
    """The exact command a process starts with; its directory (in the classpath) is how a later start recognises a
    leftover as labkit's own."""
    head = [java, f"-Xmx{HEAP_MB[proc.role]}m", *START_UP_FLAGS, "-Djava.net.preferIPv4Stack=true", *install.JDK17_FLAGS,
            f"-Dlog4j.configuration=file:{proc.conf_dir / 'log4j.properties'}", "-cp", install.classpath(proc.conf_dir, version)]
    main = {
        "zookeeper": ["org.apache.zookeeper.server.ZooKeeperServerMain", str(proc.conf_dir / "zoo.cfg")],
        "master": ["org.apache.hadoop.hbase.master.HMaster", "start"],
        "regionserver": ["org.apache.hadoop.hbase.regionserver.HRegionServer", "start"],
        "thrift": ["org.apache.hadoop.hbase.thrift.ThriftServer", "-b", proc.host, "-p", str(proc.port), "--infoport", "-1", "start"],
    }[proc.role]
    return head + main


class LocalHBaseCluster(ProviderCluster):
    """`nodes` region servers behind one master, ZooKeeper and Thrift gateway, all on this home's loopback range."""

    provider = "local"
    engine = "hbase"
    capabilities = Capabilities(resize=True)

    def __init__(self, nodes: int = 2, version: str = install.DEFAULT_VERSION, startup_timeout: float | None = None,
                 detached: bool = False, node_cpu: float | None = None, gateway_in_budget: bool = False,
                 block_cache_fraction: float | None = None):
        """`node_cpu`: CPU budget of each region server in cores, applied once the cluster is ready (ZooKeeper and the
        master stay unbudgeted: they are the cluster's plumbing, not its nodes). `gateway_in_budget`: the Thrift
        gateway every request passes shares the region servers' total (nodes x node_cpu, one cap on the cluster's
        group), as a Cassandra node's coordinator work shares its node's budget; without it the gateway runs free.
        `block_cache_fraction`: each region server's block cache as a share of its heap (hfile.block.cache.size;
        HBase's default 0.4), so a benchmark can read more data than the cache holds."""
        if block_cache_fraction is not None and not (isinstance(block_cache_fraction, (int, float)) and 0.0 < block_cache_fraction <= 0.5):
            raise ConfigError(f"block_cache_fraction is a share of the region server's heap above 0 and at most 0.5; got {block_cache_fraction!r}")
        self.gateway_in_budget = bool(gateway_in_budget)
        self.block_cache_fraction = block_cache_fraction
        self.node_cpu = budgets.checked(node_cpu)
        self.version = version
        self.directory = clusters_dir() / NAME
        self.loopback = loopback.own_range()
        self.procs = layout(nodes, self.directory, self.loopback)
        self.startup_timeout = startup_timeout or 90 + 15 * nodes
        self.detached = detached
        self._server_version: str | None = None
        self._admin_session: AdminSession | None = None

    # ---- what the cluster is made of ---------------------------------------------------------------

    @property
    def nodes(self) -> list[HBaseProcess]:
        return [p for p in self.procs if p.role == "regionserver"]

    def _one(self, role: str) -> HBaseProcess:
        return next(p for p in self.procs if p.role == role)

    @property
    def zookeeper(self) -> HBaseProcess:
        return self._one("zookeeper")

    @property
    def gateway(self) -> HBaseProcess:
        """The Thrift 1 gateway every client (happybase) talks to."""
        return self._one("thrift")

    @property
    def thrift_gateway(self) -> str:
        """The contract's HBase connection view: "host:port" of the gateway."""
        return self.gateway.address

    @property
    def addresses(self) -> list[str]:
        """The region servers' addresses (the nodes)."""
        return [p.host for p in self.nodes]

    def held_addresses(self) -> list[tuple[str, int]]:
        return [(p.host, p.port) for p in self.procs]

    @property
    def owner(self) -> str:
        return current_user()

    def pidfile(self, proc: HBaseProcess) -> Path:
        return Path(proc.path) / "labkit.pid"

    def _process(self, proc: HBaseProcess) -> psutil.Process | None:
        return processes.owned_process(self.pidfile(proc), proc.path)

    def node_processes(self) -> dict[str, psutil.Process]:
        """Each region server's JVM by name (what budgets and CPU samplers act on)."""
        owned = {p.name: self._process(p) for p in self.nodes}
        return {name: proc for name, proc in owned.items() if proc is not None}

    def live_nodes(self) -> list[HBaseProcess]:
        return [p for p in self.nodes if self._process(p) is not None]

    # ---- lifecycle ---------------------------------------------------------------------------------


    def start(self) -> "LocalHBaseCluster":
        java = install.java()
        install.install(self.version)
        reap(self.directory, wipe=True)
        free = memory.free_memory()
        memory.admit(len(self.nodes), engine="HBase region server", per_node=REGION_SERVER_BYTES,
                     free=memory.FreeMemory(free.bytes - COORDINATION_BYTES, free.source))
        self._check_ports()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._save_state()
        exit_guard.track(self)
        try:
            self._write_configs()
            for proc in self.procs:
                processes.spawn(command_line(proc, java, self.version), cwd=Path(proc.path), log=Path(proc.path) / "stdout.log",
                                pidfile=self.pidfile(proc))
                if proc.role in ("zookeeper", "thrift"):
                    self._wait_port(proc)
            self._wait_ready()
            self.set_node_cpu(self.node_cpu)
        except BaseException:
            self.stop()
            raise
        return self

    def _check_ports(self, grace: float = 15.0) -> None:
        """Every process's port must be free (a just-killed JVM may hold one a moment longer)."""
        ports.require_free([(f"HBase's {p.name}", p.host, p.port) for p in self.procs], self.loopback, grace)

    def _write_configs(self) -> None:
        common = config.common_site(self.directory, self.zookeeper.host, self.zookeeper.port, len(self.nodes))
        cache = {} if self.block_cache_fraction is None else {"hfile.block.cache.size": str(self.block_cache_fraction)}
        own = {"master": lambda p: config.master_site(p.host, p.port), "regionserver": lambda p: {**config.region_server_site(p.host, p.port), **cache}}
        for proc in self.procs:
            proc.conf_dir.mkdir(parents=True, exist_ok=True)
            (Path(proc.path) / "tmp").mkdir(exist_ok=True)
            site = {**common, "hbase.tmp.dir": str(Path(proc.path) / "tmp"), **own.get(proc.role, lambda p: {})(proc)}
            (proc.conf_dir / "hbase-site.xml").write_text(config.site_xml(site))
            (proc.conf_dir / "log4j.properties").write_text(config.LOG4J)
        (self.zookeeper.conf_dir / "log4j-client.properties").write_text(config.LOG4J_CLIENT)  # the admin tool's
        zk = self.zookeeper
        (Path(zk.path) / "data").mkdir(exist_ok=True)
        (zk.conf_dir / "zoo.cfg").write_text(config.zoo_cfg(Path(zk.path) / "data", zk.host, zk.port))

    def _check_alive(self) -> None:
        for proc in self.procs:
            if self.pidfile(proc).exists() and processes.exited(self.pidfile(proc)):  # started, and gone
                raise LabkitError(f"HBase's {proc.name} exited during start-up; the end of its log ({proc.path}/stdout.log):\n"
                                  + log_tail(Path(proc.path) / "stdout.log"))

    def _wait_port(self, proc: HBaseProcess) -> None:
        def up() -> bool:
            self._check_alive()
            return processes.port_open(proc.host, proc.port)

        self._wait(up, f"HBase's {proc.name} on {proc.address}", proc.role)

    def _wait_ready(self) -> None:
        """Ready: every region server has checked in with the master, and a table split in two (by the admin tool:
        Thrift 1 cannot split) takes a write in each region through the gateway and gives both back."""
        def servers_in() -> bool:
            self._check_alive()
            try:
                found = self.admin("version", timeout=60)
            except LabkitError:
                return False
            self._server_version = found["version"]
            return found["servers"] == len(self.nodes)

        self._wait(servers_in, f"{len(self.nodes)} HBase region server(s) to check in with the master", "master")

        def gateway_writes() -> bool:
            self._check_alive()
            try:
                connection = self.connection(timeout_ms=10_000)
                try:
                    if b"labkit_ready" not in connection.tables():
                        self.create_table("labkit_ready", "f", ["m"], timeout=30)  # split in two: the master assigns both halves
                    table = connection.table("labkit_ready")
                    probes = {b"a-probe": {b"f:v": b"1"}, b"z-probe": {b"f:v": b"2"}}  # one row in each region
                    for key, data in probes.items():
                        table.put(key, data)
                    ok = len(table.regions()) == 2 and all(table.row(key) == data for key, data in probes.items())
                    if ok:
                        connection.delete_table("labkit_ready", disable=True)
                    return ok
                finally:
                    connection.close()
            except Exception:  # the gateway's or the admin tool's master connection, or the new regions, are not there yet
                return False

        self._wait(gateway_writes, "a table split in two regions to take a write in each through the HBase Thrift gateway", "thrift")

    def _wait(self, ready: Any, what: str, log_of: str) -> None:
        """Wait for `ready()`, or say what did not come and show the end of the log that says why."""
        def log_end() -> str:
            proc = self._one(log_of)
            return f"the end of {proc.name}'s log ({proc.path}/stdout.log):\n" + log_tail(Path(proc.path) / "stdout.log")

        Ready(what, ready, self.startup_timeout, interval=1.0, explain=log_end).wait()

    def set_node_cpu(self, node_cpu: float | None) -> None:
        """Give every region server a CPU budget of `node_cpu` cores (None removes the budgets)."""
        self.node_cpu = budgets.checked(node_cpu)
        top = budgets.cluster_group_path(self.directory)
        if top is not None and budgets.cluster_cap(self.directory) is not None:  # lifted first: cgroup v1 refuses a child's quota above its parent's
            budgets.set_quota(top, None)
        budgets.budget_processes(self.directory, self.node_processes(), self.node_cpu)
        slack = timer_slack.BUDGETED_NS if self.node_cpu is not None else timer_slack.LINUX_DEFAULT_NS
        for proc in self.node_processes().values():  # the same kernel setting as a budgeted Cassandra node's
            timer_slack.set_for_process(proc.pid, slack)
        gateway = self._process(self.gateway)
        if self.node_cpu is not None and self.gateway_in_budget and gateway is not None:
            total = self.node_cpu * len(self.nodes)
            budgets.cap_cluster(self.directory, total)
            group = budgets.apply(self.directory, self.gateway.name, gateway.pid, total)  # its own group, inside the cluster's cap,
            budgets.set_quota(group, None)  # with no quota of its own: it takes what the region servers leave of the total
            timer_slack.set_for_process(gateway.pid, slack)

    def cpu_meter(self) -> NodeCpuMeter:
        """A meter of the whole cluster's CPU for the runner: each region server with its budget, and the
        unbudgeted plumbing (ZooKeeper, the master, the Thrift gateway every request passes), so CPU per
        transaction counts what serving it cost, and the per-process columns say where it went."""
        meter = NodeCpuMeter.of(self.directory, self.node_processes(), self.node_cpu)
        for proc in self.procs:
            found = self._process(proc) if proc.role != "regionserver" else None
            if found is not None:  # no budget of its own; a gateway inside the cluster's cap has a group (its throttling)
                meter.nodes[proc.name] = (found, None, budgets.group_of(self.directory, proc.name) if self.gateway_in_budget and self.node_cpu else None)
        if self.gateway_in_budget and self.node_cpu and budgets.cluster_cap(self.directory) is not None:
            meter.cap = budgets.cluster_group_path(self.directory)  # lifted outside the measured window, its throttling read
        return meter

    def _save_state(self) -> None:
        state = {
            "engine": "hbase", "provider": "local", "name": NAME, "owner_pid": None if self.detached else os.getpid(),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "version": self.version,
            "processes": [asdict(p) for p in self.procs],
        }
        (self.directory / "cluster.json").write_text(json.dumps(state, indent=1))

    def stop(self) -> None:
        if self._admin_session is not None:
            self._admin_session.close()
        reap(self.directory)
        exit_guard.untrack(self)

    def kill_node(self, which: int | str) -> HBaseProcess:
        """SIGKILL one region server (1-based index or name): its ZooKeeper session expires after
        hbase_config.ZK_SESSION_TIMEOUT_MS and the master reassigns its regions."""
        proc = self.nodes[which - 1] if isinstance(which, int) else next(p for p in self.nodes if p.name == which)
        found = self._process(proc)
        if found is not None:
            processes.stop(found, graceful=False)
        return proc

    # ---- what lessons and tests use ----------------------------------------------------------------

    def connection(self, timeout_ms: int = 30_000):
        """A happybase connection to the gateway (Thrift 1, binary protocol, buffered transport)."""
        from ...engines import hbase

        return hbase.connect(self.thrift_gateway, timeout_ms=timeout_ms)

    def admin(self, *args: str, timeout: float = 120) -> dict[str, Any]:
        """Ask LabkitHBaseAdmin (`version`, `metrics`, `create TABLE FAMILY SPLIT...`) about this cluster; its JSON.
        One admin JVM per cluster object answers every call (hbase_admin_session)."""
        if self._admin_session is None:
            conf = self.zookeeper.conf_dir
            classes = install.admin_classes(self.version)
            command = [install.java(), *install.JDK17_FLAGS, f"-Dlog4j.configuration=file:{conf / 'log4j-client.properties'}",
                       "-cp", f"{classes}{os.pathsep}{install.classpath(conf, self.version)}", "LabkitHBaseAdmin", self.zookeeper.address]
            self._admin_session = AdminSession(command, self.directory / "admin.log")
        return self._admin_session.call(*args, timeout=timeout)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_admin_session": None}  # the admin tool's pipe stays in the process that opened it

    def create_table(self, name: str, family: str = "f", splits: list[str] | tuple[str, ...] = (), timeout: float = 120) -> None:
        """A table with one column family, pre-split at `splits` into len(splits) + 1 regions (the master spreads
        them over the region servers)."""
        self.admin("create", name, family, *splits, timeout=timeout)

    def flush_table(self, name: str, timeout: float = 300) -> None:
        """Write every region's memstore of table `name` to store files, so later reads go through the block cache
        and the files (a freshly loaded table is otherwise served from memory)."""
        self.admin("flush", name, timeout=timeout)

    def metrics(self) -> dict[str, Any]:
        """The master's view: every live region server's request count and its regions' read and write counts
        (each server reports every hbase_config.REPORT_INTERVAL_MS)."""
        return self.admin("metrics")

    @property
    def server_version(self) -> str:
        if self._server_version is None:
            self._server_version = self.admin("version")["version"]
        return self._server_version

    def info(self) -> ClusterInfo:
        return ClusterInfo(engine="hbase", server_version=self.server_version, provider="local", nodes=len(self.nodes), node_cpu=self.node_cpu)

    # ---- CLI and registry hooks --------------------------------------------------------------------

    @classmethod
    def provision(cls) -> str:
        install.java()
        return f"Apache HBase {install.DEFAULT_VERSION} ready in {install.install()}"

    @classmethod
    def start_from_cli(cls, nodes: int, dcs: int, node_cpu: float | None = None) -> "LocalHBaseCluster":
        if dcs != 1:
            raise ConfigError("--dcs applies to cassandra; an HBase cluster here has one region of servers")
        return cls(nodes=nodes, detached=True, node_cpu=node_cpu).start()

    @classmethod
    def describe_state_dir(cls, directory: Path) -> dict[str, Any]:
        state = json.loads((directory / "cluster.json").read_text())
        nodes = []
        for p in (HBaseProcess(**d) for d in state["processes"]):
            owned = processes.owned_process(Path(p.path) / "labkit.pid", p.path)
            nodes.append({"name": p.name, "address": p.host, "dc": "", "state": "UP" if owned else "DOWN", "pid": owned.pid if owned else None})
        return {"name": NAME, "engine": "hbase", "provider": "local", "server_version": state.get("version", "?"),
                "owner_pid": state.get("owner_pid"), "nodes": nodes}

    @classmethod
    def stop_state_dir(cls, directory: Path) -> None:
        reap(directory)

    # ---- what it can do (the contract's capabilities; after set_node_cpu, whose module `budgets` they would hide) ----

    def budgets(self) -> NodeBudgets:
        return self

    def local_servers(self) -> LocalServers:
        return self


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


STOP_ORDER = ("thrift", "regionserver", "master", "zookeeper")


def reap(directory: Path, wipe: bool = False) -> list[int]:
    """Stop every process labkit started under `directory`, by PID: the gateway and region servers before the master,
    ZooKeeper last (a region server whose ZooKeeper is gone hangs in its shutdown). Nothing is kept for a next start
    (each start begins from empty data), so every process is killed, not asked to flush."""
    killed = []
    state_file = directory / "cluster.json"
    known = json.loads(state_file.read_text()).get("processes", []) if state_file.exists() else []
    for role in STOP_ORDER:
        for p in (d for d in known if d["role"] == role):
            found = processes.owned_process(Path(p["path"]) / "labkit.pid", p["path"])
            if found is not None:
                killed.append(found.pid)
                processes.stop(found, graceful=False)
    for proc in processes.processes_under(directory):  # anything without a pidfile (a start cut short)
        killed.append(proc.pid)
        processes.stop(proc, graceful=False)
    budgets.remove(directory)
    state_file.unlink(missing_ok=True)
    if wipe and directory.exists():
        for child in directory.iterdir():
            if child.is_dir():
                shutil.rmtree(child, ignore_errors=True)
    return killed
