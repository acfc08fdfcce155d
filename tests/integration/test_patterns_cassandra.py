"""Index Table and Fan-out workloads on a real 3-node Cassandra: exact counts, order, and what the
server's own traces say each approach touched."""

import pytest

from labkit.patterns.fan_out import cassandra as fan_out
from labkit.patterns.fan_out.cassandra import FanOut, Network
from labkit.patterns.index_table import cassandra as index_table
from labkit.patterns.index_table.cassandra import IndexTable
from labkit.patterns.exercise import a_transaction
from labkit.runner import RunOptions, Watch, run

SHARED_CLUSTERS = ("three_nodes",)
NODES = 3


@pytest.fixture(scope="module")
def cluster(shared_clusters):
    """The shared 3-node cluster (tests/integration/conftest.py), without the keyspaces of the module before."""
    return shared_clusters.get("three_nodes", __name__)


def closing(workload):
    """Run, then always close the workload's driver connections (the runner leaves that to its caller)."""
    class _Ctx:
        def __enter__(self):
            return workload

        def __exit__(self, *exc):
            workload.close_process()

    return _Ctx()


@pytest.mark.full  # full tier: lesson 02 at smoke registers and logs in with all three approaches and asserts every run verified
@pytest.mark.parametrize("approach", index_table.APPROACHES)
def test_index_table_register_then_login_finds_every_user(cluster, approach):
    users = 300
    with closing(IndexTable(cluster.addresses, approach, "register", users=users)) as w:
        r = run(w, threads=4, operations=users)
        assert r.complete and r.errors == 0
        assert r.verification.ok, str(r.verification)
        assert r.verification.checks["users"] == users
        writes = {"naive/legacy": {"insert_user"}, "naive/sai": {"insert_user"}, "pattern": {"insert_user", "insert_lookup"}}[approach]
        assert set(r.ops) == writes and all(r.ops[o].count == users for o in writes)
    with closing(IndexTable(cluster.addresses, approach, "login", users=users)) as w:
        r = run(w, threads=4, operations=200, options=RunOptions(warmup=20))
        assert r.complete and r.errors == 0, r.error_samples
        assert r.verification.ok, str(r.verification)
        reads = {"query_by_index"} if approach.startswith("naive") else {"read_lookup", "read_user"}
        assert set(r.ops) == reads and all(r.ops[o].count == 200 for o in reads)


def test_index_table_verify_notices_a_lost_lookup_row(cluster):
    with closing(IndexTable(cluster.addresses, "pattern", "login", users=50)) as w:
        w.setup()
        w.load()
        w.session.execute("DELETE FROM index_table.users_by_email WHERE email = %s", (index_table.email_of(7),))
        v = w.verify()
        assert not v.ok
        assert any("lookup rows" in p for p in v.problems) and any("not found by e-mail" in p for p in v.problems)
        w.session.execute("DELETE FROM index_table.loaded WHERE approach = 'pattern'")  # let the next load repair it


def test_traces_show_scatter_gather_for_indexes_and_single_nodes_for_the_lookup(cluster):
    for approach in ("naive/legacy", "naive/sai"):
        with closing(IndexTable(cluster.addresses, approach, "login", users=50)) as w:
            w.setup()
            w.load()
            t = index_table.trace_login(w, 7)
            assert t.index_scans == NODES and len(t.nodes) == NODES, t  # every node searched its local index
    with closing(IndexTable(cluster.addresses, "pattern", "login", users=50)) as w:
        w.setup()
        w.load()
        t = index_table.trace_login(w, 7)
        assert t.index_scans == 0 and t.partitions_read == 2 and t.rows_read == 2, t


NETWORK = Network(users=30, follows=12, posts=5)  # follows > page size: a naive page asks 12 partitions for 10 activities


@pytest.mark.full  # full tier: lesson 04 at smoke posts and pages with both approaches and asserts every run verified (each feed, newest first)
@pytest.mark.parametrize("approach", fan_out.APPROACHES)
def test_fan_out_post_then_paginate_keeps_every_activity_in_order(cluster, approach):
    with closing(FanOut(cluster.addresses, approach, "post", NETWORK)) as w:
        r = run(w, threads=4, operations=NETWORK.activities)
        assert r.complete and r.errors == 0, r.error_samples
        assert r.verification.ok, str(r.verification)
        assert r.verification.checks["activities"] == NETWORK.activities
        if approach == "pattern":
            assert r.ops["insert_feed"].count == NETWORK.activities * NETWORK.follows  # one row per follower
        else:
            assert set(r.ops) == {"insert_activity"}
    with closing(FanOut(cluster.addresses, approach, "paginate", NETWORK)) as w:
        r = run(w, threads=4, operations=120)
        assert r.complete and r.errors == 0, r.error_samples
        assert r.verification.ok, str(r.verification)
        assert w.read_whole_feed(a_transaction(), 3) == NETWORK.expected_feed(3)  # newest first, page after page, no repeats
        if approach == "naive":  # one gather per page (a wrap asks again), one query per followed user in each
            assert r.ops["read_followed"].count >= 120 and r.ops["read_friend"].count == r.ops["read_followed"].count * NETWORK.follows


def test_fan_out_verify_notices_a_missing_feed_row(cluster):
    with closing(FanOut(cluster.addresses, "pattern", "paginate", NETWORK)) as w:
        w.setup()
        w.load()
        author = NETWORK.following[4][0]
        created = NETWORK.created_at(author, 2)
        w.session.execute("DELETE FROM fan_out.feed WHERE user_id = 4 AND created_at = %s AND author = %s", (created, author))
        v = w.verify()
        assert not v.ok and "feeds differ" in v.problems[0], str(v)
        w.session.execute("DELETE FROM fan_out.loaded WHERE what = 'activities'")


def test_traces_count_what_one_post_writes_and_one_page_reads(cluster):
    with closing(FanOut(cluster.addresses, "pattern", "paginate", NETWORK)) as fow, closing(FanOut(cluster.addresses, "naive", "paginate", NETWORK)) as fr:
        fow.setup()
        fow.load()
        followers = len(NETWORK.followers[2])
        post = fan_out.trace_post(fow, 2)
        assert post.replica_writes == 1 + followers, post  # replication 1: one replica per partition
        assert fan_out.trace_post(fr, 2).replica_writes == 1
        page = fan_out.trace_page(fow, 2)
        assert page.partitions_read == 1 and page.rows_read == 10, page
        naive_page = fan_out.trace_page(fr, 2)
        assert naive_page.statements == naive_page.partitions_read == len(NETWORK.following[2]) == 12, naive_page  # every followed user
        assert fow.verify().ok  # the traced extra post was taken back out


# ---- client processes on Dask workers (runner.remote), on this module's cluster -------------------------

def test_two_dask_workers_run_index_table_logins_exactly(cluster):
    """A LocalCluster of 2 worker processes, each one client process: every login counted once, the merged
    histogram the sum of the two, both processes released only after both had warmed up."""
    import socket

    from labkit.runner.remote import check_workers, connected, parse_clients

    with connected(parse_clients("local:2")) as client, closing(IndexTable(cluster.addresses, "pattern", "login", users=300)) as w:
        assert len(check_workers(client)) == 2
        r = run(w, threads=8, operations=400, options=RunOptions(processes=2, warmup=40, workers="greenlets", clients=client))
    assert r.complete and r.errors == 0, r.error_samples
    assert r.verification.ok, str(r.verification)
    assert r.count == 400 and all(r.ops[o].count == 400 for o in ("read_lookup", "read_user"))
    assert sum(p.transactions.histogram.get_total_count() for p in r.parts) == r.measurements.transactions.histogram.get_total_count() == 400
    assert [(h, n) for h, n, _ in r.client_hosts] == [(socket.gethostname(), 2)]
    assert r.client_barrier_slack_s is not None and r.client_barrier_slack_s >= 0
    row = r.to_row()
    assert row["client_hosts"] == f"{socket.gethostname()} x2" and row["client_problems"] == ""


@pytest.mark.full  # full tier: a client machine lost mid-run
def test_a_dask_worker_killed_mid_run_leaves_a_partial_run_naming_its_host(cluster):
    import os
    import signal
    import socket
    import threading

    from labkit.runner.remote import connected, parse_clients

    with connected(parse_clients("local:2")) as client, closing(IndexTable(cluster.addresses, "pattern", "login", users=300)) as w:
        pids = client.run(os.getpid)  # worker address -> PID; process 1 runs on the second address (round-robin over sorted addresses)
        victim = pids[sorted(pids)[1]]

        def kill_soon() -> None:
            threading.Timer(1.0, os.kill, (victim, signal.SIGKILL)).start()

        r = run(w, threads=8, operations=200_000,
            options=RunOptions(processes=2, workers="greenlets", clients=client),
            watch=Watch(on_release=kill_soon))
    assert not r.complete and 0 < r.count < 200_000
    assert r.client_problems and f"client process 1 on {socket.gethostname()}" in r.client_problems[0]
    assert r.verification is None  # a partial run is not verified; what was measured is kept

# ---- a student's own designs from a profile file (labkit.profiles), on this module's cluster -------------

def test_a_profiles_designs_run_and_the_traces_show_their_access_paths(cluster):
    """The chat example: both designs load, run their mix without errors, and the servers' traces show the
    query-first design reading one partition per room read where the indexed design asks every node."""
    from pathlib import Path

    from labkit.profiles import load_profile
    from labkit.profiles.cassandra import DesignWorkload, access_paths

    profile = load_profile(Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "chat.yaml")
    paths = {}
    for design in profile.designs:
        with closing(DesignWorkload(cluster.addresses, profile, design)) as w:
            r = run(w, threads=4, operations=300, options=RunOptions(workers="greenlets"))
            assert r.complete and r.errors == 0, r.error_samples
            assert set(r.ops) <= {f"{o}.{s.name}" for o, op in profile.designs[design].operations.items() for s in op.steps}
            paths[design] = {p["operation"]: p for p in access_paths(w, samples=3)}
    assert paths["by_query"]["read_room"]["partitions_per_execution"] == 1 and paths["by_query"]["read_room"]["index_scans_per_execution"] == 0
    assert paths["by_index"]["read_room"]["index_scans_per_execution"] >= NODES - 1  # every message of the room, newest kept by the client
    assert paths["by_index"]["rooms_of_user"]["index_scans_per_execution"] >= NODES - 1  # no LIMIT: a scatter-gather over the ring
    assert paths["by_query"]["post_message"]["replica_writes_per_execution"] == 2  # two tables, replication 1


@pytest.mark.parametrize("name", ["chat", *(pytest.param(n, marks=pytest.mark.full) for n in ("starter", "index_table", "fan_out"))])  # full tier: the other three (37 s)
def test_an_example_profiles_designs_return_the_same_answers_on_the_same_data(cluster, name):
    """Every example profile: the same rows in every design, each operation that declares its answer asked with
    the same values, the declared columns compared as a multiset (in order where newest first). A design that
    answers another question (a room's messages through an index with LIMIT 20: 20 in token order) fails."""
    from pathlib import Path

    import yaml

    from labkit.profiles import load_profile, parse_profile
    from labkit.profiles.answers import compare_designs

    path = Path(__file__).resolve().parents[2] / "datasets" / "profiles" / f"{name}.yaml"
    checks = compare_designs(load_profile(path), cluster, rows=1000, samples=25)
    assert checks, f"{name}: no operation declares its answer"
    wrong = [(c["operation"], c["asked"], c["differs"]) for c in checks if not c["same"]]
    assert not wrong, f"{name}: designs answered differently: {wrong[:3]}"
    for operation in {c["operation"] for c in checks}:  # not only empty answers agreeing
        assert any(min(c["rows"].values()) > 0 for c in checks if c["operation"] == operation), (name, operation)
    if name == "chat":  # the old naive design: LIMIT 20 through the index, and a room once per message (50 authors, so
        data = yaml.safe_load(path.read_text())  # an author writes in a room more than once)
        for design in data["designs"].values():
            design["columns"]["author"]["high"] = 49
        read = data["designs"]["by_index"]["operations"]["read_room"]["steps"][0]
        read["cql"] += " LIMIT 20"
        del read["newest"]
        del data["designs"]["by_index"]["operations"]["rooms_of_user"]["steps"][0]["distinct"]
        old = {c["operation"]: c for c in compare_designs(parse_profile(data), cluster, rows=1000, samples=25) if not c["same"]}
        assert set(old) == {"read_room", "rooms_of_user"}, old.keys()


@pytest.mark.full  # full tier: profile and binding traced side by side (59 s)
@pytest.mark.parametrize("design, approach", [("by_index", "naive/legacy"), ("lookup_table", "pattern")])
def test_the_index_table_profile_takes_the_python_bindings_access_path(cluster, design, approach):
    """The example profile and the pattern's own binding, traced on one cluster: the same nodes, statements,
    partitions and index scans per login (the profile's numbers are per execution, averaged over 3)."""
    from pathlib import Path

    from labkit.profiles import load_profile
    from labkit.profiles.cassandra import DesignWorkload, access_paths

    profile = load_profile(Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "index_table.yaml")
    with closing(DesignWorkload(cluster.addresses, profile, design)) as w:
        w.setup()
        w.load()
        (path,) = access_paths(w, samples=3)
    with closing(IndexTable(cluster.addresses, approach, "login", users=300)) as w:
        w.setup()
        w.load()
        binding = index_table.trace_login(w, 7)
    assert path["statements_per_execution"] == binding.statements
    assert path["partitions_per_execution"] == binding.partitions_read
    assert (path["index_scans_per_execution"] > 0) == (binding.index_scans > 0)
    assert path["nodes_touched"] >= len(binding.nodes) if approach.startswith("naive") else path["partitions_per_execution"] == 2


@pytest.mark.full  # full tier: profile and binding traced side by side (73 s)
@pytest.mark.parametrize("design, approach", [("on_read", "naive"), ("on_write", "pattern")])
def test_the_fan_out_profile_takes_the_python_bindings_access_path(cluster, design, approach):
    """The Fan-out profile and the pattern's binding, traced on one cluster, step by step: a post writes one
    activity partition, and under fan-out on write reads the author's followers (one partition) and writes one
    feed partition per follower; a page reads one partition per followed user on read (both ask every followed
    user: 10 in the binding's network here, about 20 in the profile's), one feed partition on write. The binding
    holds the follow list in memory where the profile reads it (one partition)."""
    from pathlib import Path

    from labkit.profiles import load_profile
    from labkit.profiles.cassandra import DesignWorkload, access_paths

    profile = load_profile(Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "fan_out.yaml")
    with closing(DesignWorkload(cluster.addresses, profile, design)) as w:
        w.setup()
        w.load()
        paths = {p["operation"]: p for p in access_paths(w, samples=1)}  # one traced execution: a post traces ~22 statements
    with closing(FanOut(cluster.addresses, approach, "paginate", Network(users=60, follows=10, posts=2))) as w:
        w.setup()
        w.load()
        post, page = fan_out.trace_post(w, user=1), fan_out.trace_page(w, reader=1)
    posting, steps = paths["post_activity"], paths["post_activity"]["steps"]
    assert steps["write_activity"]["statements_per_execution"] == 1 == steps["write_activity"]["replica_writes_per_execution"]
    if approach == "naive":
        assert post.statements == post.replica_writes == 1 and posting["statements_per_execution"] == posting["replica_writes_per_execution"] == 1
        newest, friends = paths["read_page"]["steps"]["newest"], paths["read_page"]["steps"]["friends"]
        # both ask every followed user (the answer is the 10 newest of all of them): the profile's ~20, the binding's 10 here
        assert newest["statements_per_execution"] == newest["partitions_per_execution"] == friends["rows_read_per_execution"] >= 10
        assert page.statements == page.partitions_read == len(w.network.following[1]) == 10
        assert friends["partitions_per_execution"] == 1
    else:
        assert steps["followers"]["partitions_per_execution"] == 1 == post.partitions_read
        assert steps["to_feed"]["replica_writes_per_execution"] == steps["to_feed"]["statements_per_execution"] >= 5
        assert post.replica_writes == post.statements - 1 and posting["replica_writes_per_execution"] == posting["statements_per_execution"] - 1
        assert paths["read_page"]["statements_per_execution"] == paths["read_page"]["partitions_per_execution"] == 1
        assert page.statements == page.partitions_read == 1
        assert paths["read_page"]["rows_read_per_execution"] == 10


def test_a_profile_statement_the_server_refuses_is_named_before_any_measured_run(cluster):
    """A query by a column that is neither key nor indexed: the server would need ALLOW FILTERING. The
    refusal names the step's place in the profile and says what to do, at setup, before anything is measured."""
    import copy
    from pathlib import Path

    import yaml

    from labkit.errors import ConfigError
    from labkit.profiles import parse_profile
    from labkit.profiles.cassandra import DesignWorkload

    data = copy.deepcopy(yaml.safe_load((Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "chat.yaml").read_text()))
    data["designs"]["by_query"]["operations"]["rooms_of_user"]["steps"][0]["cql"] = "SELECT room, sent FROM messages_by_room WHERE author = ?"
    profile = parse_profile(data)
    with closing(DesignWorkload(cluster.addresses, profile, "by_query")) as w:
        with pytest.raises(ConfigError) as refused:
            run(w, threads=2, operations=10)
    message = str(refused.value)
    assert "designs.by_query.operations.rooms_of_user.steps[0]" in message and "ALLOW FILTERING" in message and "an index on it" in message


def test_the_design_exercise_fails_an_indexed_or_filtering_design_from_the_servers_traces(cluster):
    """Notebook 08's check on 3 nodes: the naive design (secondary indexes) and a design that answers the zone
    query with ALLOW FILTERING both run their mix without an error, and both fail on what the traces show."""
    import yaml

    from labkit.profiles import exercise as fleet

    naive = yaml.safe_load(fleet.BASE.read_text())["designs"]["one_table"]
    report = fleet.check_exercise(lambda: yaml.safe_dump(naive), cluster)
    failed = {step: detail for i, (step, ok, detail) in enumerate(report.steps) if not ok and i not in report.skipped}
    assert not report.passed and set(failed) == {f"{q} reads at most 1 partition(s) (servers' traces)" for q in fleet.QUERIES}, report
    assert all("partitioned by what it asks by" in d for d in failed.values())
    assert 0 < report.score() < 2, report  # the mix runs: nothing else (growth is judged only for partition reads)
    filtering = """
schema: CREATE TABLE positions_by_van (van int, at timestamp, zone int, speed int, PRIMARY KEY ((van), at)) WITH CLUSTERING ORDER BY (at DESC)
columns: {van: {kind: uniform, high: 499}, zone: {kind: uniform, high: 49}, at: {kind: timestamp}, speed: {kind: uniform, high: 130}}
load: {rows: 2000, steps: [{name: p, cql: "INSERT INTO positions_by_van (van, at, zone, speed) VALUES (?, ?, ?, ?)", bind: [van, at, zone, speed]}]}
operations:
  record_position: {weight: 8, steps: [{name: p, cql: "INSERT INTO positions_by_van (van, at, zone, speed) VALUES (?, ?, ?, ?)", bind: [van, at, zone, speed]}]}
  van_track: {weight: 1, steps: [{name: latest, cql: "SELECT at, zone, speed FROM positions_by_van WHERE van = ? LIMIT 10", bind: [van]}]}
  vans_in_zone: {weight: 1, steps: [{name: seen, cql: "SELECT van FROM positions_by_van WHERE zone = ? LIMIT 50 ALLOW FILTERING", bind: [zone]}]}
"""
    report = fleet.check_exercise(lambda: filtering, cluster)
    failed = [step for step, ok, _ in report.steps if not ok]
    assert failed == ["vans_in_zone reads at most 1 partition(s) (servers' traces)", "van_track reads partitions that stop growing (the server's schema)",
                      "vans_in_zone reads partitions that stop growing (the server's schema)"], report  # no day bucket; the zone's read is no partition read
    assert 0 < report.score() < 10, report  # half right: partial credit
    unbounded = """
schema: |
  CREATE TABLE positions_by_van (van int, at timestamp, zone int, speed int, PRIMARY KEY ((van), at)) WITH CLUSTERING ORDER BY (at DESC);
  CREATE TABLE vans_by_zone (zone int, van int, PRIMARY KEY ((zone), van));
columns: {van: {kind: uniform, high: 499}, zone: {kind: uniform, high: 49}, at: {kind: timestamp}, speed: {kind: uniform, high: 130}}
load: {rows: 2000, steps: [{name: p, cql: "INSERT INTO positions_by_van (van, at, zone, speed) VALUES (?, ?, ?, ?)", bind: [van, at, zone, speed]},
                           {name: z, cql: "INSERT INTO vans_by_zone (zone, van) VALUES (?, ?)", bind: [zone, van]}]}
operations:
  record_position: {weight: 8, steps: [{name: p, cql: "INSERT INTO positions_by_van (van, at, zone, speed) VALUES (?, ?, ?, ?)", bind: [van, at, zone, speed]},
                                       {name: z, cql: "INSERT INTO vans_by_zone (zone, van) VALUES (?, ?)", bind: [zone, van]}]}
  van_track: {weight: 1, steps: [{name: latest, cql: "SELECT at, zone, speed FROM positions_by_van WHERE van = ? LIMIT 10", bind: [van]}]}
  vans_in_zone: {weight: 1, steps: [{name: seen, cql: "SELECT van FROM vans_by_zone WHERE zone = ?", bind: [zone]}]}
"""
    report = fleet.check_exercise(lambda: unbounded, cluster)  # the old solution: a partition per van, per zone, for good
    failed = {step: detail for step, ok, detail in report.steps if not ok}
    assert set(failed) == {f"{q} reads partitions that stop growing (the server's schema)" for q in fleet.QUERIES}, report
    assert all("grows without end" in d and "time bucket" in d for d in failed.values()), failed


def test_the_fleet_solution_answers_what_the_naive_design_answers(cluster):
    """The exercise's two designs on the same 1,000 reports: a van's latest 10 of today in the same order, and the
    same set of vans in a zone today (the naive design through its indexes, keeping the newest and each van once)."""
    from labkit.profiles import exercise as fleet
    from labkit.profiles.answers import compare_designs
    from tests.unit.test_fleet_exercise import solution_design

    checks = compare_designs(fleet.exercise_profile(solution_design()), cluster, rows=1000, samples=25)
    wrong = [(c["operation"], c["asked"], c["differs"]) for c in checks if not c["same"]]
    assert {c["operation"] for c in checks} == set(fleet.QUERIES) and not wrong, wrong[:3]
    for operation in fleet.QUERIES:
        assert any(min(c["rows"].values()) > 0 for c in checks if c["operation"] == operation), operation


@pytest.mark.full  # full tier: partition growth (18 s); notebook 08 shows it at smoke size
def test_a_rooms_partition_grows_with_its_history_and_a_day_bucket_does_not(cluster):
    """The partition lesson on 3 nodes, at a small size: the room's partition holds every day's messages and the
    day's one day's (the nodes' histograms); both designs' newest and oldest kept pages are one partition of the
    same 20 messages (checked inside); the oldest kept page of the room's partition steps over every expired
    message as tombstones (its trace), the day bucket's over none."""
    from labkit.profiles.cassandra_partitions import BUCKETED, UNBOUNDED, partition_growth

    days, per_day, kept = 10, 100, 3
    rows = {(r["read"], r["table"]): r for r in partition_growth(cluster, days=days, per_day=per_day, retention_days=kept, repeats=5)}
    assert len(rows) == 4 and all(r["nodes"] == NODES and r["engine"] == "cassandra" and r["server_version"] for r in rows.values())
    whole, day = rows[("newest page", UNBOUNDED)], rows[("newest page", BUCKETED)]
    assert whole["largest partition cells (server)"] > 3 * day["largest partition cells (server)"] > 0, (whole, day)
    for r in rows.values():
        assert r["partitions read (trace)"] == 1 and r["rows returned (trace)"] == 20, r
    assert whole["tombstone cells read (trace)"] == day["tombstone cells read (trace)"] == 0
    oldest_whole, oldest_day = rows[("oldest kept page", UNBOUNDED)], rows[("oldest kept page", BUCKETED)]
    assert oldest_whole["tombstone cells read (trace)"] >= (days - kept) * per_day, oldest_whole
    assert oldest_day["tombstone cells read (trace)"] == 0, oldest_day


def test_the_replication_exercise_gives_a_half_right_choice_part_of_the_points(cluster):
    """Notebook 00's check on these 3 nodes: a cart with 2 copies at QUORUM overlaps but cannot survive node 3 down
    (QUORUM of 2 is both), views with 3 copies at ONE survive it but keep a copy the guarantee does not need. Each
    failure is named from what the servers did; node 3 is back afterwards."""
    from labkit.lessons.replication import exercise as replication

    choices = {"cart": {"replication_factor": 2, "write": "QUORUM", "read": "QUORUM"},
               "views": {"replication_factor": 3, "write": "ONE", "read": "one"}}
    report = replication.check_exercise(lambda: choices, cluster)
    failed = {step: detail for step, ok, detail in report.steps if not ok}
    assert set(failed) == {"cart: writes and reads work with node 3 down", "views: the fewest copies that survive a node down"}, report
    assert "Unavailable" in failed["cart: writes and reads work with node 3 down"], report
    assert "the servers hold 3 copies" in failed["views: the fewest copies that survive a node down"], report
    assert "2 + 2 > 2" in str(report)  # the overlap uses the servers' copies: it holds, and earns its points
    assert 0 < report.score() < 10, report
    assert len(cluster.live_nodes()) == NODES  # node 3 started again
