"""Index Table on a real sharded MongoDB and a real Couchbase Server, where this machine can run them
(mongod/mongos on PATH for the local provider, a Docker engine for compose). Skipped here otherwise, with
the reason; the stand-in mechanics run in test_index_table_documents_standin.py.

What the servers must show: both phases verify on both approaches, and the mechanism itself: on 2 shards
the mongos asks both shards for a login by indexed e-mail and one shard for each of the pattern's two key
reads; Couchbase's query service profiles a naive login as an index scan plus a fetch."""

from __future__ import annotations

import os
import shutil

import pytest

from labkit.clusters.compose.provider import compose_available
from labkit.clusters.slot import ClusterSlot
from labkit.patterns.index_table import PATTERN
from labkit.patterns.index_table import couchbase as cb
from labkit.patterns.index_table import mongodb as mg
from labkit.runner import run

HAVE_MONGOD = bool(os.environ.get("MONGOD_BIN") or shutil.which("mongod"))


def mongodb_provider() -> str | None:
    if HAVE_MONGOD:
        return "local"
    return "compose" if compose_available()[0] else None


def run_both_phases(cluster, approach: str) -> None:
    for phase, users in (("register", 200), ("login", 300)):
        workload = PATTERN.workload(approach, cluster, 200, phase=phase, users=users)
        try:
            result = run(workload, threads=8, operations=200)
        finally:
            workload.close_process()
        assert result.complete and result.errors == 0, result.error_samples
        assert result.verification.ok, str(result.verification)


@pytest.mark.skipif(mongodb_provider() is None, reason="no mongod/mongos on PATH and no Docker engine: no real MongoDB here")
def test_mongodb_two_shards_index_asks_both_lookup_asks_one_each():
    slot = ClusterSlot.for_engine("mongodb", mongodb_provider())
    try:
        cluster = slot.ensure(2)
        for approach in PATTERN.approaches_for("login", "mongodb"):
            run_both_phases(cluster, approach)
        naive = PATTERN.workload("naive/index", cluster, 1, phase="login", users=300)
        pattern = PATTERN.workload("pattern", cluster, 1, phase="login", users=300)
        try:
            assert mg.explain_login(naive, 5) == {"query_by_index": 2}
            assert mg.explain_login(pattern, 5) == {"read_lookup": 1, "read_user": 1}
        finally:
            naive.close_process()
            pattern.close_process()
    finally:
        slot.stop()


@pytest.mark.skipif(not compose_available()[0], reason="no Docker engine: no real Couchbase Server here")
def test_couchbase_gsi_login_is_an_index_scan_and_a_fetch_lookup_is_two_gets():
    slot = ClusterSlot.for_engine("couchbase", "compose")
    try:
        cluster = slot.ensure(1)
        for approach in PATTERN.approaches_for("login", "couchbase"):
            run_both_phases(cluster, approach)
        naive = PATTERN.workload("naive/index", cluster, 1, phase="login", users=300)
        try:
            profile = cb.profile_login(naive, 5)
        finally:
            naive.close_process()
        assert profile["rows"] == 1 and profile["phase_counts"].get("indexScan") == 1 and profile["phase_counts"].get("fetch") == 1, profile
    finally:
        slot.stop()
