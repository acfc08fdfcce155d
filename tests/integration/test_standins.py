"""The stand-ins keep driver code executable where MongoDB and Couchbase cannot run; before a notebook
relies on one, its contention correctness is re-checked here (no lost update under 20 threads), and
so is its labelling and its lifecycle (one JVM, stopped by PID, loopback only)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psutil
import pytest

from labkit.host.processes import processes_under
from labkit.clusters.standin.couchbase import StandinCouchbase
from labkit.clusters.standin.mongodb import StandinMongo

THREADS = 20


def listening_addresses(pid: int) -> set[str]:
    return {c.laddr.ip for c in psutil.Process(pid).net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN}


@pytest.fixture(scope="module")
def mongo():
    with StandinMongo() as server:
        yield server
    assert not processes_under(server.directory)


@pytest.fixture(scope="module")
def couchbase():
    with StandinCouchbase() as server:
        yield server
    assert not processes_under(server.directory)


def test_the_mongodb_standin_says_what_it_is_and_listens_on_loopback_only(mongo):
    info = mongo.info()
    assert info.provider == "standin" and "STAND-IN mongo-java-server 1.47.0 (not mongodb)" in info.display
    assert "mechanics only, performance not meaningful" in mongo.banner
    assert info.server_version == "mongo-java-server 1.47.0, stand-in for MongoDB: mechanics only, performance not meaningful"  # every row says it
    pid = int(mongo.pidfile.read_text())
    assert listening_addresses(pid) == {"127.0.0.1"}


@pytest.mark.full  # full tier: lesson 03 at smoke writes concurrent comments ($push, $inc) to the stand-in and asserts every run verified
def test_the_mongodb_standin_loses_no_concurrent_push_or_inc(mongo):
    client = mongo.client()
    try:
        posts = client.standin_check.posts
        posts.drop()
        posts.insert_one({"_id": 1, "comments": [], "count": 0})

        def comment(worker: int) -> None:
            for i in range(200):
                posts.update_one({"_id": 1}, {"$push": {"comments": f"{worker}-{i}"}, "$inc": {"count": 1}})

        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(comment, range(THREADS)))
        doc = posts.find_one({"_id": 1})
        assert doc["count"] == THREADS * 200 and len(set(doc["comments"])) == THREADS * 200
    finally:
        client.close()


@pytest.mark.full  # full tier: lesson 03 at smoke counts comments on the stand-in and asserts every run verified
def test_the_mongodb_standin_counter_is_exact_when_read_before_the_increment(mongo):
    from pymongo import ReturnDocument

    client = mongo.client()
    try:
        counters = client.standin_check.counters
        counters.drop()
        counters.insert_one({"_id": "post-1", "value": 0})

        def take(_worker: int) -> list[int]:
            return [counters.find_one_and_update({"_id": "post-1"}, {"$inc": {"value": 1}}, return_document=ReturnDocument.BEFORE)["value"] + 1 for _ in range(100)]

        with ThreadPoolExecutor(THREADS) as pool:
            values = [v for chunk in pool.map(take, range(THREADS)) for v in chunk]
        assert sorted(values) == list(range(1, THREADS * 100 + 1))
    finally:
        client.close()


def test_the_couchbase_standin_says_what_it_is_and_listens_on_loopback_only(couchbase):
    assert "STAND-IN CouchbaseMock 1.5.27 (not couchbase)" in couchbase.info().display
    pid = int(couchbase.pidfile.read_text())
    assert listening_addresses(pid) == {"127.0.0.1"}


@pytest.mark.full  # full tier: lesson 03 at smoke writes to the Couchbase stand-in (increment, compare-and-swap) and asserts every run verified
def test_the_couchbase_standin_counts_and_compares_and_swaps_exactly(couchbase):
    from couchbase.exceptions import CasMismatchException, DocumentNotFoundException
    from couchbase.options import DeltaValue, IncrementOptions, SignedInt64

    collection = couchbase.collection()
    collection.upsert("post::1", {"comments": []})
    retries = [0] * THREADS

    def work(worker: int) -> list[int]:
        taken = []
        for i in range(50):
            taken.append(collection.binary().increment("post::1::count", IncrementOptions(initial=SignedInt64(1), delta=DeltaValue(1))).content)
            while True:  # the list-based association: read, modify, write back only if nobody wrote meanwhile
                got = collection.get("post::1")
                doc = got.content_as[dict]
                doc["comments"].append(f"{worker}-{i}")
                try:
                    collection.replace("post::1", doc, cas=got.cas)
                    break
                except CasMismatchException:
                    retries[worker] += 1
        return taken

    try:
        collection.remove("post::1::count")
    except DocumentNotFoundException:
        pass
    with ThreadPoolExecutor(THREADS) as pool:
        values = [v for chunk in pool.map(work, range(THREADS)) for v in chunk]
    assert sorted(values) == list(range(1, THREADS * 50 + 1))
    comments = collection.get("post::1").content_as[dict]["comments"]
    assert len(comments) == len(set(comments)) == THREADS * 50
    assert sum(retries) > 0  # 20 writers on one document do collide; CAS turned each collision into a retry
    found = collection.get_multi(["post::1", "post::1::count", "no-such-key"])
    assert set(found.results) == {"post::1", "post::1::count"} and set(found.exceptions) == {"no-such-key"}


def test_the_couchbase_engine_reset_empties_the_lab_bucket(couchbase):
    """engines.couchbase.reset flushes the bucket (a refusal would raise LabkitError saying what to do)."""
    from couchbase.exceptions import DocumentNotFoundException

    from labkit.engines import couchbase as cb

    collection = couchbase.collection()
    collection.upsert("reset::probe", {"n": 1})
    cb.reset(couchbase.cluster(), couchbase.bucket)
    with pytest.raises(DocumentNotFoundException):
        collection.get("reset::probe")
