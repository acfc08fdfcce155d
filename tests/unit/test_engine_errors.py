"""Engines say what to do when nothing answers (a closed port on loopback; no server involved)."""

import socket

import pytest

from labkit.errors import LabkitError


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # free once the socket closes: nothing listens there


def test_mongodb_unreachable_names_the_uri_and_the_fix():
    from labkit.engines import mongodb

    port = closed_port()
    with pytest.raises(LabkitError, match=rf"cannot reach MongoDB at mongodb://127.0.0.1:{port}/.*labkit up mongodb"):
        mongodb.connect(f"mongodb://127.0.0.1:{port}/", timeout_s=1)


@pytest.mark.full  # full tier: waits out the Couchbase SDK's connect timeout (11 s)
def test_couchbase_unreachable_names_the_address_and_the_fix():
    from labkit.engines import couchbase

    port = closed_port()
    with pytest.raises(LabkitError, match=rf"cannot reach Couchbase at couchbase://127.0.0.1:{port}.*labkit up couchbase"):
        couchbase.connect(f"couchbase://127.0.0.1:{port}", "labkit", "x", timeout_s=2)


def test_couchbase_reset_of_a_bucket_without_flush_says_how_to_enable_it():
    from couchbase.exceptions import BucketNotFlushableException

    from labkit.engines import couchbase

    class Buckets:
        def flush_bucket(self, name):
            raise BucketNotFlushableException(message=f"flush is disabled for {name}")

    class Cluster:
        def buckets(self):
            return Buckets()

    with pytest.raises(LabkitError, match=r"cannot empty Couchbase bucket 'lab'.*--enable-flush 1.*XDCR"):
        couchbase.reset(Cluster(), "lab")


def test_greenlet_workers_send_session_execute_through_execute_async_with_the_same_arguments():
    """execute() and execute_async() order their arguments differently; the asynchronous form names them."""
    from cassandra.cluster import Session

    from labkit.engines.cassandra import async_execute

    class FakeFuture:
        def __init__(self, outcome):
            self.outcome = outcome

        def add_callbacks(self, callback, errback):
            if isinstance(self.outcome, Exception):
                errback(self.outcome)
            else:
                callback([self.outcome])

        def result(self):
            return self.outcome

    session = object.__new__(Session)  # never connected: only execute_async is called
    calls = []

    def fake_execute_async(query, parameters=None, trace=False, custom_payload=None, timeout=None, **named):
        """execute_async's own order: query, parameters, trace, custom_payload, timeout, ..."""
        named = {"query": query, "parameters": parameters, **({"timeout": timeout} if timeout is not None else {}), **named}
        calls.append(named)
        return FakeFuture(RuntimeError("refused") if named.get("parameters") == ("bad",) else "rows")

    session.execute_async = fake_execute_async
    start = async_execute(session.execute)
    assert start is not None and async_execute(session.prepare) is None and async_execute(print) is None
    got = []
    start(("SELECT 1", (7,), 5.0), {"execution_profile": "p"}, got.append, got.append)
    assert calls[-1] == {"query": "SELECT 1", "parameters": (7,), "timeout": 5.0, "execution_profile": "p"}
    assert got == ["rows"]
    start(("SELECT 1", ("bad",)), {}, got.append, got.append)
    assert calls[-1] == {"query": "SELECT 1", "parameters": ("bad",)}
    assert isinstance(got[-1], RuntimeError)
