"""UUID Key on a real two-datacenter Cassandra: a partition makes incrementing keys collide and records
vanish, UUIDs keep every record; without a partition both keep every record; Ireland pays the WAN round
trip for every counter key."""

import itertools
import threading
import uuid

import pytest

from labkit.faults import Toxiproxy, heal_all
from labkit.faults.partition import rules
from labkit.patterns.uuid_key import cassandra as uuid_key
from labkit.patterns.uuid_key import exercise as uuid_key_exercise
from test_exercise_checks import failed_at

USERS = 60  # per region
THREADS = 4


SHARED_CLUSTERS = ("two_datacenters",)


@pytest.fixture(scope="module")
def two_regions(shared_clusters):
    yield shared_clusters.get("two_datacenters", __name__)
    heal_all()


@pytest.fixture(scope="module")
def toxiproxy():
    with Toxiproxy() as toxi:
        yield toxi


@pytest.mark.full  # full tier: lesson 01 at smoke runs both approaches without a partition and asserts every run verified
@pytest.mark.parametrize("approach", ["naive", "pattern"])
def test_without_a_partition_every_registration_is_kept(two_regions, toxiproxy, approach):
    workload, result = uuid_key.availability_test(two_regions, approach, USERS, THREADS, toxiproxy, one_way_ms=5)
    try:
        assert result.complete and result.errors == 0, result.error_samples
        assert result.verification.ok, str(result.verification)
        assert result.verification.checks["stored"] == 2 * USERS and result.verification.checks["collisions"] == 0
        if approach == "naive":
            keys = sorted(k for region in uuid_key.REGIONS for k in workload.registered.keys[region])
            assert keys == list(range(1, 2 * USERS + 1))  # one counter: every key handed out once, no gaps
    finally:
        workload.close_process()


def test_ireland_pays_the_round_trip_for_every_counter_key(two_regions, toxiproxy):
    one_way = 40
    workload, result = uuid_key.availability_test(two_regions, "naive", 20, 2, toxiproxy, one_way_ms=one_way)
    try:
        assert result.verification.ok, str(result.verification)
        ireland, usa = result.ops["register_ireland"], result.ops["register_usa"]
        # a key costs at least a SERIAL read and a compare-and-set through the link: two round trips
        assert ireland.mean_us > 2 * 2 * one_way * 1000, (ireland.mean_us, usa.mean_us)
        assert ireland.mean_us > usa.mean_us
        read_and_cas = ireland.mean_us
    finally:
        workload.close_process()
    workload, result = uuid_key.availability_test(two_regions, uuid_key.ONE_TRIP, 20, 2, toxiproxy, one_way_ms=one_way)
    try:  # the counter without its read: one request per attempt, every key still handed out once
        assert result.complete and result.errors == 0 and result.verification.ok, str(result.verification)
        keys = sorted(k for region in uuid_key.REGIONS for k in workload.registered.keys[region])
        assert keys == list(range(1, 41))
        assert "read_counter_ireland" not in result.ops and "read_counter_usa" not in result.ops
        attempts = result.ops["cas_counter_ireland"]
        assert attempts.count >= 20 and attempts.mean_us > 2 * one_way * 1000  # each attempt crosses the link and back
        assert result.ops["register_ireland"].mean_us < read_and_cas, (result.ops["register_ireland"].mean_us, read_and_cas)
    finally:
        workload.close_process()
    workload, result = uuid_key.availability_test(two_regions, "pattern", 20, 2, toxiproxy, one_way_ms=one_way)
    try:
        assert result.ops["register_ireland"].mean_us < 2 * one_way * 1000  # a UUID needs no trip to dc1
    finally:
        workload.close_process()


@pytest.mark.full  # full tier: lesson 01 at smoke asserts exactly this outcome (assert_partition_outcome)
def test_a_partition_makes_counter_keys_collide_and_uuids_survive(two_regions):
    workload, result = uuid_key.partition_test(two_regions, "naive", USERS, THREADS)
    verification = result.verification
    try:
        assert result.complete and result.errors == 0, result.error_samples
        assert verification.ok, str(verification)  # every loss is a key both regions handed out
        collisions = workload.collision_table()
        assert len(collisions) > 0 and verification.checks["stored"] == 2 * USERS - len(collisions) < 2 * USERS
        assert sorted(c["key"] for c in collisions) == list(range(1, USERS + 1))  # as with the toxiproxy cut (test_partition_without_root)
        assert all(c["survivor"] in (c["usa registered"], c["ireland registered"]) for c in collisions)
    finally:
        workload.close_process()
    workload, result = uuid_key.partition_test(two_regions, "pattern", USERS, THREADS)
    verification = result.verification
    try:
        assert not rules() and not workload.partitioned  # verify() healed the cut before counting
        assert verification.ok and verification.checks["stored"] == 2 * USERS and verification.checks["collisions"] == 0, str(verification)
    finally:
        workload.close_process()


def test_a_run_stopped_mid_partition_heals_when_closed(two_regions):
    import threading

    from labkit.runner import Watch, run

    workload = uuid_key.workload("pattern", "partition", two_regions, 2 * USERS)
    cancel = threading.Event()
    cancel.set()  # stopped before the first transaction: no verify, so nothing healed yet
    result = run(workload, threads=THREADS, operations=2 * USERS, watch=Watch(cancel=cancel))
    assert not result.complete and rules(), "the partition should still be in force before close"
    workload.close_process()
    assert not rules() and not workload.partitioned


@pytest.mark.full  # full tier: test_exercise_checks runs exercise 01's check with its named wrong design, and solution 01 passes it
def test_the_exercise_check_catches_a_counter_without_compare_and_set(two_regions):
    from labkit.patterns.uuid_key.exercise import UuidKeyExercise, check_exercise

    class ReadThenWrite(UuidKeyExercise):
        """A tempting wrong answer: read the counter, write it one higher, no condition."""

        def new_key(self, tx, region):
            return uuid.uuid4()

        def next_key(self, tx, region):
            session = self.counter_session(region)
            current = session.execute(self.prepare_counter(region, f"SELECT value FROM {self.counter_keyspace}.key_counter WHERE name = 'users'")).one().value
            session.execute(f"UPDATE {self.counter_keyspace}.key_counter SET value = %s WHERE name = 'users'", (current + 1,))
            return current + 1

    report = check_exercise(ReadThenWrite, two_regions, users=30, threads=6)
    assert not report.passed
    assert "the key generator is not atomic" in str(report), str(report)


# ---- the exercise's check (tests/integration/test_exercise_checks.py has the others) ----------------


class CounterInOneProcess(uuid_key_exercise.UuidKeyExercise):
    """Keys from a counter in this process: unique here, repeated by any other process or region."""

    _next = itertools.count(1)
    _lock = threading.Lock()

    def next_key(self, tx, region):
        with CounterInOneProcess._lock:
            return next(CounterInOneProcess._next)

    def new_key(self, tx, region):
        import uuid

        return uuid.uuid4()


def test_uuid_key_refuses_a_counter_kept_in_the_process(shared_clusters, monkeypatch):
    """In a student's namespace (a course's shared cluster): the check reads the counter the student's workload wrote,
    and repairs the student's keyspace after the partition."""
    from labkit.engines import cassandra as cql
    from labkit.namespace import ENV
    from labkit.patterns.uuid_key.cassandra import HOME_KEYSPACE, KEYSPACE

    monkeypatch.setenv(ENV, "checker")
    cluster = shared_clusters.get("two_datacenters", __name__)
    report = uuid_key_exercise.check_exercise(CounterInOneProcess, cluster, users=6, threads=2)
    failed_at(report, "database's counter", f"checker_{HOME_KEYSPACE}.key_counter says 0")
    assert [ok for step, ok, _ in report.steps if "during a partition" in step] == [True], str(report)  # healed and repaired in the namespace
    session = cql.connect(cluster.datacenters()["dc1"], dc="dc1")
    try:
        keyspaces = {r.keyspace_name for r in session.execute("SELECT keyspace_name FROM system_schema.keyspaces")}
        assert {f"checker_{KEYSPACE}", f"checker_{HOME_KEYSPACE}"} <= keyspaces
        for keyspace in (f"checker_{KEYSPACE}", f"checker_{HOME_KEYSPACE}"):
            session.execute(f"DROP KEYSPACE IF EXISTS {keyspace}", timeout=120)
    finally:
        session.cluster.shutdown()
