"""A Cassandra cluster labkit did not start, used as an external one: the "course's" cluster is started
under one labkit home, the student's labkit (another home) records it with `up --provider external`,
sees it in `status`, runs a pattern against it, is refused a resize or a budget, and `down` forgets it
while the cluster, and the course's own keyspace, stay as they were."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.full  # full tier (make test-full): the external provider (51 s)



SHARED_CLUSTERS = ("one_node",)


@pytest.fixture(scope="module")
def course_cluster(shared_clusters):
    c = shared_clusters.get("one_node", __name__)
    s = c.session()
    s.execute("CREATE KEYSPACE IF NOT EXISTS course_data WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
    s.execute("CREATE TABLE IF NOT EXISTS course_data.grades (student text PRIMARY KEY, grade int)")
    s.execute("INSERT INTO course_data.grades (student, grade) VALUES ('ada', 6)")
    return c


@pytest.fixture(scope="module")
def student_home(tmp_path_factory):
    return tmp_path_factory.mktemp("student-labkit-home")


def student(home, *args, namespace: str | None = None, wait: bool = True):
    env = {**os.environ, "LABKIT_HOME": str(home)}
    if namespace is not None:
        env["LABKIT_NAMESPACE"] = namespace
    cmd = [sys.executable, "-m", "labkit", *args]
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def test_up_records_the_cluster_and_status_shows_it(course_cluster, student_home):
    r = student(student_home, "up", "cassandra", "--provider", "external", "--hosts", course_cluster.addresses[0])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cassandra 5.0.9 · external · 1 node" in r.stdout and "stops nothing" in r.stdout
    status = json.loads(student(student_home, "status", "--json").stdout)["clusters"]
    assert [(c["provider"], c["server_version"], [n["state"] for n in c["nodes"]]) for c in status] == [("external", "5.0.9", ["UP"])]


def test_a_pattern_runs_against_it_and_its_rows_say_external(course_cluster, student_home, tmp_path):
    out = tmp_path / "rows.csv"
    r = student(student_home, "run", "index-table", "--phase", "login", "--provider", "external", "--nodes", "1", "--threads", "2",
                "--operations", "100", "--set", "users=100", "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    rows = list(csv.DictReader(out.open()))
    assert {(row["provider"], row["nodes"], row["server_version"], row["verify_ok"]) for row in rows} == {("external", "1", "5.0.9", "True")}
    assert all(0 <= float(row["foreign_request_share"]) <= 1 for row in rows)  # a shared cluster: every row says how busy it was


def test_two_namespaces_run_the_same_pattern_at_once_and_purge_only_their_own(course_cluster, tmp_path_factory, tmp_path):
    """Two students on the course cluster at the same time: their keyspaces carry their namespaces, both runs
    verify exactly their own registrations, each row counts the other's (and the course's) requests as
    foreign, and one student's purge drops that student's keyspaces only."""
    homes = {name: tmp_path_factory.mktemp(f"home-{name}") for name in ("anna", "bob")}
    for name, home in homes.items():
        r = student(home, "up", "cassandra", "--provider", "external", "--hosts", course_cluster.addresses[0], namespace=name)
        assert r.returncode == 0, r.stdout + r.stderr
    session = course_cluster.session()
    running = {name: student(home, "run", "index-table", "--phase", "register", "--approaches", "pattern", "--provider", "external",
                             "--nodes", "1", "--threads", "4", "--operations", "1000", "--out", str(tmp_path / f"{name}.csv"),
                             namespace=name, wait=False)
               for name, home in homes.items()}
    while any(p.poll() is None for p in running.values()):  # someone else's load on the course's own keyspace meanwhile
        session.execute("SELECT grade FROM course_data.grades WHERE student = 'ada'")
    for name, proc in running.items():
        out, err = proc.communicate()
        assert proc.returncode == 0, out + err
        [row] = list(csv.DictReader((tmp_path / f"{name}.csv").open()))
        assert row["verify_state"] == "ok" and row["operations"] == "1000", row  # exactly its own 1,000 users, none of the other's
        assert float(row["server_counter_requests_own"]) >= 1000 and 0 < float(row["foreign_request_share"]) < 1, row
    keyspaces = {r.keyspace_name for r in session.execute("SELECT keyspace_name FROM system_schema.keyspaces")}
    assert "index_table" not in keyspaces  # nothing written outside a namespace
    for name in homes:
        session.execute(f"CREATE KEYSPACE IF NOT EXISTS {name}_scratch WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
    r = student(homes["anna"], "down", "--provider", "external", "--purge", namespace="anna")
    assert r.returncode == 0 and "purged: cassandra: anna_" in r.stdout and "bob_" not in r.stdout, r.stdout + r.stderr
    keyspaces = {r.keyspace_name for r in session.execute("SELECT keyspace_name FROM system_schema.keyspaces")}
    assert not {k for k in keyspaces if k.startswith("anna_")} and {"bob_scratch", "course_data"} <= keyspaces
    r = student(homes["bob"], "down", "--provider", "external", "--purge", namespace="bob")
    assert r.returncode == 0 and "bob_scratch" in r.stdout


def test_resizing_or_budgeting_it_is_refused(course_cluster, student_home):
    r = student(student_home, "run", "index-table", "--phase", "login", "--provider", "external", "--nodes", "3", "--threads", "2", "--operations", "50")
    assert r.returncode != 0 and "has 1 nodes" in r.stdout + r.stderr and "does not resize" in r.stdout + r.stderr
    r = student(student_home, "up", "cassandra", "--provider", "external", "--hosts", course_cluster.addresses[0], "--node-cpu", "0.5")
    assert r.returncode != 0 and "does not budget" in r.stdout + r.stderr


def test_the_panel_keeps_its_node_count(course_cluster, student_home, monkeypatch):
    monkeypatch.setenv("LABKIT_HOME", str(student_home))
    from labkit.clusters.slot import ClusterSlot
    from labkit.catalogue import describe
    from labkit.sweeps import request_for
    from labkit.widgets import ControlPanel

    slot = ClusterSlot.for_engine("cassandra", "external")
    assert slot.fixed_nodes == 1
    panel = ControlPanel(request_for(describe("index-table"), describe("index-table").named_sweep("quick", "login")), slot=slot)
    assert panel.nodes.value == 1 and panel.nodes.disabled and panel.cpu_per_node.disabled
    assert "labkit does not resize" in panel.status.value


def test_down_forgets_it_and_stops_nothing(course_cluster, student_home):
    r = student(student_home, "down")
    assert r.returncode == 0 and "forgotten" in r.stdout, r.stdout + r.stderr
    assert json.loads(student(student_home, "status", "--json").stdout)["clusters"] == []
    assert course_cluster.live_nodes()
    s = course_cluster.session()
    assert s.execute("SELECT grade FROM course_data.grades WHERE student = 'ada'").one().grade == 6
