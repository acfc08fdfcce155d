"""Index Table on Couchbase, as the source ran it: users as documents keyed by user id.

- `naive/index`: a Global Secondary Index on `email` and a SQL++ (N1QL) query per login. The query goes to
  a query node, which asks the index node for the key and then fetches the document from the data node
  that owns it: three services and a query plan per login, and the index is updated asynchronously
  after every write (a query asked right after a registration may not see it unless it waits).
- `pattern`: a lookup document keyed by the e-mail (`index-table::pattern::email::<e-mail>`) that holds
  the user id: a login is two key-value gets, each answered by the one data node that owns the key.

Needs the query and index services for `naive/index` (a real Couchbase Server: compose or external); the
CouchbaseMock stand-in has neither, so there only `pattern` runs, and its rows say stand-in.
`profile_login` returns the query service's own profile of a naive login (phases and operators).
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable

from ...engines.couchbase import ClusterPerProcess
from ...errors import NotAvailableError
from ...runner import Transaction
from .core import User, email_of, id_of, number_of
from .documents import UserDirectory

if TYPE_CHECKING:
    from ...clusters.contract import CouchbaseCluster

PREFIX = "index-table"
INDEX = "index_table_users_email"
BATCH = 500
NO_QUERY_SERVICE = ("naive/index needs Couchbase's query and index services (a GSI and a SQL++ query per login); the CouchbaseMock "
                    "stand-in has neither. Run --approaches pattern there, or use a real Couchbase Server (`labkit up couchbase "
                    "--provider compose` or `--provider external`).")


def user_key(suffix: str, user_id: uuid.UUID) -> str:
    return f"{PREFIX}::{suffix}::user::{user_id}"


def lookup_key(email: str) -> str:
    return f"{PREFIX}::pattern::email::{email}"


def user_type(suffix: str) -> str:
    """The `type` field of an approach's user documents (the GSI covers only the naive approach's)."""
    return f"index_table_user_{suffix}"


def index_condition() -> str:
    return f'type = "{user_type("index")}"'


def query_by_email(bucket: str) -> str:
    """The naive login's SQL++: the partial index's condition spelled out, so the planner picks it."""
    return (f"SELECT META(u).id AS `key`, u.id, u.email, u.name, u.password_hash FROM `{bucket}` AS u "
            f'WHERE u.type = "{user_type("index")}" AND u.email = $email')


def count_indexed(bucket: str) -> str:
    return f'SELECT COUNT(*) AS n FROM `{bucket}` AS u WHERE u.type = "{user_type("index")}" AND u.email IS NOT MISSING'


def user_document(suffix: str, row: tuple[uuid.UUID, str, str, str]) -> dict[str, str]:
    user_id, email, name, password_hash = row
    return {"type": user_type(suffix), "id": str(user_id), "email": email, "name": name, "password_hash": password_hash}


def user_of(document: dict[str, Any] | None) -> User | None:
    if document is None:
        return None
    return User(uuid.UUID(document["id"]), document["email"], document["name"], document["password_hash"])


class CouchbaseUsers(ClusterPerProcess, UserDirectory):
    """The Index Table phases on Couchbase (see the module's docstring for the two approaches)."""

    engine = "couchbase"

    def __init__(self, connect: Callable[[], Any], bucket: str, approach: str, phase: str, users: int, replication: int = 1,
                 verify_sample: int = 200, query_service: bool = True):
        super().__init__(approach, phase, users, replication, verify_sample)
        self.connect = connect  # () -> a connected SDK Cluster
        self.bucket = bucket
        if self.naive and not query_service:
            raise NotAvailableError(NO_QUERY_SERVICE)

    @property
    def marker_key(self) -> str:
        return f"{PREFIX}::{self.suffix}::marker"

    def get(self, key: str) -> dict[str, Any] | None:
        """One key-value get; None when the document does not exist."""
        from couchbase.exceptions import DocumentNotFoundException

        try:
            return self.collection.get(key).content_as[dict]
        except DocumentNotFoundException:
            return None

    def get_all(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The documents of `keys` that exist, in batches of one request per node each (get_multi)."""
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(keys), BATCH):
            result = self.collection.get_multi(keys[start:start + BATCH])
            found.update({key: r.content_as[dict] for key, r in result.results.items()})
        return found

    def query(self, statement: str, request_plus: bool = False, **parameters: Any) -> list[dict[str, Any]]:
        """The rows of one SQL++ query (prepared, as an application sends it); `request_plus`: wait until
        the index holds every write made before the query."""
        from couchbase.n1ql import QueryScanConsistency
        from couchbase.options import QueryOptions

        consistency = QueryScanConsistency.REQUEST_PLUS if request_plus else QueryScanConsistency.NOT_BOUNDED
        options = QueryOptions(adhoc=False, scan_consistency=consistency, **({"named_parameters": parameters} if parameters else {}))
        return list(self.cluster.query(statement, options).rows())

    # ---- storage steps ---------------------------------------------------------------------------

    def create(self) -> None:
        if not self.naive:
            return
        from couchbase.exceptions import CouchbaseException
        from couchbase.management.options import CreateQueryIndexOptions, WatchQueryIndexOptions

        indexes = self.cluster.query_indexes()
        try:
            indexes.create_index(self.bucket, INDEX, ["email"], CreateQueryIndexOptions(ignore_if_exists=True, condition=index_condition()))
            indexes.watch_indexes(self.bucket, [INDEX], WatchQueryIndexOptions(timeout=timedelta(seconds=120)))
        except CouchbaseException as exc:
            raise NotAvailableError(f"cannot create the GSI {INDEX} on {self.bucket}(email) ({type(exc).__name__}: {exc}). {NO_QUERY_SERVICE}") from exc

    def marker(self) -> dict[str, int]:
        found = self.get(self.marker_key) or {}
        return {"written": int(found.get("written", 0)), "loaded": int(found.get("loaded", 0))}

    def set_marker(self, written: int, loaded: int) -> None:
        self.collection.upsert(self.marker_key, {"written": written, "loaded": loaded})

    def forget(self, written: int) -> None:
        keys = [user_key(self.suffix, id_of(n)) for n in range(written)]
        if not self.naive:
            keys += [lookup_key(email_of(n)) for n in range(written)]
        for start in range(0, len(keys), BATCH):
            self.collection.remove_multi(keys[start:start + BATCH])  # a key never written comes back as not found, and is fine

    def write_users(self, rows: list[tuple[uuid.UUID, str, str, str]]) -> None:
        for start in range(0, len(rows), BATCH):
            batch = rows[start:start + BATCH]
            self.collection.upsert_multi({user_key(self.suffix, r[0]): user_document(self.suffix, r) for r in batch})
            if not self.naive:
                self.collection.upsert_multi({lookup_key(r[1]): {"user_id": str(r[0])} for r in batch})

    def settle(self) -> None:
        if self.naive:
            self.query(count_indexed(self.bucket), request_plus=True)  # returns once the GSI has caught up with every write

    def insert_user(self, tx: Transaction, row: tuple[uuid.UUID, str, str, str]) -> None:
        tx.call("insert_user", self.collection.upsert, user_key(self.suffix, row[0]), user_document(self.suffix, row))

    def insert_lookup(self, tx: Transaction, email: str, user_id: uuid.UUID) -> None:
        tx.call("insert_lookup", self.collection.upsert, lookup_key(email), {"user_id": str(user_id)})

    def query_by_index(self, tx: Transaction, email: str) -> User | None:
        rows = tx.call("query_by_index", self.query, query_by_email(self.bucket), email=email)
        return user_of(rows[0]) if rows else None

    def read_lookup(self, tx: Transaction, email: str) -> uuid.UUID | None:
        found = tx.call("read_lookup", self.get, lookup_key(email))
        return uuid.UUID(found["user_id"]) if found else None

    def read_user(self, tx: Transaction, user_id: uuid.UUID) -> User | None:
        return user_of(tx.call("read_user", self.get, user_key(self.suffix, user_id)))

    def stored_users(self, written: int) -> dict[uuid.UUID, str]:
        """Key-value only (the stand-in has no query service): every user numbered below `written`; one
        written above it would go unseen, but no phase writes there."""
        found = self.get_all([user_key(self.suffix, id_of(n)) for n in range(written)])
        return {uuid.UUID(d["id"]): d["email"] for d in found.values()}

    def stored_lookups(self, written: int) -> dict[str, uuid.UUID]:
        found = self.get_all([lookup_key(email_of(n)) for n in range(written)])
        return {key.split("::email::", 1)[1]: uuid.UUID(d["user_id"]) for key, d in found.items()}

    def index_finds(self, emails: list[str]) -> list[bool]:
        statement = query_by_email(self.bucket)
        answers = [self.query(statement, request_plus=True, email=e) for e in emails]
        return [len(rows) == 1 and rows[0]["id"] == str(id_of(number_of(e))) for rows, e in zip(answers, emails)]

    def drop(self) -> None:
        self.forget(max(self.users, self.marker()["written"]))
        self.collection.remove_multi([self.marker_key])
        if self.naive:
            from couchbase.management.options import DropQueryIndexOptions

            self.cluster.query_indexes().drop_index(self.bucket, INDEX, DropQueryIndexOptions(ignore_if_not_exists=True))


def profile_login(workload: CouchbaseUsers, n: int = 0) -> dict[str, Any]:
    """What the servers did for one login. Naive: the query service's profile of the query (its phases,
    how many items each handled, how long each took); pattern: the two key-value gets it makes."""
    email = email_of(n)
    if not workload.naive:
        return {"requests": 2, "steps": ["get lookup document by e-mail", "get user document by id"], "query_service": False}
    from couchbase.n1ql import QueryProfile
    from couchbase.options import QueryOptions

    result = workload.cluster.query(query_by_email(workload.bucket), QueryOptions(named_parameters={"email": email}, profile=QueryProfile.TIMINGS))
    rows = list(result.rows())
    profile = result.metadata().profile() or {}
    return {
        "requests": 1,
        "rows": len(rows),
        "query_service": True,
        "phase_counts": dict(profile.get("phaseCounts", {})),
        "phase_operators": dict(profile.get("phaseOperators", {})),
        "phase_times": dict(profile.get("phaseTimes", {})),
    }


def workload(approach: str, phase: str, cluster: CouchbaseCluster, operations: int, replication: int = 1, users: int = 0) -> CouchbaseUsers:
    """The workload of one run: the register phase registers `operations` users, the login phase logs in
    among `users` loaded ones."""
    return CouchbaseUsers(cluster.cluster, cluster.bucket, approach, phase, users=operations if phase == "register" else users, replication=replication,
                          query_service=cluster.query_service)
