"""Index Table on a document or key-value store (MongoDB, Couchbase): the phases, the login path and the
verification in terms of a few storage steps that each engine's module supplies.

Why one base: the two engines differ only in how a user, a lookup entry and an index query are written
and read; the run's bookkeeping (which users a phase writes, when the login users are loaded, what a
correct result is) is the same, and the same as the Cassandra binding's (`core.judge`).

Bookkeeping: a marker per approach records the highest user number that may have been written
(`written`) and how many users a completed load left (`loaded`), so a register phase can remove exactly
what an earlier run wrote and a login phase loads its users once per cluster and approach.
"""

from __future__ import annotations

import uuid
from typing import Any

from ...errors import ConfigError
from ...runner import BaseWorkload, Transaction, Verification
from .. import check_choice
from .core import ENGINE_APPROACHES, NAME, PHASES, User, UserPhases, email_of, found_user, judge, sample_numbers, user_row


class UserDirectory(UserPhases, BaseWorkload):
    """One phase of the Index Table test with one approach on a document store.

    `users`: how many users the login phase loads and picks from, or how many the register phase
    registers (see core.UserPhases).
    """

    engine = ""

    def __init__(self, approach: str, phase: str, users: int, replication: int = 1, verify_sample: int = 200):
        check_choice(NAME, "approach", approach, ENGINE_APPROACHES[self.engine])
        check_choice(NAME, "phase", phase, PHASES)
        if users < 1:
            raise ConfigError(f"users must be at least 1; got {users}")
        if replication != 1:
            raise ConfigError(f"replication={replication} is Cassandra's keyspace setting; on {self.engine} the cluster's own "
                              "replica sets or bucket replicas decide it: leave --set replication at 1")
        self.name = f"{NAME}/{phase}/{approach}"
        self.approach = approach
        self.phase = phase
        self.users = users
        self.verify_sample = max(1, verify_sample)

    @property
    def naive(self) -> bool:
        return self.approach != "pattern"

    @property
    def suffix(self) -> str:
        """The approach's name in collection names and keys (each approach keeps its own data)."""
        return "index" if self.naive else "pattern"

    # ---- what an engine supplies -----------------------------------------------------------------

    def create(self) -> None:
        """The approach's collections and index (idempotent)."""
        raise NotImplementedError

    def marker(self) -> dict[str, int]:
        """{"written": ..., "loaded": ...} of this approach, zeros when none was kept."""
        raise NotImplementedError

    def set_marker(self, written: int, loaded: int) -> None:
        raise NotImplementedError

    def forget(self, written: int) -> None:
        """Remove every user (and lookup entry) of this approach whose number is below `written`."""
        raise NotImplementedError

    def write_users(self, rows: list[tuple[uuid.UUID, str, str, str]]) -> None:
        """Bulk-write users (the login phase's load), lookup entries too for the pattern."""
        raise NotImplementedError

    def settle(self) -> None:
        """Wait until the index answers for everything written (a GSI is updated asynchronously)."""

    def insert_user(self, tx: Transaction, row: tuple[uuid.UUID, str, str, str]) -> None:
        raise NotImplementedError

    def insert_lookup(self, tx: Transaction, email: str, user_id: uuid.UUID) -> None:
        raise NotImplementedError

    def query_by_index(self, tx: Transaction, email: str) -> User | None:
        """The naive login: one query on the e-mail index."""
        raise NotImplementedError

    def read_lookup(self, tx: Transaction, email: str) -> uuid.UUID | None:
        """The pattern's first read: the lookup entry keyed by the e-mail."""
        raise NotImplementedError

    def read_user(self, tx: Transaction, user_id: uuid.UUID) -> User | None:
        """The pattern's second read: the user by its key."""
        raise NotImplementedError

    def stored_users(self, written: int) -> dict[uuid.UUID, str]:
        """id -> e-mail of every user of this approach (at least those numbered below `written`)."""
        raise NotImplementedError

    def stored_lookups(self, written: int) -> dict[str, uuid.UUID]:
        """e-mail -> user id of every lookup entry (at least those of users numbered below `written`)."""
        raise NotImplementedError

    def index_finds(self, emails: list[str]) -> list[bool]:
        """For each e-mail: did the index return exactly that user (fully up to date)?"""
        raise NotImplementedError

    def drop(self) -> None:
        raise NotImplementedError

    # ---- phases ----------------------------------------------------------------------------------

    def setup(self) -> None:
        """Collections and index; the register phase starts from none of this approach's users."""
        self.create()
        if self.phase == "register":
            self.forget(self.marker()["written"])
            self.set_marker(written=self.users, loaded=0)

    def load(self) -> None:
        """The login phase needs `users` registered users; loaded once per cluster and approach."""
        if self.phase != "login":
            return
        marker = self.marker()
        if marker["loaded"] == self.users:
            return
        self.forget(marker["written"])
        self.set_marker(written=self.users, loaded=0)
        self.write_users([user_row(n) for n in range(self.users)])
        self.settle()
        self.set_marker(written=self.users, loaded=self.users)

    def register(self, tx: Transaction, n: int) -> None:
        """Naive: one write (the index is the database's business). Pattern: the user, then the lookup entry."""
        row = user_row(n)
        self.insert_user(tx, row)
        if not self.naive:
            self.insert_lookup(tx, row[1], row[0])

    def login(self, tx: Transaction, n: int) -> Any:
        """Naive: one query on the index, which a sharded or multi-node store answers by asking every
        shard or index partition. Pattern: two reads by key, one shard or node each."""
        email = email_of(n)
        if self.naive:
            found = self.query_by_index(tx, email)
        else:
            user_id = self.read_lookup(tx, email)
            found = self.read_user(tx, user_id) if user_id is not None else None
        return found_user(found, n)

    def verify(self) -> Verification:
        """Exactly the users this phase should have, under the right ids, and found by e-mail: the
        pattern's lookup entries one by one (they are the application's to keep right), the index by
        asking it for `verify_sample` users spread over the range (index_finds waits for the index itself)."""
        written = max(self.users, self.marker()["written"])
        stored = self.stored_users(written)
        if not self.naive:
            return judge(self.users, stored, pointers=self.stored_lookups(written))
        emails = [email_of(n) for n in sample_numbers(self.users, self.verify_sample)]
        return judge(self.users, stored, index_found=zip(emails, self.index_finds(emails)))

    def cleanup(self) -> None:
        self.drop()
