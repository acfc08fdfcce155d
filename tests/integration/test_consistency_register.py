"""The register workload's history on a real Cassandra node (#72): every operation recorded with its outcome,
and the checker finds a one-node history at QUORUM linearizable (a single replica orders every operation)."""

from __future__ import annotations

import shutil

import pytest

from labkit.consistency import check_history
from labkit.consistency.cassandra import CassandraRegister
from labkit.consistency.history import read_history
from labkit.errors import ConfigError
from labkit.runner import RunOptions, run

SHARED_CLUSTERS = ("one_node",)


@pytest.fixture(scope="module")
def one_node(shared_clusters):
    return shared_clusters.get("one_node", __name__)


@pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: make test installs it (labkit/system-deps.sh)")
def test_a_one_node_history_of_reads_writes_and_compare_and_set_is_whole_and_linearizable(one_node, tmp_path):
    workload = CassandraRegister(one_node.addresses, tmp_path / "history.jsonl", keys=3, consistency="QUORUM")
    try:
        result = run(workload, threads=4, operations=240, options=RunOptions(processes=1))
    finally:
        workload.close_process()
    ops = read_history(tmp_path / "history.jsonl")
    assert result.verification.ok and result.verification.checks["operations"] == 240 == len(ops)
    assert {op["outcome"] for op in ops} == {"ok"}  # a healthy node answers every request
    assert {op["op"] for op in ops} == {"read", "write", "cas"} and all(op["call"] <= op["return"] for op in ops)
    assert any(op["op"] == "cas" and op["result"] is True for op in ops)  # some compare-and-sets were applied
    verdict = check_history(tmp_path / "history.jsonl", page=tmp_path / "history.html")
    assert verdict.linearizable, verdict.text()
    assert verdict.page is not None and verdict.page.stat().st_size > 1000


def test_a_register_workload_refuses_a_level_cassandra_does_not_have(tmp_path):
    with pytest.raises(ConfigError, match="consistency must be one of"):
        CassandraRegister(["127.0.0.1"], tmp_path / "h.jsonl", consistency="TWO_THIRDS")
    with pytest.raises(ConfigError, match="serial must be one of"):
        CassandraRegister(["127.0.0.1"], tmp_path / "h.jsonl", serial="QUORUM")
