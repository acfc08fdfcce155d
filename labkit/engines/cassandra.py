"""Cassandra through the DataStax Python driver: sessions, keyspaces, schema agreement, query traces.

Pattern code gets a plain `cassandra.cluster.Session`; this module only saves it the ceremony.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile, Session
from cassandra.connection import DefaultEndPoint
from cassandra.policies import (
    ConstantReconnectionPolicy, DCAwareRoundRobinPolicy, HostFilterPolicy, RoundRobinPolicy, TokenAwarePolicy,
)
from cassandra.query import SimpleStatement
from tenacity import retry, retry_if_exception, stop_after_delay, wait_fixed

from ..errors import LabkitError
from .cassandra_calls import async_execute  # noqa: F401  (registers the runner's asynchronous forms of execute)
from .cassandra_rows import row_factory

SYSTEM_KEYSPACES = {"system", "system_auth", "system_distributed", "system_schema", "system_traces", "system_views", "system_virtual_schema"}
PROTOCOL_VERSION = 4
"""Why not 5: a version-5 frame carries CRC checksums, which the driver computes in Python for every request
and reply (about 13 us per read on the development machine, benchmarks/runner_vs_driver.py), and none of the
lab's requests needs 5, except a statement prepared for a keyspace of its own (below)."""
PROTOCOL_KEYSPACE_PER_STATEMENT = 5
"""`session.prepare(text, keyspace=...)` (a profile's statements name their tables without a keyspace) needs
version 5; the profiles' sessions ask for it."""

PROBE_RETRY_S = 0.5


def connect(
    addresses: Sequence[str], *, dc: str | None = None, keyspace: str | None = None, port: int = 9042, connect_timeout: float = 10, metadata: bool = True,
    probe: bool = False, protocol_version: int = PROTOCOL_VERSION,
) -> Session:
    """A Session that balances over every node (token-aware), or over one datacenter's nodes only.

    metadata=False skips fetching schema and token maps: a quicker connection. probe=True retries a node the
    driver could not connect to every PROBE_RETRY_S instead of the driver's doubling back-off (1, 2, 4 ... s):
    a node that refused its first connection while starting would otherwise be left alone for a minute."""
    child = DCAwareRoundRobinPolicy(local_dc=dc, used_hosts_per_remote_dc=0) if dc else RoundRobinPolicy()
    cluster = Cluster(
        contact_points=list(addresses),
        port=port,
        **security_options(),
        protocol_version=protocol_version,
        execution_profiles={EXEC_PROFILE_DEFAULT: ExecutionProfile(load_balancing_policy=TokenAwarePolicy(child), request_timeout=30,
                                                                   row_factory=row_factory)},
        connect_timeout=connect_timeout,
        control_connection_timeout=connect_timeout,
        schema_metadata_enabled=metadata,
        token_metadata_enabled=metadata,
        max_schema_agreement_wait=0,  # execute_ddl waits for agreement itself, asking each node (see wait_for_schema_agreement)
        **({"reconnection_policy": ConstantReconnectionPolicy(PROBE_RETRY_S, max_attempts=None)} if probe else {}),
    )
    try:
        return cluster.connect(keyspace)
    except Exception as exc:
        cluster.shutdown()
        raise LabkitError(
            f"cannot reach Cassandra at {', '.join(addresses)}:{port} ({type(exc).__name__}: {exc}). "
            "Is the cluster up? `labkit status` shows it; `labkit up cassandra` starts one."
        ) from exc


def security_options(environ: Any = None) -> dict[str, Any]:
    """Credentials and TLS for a cluster the lab did not start (a course server, Astra-like services), from
    the environment (engines.credentials), so every client process a run spawns connects the same way;
    nothing for the lab's own."""
    from cassandra.auth import PlainTextAuthProvider

    from .credentials import from_environment, ssl_context

    security = from_environment("cassandra", environ)
    options: dict[str, Any] = {}
    if security.username:
        options["auth_provider"] = PlainTextAuthProvider(username=security.username, password=security.password)
    if security.tls:
        options["ssl_context"] = ssl_context(security)
    return options


def connect_through(proxy: tuple[str, int], request_timeout: float = 60) -> Session:
    """A session that reaches the cluster only through one proxy (host, port), e.g. a toxiproxy link with
    WAN latency: the driver would otherwise discover the nodes' own addresses and go around it."""
    end = DefaultEndPoint(*proxy)
    only_proxy = HostFilterPolicy(RoundRobinPolicy(), predicate=lambda host: host.endpoint == end)
    cluster = Cluster(
        contact_points=[end],
        protocol_version=PROTOCOL_VERSION,
        execution_profiles={EXEC_PROFILE_DEFAULT: ExecutionProfile(load_balancing_policy=only_proxy, request_timeout=request_timeout,
                                                                   row_factory=row_factory)},
        connect_timeout=30,
    )
    return cluster.connect()


def server_version(session: Session) -> str:
    return session.execute("SELECT release_version FROM system.local").one().release_version


def wait_for_schema_agreement(session: Session, timeout: float = 60, interval: float = 0.05) -> None:
    """Every live node reports the same schema version in its own system.local.

    Why not the driver's wait: it reads the other nodes' versions from system.peers, which gossip updates
    about once a second, so each schema change on a multi-node cluster cost about a second; a node applies a
    change as soon as it is pushed to it, and asking each node directly sees that within milliseconds. A
    session held to one datacenter cannot ask the others' nodes: it waits the driver's way."""
    hosts = [h for h in session.cluster.metadata.all_hosts() if h.is_up is not False]  # None: a node it does not watch
    if any(h not in session.get_pool_state() for h in hosts):  # a node this session does not talk to (another datacenter)
        agreed = session.cluster.control_connection.wait_for_schema_agreement(wait_time=timeout)
    else:
        agreed = _each_node_agrees(session, time.monotonic() + timeout, interval)
    if not agreed:
        raise LabkitError(f"the nodes did not agree on one schema version within {timeout:.0f} s; check `labkit status`")


def _each_node_agrees(session: Session, deadline: float, interval: float) -> bool:
    """Ask every live node its schema version until they are one (True) or the deadline passes (False)."""
    while True:
        try:
            versions = {session.execute(_LOCAL_SCHEMA, host=h).one().schema_version
                        for h in session.cluster.metadata.all_hosts() if h.is_up}
        except Exception:  # a node whose connection pool is still opening: ask again
            versions = set()
        if len(versions) == 1:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)


_LOCAL_SCHEMA = SimpleStatement("SELECT schema_version FROM system.local", consistency_level=ConsistencyLevel.ONE)


def _schema_not_there_yet(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, InvalidRequest) and ("doesn't exist" in text or "unconfigured table" in text)


@retry(retry=retry_if_exception(_schema_not_there_yet), wait=wait_fixed(0.5), stop=stop_after_delay(30), reraise=True)
def execute_ddl(session: Session, statement: str) -> None:
    """Run a schema change and wait until every node has it (DDL on a lagging node fails otherwise).

    Right after a cluster starts, the driver can report agreement before it has seen every peer, and
    the next statement may reach a node that has not applied the previous one yet: that one is retried."""
    session.execute(SimpleStatement(statement, consistency_level=ConsistencyLevel.ALL), timeout=60)
    wait_for_schema_agreement(session)


def create_keyspace(session: Session, name: str, replication: int | dict[str, int]) -> None:
    """SimpleStrategy with an int RF, NetworkTopologyStrategy with {dc: rf}."""
    if isinstance(replication, int):
        repl = f"{{'class': 'SimpleStrategy', 'replication_factor': {replication}}}"
    else:
        inner = ", ".join(f"'{dc}': {rf}" for dc, rf in replication.items())
        repl = f"{{'class': 'NetworkTopologyStrategy', {inner}}}"
    execute_ddl(session, f"CREATE KEYSPACE IF NOT EXISTS {name} WITH replication = {repl}")


def drop_namespace(session: Session, namespace: str) -> list[str]:
    """Drop the keyspaces of one namespace (its prefix), nobody else's; return their names."""
    if not namespace:
        raise ValueError("a namespace is needed to purge (without one every lab keyspace would be everyone's)")
    names = sorted(r.keyspace_name for r in session.execute("SELECT keyspace_name FROM system_schema.keyspaces"))
    dropped = [n for n in names if n.startswith(namespace + "_") and n not in SYSTEM_KEYSPACES]
    for n in dropped:
        execute_ddl(session, f"DROP KEYSPACE IF EXISTS {n}")
    return dropped


def reset(session: Session) -> list[str]:
    """Drop every user keyspace (what a clean run starts from); return their names."""
    names = [r.keyspace_name for r in session.execute("SELECT keyspace_name FROM system_schema.keyspaces")]
    dropped = [n for n in names if n not in SYSTEM_KEYSPACES]
    for n in dropped:
        execute_ddl(session, f"DROP KEYSPACE IF EXISTS {n}")
    return dropped


@dataclass
class TraceReport:
    """Which nodes served one query, from Cassandra's own trace (system_traces)."""

    coordinator: str
    nodes: list[str]  # every node that recorded an event: coordinator plus replicas contacted
    events: int
    duration_us: int
    rows: int
    activities: list[tuple[str, str]] = field(default_factory=list, repr=False)  # (source, activity)
    result: list[Any] = field(default_factory=list, repr=False)  # the rows the statement returned (first page)
    warnings: list[str] = field(default_factory=list)  # what the coordinator warned the client of (e.g. tombstones read)

    @property
    def node_count(self) -> int:
        return len(self.nodes)


def trace(session: Session, statement: str | Any, params: Any = None, consistency: int = ConsistencyLevel.ONE) -> TraceReport:
    """Execute with tracing on and report the coordinator and every node that took part."""
    stmt = SimpleStatement(statement, consistency_level=consistency) if isinstance(statement, str) else statement
    result = session.execute(stmt, params, trace=True)
    rows = len(result.current_rows)
    tr = result.get_query_trace(max_wait_sec=10)
    # The coordinator marks the trace complete before every replica's own events are in system_traces:
    # read again until the event count stops growing.
    deadline = time.monotonic() + 5
    seen = -1
    while len(tr.events) != seen and time.monotonic() < deadline:
        seen = len(tr.events)
        time.sleep(0.3)
        tr.populate(max_wait=2)
    activities = [(str(e.source), e.description) for e in tr.events]
    nodes = sorted({str(tr.coordinator), *(src for src, _ in activities)}, key=lambda a: tuple(int(p) for p in a.split(".")))
    return TraceReport(
        coordinator=str(tr.coordinator),
        nodes=nodes,
        events=len(activities),
        duration_us=int(tr.duration.total_seconds() * 1e6) if tr.duration else 0,
        rows=rows,
        activities=activities,
        result=list(result.current_rows),
        warnings=list(result.response_future.warnings or []),
    )


def event_kind(event: str) -> str:
    """A trace event without its ballot, address, key or sizes, so that events of one kind read alike
    ("Promising ballot 4b5a..." -> "Promising ballot"; "Sending BATCH_STORE_REQ message to /127..." -> "Sending BATCH_STORE_REQ message")."""
    kind = re.sub(r"\s*(\(|\[|/|\b[0-9a-f]{8}-[0-9a-f]{4}-|\d).*$", "", event, flags=re.S)
    return re.sub(r"\s+(for|to|from|of|on)$", "", kind) or event


def per_node(session: Session, statement: str, params: Any = None) -> dict[str, list[Any]]:
    """One statement on every live node, each answering for itself: virtual tables (system_views) and
    local system tables describe the node that serves the request, so a cluster-wide question is one
    request per node. Keyed by the node's address."""
    hosts = [h for h in session.cluster.metadata.all_hosts() if h.is_up]
    return {h.address: list(session.execute(statement, params, host=h)) for h in hosts}


COORDINATOR_TABLES = ("coordinator_read_latency", "coordinator_write_latency", "coordinator_scan_latency")


def requests_by_keyspace(session: Session) -> dict[str, int]:
    """Requests every node coordinated so far, per keyspace (reads, writes and range scans; the nodes' own
    cumulative counters in system_views), summed over the live nodes. System keyspaces are left out."""
    totals: dict[str, int] = {}
    for table in COORDINATOR_TABLES:
        for rows in per_node(session, f"SELECT keyspace_name, count FROM system_views.{table}").values():
            for r in rows:
                if r.keyspace_name not in SYSTEM_KEYSPACES:
                    totals[r.keyspace_name] = totals.get(r.keyspace_name, 0) + int(r.count)
    return totals


LOCAL_TABLES = {"reads": "local_read_latency", "scans": "local_scan_latency"}
"""Replica-side requests by kind: a read of one partition, or a range read (a scan, and each node's search of a
secondary index, which Cassandra counts as a range read of the indexed table)."""


def local_requests(session: Session, keyspace: str, tables: Sequence[str]) -> dict[str, dict[str, int]]:
    """Requests each live node served so far as a replica for `tables` of `keyspace`, by kind (LOCAL_TABLES: the
    nodes' own cumulative counters in system_views), keyed by the node's address: two readings' difference says
    how many nodes a run's requests reached and how many requests each one served. Empty on a server without these
    virtual tables (before Cassandra 4.0): a run there goes on without the count."""
    wanted = set(tables)
    out: dict[str, dict[str, int]] = {}
    for kind, table in LOCAL_TABLES.items():
        try:
            answers = per_node(session, f"SELECT keyspace_name, table_name, count FROM system_views.{table}")
        except InvalidRequest:
            return {}
        for address, rows in answers.items():
            counts = out.setdefault(address, {k: 0 for k in LOCAL_TABLES})
            counts[kind] += sum(int(r.count) for r in rows if r.keyspace_name == keyspace and r.table_name in wanted)
    return out


def write_all(session: Session, statement: Any, params: Sequence[Sequence[Any]], concurrency: int = 64) -> int:
    """Execute one prepared statement for every parameter tuple, many in flight (loading test data
    fast, outside the measured window). Raises on the first failure; returns how many were written."""
    from cassandra.concurrent import execute_concurrent_with_args

    results = execute_concurrent_with_args(session, statement, list(params), concurrency=concurrency, raise_on_first_error=True)
    return len(results)


_READ_ROWS = re.compile(r"Read (\d+) live rows")
_TOMBSTONES = re.compile(r"Read \d+ live rows and (\d+) tombstone cells")


def tombstones_read(report: TraceReport) -> int:
    """Tombstone cells (deleted or expired cells and rows) the replicas stepped over to answer, from their own
    "Read N live rows and M tombstone cells" events."""
    return sum(int(m.group(1)) for _, text in report.activities if (m := _TOMBSTONES.search(text)))


@dataclass
class TraceTotals:
    """What a group of traced statements made the cluster do, summed from the servers' own trace events."""

    statements: int
    nodes: list[str]
    partitions_read: int  # local single-partition reads of table data, on whichever replica served them
    rows_read: int  # live rows those reads returned
    index_scans: int  # local secondary-index searches: one per node a scatter-gather query asked
    replica_writes: int  # mutations applied to a memtable, one per replica written
    duration_us: int
    range_reads: int = 0  # statements the coordinator answered by asking token ranges (a scan or an index query), not partitions


def summarise(reports: Sequence[TraceReport]) -> TraceTotals:
    """Add up trace reports: which nodes took part and how many partitions and rows moved."""
    nodes: set[str] = set()
    partitions = rows = writes = scans = duration = ranges = 0
    for rep in reports:
        nodes.update(rep.nodes)
        duration += rep.duration_us
        for _source, activity in rep.activities:
            if activity.startswith("Executing single-partition query on ") and "." not in activity.rsplit(" ", 1)[1]:
                partitions += 1  # "on u.u_email_idx" is the legacy index's own table, not user data
            elif activity.startswith("Executing read on ") and " using index " in activity:
                scans += 1
            elif activity.startswith("Adding to ") and activity.endswith(" memtable"):
                writes += 1
            elif activity.startswith("Submitting range requests on "):
                ranges += 1
            match = _READ_ROWS.search(activity)
            if match:
                rows += int(match.group(1))
    ordered = sorted(nodes, key=lambda a: tuple(int(p) for p in a.split(".")))
    return TraceTotals(len(reports), ordered, partitions, rows, scans, writes, duration, ranges)

