"""How big a partition grows (notebook 08): one chat room's history in a table partitioned by the room alone,
against the same history in a table partitioned by the room and the day, measured from the servers.

Why this lesson: the query-first chat design keys a room's messages by the room, so the room's partition
grows with every message ever posted. A time bucket in the partition key is the usual remedy. The lab writes
the same month of messages, with the same retention (a TTL), into both tables and asks the servers three
things: how big the partitions are on disk (`nodetool tablehistograms`), what reading the newest page costs,
and what a read of the oldest retained page steps over (expired messages stay on disk as tombstones until a
compaction after gc_grace_seconds; the read's trace counts them).
"""

from __future__ import annotations

import datetime
import math
import random
import statistics
import time
from typing import TYPE_CHECKING, Any

from ..engines import cassandra as cql
from ..errors import ConfigError
from ..namespace import namespace_for, namespaced

if TYPE_CHECKING:
    from ..clusters.contract import CassandraCluster

UNBOUNDED = "history_by_room"
BUCKETED = "history_by_room_day"
SCHEMA = {
    UNBOUNDED: "CREATE TABLE IF NOT EXISTS {ks}.history_by_room (room int, sent timestamp, author int, body text, "
               "PRIMARY KEY ((room), sent)) WITH CLUSTERING ORDER BY (sent DESC)",
    BUCKETED: "CREATE TABLE IF NOT EXISTS {ks}.history_by_room_day (room int, day date, sent timestamp, author int, body text, "
              "PRIMARY KEY ((room, day), sent)) WITH CLUSTERING ORDER BY (sent DESC)",
}
ROOM = 1


def history(days: int, per_day: int, today: datetime.date, seed: int = 8) -> list[tuple[datetime.date, datetime.datetime, int, str]]:
    """A room's messages, oldest day first: `per_day` a day, evenly through each day (day, sent, author, body)."""
    rng = random.Random(seed)
    out = []
    for age in range(days - 1, -1, -1):
        day = today - datetime.timedelta(days=age)
        midnight = datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.timezone.utc)
        for i in range(per_day):
            sent = midnight + datetime.timedelta(seconds=(i + 0.5) * 86400 / per_day)
            out.append((day, sent, rng.randint(0, 999), "".join(rng.choices("abcdefghij klmnop", k=80))))
    return out


def time_to_live(day: datetime.date, today: datetime.date, retention_days: int) -> int:
    """Seconds a message of `day` has left under the retention, as if written when it was sent; a message
    past the retention gets 1 s, so it has expired by the time the lesson reads it."""
    age = (today - day).days
    return (retention_days - age) * 86400 if age < retention_days else 1


def largest_partition(cluster: CassandraCluster, keyspace: str, table: str) -> dict[str, float | None]:
    """The largest partition of `table` on any node, as the nodes' own histograms of their SSTables give it
    (`nodetool tablehistograms`, the Max row: bytes and cells, rounded up to the histogram's bucket)."""
    admin = cluster.node_admin()
    if admin is None:
        raise ConfigError("the largest partition is read from the nodes' histograms with nodetool: it needs a cluster labkit started (provider local)")
    sizes, cells = [], []
    for node in cluster.live_nodes():
        text = admin.nodetool(node.name, "tablehistograms", keyspace, table)
        for line in text.splitlines():
            parts = line.split()
            if parts and parts[0] == "Max" and len(parts) >= 6:  # a node with no SSTable of the table has no figures (NaN)
                size, count = _number(parts[4]), _number(parts[5])
                if size is not None and count is not None:
                    sizes.append(size)
                    cells.append(count)
    return {"bytes": max(sizes, default=None), "cells": max(cells, default=None)}


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def median_ms(session: Any, statement: Any, params: tuple, repeats: int) -> float:
    """Median client-side time of `repeats` executions (this machine's figure, not the server's)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        list(session.execute(statement, params))
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def partition_growth(cluster: CassandraCluster, days: int = 30, per_day: int = 200, retention_days: int = 7, page: int = 20,
                     repeats: int = 30) -> list[dict[str, Any]]:
    """One room's `days` of history, `per_day` messages a day kept `retention_days` (a TTL), written into both
    tables; flushed; then per design: the largest partition (server), the newest page and the oldest retained
    page, each traced (partitions, rows, tombstone cells, the server's warnings) and timed `repeats` times
    alternating the designs. The two designs' pages are checked to hold the same messages."""
    admin = cluster.node_admin()
    if admin is None:
        raise ConfigError("partition_growth flushes and reads the nodes' histograms with nodetool: it needs a cluster labkit started (provider local)")
    if not 0 < retention_days < days:
        raise ConfigError(f"retention_days must be between 1 and days - 1 (got {retention_days} of {days}): the lesson needs expired and kept days")
    keyspace = namespaced("chat_partitions", namespace_for(cluster))
    today = datetime.datetime.now(datetime.timezone.utc).date()
    messages = history(days, per_day, today)
    session = cql.connect(cluster.addresses)
    try:
        cql.create_keyspace(session, keyspace, 1)
        for table, ddl in SCHEMA.items():
            cql.execute_ddl(session, ddl.format(ks=keyspace))
            session.execute(f"TRUNCATE {keyspace}.{table}")
        unbounded = session.prepare(f"INSERT INTO {keyspace}.{UNBOUNDED} (room, sent, author, body) VALUES (?, ?, ?, ?) USING TTL ?")
        bucketed = session.prepare(f"INSERT INTO {keyspace}.{BUCKETED} (room, day, sent, author, body) VALUES (?, ?, ?, ?, ?) USING TTL ?")
        cql.write_all(session, unbounded, [(ROOM, s, a, b, time_to_live(d, today, retention_days)) for d, s, a, b in messages])
        cql.write_all(session, bucketed, [(ROOM, d, s, a, b, time_to_live(d, today, retention_days)) for d, s, a, b in messages])
        time.sleep(2)  # the 1 s TTLs run out
        for node in cluster.live_nodes():
            admin.nodetool(node.name, "flush", keyspace)
        oldest_kept = today - datetime.timedelta(days=retention_days - 1)
        columns = "sent, author, body"
        reads = {
            ("newest page", UNBOUNDED): (f"SELECT {columns} FROM {keyspace}.{UNBOUNDED} WHERE room = ? LIMIT {page}", (ROOM,)),
            ("newest page", BUCKETED): (f"SELECT {columns} FROM {keyspace}.{BUCKETED} WHERE room = ? AND day = ? LIMIT {page}", (ROOM, today)),
            ("oldest kept page", UNBOUNDED): (f"SELECT {columns} FROM {keyspace}.{UNBOUNDED} WHERE room = ? ORDER BY sent ASC LIMIT {page}", (ROOM,)),
            ("oldest kept page", BUCKETED): (f"SELECT {columns} FROM {keyspace}.{BUCKETED} WHERE room = ? AND day = ? ORDER BY sent ASC LIMIT {page}",
                                             (ROOM, oldest_kept)),
        }
        prepared = {key: session.prepare(text) for key, (text, _) in reads.items()}
        timed: dict[tuple[str, str], list[float]] = {key: [] for key in reads}
        for _ in range(max(1, repeats // 5)):  # alternate the designs in short blocks, so a drift weighs on both
            for key, (_, params) in reads.items():
                timed[key].append(median_ms(session, prepared[key], params, 5))
        sizes = {table: largest_partition(cluster, keyspace, table) for table in SCHEMA}
        rows: list[dict[str, Any]] = []
        answers: dict[str, dict[str, list[Any]]] = {}
        for (read, table), (_, params) in reads.items():
            report = cql.trace(session, prepared[(read, table)].bind(params))
            totals = cql.summarise([report])
            answers.setdefault(read, {})[table] = [r.sent for r in report.result]
            rows.append({
                "engine": "cassandra", "server_version": cluster.info().server_version, "provider": cluster.provider,
                "nodes": len(cluster.addresses), "design": "room" if table == UNBOUNDED else "room + day",
                "table": table, "read": read,
                "days written": days, "days kept": retention_days, "messages a day": per_day,
                "largest partition KiB (server)": round(largest / 1024, 1) if (largest := sizes[table]["bytes"]) else None,
                "largest partition cells (server)": sizes[table]["cells"],
                "partitions read (trace)": totals.partitions_read,
                "rows returned (trace)": totals.rows_read,
                "tombstone cells read (trace)": cql.tombstones_read(report),
                "server warned": "; ".join(w.split(" for query")[0] for w in report.warnings) or "no",
                "server µs (trace)": report.duration_us,
                "client ms, median of blocks (this machine)": round(statistics.median(timed[(read, table)]), 2),
            })
        for read, by_table in answers.items():
            if by_table[UNBOUNDED] != by_table[BUCKETED]:
                raise AssertionError(f"the two designs' {read} differ: {by_table[UNBOUNDED][:3]}... vs {by_table[BUCKETED][:3]}...")
        return rows
    finally:
        cql.execute_ddl(session, f"DROP KEYSPACE IF EXISTS {keyspace}")
        session.cluster.shutdown()
