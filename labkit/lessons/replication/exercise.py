"""What notebook 00's exercise hands a student: two applications with stated guarantees, and the check of the
replication factor and consistency levels the student picks for each, on a real three-node cluster.

The check grades what the choice does, not its text: the replication factor is read back from the servers'
schema, a traced read counts the replicas that read the row, and the guarantees that depend on a dead node are
tried with node 3 stopped (writes and reads at the student's levels, each one's outcome counted).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from ...clusters.local.cassandra import LocalCassandraCluster
from ...errors import ConfigError

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster, NodeFaults
    from ...patterns.exercise import CheckReport

NODES = 3
STOPPED = 3  # the node the check stops
ROWS = 30
GOSSIP_SETTLE_S = 1.0
"""After node 3's clean stop, a moment for its shutdown message to reach both other nodes (a crash would take the
failure detector several seconds; a stop announces itself)."""
APPLICATIONS = {
    "cart": ("a shopping cart: a read that starts after a write was acknowledged must return that write, whichever node "
             "coordinates either; writes and reads must keep working with any one of the three nodes down"),
    "views": ("a page-view log: a read may miss the latest views; writes and reads must keep working with any one of the "
              "three nodes down; keep as few copies, and wait for as few replicas per request, as that allows"),
}
LEVELS = ("ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_ONE", "LOCAL_QUORUM")


def replicas_waited_for(level: str, rf: int) -> int:
    """How many replicas a request at `level` waits for when each row has `rf` copies (one datacenter)."""
    return {"ONE": 1, "LOCAL_ONE": 1, "TWO": 2, "THREE": 3, "QUORUM": rf // 2 + 1, "LOCAL_QUORUM": rf // 2 + 1, "ALL": rf}[level]


def keyspace_of(application: str) -> str:
    return f"ex00_{application}"


def read_choices(my_choices: Callable[[], Any]) -> dict[str, dict[str, Any]]:
    """The student's choices, checked for shape: {application: {"replication_factor": n, "write": level, "read": level}}."""
    chosen = my_choices()
    if not isinstance(chosen, dict) or set(chosen) != set(APPLICATIONS):
        raise ConfigError(f"my_choices() returns a dict with one entry per application: {', '.join(APPLICATIONS)} (got {chosen!r})")
    out = {}
    for app, choice in chosen.items():
        if not isinstance(choice, dict) or set(choice) != {"replication_factor", "write", "read"}:
            raise ConfigError(f"{app}: give replication_factor, write and read (got {choice!r})")
        rf = choice["replication_factor"]
        if not isinstance(rf, int) or not 1 <= rf <= NODES:
            raise ConfigError(f"{app}: replication_factor is a whole number of copies from 1 to {NODES} (the cluster's nodes); got {rf!r}")
        levels = {}
        for kind in ("write", "read"):
            level = str(choice[kind]).upper()
            if level not in LEVELS:
                raise ConfigError(f"{app}: {kind} level {choice[kind]!r} is not one of {', '.join(LEVELS)}")
            if replicas_waited_for(level, rf) > rf:
                raise ConfigError(f"{app}: {kind} at {level} waits for {replicas_waited_for(level, rf)} replicas, but each row has {rf} copies")
            levels[kind] = level
        out[app] = {"replication_factor": rf, **levels}
    return out


def check_exercise(my_choices: Callable[[], Any], cluster: CassandraCluster, rows: int = ROWS) -> "CheckReport":
    """The exercise's check: each application's keyspace made with the student's replication factor (read back
    from the servers' schema); for the cart, a read overlaps every acknowledged write (the replicas a write and
    a read wait for add up to more than the copies, and a traced read shows its replicas); then node 3 is
    stopped and `rows` writes and reads per application run at the student's levels: all must succeed; for
    the views, the fewest copies and replicas waited for that survive it. Node 3 is started again at the end."""
    from cassandra import ConsistencyLevel
    from cassandra.query import SimpleStatement

    from ...engines import cassandra as cql
    from ...patterns.exercise import CheckReport, Graded, check_all

    found: dict[str, Any] = {}

    def your_choices_are_complete(report: CheckReport) -> bool:
        try:
            found["choices"] = read_choices(my_choices)
        except ConfigError as exc:
            return report.add("your choices are complete", False, str(exc))
        if not isinstance(cluster, LocalCassandraCluster) or len(cluster.nodes) != NODES:
            return report.add("your choices are complete", False, f"this check stops a node of a {NODES}-node cluster it started: run the notebook with provider='local', nodes={NODES}")
        found["session"] = session = cluster.session()
        for app, choice in found["choices"].items():
            ks = keyspace_of(app)
            cql.execute_ddl(session, f"DROP KEYSPACE IF EXISTS {ks}")
            cql.create_keyspace(session, ks, choice["replication_factor"])
            cql.execute_ddl(session, f"CREATE TABLE IF NOT EXISTS {ks}.kv (k int PRIMARY KEY, v text)")
        return report.add("your choices are complete", True, "; ".join(f"{a}: RF {c['replication_factor']}, write {c['write']}, read {c['read']}" for a, c in found["choices"].items()))

    def held_copies(app: str) -> int:
        row = found["session"].execute("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = %s", (keyspace_of(app),)).one()
        return int(row.replication["replication_factor"])

    def cart_reads_see_the_latest_write(report: CheckReport) -> bool:
        choice = found["choices"]["cart"]
        rf = held_copies("cart")
        w, r = replicas_waited_for(choice["write"], rf), replicas_waited_for(choice["read"], rf)
        session = found["session"]
        session.execute(SimpleStatement(f"INSERT INTO {keyspace_of('cart')}.kv (k, v) VALUES (0, 'traced')", consistency_level=ConsistencyLevel.ALL))
        traced = cql.trace(session, f"SELECT v FROM {keyspace_of('cart')}.kv WHERE k = 0", consistency=getattr(ConsistencyLevel, choice["read"]))
        readers = len({src for src, text in traced.activities if text.startswith("Read ") and "live rows" in text})
        shown = (f"the servers hold {rf} copies; a write at {choice['write']} waits for {w}, a read at {choice['read']} for {r} "
                 f"(a traced read: {readers} replica(s) read the row)")
        if w + r <= rf:
            return report.add("cart: a read overlaps every acknowledged write", False,
                              f"{shown}: {w} + {r} is not more than {rf}, so a read can ask only replicas the last write has not reached yet")
        return report.add("cart: a read overlaps every acknowledged write", True, f"{shown}: {w} + {r} > {rf}")

    def node_faults() -> NodeFaults:
        """What stops and restarts node 3 (the first step made sure the cluster is a local one, which has it)."""
        faults = cluster.node_faults()
        if faults is None:
            raise ConfigError(f"this check stops a node of a {NODES}-node cluster it started: run the notebook with provider='local', nodes={NODES}")
        return faults

    def stop_node_3() -> str | None:
        if found.get("stopped"):
            return None
        node = node_faults().stop_node(STOPPED)  # SIGTERM, waited for: the node's shutdown announced it down to the others over gossip
        found["stopped"] = True
        time.sleep(GOSSIP_SETTLE_S)
        return f"node {STOPPED} ({node.address}) stopped"

    def with_node_3_down(app: str, report: CheckReport, step: str) -> bool:
        stop_node_3()
        choice, session, ks = found["choices"][app], found["session"], keyspace_of(app)
        write = session.prepare(f"INSERT INTO {ks}.kv (k, v) VALUES (?, ?)")
        write.consistency_level = getattr(ConsistencyLevel, choice["write"])
        read = session.prepare(f"SELECT v FROM {ks}.kv WHERE k = ?")
        read.consistency_level = getattr(ConsistencyLevel, choice["read"])
        failures: dict[str, int] = {}
        done = {"write": 0, "read": 0}
        for k in range(1, rows + 1):
            for kind, statement, values in (("write", write, (k, f"v{k}")), ("read", read, (k,))):
                try:
                    session.execute(statement, values, timeout=10)
                    done[kind] += 1
                except Exception as exc:  # Unavailable, timeouts: the outcome being counted
                    name = f"{kind}: {type(exc).__name__}"
                    failures[name] = failures.get(name, 0) + 1
        shown = f"{done['write']} of {rows} writes at {choice['write']} and {done['read']} of {rows} reads at {choice['read']} succeeded"
        if failures:
            return report.add(step, False, f"{shown}; failed: {', '.join(f'{n} x{c}' for n, c in failures.items())}. With {choice['replication_factor']} "
                                           f"copies and node {STOPPED} down, some rows keep fewer live copies than a request at that level waits for")
        return report.add(step, True, shown)

    def cart_works_with_a_node_down(report: CheckReport) -> bool:
        return with_node_3_down("cart", report, f"cart: writes and reads work with node {STOPPED} down")

    def views_work_with_a_node_down(report: CheckReport) -> bool:
        return with_node_3_down("views", report, f"views: writes and reads work with node {STOPPED} down")

    def views_keep_no_more_than_they_need(report: CheckReport) -> bool:
        choice = found["choices"]["views"]
        rf = held_copies("views")
        w, r = replicas_waited_for(choice["write"], rf), replicas_waited_for(choice["read"], rf)
        ok = True
        if rf > 2:
            ok &= report.add("views: the fewest copies that survive a node down", False,
                             f"the servers hold {rf} copies; with 2, every row keeps a live copy when any one node is down, so the third is storage and write work the guarantee does not ask for")
        else:
            ok &= report.add("views: the fewest copies that survive a node down", True, f"the servers hold {rf} copies")
        if w > 1 or r > 1:
            ok &= report.add("views: each request waits for one replica", False,
                             f"a write waits for {w}, a read for {r}: a stale read is allowed here, so waiting for more than the fastest replica only adds latency")
        else:
            ok &= report.add("views: each request waits for one replica", True, f"write {choice['write']}, read {choice['read']}")
        return ok

    choices = your_choices_are_complete
    try:
        return check_all("Replication factor and consistency levels (notebook 00)", [
            Graded(choices, 0),
            Graded(cart_reads_see_the_latest_write, 3, [choices]),
            Graded(views_keep_no_more_than_they_need, 2, [choices]),
            Graded(cart_works_with_a_node_down, 3, [choices]),
            Graded(views_work_with_a_node_down, 2, [choices]),
        ])
    finally:
        if found.get("stopped"):
            node_faults().restart_node(STOPPED)
        if "session" in found:
            found["session"].cluster.shutdown()
