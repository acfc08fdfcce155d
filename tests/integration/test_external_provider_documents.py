"""The external provider's MongoDB URI and Couchbase connection string, end to end through the CLI.

No MongoDB or Couchbase server can run here, so the servers treated as "external" are the labelled
stand-ins (mongo-java-server, CouchbaseMock) started under another labkit home. What these tests check is
the provider's mechanics only (record, status, a pattern's client processes connecting with the recorded
string and the login from the environment, a resize or budget refused, down forgetting without stopping);
the rows they produce describe a stand-in and are never kept or plotted.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import pytest

from labkit.host.processes import processes_under
from labkit.clusters.standin.couchbase import PASSWORD, USERNAME, StandinCouchbase
from labkit.clusters.standin.mongodb import StandinMongo

pytestmark = pytest.mark.full  # full tier (make test-full): the external provider (38 s)


def student(home, *args, env=None):
    full = {**os.environ, "LABKIT_HOME": str(home), **(env or {})}
    return subprocess.run([sys.executable, "-m", "labkit", *args], env=full, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


@pytest.fixture()
def student_home(tmp_path):
    return tmp_path / "student-labkit-home"


def test_a_mongodb_uri_is_recorded_used_and_forgotten(student_home, tmp_path):
    with StandinMongo() as server:
        uri = server.uri
        r = student(student_home, "up", "mongodb", "--provider", "external", "--uri", uri)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "external · 1 node" in r.stdout and "stops nothing" in r.stdout
        status = json.loads(student(student_home, "status", "--json").stdout)["clusters"]
        assert [(c["engine"], c["provider"], len(c["nodes"])) for c in status] == [("mongodb", "external", 1)]

        out = tmp_path / "rows.csv"
        r = student(student_home, "run", "enumerable-keys", "--engine", "mongodb", "--provider", "external", "--phase", "paginate",
                    "--nodes", "1", "--threads", "2", "--operations", "40", "--set", "comments=30", "--out", str(out))
        assert r.returncode == 0, r.stdout + r.stderr
        rows = list(csv.DictReader(out.open()))
        assert rows and {(row["engine"], row["provider"], row["nodes"], row["verify_ok"]) for row in rows} == {("mongodb", "external", "1", "True")}

        r = student(student_home, "run", "enumerable-keys", "--engine", "mongodb", "--provider", "external", "--nodes", "2", "--threads", "2", "--operations", "10")
        assert r.returncode != 0 and "1 shard(s)" in r.stdout + r.stderr and "does not resize" in r.stdout + r.stderr
        r = student(student_home, "up", "mongodb", "--provider", "external", "--uri", uri, "--node-cpu", "0.5")
        assert r.returncode != 0 and "does not budget" in r.stdout + r.stderr

        r = student(student_home, "down")
        assert r.returncode == 0 and "forgotten" in r.stdout and "nothing was stopped" in r.stdout
        assert processes_under(server.directory), "down stopped a server labkit (this home) did not start"
        assert json.loads(student(student_home, "status", "--json").stdout)["clusters"] == []


def test_a_couchbase_connection_string_needs_a_login_and_then_runs(student_home, tmp_path):
    with StandinCouchbase() as server:
        given = server.connection_string
        r = student(student_home, "up", "couchbase", "--provider", "external", "--uri", given)
        assert r.returncode != 0 and "LABKIT_COUCHBASE_USERNAME" in r.stdout + r.stderr  # no login: said before anything connects

        login = {"LABKIT_COUCHBASE_USERNAME": USERNAME, "LABKIT_COUCHBASE_PASSWORD": PASSWORD, "LABKIT_COUCHBASE_BUCKET": "lab"}
        r = student(student_home, "up", "couchbase", "--provider", "external", "--uri", given, env=login)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "couchbase" in r.stdout and "external" in r.stdout

        out = tmp_path / "rows.csv"
        r = student(student_home, "run", "enumerable-keys", "--engine", "couchbase", "--provider", "external", "--phase", "paginate",
                    "--nodes", "1", "--threads", "2", "--operations", "40", "--set", "comments=30", "--out", str(out), env=login)
        assert r.returncode == 0, r.stdout + r.stderr
        rows = list(csv.DictReader(out.open()))
        assert rows and {(row["engine"], row["provider"], row["verify_ok"]) for row in rows} == {("couchbase", "external", "True")}

        r = student(student_home, "down", env=login)
        assert r.returncode == 0 and "nothing was stopped" in r.stdout
        assert processes_under(server.directory), "down stopped a server labkit (this home) did not start"
