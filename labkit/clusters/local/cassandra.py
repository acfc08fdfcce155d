"""A real Apache Cassandra cluster as local JVMs on 127.X.Y.1..127.X.Y.N, the labkit home's own loopback
range (ccm's Cluster/Node split; see `loopback`).

    with LocalCassandraCluster(nodes=3) as cluster:
        session = cluster.session()

State lives in `~/.cache/labkit/clusters/cassandra/` (cluster.json, one directory per node with its
config, data, logs and pidfile). A start first reaps whatever an earlier crashed or interrupted labkit
run left there; `labkit down` (or leaving the `with` block) stops every node by PID.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil

from ...engines import cassandra as cql
from ...errors import ConfigError, LabkitError
from ...faults import heal_all
from .. import exit_guard
from ..base import ClusterInfo
from ...host.users import current_user
from ..contract import Adoption, Capabilities, InternodeLinks, LocalServers, Membership, NodeAdmin, NodeBudgets, NodeFaults
from ..lifecycle import ProviderCluster, Ready
from ...home import clusters_dir
from ...host import loopback
from . import budgets, cassandra_cds, memory, ports
from . import cassandra_install as install
from ...host import processes, timer_slack
from .node_cpu import NodeCpuMeter
from .cassandra_config import (
    BUDGETED_TIMER_SLACK_NS,
    CQL_PORT,
    JMX_PORT,
    STORAGE_PORT,
    NodeSpec,
    dc_layout,
    nodetool_command,
    server_command,
    split_largest_range,
    tokens_for,
    write_node_files,
)

MAX_NODES = 8
NAME = "cassandra"


def node_state(spec: NodeSpec) -> tuple[str, int | None]:
    """(state, pid) of a node from its pidfile and CQL port: DOWN, STARTING or UP."""
    proc = processes.owned_process(spec.path / "pid", str(spec.path))
    if proc is None:
        return "DOWN", None
    return ("UP" if processes.port_open(spec.address, CQL_PORT) else "STARTING"), proc.pid


class CassandraNode:
    """One node: its spec, its process, and the operations a fault-injection lesson needs."""

    def __init__(self, cluster: "LocalCassandraCluster", spec: NodeSpec):
        self.cluster = cluster
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def address(self) -> str:
        return self.spec.address

    @property
    def pidfile(self) -> Path:
        return self.spec.path / "pid"

    def process(self):
        return processes.owned_process(self.pidfile, str(self.spec.path))

    def is_running(self) -> bool:
        return self.process() is not None

    def is_serving(self) -> bool:
        return self.is_running() and processes.port_open(self.address, CQL_PORT)

    @property
    def state(self) -> str:
        return node_state(self.spec)[0]

    def launch(self) -> None:
        if self.is_running():
            return
        java = install.require_java17()
        archive = cassandra_cds.archive_path(self.cluster.version)
        cmd = server_command(java, install.classpath(self.cluster.version), self.spec, install.MAIN_CLASS, archive if archive.exists() else None)
        slack = BUDGETED_TIMER_SLACK_NS if self.cluster.node_cpu is not None else None
        processes.spawn(cmd, cwd=self.spec.path, log=self.spec.path / "logs" / "stdout.log", pidfile=self.pidfile, timer_slack_ns=slack)

    def log_tail(self, lines: int = 20) -> str:
        out = []
        for name in ("stdout.log", "system.log"):
            p = self.spec.path / "logs" / name
            if p.exists():
                out.append(f"--- {p} ---\n" + "\n".join(p.read_text(errors="replace").splitlines()[-lines:]))
        return "\n".join(out)

    def kill(self) -> None:
        """SIGKILL: the node vanishes as in a crash (no drain, no gossip goodbye)."""
        proc = self.process()
        if proc is not None:
            processes.stop(proc, graceful=False)

    def stop(self) -> None:
        """SIGTERM and wait: Cassandra's shutdown hook announces the node's departure."""
        proc = self.process()
        if proc is not None:
            processes.stop(proc, graceful=True)

    def __repr__(self) -> str:
        return f"<CassandraNode {self.name} {self.address} {self.spec.dc} {self.state}>"


class LocalCassandraCluster(ProviderCluster):
    """N real Cassandra nodes on loopback, optionally in two datacenters (GossipingPropertyFileSnitch)."""

    provider = "local"
    engine = "cassandra"
    capabilities = Capabilities(resize=True, adopt=True)

    def __init__(
        self,
        nodes: int = 3,
        dcs: int = 1,
        version: str = install.DEFAULT_VERSION,
        startup_timeout: float | None = None,
        detached: bool = False,
        node_cpu: float | None = None,
        chunk_cache_mb: int | None = None,
        internode_proxy: bool = False,
    ):
        """`node_cpu`: CPU budget of each node in cores (e.g. 0.15), applied once a node is ready (starting
        under a budget would take minutes); None lets every node use all of the machine's cores.
        `chunk_cache_mb`: each node's chunk cache in MiB (None: Cassandra's default, no chunk cache).
        `internode_proxy`: the datacenters reach each other only through toxiproxy, so they can be cut apart
        without root (`internode_links()`, faults/links)."""
        if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES:
            raise ConfigError(f"nodes must be a whole number from 1 to {MAX_NODES}; got {nodes!r}")
        if dcs not in (1, 2):
            raise ConfigError(f"dcs must be 1 or 2; got {dcs!r}")
        if dcs == 2 and nodes < 2:
            raise ConfigError("two datacenters need at least 2 nodes (one per datacenter)")
        self.node_cpu = budgets.checked(node_cpu)
        self.version = version
        self.dcs = dcs
        if chunk_cache_mb is not None and (isinstance(chunk_cache_mb, bool) or not isinstance(chunk_cache_mb, int) or chunk_cache_mb < 1):
            raise ConfigError(f"chunk_cache_mb must be a whole number of MiB (1 or more), or None for no chunk cache; got {chunk_cache_mb!r}")
        self.chunk_cache_mb = chunk_cache_mb
        self.directory = clusters_dir() / NAME
        self.startup_timeout = startup_timeout or 30 + 15 * nodes
        self.detached = detached  # started by `labkit up`: survives the starting process
        self.loopback = loopback.own_range()
        self.internode_proxy = bool(internode_proxy)
        layout = dc_layout(nodes, dcs)
        tokens = tokens_for(layout)
        self.nodes = [CassandraNode(self, self._spec(i, dc, tokens[i - 1])) for i, dc in zip(range(1, nodes + 1), layout)]
        self._sessions: list[Any] = []
        self._server_version: str | None = None
        self.adopted = False  # found running (started by `labkit up`), not started by this object: see adopt()

    def _spec(self, index: int, dc: str, token: int, bootstrap: bool = False) -> NodeSpec:
        broadcast = self.loopback.address(loopback.BROADCAST_OFFSET + index) if self.internode_proxy else None
        return NodeSpec(index, self.loopback.address(index), dc, "rack1", token, JMX_PORT, str(self.directory / f"node{index}"),
                        bootstrap=bootstrap, broadcast=broadcast)

    # ---- internode links through toxiproxy (partitions without root) -----------------------------

    def _links_server(self):
        from ...faults.latency import Toxiproxy

        return Toxiproxy(host=self.loopback.address(loopback.LINKS_INDEX))

    def _link(self, node: "CassandraNode") -> None:
        """The proxy in front of the node's storage port, where the other datacenter reaches it."""
        self._links_server().proxy(f"internode-{node.name}", listen=f"{node.spec.broadcast}:{STORAGE_PORT}",
                                   upstream=f"{node.address}:{STORAGE_PORT}")

    def internode_links(self) -> InternodeLinks:
        """What cuts and heals the datacenters' links: the proxies when the cluster has them, else iptables."""
        from ...faults.links import IptablesLinks, ProxiedLinks

        if not self.internode_proxy:
            return IptablesLinks()
        server = self._links_server()
        return ProxiedLinks(server.host, server.port, {n.address: f"internode-{n.name}" for n in self.nodes})

    # ---- lifecycle -------------------------------------------------------------------------------


    def start(self) -> "LocalCassandraCluster":
        """Install on first use, reap leftovers, start every node, wait until the cluster is ready."""
        install.require_java17()
        install.install(self.version)
        self._refuse_if_owned_elsewhere()
        reap(self.directory, wipe=True)
        heal_all()  # a partition a killed notebook left behind would cut the new cluster's datacenters apart
        cassandra_cds.ensure_archive(self.version)  # once per version; later starts need less CPU
        self._check_ports()
        memory.admit(len(self.nodes))  # after the reap: a leftover cluster's memory is free again
        self.directory.mkdir(parents=True, exist_ok=True)
        seeds = [n.spec.ring_address for n in self.nodes]
        for node in self.nodes:
            write_node_files(node.spec, seeds, "labkit", self.chunk_cache_mb)
        self._save_state()
        exit_guard.track(self)
        if self.internode_proxy:
            self._links_server().start()  # before the nodes: it is how they reach each other's datacenter
            for node in self.nodes:
                self._link(node)
        for node in self.nodes:
            node.launch()
        try:
            self.wait_ready(self.nodes)
            self._apply_budget(self.nodes)
        except BaseException:
            self.stop()
            raise
        return self

    def _processes(self, nodes: list[CassandraNode]) -> dict[str, psutil.Process]:
        procs = {node.name: node.process() for node in nodes}
        return {name: proc for name, proc in procs.items() if proc is not None}

    def _apply_budget(self, nodes: list[CassandraNode]) -> None:
        """Put each running node of `nodes` under the cluster's CPU budget (nothing when it has none)."""
        if self.node_cpu is not None:
            budgets.budget_processes(self.directory, self._processes(nodes), self.node_cpu)

    def set_node_cpu(self, node_cpu: float | None, period_us: int = budgets.DEFAULT_PERIOD_US) -> None:
        """Change every node's CPU budget while it runs (None removes the budgets); `period_us` is the CFS
        period the budget is spread over (benchmarks compare periods with it)."""
        self.node_cpu = budgets.checked(node_cpu)
        running = self._processes(self.live_nodes())
        budgets.budget_processes(self.directory, running, self.node_cpu, period_us)
        for proc in running.values():  # a budgeted node's workers spin less (cassandra_config.BUDGETED_TIMER_SLACK_NS)
            timer_slack.set_for_process(proc.pid, BUDGETED_TIMER_SLACK_NS if self.node_cpu is not None else timer_slack.LINUX_DEFAULT_NS)
        self._save_state()

    def held_addresses(self) -> list[tuple[str, int]]:
        """Every loopback address and port the nodes listen on (CQL, storage, JMX)."""
        held = [(host, port) for node in self.nodes
                for host, port in ((node.address, CQL_PORT), (node.address, STORAGE_PORT), (node.address, node.spec.jmx_port))]
        if self.internode_proxy:
            links = self._links_server()
            held += [(n.spec.broadcast, STORAGE_PORT) for n in self.nodes if n.spec.broadcast is not None] + [(links.host, links.port)]  # every node has one here
        return held

    @property
    def owner(self) -> str:
        return current_user()

    def node_processes(self) -> dict[str, psutil.Process]:
        """Each live node's server process by node name (what per-second CPU samplers read)."""
        return self._processes(self.live_nodes())

    def cpu_meter(self) -> NodeCpuMeter:
        """A meter of every live node's CPU (and throttling under a budget) for the runner."""
        return NodeCpuMeter.of(self.directory, self._processes(self.live_nodes()), self.node_cpu)

    def _refuse_if_owned_elsewhere(self) -> None:
        """A cluster another live process (a running notebook) started is not ours to reap."""
        state = self.directory / "cluster.json"
        if not state.exists():
            return
        owner = json.loads(state.read_text()).get("owner_pid")
        if owner in (None, os.getpid()) or not psutil.pid_exists(owner):
            return  # detached (`labkit up`), ours, or left by a dead process: reap it
        if processes.processes_under(self.directory):
            cmd = " ".join(psutil.Process(owner).cmdline()[:3])
            raise LabkitError(
                f"a labkit Cassandra cluster started by process {owner} ({cmd}) is still running; only one cluster "
                "runs at a time. Stop it in that notebook (its last cell), or with `labkit down`, then start again."
            )

    def _check_ports(self, grace: float = 15.0) -> None:
        """Every port a node needs must be free; a just-killed JVM may hold them a moment longer."""
        wanted = []
        for node in self.nodes:
            wanted += [(node.name, node.address, CQL_PORT), (node.name, node.address, STORAGE_PORT), (node.name, node.address, node.spec.jmx_port)]
            if node.spec.broadcast:
                wanted.append((node.name, node.spec.broadcast, STORAGE_PORT))
        ports.require_free(wanted, self.loopback, grace)

    def _save_state(self) -> None:
        state = {
            "engine": self.engine,
            "provider": self.provider,
            "name": NAME,
            "version": self.version,
            "dcs": self.dcs,
            "owner_pid": None if self.detached else os.getpid(),
            "node_cpu": self.node_cpu,
            "chunk_cache_mb": self.chunk_cache_mb,
            "internode_proxy": self.internode_proxy,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "nodes": [n.spec.__dict__ for n in self.nodes],
        }
        tmp = self.directory / "cluster.json.tmp"
        tmp.write_text(json.dumps(state, indent=1))
        os.replace(tmp, self.directory / "cluster.json")

    def wait_ready(self, nodes: list[CassandraNode] | None = None, timeout: float | None = None) -> None:
        """Ready means: every CQL port answers; every node holds a complete system.peers_v2 row for each
        other node (the driver ignores partial rows) and sees it NORMAL with its CQL port ready in
        gossip; and all report one schema version (an open port alone is not enough: DDL then fails)."""
        nodes = nodes or [n for n in self.nodes if n.is_running()]
        timeout = timeout or self.startup_timeout
        deadline = time.monotonic() + timeout

        def ports_open() -> bool:
            for n in nodes:
                if processes.exited(n.pidfile):  # not `is_running`: a JVM still exec'ing does not show its command line yet
                    raise LabkitError(f"Cassandra {n.name} ({n.address}) exited during start-up:\n{n.log_tail()}")
            return all(processes.port_open(n.address, CQL_PORT) for n in nodes)

        Ready(f"CQL ports of {len(nodes)} node(s)", ports_open, timeout).wait()
        ring = {n.address: n.spec.ring_address for n in self.nodes}  # how gossip and system.peers name each node
        every = {n.address for n in self.live_nodes()}  # how the driver names them (their own addresses)
        every_in_ring = {ring[a] for a in every}
        session = cql.connect([n.address for n in nodes], metadata=False, probe=True)
        names = {n.address: n.name for n in self.nodes} | {n.spec.ring_address: n.name for n in self.nodes}
        missing = ["nothing asked yet"]  # what the last look found lacking, for the time-out's message

        def converged() -> bool:
            hosts = {h.address: h for h in session.cluster.metadata.all_hosts()}
            if not every <= hosts.keys():
                session.cluster.refresh_nodes()  # the driver skips peers whose gossip state was still partial
                missing[0] = "the driver does not list " + ", ".join(names[a] for a in sorted(every - hosts.keys()))
                return False
            versions = {}
            for address in sorted(n.address for n in nodes):
                try:
                    peers = list(session.execute(_PEERS_QUERY, host=hosts[address]))
                    gossip = list(session.execute(_GOSSIP_QUERY, host=hosts[address]))
                    local = session.execute("SELECT schema_version FROM system.local", host=hosts[address]).one()
                except Exception as exc:
                    missing[0] = f"{names[address]} did not answer ({type(exc).__name__}: {str(exc)[:200]})"
                    return False
                gaps = _ring_gaps(ring[address], every_in_ring, peers, gossip, names)
                if gaps:
                    missing[0] = f"{names[address]} {gaps}"
                    return False
                versions[names[address]] = local.schema_version
            if len(set(versions.values())) > 1:
                missing[0] = "schema versions differ: " + ", ".join(f"{n} {v}" for n, v in versions.items())
                return False
            return True

        try:
            Ready("every node to see its peers and agree on the schema", converged, max(5.0, deadline - time.monotonic()), interval=0.2,
                  explain=lambda: f"last seen: {missing[0]}").wait()
            self._server_version = cql.server_version(session)
        finally:
            session.cluster.shutdown()

    @classmethod
    def adopt(cls, nodes: int, dcs: int = 1, node_cpu: float | None = None, chunk_cache_mb: int | None = None,
              version: str = install.DEFAULT_VERSION, **_options: Any) -> "LocalCassandraCluster | None":
        """The cluster `labkit up` left running, when it is exactly the one asked for (nodes, datacenters, CPU
        budget, chunk cache, version) and every node serves; None otherwise.

        Why: `labkit up cassandra --nodes 3` then `labkit run ... --nodes 3` should measure the cluster the user
        started (and leave it up), not restart it. A cluster a live notebook owns is never adopted."""
        state_file = clusters_dir() / NAME / "cluster.json"
        try:
            state = json.loads(state_file.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if state.get("owner_pid") is not None or state.get("provider") != "local":
            return None
        proxied = bool(_options.get("internode_proxy", False))
        wanted = cls(nodes=nodes, dcs=dcs, version=version, detached=True, node_cpu=node_cpu, chunk_cache_mb=chunk_cache_mb, internode_proxy=proxied)
        recorded = (state.get("nodes"), state.get("dcs"), state.get("node_cpu"), state.get("chunk_cache_mb"), state.get("version"))
        if recorded != ([n.spec.__dict__ for n in wanted.nodes], dcs, wanted.node_cpu, chunk_cache_mb, version):
            return None
        if not all(n.is_serving() for n in wanted.nodes):
            return None
        wanted.adopted = True
        return wanted

    @classmethod
    def left_up(cls) -> str | None:
        """What `labkit up` left running here ("2 nodes, 1 datacenter, no CPU budget"), or None: a sweep that
        cannot adopt it replaces it, and says so."""
        directory = clusters_dir() / NAME
        try:
            state = json.loads((directory / "cluster.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if state.get("owner_pid") is not None or not processes.processes_under(directory):
            return None
        budget = f"{state['node_cpu']:g} core per node" if state.get("node_cpu") else "no CPU budget"
        return f"{len(state.get('nodes', []))} node(s), {state.get('dcs', 1)} datacenter(s), {budget}"

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the driver sessions (a copy in another process, such as the check's own Python a grade
        cell starts, opens its own)."""
        return {**self.__dict__, "_sessions": []}

    def release(self) -> None:
        """Close this object's driver sessions and leave the servers running (an adopted cluster's end)."""
        for s in self._sessions:
            try:
                s.cluster.shutdown()
            except Exception:
                pass
        self._sessions.clear()

    def live_nodes(self) -> list[CassandraNode]:
        return [n for n in self.nodes if n.is_running()]

    def stop(self, graceful: bool = False) -> None:
        """Stop every node by PID (SIGKILL by default: a throwaway lab cluster needs no drain)."""
        self.release()
        for node in self.nodes:
            node.stop() if graceful else node.kill()
        if self.internode_proxy:
            self._links_server().stop()
        reap(self.directory)  # also removes the nodes' CPU budget groups
        exit_guard.untrack(self)

    # ---- what notebooks use ----------------------------------------------------------------------

    def info(self) -> ClusterInfo:
        return ClusterInfo(
            engine="cassandra", server_version=self.server_version, provider="local", nodes=len(self.live_nodes()) or len(self.nodes), node_cpu=self.node_cpu
        )

    @property
    def server_version(self) -> str:
        if self._server_version is None:
            session = cql.connect([n.address for n in self.live_nodes()])
            try:
                self._server_version = cql.server_version(session)
            finally:
                session.cluster.shutdown()
        return self._server_version

    @property
    def addresses(self) -> list[str]:
        return [n.address for n in self.nodes]

    def datacenters(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for n in self.nodes:
            out.setdefault(n.spec.dc, []).append(n.address)
        return out

    def session(self, dc: str | None = None, keyspace: str | None = None):
        """A cassandra-driver Session balancing over all nodes, or over datacenter `dc` only."""
        if dc is not None and dc not in self.datacenters():
            raise ConfigError(f"unknown datacenter {dc!r}: this cluster has {', '.join(self.datacenters())}")
        contact = self.datacenters()[dc] if dc else self.addresses
        s = cql.connect(contact, dc=dc, keyspace=keyspace)
        self._sessions.append(s)
        return s

    def trace(self, statement: Any, params: Any = None, consistency: int | None = None, session=None) -> cql.TraceReport:
        """Run one query with tracing and report which nodes served it."""
        from cassandra import ConsistencyLevel

        open_ = [x for x in self._sessions if not (x.is_shutdown or x.cluster.is_shutdown)]  # a caller may have shut one down
        s = session or (open_[0] if open_ else self.session())
        return cql.trace(s, statement, params, consistency if consistency is not None else ConsistencyLevel.ONE)

    def node(self, which: int | str) -> CassandraNode:
        for n in self.nodes:
            if which in (n.spec.index, n.name, n.address):
                return n
        raise ConfigError(f"no node {which!r} in this cluster (nodes: {', '.join(n.name for n in self.nodes)})")

    def nodetool(self, which: int | str, *args: str, timeout: float = 120) -> str:
        """Run nodetool against one node over JMX, with the cluster's own jars."""
        node = self.node(which)
        java = install.require_java17()
        cmd = nodetool_command(java, install.classpath(self.version), node.spec, install.NODETOOL_CLASS, list(args))
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise LabkitError(f"nodetool {' '.join(args)} on {node.name} failed:\n{(proc.stdout + proc.stderr).strip()[-2000:]}")
        return proc.stdout

    def kill_node(self, which: int | str) -> CassandraNode:
        node = self.node(which)
        node.kill()
        return node

    def stop_node(self, which: int | str) -> CassandraNode:
        node = self.node(which)
        node.stop()
        return node

    def restart_node(self, which: int | str) -> CassandraNode:
        """Start a stopped or killed node again with its data, and wait until the others see it."""
        node = self.node(which)
        node.kill()
        node.spec.bootstrap = False
        write_node_files(node.spec, self.addresses, "labkit", self.chunk_cache_mb)
        node.launch()
        self.wait_ready(self.live_nodes())
        self._apply_budget([node])
        return node

    def add_node(self, dc: str = "dc1") -> CassandraNode:
        """Bootstrap a new node into `dc` at the middle of that datacenter's largest token range."""
        if len(self.nodes) >= MAX_NODES:
            raise ConfigError(f"this lab runs at most {MAX_NODES} local nodes")
        if dc not in self.datacenters():
            raise ConfigError(f"unknown datacenter {dc!r}: this cluster has {', '.join(self.datacenters())}")
        memory.admit(1, starting="add a node")
        index = max(n.spec.index for n in self.nodes) + 1
        token = split_largest_range([n.spec.token for n in self.nodes if n.spec.dc == dc])
        spec = self._spec(index, dc, token, bootstrap=True)
        node = CassandraNode(self, spec)
        write_node_files(spec, [n.spec.ring_address for n in self.nodes], "labkit", self.chunk_cache_mb)
        if self.internode_proxy:
            self._link(node)
        self.nodes.append(node)
        self._save_state()
        node.launch()
        self.wait_ready(self.live_nodes(), timeout=self.startup_timeout + 60)
        self._apply_budget([node])
        return node

    def decommission(self, which: int | str) -> None:
        """Stream the node's data to the others, remove it from the ring, stop its process.

        --force: on a small lab ring the system keyspaces (RF 3) would otherwise forbid shrinking to
        fewer than 3 nodes; user keyspaces are streamed all the same."""
        node = self.node(which)
        self.nodetool(node.name, "decommission", "--force", timeout=600)
        node.kill()
        budgets.remove(self.directory, node.name)
        self.nodes.remove(node)
        shutil.rmtree(node.spec.path, ignore_errors=True)
        self._save_state()

    def status(self) -> dict[str, Any]:
        return describe(self.directory)

    # ---- CLI and registry hooks ------------------------------------------------------------------

    @classmethod
    def provision(cls) -> str:
        install.require_java17()
        path = install.install()
        archive = cassandra_cds.ensure_archive()
        note = f", class archive {archive}" if archive else " (no class archive: starts will use more CPU)"
        return f"Apache Cassandra {install.DEFAULT_VERSION} jars ready in {path}{note}"

    @classmethod
    def start_from_cli(cls, nodes: int, dcs: int, node_cpu: float | None = None) -> "LocalCassandraCluster":
        return cls(nodes=nodes, dcs=dcs, detached=True, node_cpu=node_cpu).start()

    @classmethod
    def describe_state_dir(cls, directory: Path) -> dict[str, Any]:
        return describe(directory)

    @classmethod
    def stop_state_dir(cls, directory: Path) -> None:
        reap(directory)

    # ---- what it can do (the contract's capabilities; after set_node_cpu, whose module `budgets` they would hide) ----

    def budgets(self) -> NodeBudgets:
        return self

    def membership(self) -> Membership:
        return self

    def node_admin(self) -> NodeAdmin:
        return self

    def node_faults(self) -> NodeFaults:
        return self

    def local_servers(self) -> LocalServers:
        return self

    def adoption(self) -> Adoption:
        return self


def describe(directory: Path) -> dict[str, Any]:
    """Status of the cluster stored in `directory`, from its state file and live processes."""
    state = json.loads((directory / "cluster.json").read_text())
    nodes: list[dict[str, Any]] = []
    for spec in map(lambda d: NodeSpec(**d), state["nodes"]):
        node_status, pid = node_state(spec)
        group = budgets.group_of(directory, spec.name)
        budget = budgets.budget_of(group) if group is not None and pid is not None else None
        nodes.append(
            {"name": spec.name, "address": spec.address, "dc": spec.dc, "state": node_status, "pid": pid, "node_cpu": budget[0] if budget else None}
        )
    version = state["version"]
    up = [n["address"] for n in nodes if n["state"] == "UP"]
    if up:
        try:
            s = cql.connect(up, connect_timeout=3)
            version = cql.server_version(s)
            s.cluster.shutdown()
        except LabkitError:
            pass
    return {
        "name": state["name"],
        "engine": "cassandra",
        "provider": "local",
        "server_version": version,
        "dcs": state["dcs"],
        "owner_pid": state.get("owner_pid"),
        "node_cpu": state.get("node_cpu"),
        "nodes": nodes,
    }


def reap(directory: Path, wipe: bool = False) -> list[int]:
    """Kill every process labkit started under `directory` (pidfile or not), remove their CPU budget
    groups, then forget the state.

    The cluster.json goes, so status and down no longer list a cluster that is not there; node
    directories (data, logs) stay for a look at what happened, until a new start wipes them."""
    killed = processes.reap_under(directory)
    budgets.remove(directory)
    for tmp in directory.glob("node*/tmp"):  # the JVMs' temporary files (java.io.tmpdir) go with them
        shutil.rmtree(tmp, ignore_errors=True)
    if wipe and directory.exists():
        for node_dir in directory.glob("node*"):
            shutil.rmtree(node_dir, ignore_errors=True)
    return killed


_PEERS_QUERY = "SELECT peer, data_center, rack, host_id, native_address, tokens FROM system.peers_v2"
_GOSSIP_QUERY = "SELECT address, status_with_port, rpc_ready FROM system_views.gossip_info"


def _ring_gaps(address: str, every: set[str], peers: list, gossip: list, names: dict[str, str] | None = None) -> str | None:
    """What the node at `address` does not yet know of the other nodes (None when it knows all): the
    peers row the driver needs (dc, rack, host id, native address, tokens) and gossip saying NORMAL with CQL
    ready. Said in words (nodes by `names` where given), so a start that times out tells which node lacked what."""
    name = (names or {}).get
    others = every - {address}
    complete = {p.peer for p in peers if None not in (p.data_center, p.rack, p.host_id, p.native_address) and p.tokens}
    ready = {g.address for g in gossip if (g.status_with_port or "").startswith("NORMAL") and g.rpc_ready == "true"}
    gaps = []
    if others - complete:
        gaps.append("has no complete peers row for " + ", ".join(name(a, a) for a in sorted(others - complete)))
    if others - ready:
        states = {g.address: f"{g.status_with_port or 'no status'}, rpc_ready {g.rpc_ready}" for g in gossip}
        gaps.append("does not see NORMAL with CQL ready: " + "; ".join(f"{name(a, a)} ({states.get(a, 'not in gossip')})" for a in sorted(others - ready)))
    return " and ".join(gaps) or None
