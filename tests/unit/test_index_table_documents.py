"""Index Table on MongoDB and Couchbase without a server: which approaches each engine runs, and what each
phase sends (collections sharded by the key the pattern names, the index on e-mail, a login's requests),
with small recording fakes of the drivers. The stand-ins run the mechanics for real in
tests/integration/test_index_table_documents_standin.py."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest

from labkit.errors import ConfigError, NotAvailableError
from labkit.patterns.exercise import a_transaction
from labkit.patterns.index_table import PATTERN, email_of, id_of
from labkit.patterns.index_table import couchbase as cb
from labkit.patterns.index_table import mongodb as mg


# ---- the description ---------------------------------------------------------------------------

def test_each_engine_compares_its_own_index_with_the_lookup_table():
    assert PATTERN.approaches_for("login", "cassandra") == ("naive/legacy", "naive/sai", "pattern")
    assert PATTERN.approaches_for("login", "mongodb") == ("naive/index", "pattern")
    assert PATTERN.approaches_for("login", "couchbase") == ("naive/index", "pattern")
    assert PATTERN.approaches_for("login") == PATTERN.approaches_for("login", "cassandra")  # the default engine's
    assert PATTERN.sweep_plan("quick", "login", engine="mongodb").approaches == ("naive/index", "pattern")
    assert PATTERN.sweep_plan("quick", "login").approaches == ("naive/legacy", "naive/sai", "pattern")


def test_an_approach_of_another_engine_is_refused_with_whose_it_is():
    with pytest.raises(ConfigError, match=r"'naive/legacy' for index-table in phase login on couchbase \(naive/legacy is cassandra's\): choose from naive/index, pattern"):
        PATTERN.check_approaches(["naive/legacy"], "login", "couchbase")
    with pytest.raises(ConfigError, match="naive/index is mongodb, couchbase's"):
        PATTERN.check_approaches(["naive/index"], "login", "cassandra")
    with pytest.raises(ConfigError, match="has no workload for redis"):
        PATTERN.approaches_for("login", "redis")


def test_replication_is_refused_where_the_cluster_decides_it():
    with pytest.raises(ConfigError, match="Cassandra's keyspace setting"):
        mg.MongoUsers("mongodb://127.0.0.1:1/", "pattern", "login", users=10, replication=3)


# ---- MongoDB -----------------------------------------------------------------------------------

class Recorder:
    def __init__(self, mongos: bool = True, asked: int = 4):
        self.mongos, self.asked = mongos, asked
        self.sent: list[tuple] = []
        self.data: dict[str, dict[str, dict]] = {}


class FakeCollection:
    def __init__(self, rec: Recorder, name: str):
        self.rec, self.name = rec, name
        self.docs = rec.data.setdefault(name, {})

    def _note(self, verb, *args, **kwargs):
        self.rec.sent.append((self.name, verb, copy.deepcopy(args), kwargs))

    def _matches(self, doc, query):
        return all(doc.get(k) == v or (isinstance(v, dict) and "$in" in v and doc.get(k) in v["$in"]) for k, v in query.items())

    def create_index(self, key, **kwargs):
        self._note("create_index", key, **kwargs)

    def replace_one(self, query, doc, upsert=False):
        self._note("replace_one", query, doc, upsert=upsert)
        self.docs[doc["_id"]] = dict(doc)

    def insert_many(self, docs, ordered=True):
        self._note("insert_many", len(docs))
        for d in docs:
            self.docs[d["_id"]] = dict(d)

    def delete_many(self, query):
        self._note("delete_many", query)
        self.docs.clear()

    def find_one(self, query, *args):
        self._note("find_one", query)
        return next((dict(d) for d in self.docs.values() if self._matches(d, query)), None)

    def find(self, query, *args):
        return [dict(d) for d in self.docs.values() if self._matches(d, query)]


class FakeDb:
    def __init__(self, rec: Recorder, name: str):
        self.rec, self.name = rec, name
        self.client = FakeClient(rec)

    def __getitem__(self, collection):
        return FakeCollection(self.rec, f"{self.name}.{collection}")

    def command(self, name, *args, **kwargs):
        self.rec.sent.append((self.name, name, args, kwargs))
        if name in ("hello", "isMaster"):
            return {"msg": "isdbgrid"} if self.rec.mongos else {"isWritablePrimary": True}
        if name == "explain":
            return {"queryPlanner": {"winningPlan": {"shards": [{}] * self.rec.asked}}}
        return {"ok": 1}


class FakeClient:
    def __init__(self, rec: Recorder):
        self.rec = rec

    def __getitem__(self, name):
        if name == "config":
            return _Config()
        return FakeDb(self.rec, name)

    @property
    def admin(self):
        return FakeDb(self.rec, "admin")

    def close(self):
        pass


class _Config:
    def __getitem__(self, _name):
        return SimpleNamespace(find_one=lambda *_a, **_k: None)


def mongo(approach: str, phase: str = "login", users: int = 5, mongos: bool = True) -> tuple[mg.MongoUsers, Recorder]:
    rec = Recorder(mongos=mongos)
    workload = mg.MongoUsers("mongodb://fake/", approach, phase, users=users)
    workload._client = FakeClient(rec)
    return workload, rec


def shard_commands(rec: Recorder) -> list[tuple]:
    return [(args[0], kwargs["key"]) for _db, name, args, kwargs in rec.sent if name == "shardCollection"]


def test_mongodb_users_are_sharded_by_hashed_id_and_the_index_is_on_email():
    naive, rec = mongo("naive/index")
    naive.setup()
    assert shard_commands(rec) == [("index_table.users_index", {"_id": "hashed"})]
    assert ("index_table.users_index", "create_index", ("email",), {"name": "email"}) in rec.sent


def test_mongodb_lookup_entries_are_sharded_by_hashed_email_and_no_index_is_made():
    pattern, rec = mongo("pattern")
    pattern.setup()
    assert shard_commands(rec) == [("index_table.users_pattern", {"_id": "hashed"}), ("index_table.users_by_email", {"_id": "hashed"})]
    assert not [s for s in rec.sent if s[1] == "create_index"]


def test_nothing_is_sharded_on_a_replica_set_or_a_stand_in():
    workload, rec = mongo("pattern", mongos=False)
    workload.setup()
    assert shard_commands(rec) == [] and not [s for s in rec.sent if s[1] == "enableSharding"]


def reads(rec: Recorder) -> list[tuple]:
    return [(name, query) for name, verb, (query, *_), _kw in rec.sent if verb == "find_one" and not name.endswith(".loaded")]


def test_mongodb_login_naive_is_one_query_by_email_pattern_two_reads_by_key():
    naive, rec = mongo("naive/index")
    naive.setup(); naive.load(); rec.sent.clear()
    assert naive.login(a_transaction(), 3).id == id_of(3)
    assert reads(rec) == [("index_table.users_index", {"email": email_of(3)})]

    pattern, rec = mongo("pattern")
    pattern.setup(); pattern.load(); rec.sent.clear()
    assert pattern.login(a_transaction(), 3).id == id_of(3)
    assert reads(rec) == [("index_table.users_by_email", {"_id": email_of(3)}), ("index_table.users_pattern", {"_id": str(id_of(3))})]


def test_mongodb_registration_writes_by_key_so_a_retry_rewrites_the_same_document():
    pattern, rec = mongo("pattern", phase="register")
    pattern.setup(); rec.sent.clear()
    pattern.register(a_transaction(), 2)
    writes = [(name, query, kw["upsert"]) for name, verb, (query, *_), kw in rec.sent if verb == "replace_one"]
    assert writes == [("index_table.users_pattern", {"_id": str(id_of(2))}, True), ("index_table.users_by_email", {"_id": email_of(2)}, True)]


def test_mongodb_verify_catches_a_lost_lookup_entry_and_a_missing_user():
    pattern, rec = mongo("pattern", phase="register", users=4)
    pattern.setup()
    for n in range(4):
        pattern.register(a_transaction(), n)
    assert pattern.verify().ok
    del rec.data["index_table.users_by_email"][email_of(1)]
    result = pattern.verify()
    assert not result.ok and "3 lookup rows for 4 users; 1 users not found by e-mail" in result.problems[0]
    naive, rec = mongo("naive/index", phase="register", users=4)
    naive.setup()
    for n in (0, 1, 3):
        naive.register(a_transaction(), n)
    result = naive.verify()
    assert not result.ok and "1 users missing (first: [2])" in result.problems[0]


def test_explain_asks_the_mongos_how_many_shards_each_step_of_a_login_reaches():
    naive, rec = mongo("naive/index")
    assert mg.explain_login(naive, 7) == {"query_by_index": 4}
    explains = [args[0] for _db, name, args, _kw in rec.sent if name == "explain"]
    assert explains == [{"find": "users_index", "filter": {"email": email_of(7)}}]
    pattern, rec = mongo("pattern")
    assert set(mg.explain_login(pattern, 7)) == {"read_lookup", "read_user"}
    assert [args[0]["filter"] for _db, name, args, _kw in rec.sent if name == "explain"] == [{"_id": email_of(7)}, {"_id": str(id_of(7))}]
    plain, _rec = mongo("pattern", mongos=False)
    assert mg.explain_login(plain, 7) == {"read_lookup": None, "read_user": None}


# ---- Couchbase ---------------------------------------------------------------------------------

class FakeQueryIndexes:
    def __init__(self, log):
        self.log = log

    def create_index(self, bucket, name, keys, options):
        self.log.append(("create_index", bucket, name, keys, dict(options)))

    def watch_indexes(self, bucket, names, options):
        self.log.append(("watch_indexes", bucket, names))

    def drop_index(self, bucket, name, options):
        self.log.append(("drop_index", bucket, name))


class FakeResult:
    def __init__(self, content):
        self.content_as = {dict: content}


class FakeCbCollection:
    def __init__(self, log, docs):
        self.log, self.docs = log, docs

    def get(self, key):
        from couchbase.exceptions import DocumentNotFoundException

        self.log.append(("get", key))
        if key not in self.docs:
            raise DocumentNotFoundException()
        return FakeResult(copy.deepcopy(self.docs[key]))

    def upsert(self, key, doc):
        self.log.append(("upsert", key))
        self.docs[key] = copy.deepcopy(doc)

    def upsert_multi(self, docs):
        self.log.append(("upsert_multi", len(docs)))
        self.docs.update(copy.deepcopy(docs))

    def get_multi(self, keys):
        return SimpleNamespace(results={k: FakeResult(copy.deepcopy(self.docs[k])) for k in keys if k in self.docs})

    def remove_multi(self, keys):
        self.log.append(("remove_multi", len(keys)))
        for k in keys:
            self.docs.pop(k, None)


class FakeCbCluster:
    def __init__(self):
        self.log, self.docs = [], {}

    def query_indexes(self):
        return FakeQueryIndexes(self.log)

    def bucket(self, _name):
        return SimpleNamespace(default_collection=lambda: FakeCbCollection(self.log, self.docs))

    def query(self, statement, options):
        options = dict(options)
        self.log.append(("query", statement, options))
        email = (options.get("named_parameters") or {}).get("email")
        rows = [dict(d) for d in self.docs.values() if email is not None and d.get("email") == email and d.get("type") == cb.user_type("index")]
        return SimpleNamespace(rows=lambda: iter(rows), metadata=lambda: SimpleNamespace(
            profile=lambda: {"phaseCounts": {"indexScan": 1, "fetch": 1}, "phaseOperators": {"IndexScan3": 1, "Fetch": 1}, "phaseTimes": {"fetch": "1ms"}}))

    def close(self):
        pass


def couch(approach: str, phase: str = "login", users: int = 5, query_service: bool = True) -> tuple[cb.CouchbaseUsers, FakeCbCluster]:
    sdk = FakeCbCluster()
    return cb.CouchbaseUsers(lambda: sdk, "lab", approach, phase, users=users, query_service=query_service), sdk


def test_couchbase_naive_creates_a_partial_gsi_on_email_and_waits_for_it():
    workload, sdk = couch("naive/index")
    workload.setup()
    created = [e for e in sdk.log if e[0] == "create_index"]
    assert created == [("create_index", "lab", cb.INDEX, ["email"], {"ignore_if_exists": True, "condition": 'type = "index_table_user_index"'})]
    assert ("watch_indexes", "lab", [cb.INDEX]) in sdk.log


def test_couchbase_login_naive_is_one_prepared_query_pattern_two_key_value_gets():
    from couchbase.n1ql import QueryScanConsistency

    naive, sdk = couch("naive/index")
    naive.setup(); naive.load(); sdk.log.clear()
    assert naive.login(a_transaction(), 2).id == id_of(2)
    [(verb, statement, options)] = sdk.log
    assert verb == "query" and "u.email = $email" in statement and 'u.type = "index_table_user_index"' in statement
    assert options["named_parameters"] == {"email": email_of(2)} and options["adhoc"] is False
    assert options["scan_consistency"] == QueryScanConsistency.NOT_BOUNDED

    pattern, sdk = couch("pattern")
    pattern.setup(); pattern.load(); sdk.log.clear()
    assert pattern.login(a_transaction(), 2).id == id_of(2)
    assert sdk.log == [("get", cb.lookup_key(email_of(2))), ("get", cb.user_key("pattern", id_of(2)))]


def test_couchbase_load_waits_for_the_index_to_hold_every_user():
    from couchbase.n1ql import QueryScanConsistency

    naive, sdk = couch("naive/index")
    naive.setup(); naive.load()
    queries = [e for e in sdk.log if e[0] == "query"]
    assert queries and queries[-1][2]["scan_consistency"] == QueryScanConsistency.REQUEST_PLUS
    assert "COUNT(*)" in queries[-1][1]


def test_couchbase_register_then_verify_and_a_second_register_phase_starts_from_none():
    pattern, sdk = couch("pattern", phase="register", users=4)
    pattern.setup()
    for n in range(4):
        pattern.register(a_transaction(), n)
    assert pattern.verify().ok
    sdk.docs.pop(cb.lookup_key(email_of(3)))
    assert not pattern.verify().ok
    again = cb.CouchbaseUsers(lambda: sdk, "lab", "pattern", "register", users=2)
    again.setup()
    assert not [k for k in sdk.docs if "::user::" in k or "::email::" in k]  # what the last run wrote is gone


def test_couchbase_naive_without_a_query_service_is_refused_before_any_request():
    with pytest.raises(NotAvailableError, match="Run --approaches pattern there"):
        couch("naive/index", query_service=False)
    workload, sdk = couch("pattern", query_service=False)
    workload.setup()
    assert not [e for e in sdk.log if e[0] in ("query", "create_index")]


def test_couchbase_profile_of_a_naive_login_comes_from_the_query_service():
    from couchbase.n1ql import QueryProfile

    naive, sdk = couch("naive/index")
    naive.setup(); naive.load()
    profile = cb.profile_login(naive, 1)
    assert profile["requests"] == 1 and profile["rows"] == 1 and profile["phase_counts"] == {"indexScan": 1, "fetch": 1}
    assert sdk.log[-1][2]["profile"] == QueryProfile.TIMINGS
    pattern, _sdk = couch("pattern")
    assert cb.profile_login(pattern, 1)["requests"] == 2


# ---- the panel ---------------------------------------------------------------------------------

def test_the_panel_offers_the_approaches_of_the_engine_its_slot_runs():
    from labkit.clusters.slot import ClusterSlot
    from labkit.sweeps import request_for
    from labkit.widgets.panel import ControlPanel

    def never(_n, node_cpu=None):
        raise AssertionError("no cluster starts in this test")

    offered = {}
    for engine in ("cassandra", "mongodb", "couchbase", None):
        slot = ClusterSlot(never)
        slot.engine = engine
        offered[engine] = tuple(ControlPanel(request_for(PATTERN, phase="login", engine=engine), slot=slot).approaches)
    assert offered == {"cassandra": ("naive/legacy", "naive/sai", "pattern"), "mongodb": ("naive/index", "pattern"),
                       "couchbase": ("naive/index", "pattern"), None: ("naive/legacy", "naive/sai", "pattern")}
    assert ClusterSlot.for_engine("mongodb", "standin").engine == "mongodb"
