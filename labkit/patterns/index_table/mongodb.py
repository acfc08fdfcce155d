"""Index Table on MongoDB, as the source ran it: users sharded by hashed user id.

- `naive/index`: a secondary index on `email`. The index lives with the documents, partitioned like them
  (by user id), so a find by e-mail cannot know which shard holds the user: the mongos sends it to every
  shard and merges the answers (scatter-gather). More shards: more work per login.
- `pattern`: `users_by_email`, a collection whose `_id` is the e-mail, sharded by hashed e-mail: the
  login reads it by key (one shard) and then the user by key (one shard), however many shards there are.

On a replica set or a single server the collections are not sharded and both approaches ask one server;
`explain_login` reads from the mongos's explain how many shards each step of a login asks.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from ...engines.mongodb import ClientPerProcess
from ...engines.mongodb_sharding import shard_collections, shards_asked
from ...runner import Transaction
from ...namespace import Namespaced, in_namespace
from .core import User, email_of, id_of, number_of
from .documents import UserDirectory

if TYPE_CHECKING:
    from ...clusters.contract import MongoCluster

DATABASE = "index_table"
LOOKUP = "users_by_email"
MARKERS = "loaded"
BATCH = 1000


def users_collection(suffix: str) -> str:
    return f"users_{suffix}"


def shard_keys(naive: bool) -> dict[str, str]:
    """What each collection of an approach is spread by: users by (hashed) id, lookup entries by e-mail."""
    return {users_collection("index" if naive else "pattern"): "_id", **({} if naive else {LOOKUP: "_id"})}


def user_document(row: tuple[uuid.UUID, str, str, str]) -> dict[str, str]:
    user_id, email, name, password_hash = row
    return {"_id": str(user_id), "email": email, "name": name, "password_hash": password_hash}


def user_of(document: dict[str, Any] | None) -> User | None:
    if document is None:
        return None
    return User(uuid.UUID(document["_id"]), document["email"], document["name"], document["password_hash"])


class MongoUsers(Namespaced, ClientPerProcess, UserDirectory):
    """The Index Table phases on MongoDB (see the module's docstring for the two approaches)."""

    base_keyspace = DATABASE

    engine = "mongodb"

    def __init__(self, uri: str, approach: str, phase: str, users: int, replication: int = 1, verify_sample: int = 200):
        super().__init__(approach, phase, users, replication, verify_sample)
        self.uri = uri

    @property
    def db(self):
        return self.client[self.database]

    @property
    def users_coll(self):
        return self.db[users_collection(self.suffix)]

    @property
    def lookup_coll(self):
        return self.db[LOOKUP]

    # ---- storage steps ---------------------------------------------------------------------------

    def create(self) -> None:
        shard_collections(self.db.client, self.database, shard_keys(self.naive))  # where the deployment is sharded; idempotent
        if self.naive:
            self.users_coll.create_index("email", name="email")

    def marker(self) -> dict[str, int]:
        found = self.db[MARKERS].find_one({"_id": self.approach}) or {}
        return {"written": int(found.get("written", 0)), "loaded": int(found.get("loaded", 0))}

    def set_marker(self, written: int, loaded: int) -> None:
        self.db[MARKERS].replace_one({"_id": self.approach}, {"_id": self.approach, "written": written, "loaded": loaded}, upsert=True)

    def forget(self, written: int) -> None:
        self.users_coll.delete_many({})
        if not self.naive:
            self.lookup_coll.delete_many({})

    def write_users(self, rows: list[tuple[uuid.UUID, str, str, str]]) -> None:
        for start in range(0, len(rows), BATCH):
            batch = rows[start:start + BATCH]
            self.users_coll.insert_many([user_document(r) for r in batch], ordered=False)
            if not self.naive:
                self.lookup_coll.insert_many([{"_id": r[1], "user_id": str(r[0])} for r in batch], ordered=False)

    def insert_user(self, tx: Transaction, row: tuple[uuid.UUID, str, str, str]) -> None:
        document = user_document(row)  # replace-or-insert by key: a retried registration writes the same document again
        tx.call("insert_user", self.users_coll.replace_one, {"_id": document["_id"]}, document, upsert=True)

    def insert_lookup(self, tx: Transaction, email: str, user_id: uuid.UUID) -> None:
        tx.call("insert_lookup", self.lookup_coll.replace_one, {"_id": email}, {"_id": email, "user_id": str(user_id)}, upsert=True)

    def query_by_index(self, tx: Transaction, email: str) -> User | None:
        return user_of(tx.call("query_by_index", self.users_coll.find_one, {"email": email}))

    def read_lookup(self, tx: Transaction, email: str) -> uuid.UUID | None:
        found = tx.call("read_lookup", self.lookup_coll.find_one, {"_id": email})
        return uuid.UUID(found["user_id"]) if found else None

    def read_user(self, tx: Transaction, user_id: uuid.UUID) -> User | None:
        return user_of(tx.call("read_user", self.users_coll.find_one, {"_id": str(user_id)}))

    def stored_users(self, written: int) -> dict[uuid.UUID, str]:
        return {uuid.UUID(d["_id"]): d["email"] for d in self.users_coll.find({}, {"email": 1})}

    def stored_lookups(self, written: int) -> dict[str, uuid.UUID]:
        return {d["_id"]: uuid.UUID(d["user_id"]) for d in self.lookup_coll.find({})}

    def index_finds(self, emails: list[str]) -> list[bool]:
        found: dict[str, list[str]] = {}
        for d in self.users_coll.find({"email": {"$in": emails}}, {"email": 1}):
            found.setdefault(d["email"], []).append(d["_id"])
        return [found.get(e) == [str(id_of(number_of(e)))] for e in emails]

    def drop(self) -> None:
        self.db.client.drop_database(self.database)


def explain_login(workload: MongoUsers, n: int = 0) -> dict[str, int | None]:
    """How many shards each step of one login asks, from the mongos's explain (None: not a sharded cluster).
    Naive: the find by e-mail; pattern: the lookup by e-mail, then the user by id."""
    client, email = workload.db.client, email_of(n)
    if workload.naive:
        return {"query_by_index": shards_asked(client, workload.database, users_collection("index"), {"email": email})}
    return {
        "read_lookup": shards_asked(client, workload.database, LOOKUP, {"_id": email}),
        "read_user": shards_asked(client, workload.database, users_collection("pattern"), {"_id": str(id_of(n))}),
    }


def workload(approach: str, phase: str, cluster: MongoCluster, operations: int, replication: int = 1, users: int = 0) -> MongoUsers:
    """The workload of one run: the register phase registers `operations` users, the login phase logs in
    among `users` loaded ones."""
    return in_namespace(MongoUsers(cluster.uri, approach, phase, users=operations if phase == "register" else users, replication=replication), cluster)
