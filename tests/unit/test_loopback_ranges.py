"""Each labkit home gets its own loopback range, the same one every time, and never one another home holds."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from labkit.host import loopback
from labkit.errors import ConfigError


@pytest.fixture
def claims(tmp_path, monkeypatch):
    directory = tmp_path / "claims"
    monkeypatch.setattr(loopback, "CLAIMS", directory)
    monkeypatch.delenv(loopback.OVERRIDE, raising=False)
    monkeypatch.setattr(loopback, "_answers", lambda prefix: False)  # nothing outside labkit listens in these tests
    return directory


def test_a_home_keeps_its_range_and_two_homes_get_different_ones(tmp_path, claims):
    first = loopback.own_range(tmp_path / "alice")
    assert first == loopback.own_range(tmp_path / "alice")
    second = loopback.own_range(tmp_path / "bob")
    assert first.prefix != second.prefix and not first.prefix.startswith("127.0.")
    assert first.address(3) == f"{first.prefix}.3" and first.cidr == f"{first.prefix}.0/24"
    assert {c.prefix: c.home for c in loopback.claims()} == {first.prefix: first.home, second.prefix: second.home}
    assert stat.S_IMODE(os.stat(claims).st_mode) == 0o1777  # every user of the host can claim, none can remove another's


def test_a_range_another_home_claimed_is_skipped_for_the_next(tmp_path, claims):
    home = (tmp_path / "carol").resolve()
    wanted = loopback.candidates(home)[0]
    claims.mkdir(parents=True)
    dave = tmp_path / "dave"
    dave.mkdir()
    (claims / wanted).write_text(json.dumps({"home": str(dave), "user": "dave", "uid": os.getuid() + 1}))
    got = loopback.own_range(home)
    assert got.prefix == loopback.candidates(home)[1]
    assert loopback.owner_of(f"{wanted}.2").user == "dave"


def test_a_range_that_answers_without_a_claim_is_skipped(tmp_path, claims, monkeypatch):
    home = (tmp_path / "erin").resolve()
    busy = loopback.candidates(home)[0]
    monkeypatch.setattr(loopback, "_answers", lambda prefix: prefix == busy)
    assert loopback.own_range(home).prefix == loopback.candidates(home)[1]


def test_our_own_claim_for_a_home_since_deleted_is_reused(tmp_path, claims):
    gone = tmp_path / "gone"
    prefix = loopback.own_range(gone).prefix
    shutil.rmtree(gone)  # the home is removed; its claim stays behind
    home = (tmp_path / "new").resolve()
    (claims / prefix).write_text(json.dumps({"home": str(gone.resolve()), "user": "me", "uid": os.getuid()}))
    assert loopback._try_claim(prefix, home, "me")  # the old home does not exist: the claim is stale
    (tmp_path / "gone").mkdir(exist_ok=True)
    (claims / prefix).write_text(json.dumps({"home": str(gone.resolve()), "user": "me", "uid": os.getuid()}))
    assert not loopback._try_claim(prefix, home, "me")  # it exists again: still its range


def test_the_override_chooses_by_hand_and_bad_values_say_what_is_expected(tmp_path, claims, monkeypatch):
    monkeypatch.setenv(loopback.OVERRIDE, "127.9.8")
    assert loopback.own_range(tmp_path / "x").address(1) == "127.9.8.1"
    monkeypatch.setenv(loopback.OVERRIDE, "10.0.0")
    with pytest.raises(ConfigError, match=r"LABKIT_LOOPBACK must be three parts of a loopback address, 127.X.Y"):
        loopback.own_range(tmp_path / "x")
    with pytest.raises(ConfigError, match="addresses 1 to 254"):
        loopback.LoopbackRange("127.9.8", "h", "u").address(255)


def test_a_range_where_only_an_hbase_region_server_listens_is_taken():
    """HBase's region server 1 sits on .1 as a Cassandra node does; a range serving only HBase is someone's too."""
    import socket

    from labkit.clusters.local.hbase import REGION_SERVER_PORT

    assert REGION_SERVER_PORT in loopback.PROBE_PORTS
    prefix = "127.251.252"
    assert not loopback._answers(prefix)
    with socket.socket() as listener:
        listener.bind((f"{prefix}.1", REGION_SERVER_PORT))
        listener.listen()
        assert loopback._answers(prefix)
