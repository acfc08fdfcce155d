"""The same comments on Cassandra: a `list<text>` column of the post appended per comment (naive) vs one
row per comment in the post's partition, clustered newest first by a client-made time UUID (pattern):
the column-family form, where the partition already is the enumerable set and no counter is needed."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cassandra.query import PreparedStatement

from ...engines import cassandra as cql
from ...namespace import in_namespace
from ...runner import Transaction
from ..cassandra_workload import CassandraWorkload
from .core import PAGE_SIZE, CommentStore, list_newest_first, list_page, store_workload

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster

KEYSPACE = "enumerable_keys"


@dataclass
class Statements:
    append: PreparedStatement
    remove: PreparedStatement
    read_list: PreparedStatement
    insert_row: PreparedStatement
    delete_row: PreparedStatement
    first_page: PreparedStatement
    next_page: PreparedStatement
    all_rows: PreparedStatement


class CassandraComments(CassandraWorkload, CommentStore):
    """posts_lba (post, comments list<text>); comments (post, at timeuuid, text), newest first."""

    engine = "cassandra"
    numbered_keys = False  # rows are ordered by time UUIDs, not numbered by a counter
    statements_class = Statements
    base_keyspace = KEYSPACE

    def __init__(self, addresses: list[str], approach: str, phase: str, replication: int = 1, **options: Any):
        CommentStore.__init__(self, approach, phase, **options)
        self.connect_to(addresses, "ONE")
        self.replication = replication

    @classmethod
    def for_cluster(cls, cluster: CassandraCluster, approach: str, phase: str, **options: Any) -> "CassandraComments":
        return in_namespace(cls(cluster.addresses, approach, phase, **options), cluster)

    def statement_texts(self) -> dict[str, str | None]:
        return {
            "append": f"UPDATE {self.keyspace}.posts_lba SET comments = comments + ? WHERE post = ?",
            "remove": f"UPDATE {self.keyspace}.posts_lba SET comments = comments - ? WHERE post = ?",
            "read_list": f"SELECT comments FROM {self.keyspace}.posts_lba WHERE post = ?",
            "insert_row": f"INSERT INTO {self.keyspace}.comments (post, at, text) VALUES (?, ?, ?)",
            "delete_row": f"DELETE FROM {self.keyspace}.comments WHERE post = ? AND at = ?",
            "first_page": f"SELECT at, text FROM {self.keyspace}.comments WHERE post = ? LIMIT {PAGE_SIZE}",
            "next_page": f"SELECT at, text FROM {self.keyspace}.comments WHERE post = ? AND at < ? LIMIT {PAGE_SIZE}",
            "all_rows": f"SELECT at, text FROM {self.keyspace}.comments WHERE post = ?",
        }

    # ---- storage ---------------------------------------------------------------------------------

    @property
    def own_table(self) -> str:
        """The table this approach writes (the other approach writes the other one)."""
        return "posts_lba" if self.naive else "comments"

    def create_schema(self) -> None:
        s = self.session
        cql.create_keyspace(s, self.keyspace, self.replication)
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {self.keyspace}.posts_lba (post text PRIMARY KEY, comments list<text>)")
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {self.keyspace}.comments (post text, at timeuuid, text text, PRIMARY KEY (post, at)) WITH CLUSTERING ORDER BY (at DESC)")

    def reset(self) -> None:
        self.create_schema()
        s = self.session
        # TRUNCATE, not DELETE: a deleted list keeps its cells in the nodes' memtables under the tombstone until a flush,
        # and every append walks all of them (benchmarks/enumerable_keys_profile.py --series), so runs after a DELETE
        # would not start alike. The table holds only this approach's post (the other approach writes the other table).
        s.execute(f"TRUNCATE {self.keyspace}.{self.own_table}", timeout=120)

    def add(self, tx: Transaction, text: str) -> None:
        st = self.statements
        if self.naive:
            tx.call("append_to_list", self.session.execute, st.append, ([text], self.post))
        else:
            tx.call("insert_comment", self.session.execute, st.insert_row, (self.post, uuid.uuid1(), text))

    def delete(self, text: str) -> None:
        st = self.statements
        if self.naive:
            self.session.execute(st.remove, ([text], self.post))
            return
        for row in self.session.execute(st.all_rows, (self.post,)):
            if row.text == text:
                self.session.execute(st.delete_row, (self.post, row.at))
                return

    def stored(self) -> list[tuple[int, str]]:
        st = self.statements
        if self.naive:
            row = self.session.execute(st.read_list, (self.post,)).one()
            return list_newest_first(list(row.comments or []) if row else [])
        rows = list(self.session.execute(st.all_rows, (self.post,)))
        return [(len(rows) - i, r.text) for i, r in enumerate(rows)]

    def read_page(self, tx: Transaction, cursor: Any) -> tuple[list[str], Any]:
        st = self.statements
        if self.naive:
            row = tx.call("read_post", self.session.execute, st.read_list, (self.post,)).one()  # the whole list, every page
            return list_page(list(row.comments or []) if row else [], cursor)
        if cursor is None:
            rows = tx.call("read_page", self.session.execute, st.first_page, (self.post,)).current_rows
        else:
            rows = tx.call("read_page", self.session.execute, st.next_page, (self.post, cursor)).current_rows
        return [r.text for r in rows], (rows[-1].at if len(rows) == PAGE_SIZE else None)

    def post_size(self) -> int:
        return sum(len(text.encode()) for _n, text in self.stored()) if self.naive else 0


STORE = CassandraComments
workload = store_workload(STORE)
