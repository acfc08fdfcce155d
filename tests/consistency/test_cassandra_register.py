"""The Cassandra register workload's send-once rule without a server: what each error means for the history
(refused before anything happened: fail; anything after the request left: unknown; a statement the server refuses as
written: raised), that the driver may not resend, and that with compare-and-set in the mix every write goes through
Paxos on seeded keys and reads default to SERIAL."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from cassandra import ConsistencyLevel, InvalidRequest, Unavailable, WriteTimeout
from cassandra.policies import FallthroughRetryPolicy

from labkit.consistency.cassandra import CassandraRegister
from labkit.consistency.history import FAIL, OK, UNKNOWN, read_history


class Session:
    """Records prepared statements; `execute` raises the next of `errors` (or returns an applied result)."""

    def __init__(self, errors=()):
        self.errors, self.prepared, self.sent = list(errors), [], []

    def prepare(self, text):
        statement = SimpleNamespace(text=text, consistency_level=None, serial_consistency_level=None, retry_policy=None)
        self.prepared.append(statement)
        return statement

    def execute(self, statement, params, timeout=None):
        self.sent.append((statement.text, params))
        if self.errors:
            raise self.errors.pop(0)
        return SimpleNamespace(was_applied=True, one=lambda: None)


def register(tmp_path, mix=(0.5, 0.25), errors=()):
    workload = CassandraRegister(["127.0.0.1"], tmp_path / "h.jsonl", keys=2, mix=mix)
    workload._session = Session(errors)
    return workload


def unavailable(level):
    return Unavailable("not enough replicas", consistency=level, required_replicas=2, alive_replicas=1)


def test_each_error_says_what_the_history_may_assume(tmp_path):
    workload = register(tmp_path, errors=[unavailable(ConsistencyLevel.SERIAL), unavailable(ConsistencyLevel.QUORUM),
                                          WriteTimeout("timed out", consistency=ConsistencyLevel.QUORUM, required_responses=2,
                                                       received_responses=1, write_type=5)])
    workload._prepared = {name: SimpleNamespace(text=name) for name in ("read", "write", "cas", "insert")}
    assert workload._send("cas", (2, "k0", 1))[0] == FAIL  # refused before its Paxos round: nothing applied
    assert workload._send("cas", (2, "k0", 1))[0] == UNKNOWN  # refused at the commit: a quorum had accepted it
    assert workload._send("cas", (2, "k0", 1))[0] == UNKNOWN  # timed out: may have been applied
    plain = register(tmp_path, mix=(0.5, 0.5), errors=[unavailable(ConsistencyLevel.QUORUM), InvalidRequest("no such table")])
    plain._prepared = workload._prepared
    assert plain._send("write", (2, "k0"))[0] == FAIL  # a plain write is refused before any replica is asked
    with pytest.raises(InvalidRequest):
        plain._send("read", ("k0",))  # a bug, not an unknown outcome


def test_with_compare_and_set_every_write_goes_through_paxos_on_seeded_keys_and_nothing_is_resent(tmp_path):
    workload = register(tmp_path)
    workload.open_process()
    try:
        texts = {s.text.split()[0] + (" IF EXISTS" if s.text.endswith("IF EXISTS") else ""): s for s in workload._session.prepared}
        assert "UPDATE IF EXISTS" in texts  # the write, through Paxos
        assert all(isinstance(s.retry_policy, FallthroughRetryPolicy) for s in workload._session.prepared)
        read = next(s for s in workload._session.prepared if s.text.startswith("SELECT"))
        assert read.consistency_level == ConsistencyLevel.SERIAL and workload.read_consistency == "SERIAL"
        assert [text for text, _ in workload._session.sent] == [next(s.text for s in workload._session.prepared if "NOT EXISTS" in s.text)] * 2
    finally:
        workload._recorder.close()
    seeds = read_history(tmp_path / "h.jsonl")
    assert [(op["key"], op["op"], op["expected"], op["new"], op["outcome"], op["result"]) for op in seeds] == [
        ("k0", "cas", None, 0, OK, True), ("k1", "cas", None, 0, OK, True)]
    plain = CassandraRegister(["127.0.0.1"], tmp_path / "p.jsonl", mix=(0.5, 0.5), consistency="ONE")
    assert not plain.with_cas and plain.read_consistency == "ONE"  # no compare-and-set: plain reads and writes at the level asked


def test_a_second_namespace_on_the_same_cluster_keeps_registers_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_NAMESPACE", "anna")
    cluster = SimpleNamespace(addresses=["127.0.0.1"], provider="local")
    workload = CassandraRegister.on(cluster, tmp_path / "h.jsonl", mix=(0.5, 0.5))
    assert workload.keyspace == "anna_consistency_register"
    workload._session = Session()
    workload.open_process()
    workload._recorder.close()
    assert all("anna_consistency_register.reg" in s.text for s in workload._session.prepared)
    monkeypatch.delenv("LABKIT_NAMESPACE")
    assert CassandraRegister.on(cluster, tmp_path / "h.jsonl").keyspace == "consistency_register"
