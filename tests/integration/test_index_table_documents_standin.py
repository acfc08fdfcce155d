"""Index Table on the MongoDB and Couchbase stand-ins, typed as a user types it (`labkit run index-table
--engine ...`): the mechanics only (both phases run, every login finds its user, verify() passes, the rows
say stand-in). No figure from these runs is a MongoDB or Couchbase result; the stand-ins cannot shard and
the Couchbase one has no query service, so its naive approach is refused with what to do instead."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from labkit.patterns.index_table import PATTERN


def labkit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "labkit", *args], capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


def sweep(engine: str, phase: str, out, *extra: str, processes: int = 1) -> pd.DataFrame:
    r = labkit("run", "index-table", "--engine", engine, "--phase", phase, "--threads", "4", "--operations", "120", "--processes", str(processes),
               "--set", "users=300" if phase == "login" else "replication=1", *extra, "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    return pd.read_csv(out)


@pytest.mark.parametrize("phase", PATTERN.phases)
def test_mongodb_standin_runs_both_approaches_and_verifies(phase, tmp_path):
    rows = sweep("mongodb", phase, tmp_path / "r.csv")
    assert sorted(rows["approach"]) == ["naive/index", "pattern"]
    assert rows["verify_ok"].all() and (rows["errors"] == 0).all()
    assert set(rows["provider"]) == {"standin"} and set(rows["phase"]) == {phase}
    assert all("mongo-java-server" in v for v in rows["server_version"].astype(str))


def test_couchbase_standin_runs_the_pattern_and_refuses_the_gsi_with_what_to_do(tmp_path):
    rows = sweep("couchbase", "login", tmp_path / "r.csv", "--approaches", "pattern")
    assert list(rows["approach"]) == ["pattern"] and rows["verify_ok"].all() and (rows["errors"] == 0).all()
    assert set(rows["provider"]) == {"standin"}
    rows = sweep("couchbase", "register", tmp_path / "reg.csv", "--approaches", "pattern")
    assert rows["verify_ok"].all()
    r = labkit("run", "index-table", "--engine", "couchbase", "--approaches", "naive/index", "--threads", "2", "--operations", "20",
               "--out", str(tmp_path / "n.csv"))
    assert r.returncode != 0 and "Run --approaches pattern there" in r.stderr + r.stdout, r.stdout + r.stderr
    assert "terminate called" not in r.stderr  # the SDK was never asked for an index (it aborts the process on the mock's reply)


@pytest.mark.parametrize("engine", ["mongodb", pytest.param("couchbase", marks=pytest.mark.full)])  # full tier: the second engine (8 s); MongoDB's keeps the spawn path in make test
def test_two_client_processes_each_connect_themselves(engine, tmp_path):
    """With --processes 2 the workload is pickled into spawned processes: its live driver objects are not."""
    rows = sweep(engine, "login", tmp_path / "r.csv", "--approaches", "pattern", processes=2)
    assert list(rows["processes"]) == [2] and rows["verify_ok"].all() and (rows["errors"] == 0).all()
