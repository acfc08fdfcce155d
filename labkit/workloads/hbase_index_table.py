"""Logging in by e-mail on HBase, which has no secondary index: a scan of the users table with a filter on the
e-mail column (every region reads every row and throws away all but one), against the Index Table pattern's
lookup table keyed by e-mail (one get there for the user's id, one get of the user).

Users are keyed by a random-looking id (the MD5 of `user<i>`, so a run can check each answer without keeping
the ids), in a table pre-split into 4 regions; the lookup table is one region. Table names carry the student's
namespace. The servers' own counts of rows read and rows filtered out per region are the lesson's evidence
(`region_reads`, `settled_reads`)."""

from __future__ import annotations

import hashlib
import itertools
import time
from typing import Any

from ..engines import hbase
from ..errors import ConfigError
from ..namespace import Namespaced, in_namespace
from ..runner import BaseWorkload, Transaction, Verification

APPROACHES = ("naive/scan", "pattern/lookup")
USER_SPLITS = ("4", "8", "c")
"""A user id's first hex digit picks one of 4 regions."""


def email_of(i: int) -> bytes:
    return f"user{i}@example.org".encode()


def id_of(i: int) -> bytes:
    return hashlib.md5(f"user{i}".encode()).hexdigest().encode()


class EmailLogins(Namespaced, BaseWorkload):
    """One run of logins by e-mail (`naive/scan` or `pattern/lookup`) over `users` stored users; both approaches
    read the same tables, loaded once (setup reloads them when the user count differs)."""

    max_processes = 1  # verify() counts this process's answers
    base_keyspace = "index_table"

    def __init__(self, cluster: Any, approach: str, users: int):
        if approach not in APPROACHES:
            raise ConfigError(f"approach {approach!r}: choose {' or '.join(APPROACHES)}")
        if users < 2:
            raise ConfigError(f"users must be at least 2 (got {users})")
        self.cluster, self.approach, self.users = cluster, approach, users
        self.name = f"index-table/{approach}"
        self._logins = itertools.count()
        self._wrong: list[int] = []  # the logins that found the wrong user or none
        self._pool: Any = None  # happybase's ConnectionPool (the library has no type hints), made in each process by open_process
        self._pool_size = 1

    @property
    def users_table(self) -> str:
        return f"{self.keyspace}_users"

    @property
    def lookup_table(self) -> str:
        return f"{self.keyspace}_users_by_email"

    def check_run(self, threads: int, processes: int, operations: int) -> None:
        self._pool_size = threads

    def setup(self) -> None:
        connection = self.cluster.connection()
        try:
            if self.lookup_table.encode() in connection.tables() and hbase.row_count(connection.table(self.lookup_table)) == self.users:
                return
            hbase.drop_tables(connection, self.users_table, self.lookup_table)
            self.cluster.create_table(self.users_table, "f", list(USER_SPLITS))
            self.cluster.create_table(self.lookup_table, "f")
            with connection.table(self.users_table).batch(batch_size=1000) as users, \
                    connection.table(self.lookup_table).batch(batch_size=1000) as lookup:
                for i in range(self.users):
                    users.put(id_of(i), {b"f:email": email_of(i), b"f:name": f"User {i}".encode()})
                    lookup.put(email_of(i), {b"f:id": id_of(i)})
        finally:
            connection.close()

    def open_process(self) -> None:
        self._pool = hbase.pool(self.cluster.thrift_gateway, self._pool_size)

    def _scan(self, email: bytes) -> list[bytes]:
        with self._pool.connection() as connection:
            found = connection.table(self.users_table).scan(
                filter=f"SingleColumnValueFilter('f', 'email', =, 'binary:{email.decode()}', true, true)")
            return [key for key, _ in found]

    def _lookup(self, email: bytes) -> bytes | None:
        with self._pool.connection() as connection:
            return connection.table(self.lookup_table).row(email, columns=[b"f:id"]).get(b"f:id")

    def _user(self, key: bytes) -> bytes | None:
        with self._pool.connection() as connection:
            return connection.table(self.users_table).row(key, columns=[b"f:email"]).get(b"f:email")

    def transaction(self, tx: Transaction) -> None:
        i = tx.rng.randrange(self.users)
        if self.approach == "naive/scan":
            keys = tx.call("scan", self._scan, email_of(i))
            right = keys == [id_of(i)]
        else:
            key = tx.call("lookup", self._lookup, email_of(i))
            right = key == id_of(i) and tx.call("get_user", self._user, key) == email_of(i)
        next(self._logins)
        if not right:
            self._wrong.append(i)

    def verify(self) -> Verification:
        logins = next(self._logins)
        problems = [f"{len(self._wrong)} of {logins} logins found the wrong user or none (user {self._wrong[0]} first)"] if self._wrong else []
        return Verification(not problems, {"logins": logins, "right": logins - len(self._wrong)}, problems)

    def close_process(self) -> None:
        self._pool = None


def email_logins(cluster: Any, approach: str, users: int) -> EmailLogins:
    """The workload for `approach`, in the namespace its runs on `cluster` write in."""
    return in_namespace(EmailLogins(cluster, approach, users), cluster)


def region_reads(metrics: dict[str, Any], tables: tuple[str, ...]) -> dict[tuple[str, str], dict[str, Any]]:
    """(table, start key) -> the server holding that region and its counts so far: rows read (returned) and rows
    its filters threw away."""
    return {(r["table"], r["start_key"]): {"server": s["host"], "read": r["reads"], "filtered": r["filtered_reads"]}
            for s in metrics["servers"] for r in s["regions"] if r["table"] in tables}


def settled_reads(cluster: Any, tables: tuple[str, ...], within: float = 15) -> dict[tuple[str, str], dict[str, Any]]:
    """region_reads once two reports in a row agree (each server reports every hbase_config.REPORT_INTERVAL_MS),
    or the last one after `within` seconds: a run's reads are all counted."""
    from ..clusters.local import hbase_config

    deadline = time.monotonic() + within
    last = region_reads(cluster.metrics(), tables)
    while time.monotonic() < deadline:
        time.sleep(hbase_config.REPORT_INTERVAL_MS / 1000)
        now = region_reads(cluster.metrics(), tables)
        if now == last:
            return now
        last = now
    return last


def reads_between(before: dict, after: dict, logins: int) -> list[dict[str, Any]]:
    """Per region, between two settled snapshots: read requests per login (HBase's readRequestCount: one per get, one
    per region a scan visits, one per row it returns) and rows its filters threw away per login (filteredReadRequestCount)."""
    rows = []
    for (table, start), now in sorted(after.items()):
        was = before.get((table, start), {"read": 0, "filtered": 0})
        rows.append({"table": table, "region_start": start or "(first)", "server": now["server"],
                     "read_requests_per_login": (now["read"] - was["read"]) / max(1, logins),
                     "rows_filtered_per_login": (now["filtered"] - was["filtered"]) / max(1, logins)})
    return rows


def regions_per_login(approach: str, per_region: list[dict[str, Any]]) -> float:
    """How many regions one login reads from, from reads_between's rows: a scan visits every region of the table
    (each counts at least one read request per login); a get reads one row in one region (one read request), so
    the lookup's read requests per login are its regions per login."""
    if approach == "naive/scan":
        return sum(1 for r in per_region if r["read_requests_per_login"] >= 1)
    return sum(r["read_requests_per_login"] for r in per_region)
