"""The double's Index Table binding: `workload(approach, phase, cluster, operations, **settings)` and nothing else
(no optional hook: the binding's defaults are EngineBinding's). The workload is a BaseWorkload whose five
phases use the cluster's connection view (`cluster.store`) only."""

from __future__ import annotations

from typing import Any

from labkit.patterns.index_table.core import PHASES, UserPhases, email_of, found_user, judge, user_row
from labkit.runner import BaseWorkload, Transaction, Verification

APPROACHES = ("naive/index", "pattern")


class MemoryUsers(UserPhases, BaseWorkload):
    """Users keyed by id; the pattern keeps a lookup table keyed by e-mail, the naive side asks every node."""

    def __init__(self, store: Any, approach: str, phase: str, users: int):
        if approach not in APPROACHES or phase not in PHASES:
            raise ValueError(f"the memory double runs {APPROACHES} in {PHASES}; got {approach} in {phase}")
        self.store, self.approach, self.phase, self.users = store, approach, phase, users
        self.name = f"index-table/{phase}/{approach}"

    @property
    def tables(self) -> tuple[str, str]:
        return f"users_{self.approach}", f"lookup_{self.approach}"

    def setup(self) -> None:
        if self.phase == "register":
            for table in self.tables:
                self.store.drop(table)

    def load(self) -> None:
        if self.phase == "login":
            for n in range(self.users):
                self._write(user_row(n))

    def _write(self, row: tuple) -> None:
        users, lookup = self.tables
        self.store.put(users, row[0], row)
        if self.approach == "pattern":
            self.store.put(lookup, row[1], row[0])

    def register(self, tx: Transaction, n: int) -> None:
        tx.call("insert_user", self._write, user_row(n))

    def login(self, tx: Transaction, n: int) -> Any:
        users, lookup = self.tables
        email = email_of(n)
        if self.approach == "naive/index":
            found = tx.call("query_every_node", self.store.scan, users, lambda row: row[1] == email)
            row = found[0] if found else None
        else:
            user_id = tx.call("read_lookup", self.store.get, lookup, email)
            row = tx.call("read_user", self.store.get, users, user_id) if user_id is not None else None
        return found_user(_as_user(row), n)

    def verify(self) -> Verification:
        users, lookup = self.tables
        stored = {row[0]: row[1] for row in self.store.scan(users, lambda row: True)}
        if self.approach == "pattern":
            pointers = {email: user_id for email, user_id in ((e, self.store.get(lookup, e)) for e in stored.values()) if user_id}
            return judge(self.users, stored, pointers=pointers)
        return judge(self.users, stored, index_found=[(e, bool(self.store.scan(users, lambda r, e=e: r[1] == e))) for e in list(stored.values())[:20]])


def _as_user(row: tuple | None) -> Any:
    from labkit.patterns.index_table.core import User

    return User(*row) if row is not None else None


def workload(approach: str, phase: str, cluster: Any, operations: int, users: int = 0, **_settings: Any) -> MemoryUsers:
    """What the description's workload() calls: register `operations` users, or log in among `users` loaded ones."""
    return MemoryUsers(cluster.store, approach, phase, operations if phase == "register" else users)
