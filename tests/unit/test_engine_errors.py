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


def test_couchbase_unreachable_names_the_address_and_the_fix():
    from labkit.engines import couchbase

    port = closed_port()
    with pytest.raises(LabkitError, match=rf"cannot reach Couchbase at couchbase://127.0.0.1:{port}.*labkit up couchbase"):
        couchbase.connect(f"couchbase://127.0.0.1:{port}", "labkit", "x", timeout_s=2)
