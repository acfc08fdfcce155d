"""Configuration of local Cassandra nodes: cassandra.yaml, rack/DC file, logback, JVM flags, tokens.

The cassandra-all jar ships none of these files, so labkit writes them per node. Sizing is for a
laptop: 512 MiB heap, Serial GC and C1 only brought 3 nodes to CQL-ready in about 10 s here.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from ...host import timer_slack

MIN_TOKEN = -(2**63)
RING = 2**64

CHUNK_CACHE_RESERVED_MB = 32
"""Of `file_cache_size`, Cassandra reserves this much for its buffer pool; the chunk cache gets the rest."""

CQL_PORT = 9042
STORAGE_PORT = 7000
JMX_PORT = 7199
"""Every node's JMX port, on the node's own address (as CQL and storage), so a home's nodes share the
number and two homes' ranges never collide."""

# From Cassandra's conf/jvm17-server.options (module access Cassandra needs on Java 17).
JVM17_SERVER = [
    "-Djdk.attach.allowAttachSelf=true",
    *(f"--add-exports={m}=ALL-UNNAMED" for m in (
        "java.base/jdk.internal.misc", "java.management.rmi/com.sun.jmx.remote.internal.rmi",
        "java.rmi/sun.rmi.registry", "java.rmi/sun.rmi.server", "java.sql/java.sql", "java.base/java.lang.ref",
        "jdk.unsupported/sun.misc", "jdk.compiler/com.sun.tools.javac.file", "jdk.attach/sun.tools.attach",
    )),
    *(f"--add-opens={m}=ALL-UNNAMED" for m in (
        "java.base/java.lang.module", "java.base/jdk.internal.loader", "java.base/jdk.internal.ref",
        "java.base/jdk.internal.reflect", "java.base/jdk.internal.math", "java.base/jdk.internal.module",
        "java.base/jdk.internal.util.jar", "jdk.management/com.sun.management.internal", "java.base/sun.nio.ch",
        "java.base/java.io", "java.base/java.lang.reflect", "jdk.compiler/com.sun.tools.javac",
        "java.base/java.lang", "java.base/java.util",
    )),
    "-Dio.netty.tryReflectionSetAccessible=true",
]

# From conf/jvm17-clients.options (for nodetool).
JVM17_CLIENT = [
    "-Djdk.attach.allowAttachSelf=true",
    *(f"--add-exports={m}=ALL-UNNAMED" for m in (
        "java.base/jdk.internal.misc", "java.base/jdk.internal.ref", "java.base/sun.nio.ch",
        "java.management.rmi/com.sun.jmx.remote.internal.rmi", "java.rmi/sun.rmi.registry", "java.rmi/sun.rmi.server",
        "java.sql/java.sql", "jdk.unsupported/sun.misc",
    )),
    *(f"--add-opens={m}=ALL-UNNAMED" for m in (
        "java.base/java.lang.module", "java.base/jdk.internal.loader", "java.base/jdk.internal.ref",
        "java.base/jdk.internal.reflect", "java.base/jdk.internal.math", "java.base/jdk.internal.module",
        "java.base/jdk.internal.util.jar", "java.base/sun.nio.ch", "java.base/java.io", "java.base/java.util",
        "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic", "java.base/java.lang",
        "java.base/java.math", "java.base/java.lang.reflect", "java.base/java.net",
    )),
]

BUDGETED_TIMER_SLACK_NS = timer_slack.BUDGETED_NS
"""Timer slack of a node under a CPU budget (host.timer_slack). Measured side by side on one node of 0.5 core
reading at 100, 200 and 400/s (benchmarks/results/cpu_per_request_summary.md, 4 ABBA blocks): with Linux's
50 us its threads woke about 15,000-17,000 times a second and it used 0.39-0.44 core at every rate; with
1 ms, 2,400-3,600 wake-ups and 0.10-0.21 core, for 0.3 ms more median latency at 100-200/s (at 400/s the
default's node was throttled and its p95 was 11.5 ms against 2.9). Why latency can grow: a task handed to a
worker that is parked in its spin is not woken, it waits for the park to end, now up to 1 ms per hand-off
between the pool's stages (more hops, e.g. QUORUM's replicas, more of it); every other timed wait in the JVM
(scheduled tasks, timed polls) may also end up to 1 ms late. Unbudgeted nodes keep the default, so the lessons
without budgets measure what they did before."""

LAPTOP_JVM = [
    "-Xms512m",
    "-Xmx512m",
    "-XX:MaxDirectMemorySize=256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",  # C1 only: much less JIT work on 2 cores, fast enough for a lab
    "-Xss256k",
    "-XX:+HeapDumpOnOutOfMemoryError",
    "-Djava.net.preferIPv4Stack=true",
    "-Dcassandra.ring_delay_ms=1000",
    "-Dcassandra.skip_wait_for_gossip_to_settle=0",
    "-Dcassandra-foreground=yes",
]


@dataclass
class NodeSpec:
    """Everything that identifies one local node; stored in cluster.json so any process can find it."""

    index: int  # 1-based
    address: str
    dc: str
    rack: str
    token: int
    jmx_port: int
    directory: str
    bootstrap: bool = False
    broadcast: str | None = None
    """The address other datacenters reach this node at, when it differs from its own (a toxiproxy in front
    of its storage port: partitions without root, see faults/links); None: its own address."""

    @property
    def ring_address(self) -> str:
        """How the ring (gossip, nodetool, system.peers) names this node."""
        return self.broadcast or self.address

    @property
    def name(self) -> str:
        return f"node{self.index}"

    @property
    def path(self) -> Path:
        return Path(self.directory)


def dc_layout(nodes: int, dcs: int) -> list[str]:
    """Datacenter of each node: the first ceil(N/2) in dc1, the rest in dc2."""
    if dcs == 1:
        return ["dc1"] * nodes
    first = (nodes + 1) // 2
    return ["dc1"] * first + ["dc2"] * (nodes - first)


def balanced_tokens(count: int, dc_offset: int = 0) -> list[int]:
    """One evenly spaced Murmur3 token per node; each datacenter's ring is shifted a little so no two
    nodes share a token (the usual way to balance several DCs with single tokens)."""
    return [MIN_TOKEN + (RING // count) * i + dc_offset for i in range(count)]


def tokens_for(dcs_of_nodes: list[str]) -> list[int]:
    tokens: list[int] = []
    per_dc: dict[str, list[int]] = {}
    names = sorted(set(dcs_of_nodes))
    for dc in names:
        members = [i for i, d in enumerate(dcs_of_nodes) if d == dc]
        per_dc[dc] = balanced_tokens(len(members), dc_offset=100 * names.index(dc))
    counters = {dc: 0 for dc in names}
    for dc in dcs_of_nodes:
        tokens.append(per_dc[dc][counters[dc]])
        counters[dc] += 1
    return tokens


def split_largest_range(existing: list[int]) -> int:
    """Token for a node joining a datacenter: the middle of its largest range (keeps the ring fair)."""
    ring = sorted(existing)
    best_gap, best_token = -1, 0
    for i, t in enumerate(ring):
        nxt = ring[(i + 1) % len(ring)] + (RING if i == len(ring) - 1 else 0)
        if nxt - t > best_gap:
            best_gap, best_token = nxt - t, t + (nxt - t) // 2
    if best_token >= 2**63:
        best_token -= RING
    return best_token


def cassandra_yaml(node: NodeSpec, seeds: list[str], cluster_name: str, chunk_cache_mb: int | None = None) -> str:
    """The node's cassandra.yaml. `chunk_cache_mb` turns on Cassandra's chunk cache (uncompressed SSTable
    chunks in memory; off by default in Cassandra 5) at that size, for lessons about data that does or
    does not fit a node's cache."""
    d = node.path
    data = {
        "cluster_name": cluster_name,
        "num_tokens": 1,
        "initial_token": str(node.token),
        "auto_bootstrap": node.bootstrap,
        "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner",
        "endpoint_snitch": "GossipingPropertyFileSnitch",
        "seed_provider": [
            {"class_name": "org.apache.cassandra.locator.SimpleSeedProvider", "parameters": [{"seeds": ",".join(f"{s}:{STORAGE_PORT}" for s in seeds)}]}
        ],
        "listen_address": node.address,
        **({"broadcast_address": node.broadcast} if node.broadcast else {}),
        "rpc_address": node.address,
        "storage_port": STORAGE_PORT,
        "native_transport_port": CQL_PORT,
        "start_native_transport": True,
        "data_file_directories": [str(d / "data")],
        "commitlog_directory": str(d / "commitlog"),
        "saved_caches_directory": str(d / "saved_caches"),
        "hints_directory": str(d / "hints"),
        "cdc_raw_directory": str(d / "cdc_raw"),
        "commitlog_sync": "periodic",
        "commitlog_sync_period": "10000ms",
        "authenticator": "AllowAllAuthenticator",
        "authorizer": "AllowAllAuthorizer",
        "concurrent_reads": 16,
        "concurrent_writes": 16,
        "concurrent_compactors": 1,
        "enable_user_defined_functions": False,
        "materialized_views_enabled": True,
        "sasi_indexes_enabled": True,
        "read_request_timeout": "5000ms",
        "write_request_timeout": "2000ms",
        "range_request_timeout": "10000ms",
        "request_timeout": "10000ms",
        "hinted_handoff_enabled": True,
        "max_hint_window": "3h",
        "key_cache_size": "16MiB",
        "tombstone_failure_threshold": 100000,
        "dynamic_snitch": True,
    }
    if chunk_cache_mb is not None:  # Cassandra keeps 32 MiB of file_cache_size for its buffer pool and caches chunks in the rest
        data.update(file_cache_enabled=True, file_cache_size=f"{chunk_cache_mb + CHUNK_CACHE_RESERVED_MB}MiB")
    # JSON is valid YAML 1.2, and snakeyaml reads it; it keeps this writer dependency-free.
    return json.dumps(data, indent=1)


def rackdc_properties(node: NodeSpec) -> str:
    return f"dc={node.dc}\nrack={node.rack}\nprefer_local=true\n"


def logback_xml(node: NodeSpec) -> str:
    log = node.path / "logs" / "system.log"
    return f"""<configuration scan="false">
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>{log}</file>
    <encoder><pattern>%-5level [%thread] %date{{ISO8601}} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <logger name="org.apache.cassandra" level="INFO"/>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
"""


def write_node_files(node: NodeSpec, seeds: list[str], cluster_name: str, chunk_cache_mb: int | None = None) -> Path:
    """Create the node's directories and config files; return its conf directory."""
    conf = node.path / "conf"
    shutil.rmtree(node.path / "tmp", ignore_errors=True)  # what a killed JVM could not delete on its way out
    for sub in ("conf", "data", "commitlog", "saved_caches", "hints", "cdc_raw", "logs", "tmp"):
        (node.path / sub).mkdir(parents=True, exist_ok=True)
    (conf / "cassandra.yaml").write_text(cassandra_yaml(node, seeds, cluster_name, chunk_cache_mb))
    (conf / "cassandra-rackdc.properties").write_text(rackdc_properties(node))
    (conf / "logback.xml").write_text(logback_xml(node))
    return conf


def server_command(java: str, classpath: str, node: NodeSpec, main_class: str, class_archive: Path | None = None) -> list[str]:
    conf = node.path / "conf"
    return [
        java,
        *([f"-XX:SharedArchiveFile={class_archive}"] if class_archive else []),
        *LAPTOP_JVM,
        # a joining node's shadow gossip round waits at most the ring delay for the seeds to answer;
        # 1 s is too short on a busy laptop ("Unable to contact any seeds"), so joiners get 10 s
        *(["-Dcassandra.ring_delay_ms=10000"] if node.bootstrap else []),
        *JVM17_SERVER,
        f"-Dcassandra.config=file://{conf / 'cassandra.yaml'}",
        f"-Dcassandra-rackdc.properties=file://{conf / 'cassandra-rackdc.properties'}",
        f"-Dlogback.configurationFile=file://{conf / 'logback.xml'}",
        f"-Dcassandra.logdir={node.path / 'logs'}",
        f"-Dcassandra.storagedir={node.path}",
        # the JVM's own temporary files (lz4-java unpacks a ~100 KB native library on every start, and a
        # SIGKILLed JVM never deletes it) live and die with the node, not in the system's /tmp
        f"-Djava.io.tmpdir={node.path / 'tmp'}",
        # JMX through the JDK's own agent, bound to the node's address only (Cassandra's local JMX always
        # takes 127.0.0.1, where every user of a shared host would reach for the same port)
        f"-Dcom.sun.management.jmxremote.port={node.jmx_port}",
        f"-Dcom.sun.management.jmxremote.rmi.port={node.jmx_port}",
        f"-Dcom.sun.management.jmxremote.host={node.address}",
        f"-Djava.rmi.server.hostname={node.address}",
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false",
        "-cp",
        classpath,
        main_class,
    ]


TOOLS_LOGBACK = """<configuration>
  <appender name="ERR" class="ch.qos.logback.core.ConsoleAppender"><target>System.err</target>
    <encoder><pattern>%-5level %msg%n</pattern></encoder></appender>
  <root level="WARN"><appender-ref ref="ERR"/></root>
</configuration>
"""


def nodetool_command(java: str, classpath: str, node: NodeSpec, main_class: str, args: list[str]) -> list[str]:
    """nodetool over JMX on the node's own address; its logging is kept to warnings (no logback file ships with it)."""
    logback = node.path.parent / "tools-logback.xml"
    if not logback.exists():
        logback.write_text(TOOLS_LOGBACK)
    return [
        java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", *JVM17_CLIENT,
        f"-Dlogback.configurationFile=file://{logback}",
        "-cp", classpath, main_class, "-h", node.address, "-p", str(node.jmx_port), *args,
    ]

