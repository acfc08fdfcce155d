"""UUID Key's counter claimed two ways against an in-memory compare-and-set register: `naive` reads and then
compares-and-sets; `naive/one-trip` sends no read (one request per attempt when no rival moved the counter),
and after a lost race both retry from the value the failed compare-and-set returned. Every key is handed out once."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from labkit.errors import ConfigError
from labkit.patterns.uuid_key import EVERY_APPROACH, ONE_TRIP, PATTERN
from labkit.patterns.uuid_key.cassandra import UuidKey


class Counter:
    """One counter row: a SERIAL read and UPDATE ... IF value = expected, each atomic; `rival` is advanced before a
    compare-and-set lands when set (another region's claim in between)."""

    def __init__(self):
        self.value = 0
        self.requests: list[str] = []
        self.rival_claims = 0
        self.lock = threading.Lock()

    def execute(self, statement, values=None):
        with self.lock:
            self.requests.append(statement)
            if statement == "read":
                return SimpleNamespace(one=lambda: SimpleNamespace(value=self.value))
            if self.rival_claims:
                self.value += self.rival_claims
                self.rival_claims = 0
            new, expected = values
            applied = self.value == expected
            if applied:
                self.value = new
            seen = self.value
            return SimpleNamespace(was_applied=applied, one=lambda: SimpleNamespace(value=seen))


class Tx:
    def __init__(self):
        self.ops: list[str] = []

    def call(self, op, fn, *args):
        self.ops.append(op)
        return fn(*args)


def registration(approach: str, counter: Counter) -> UuidKey:
    made = UuidKey({"dc1": ["127.0.0.1"], "dc2": ["127.0.0.2"]}, approach, "partition", users=50)
    made.counter_statements = lambda region: (counter, "read", "cas")
    made.last_seen = {"usa": 0, "ireland": 0}  # what setup() leaves
    return made


def test_one_trip_sends_no_read_and_claims_a_key_in_one_request():
    counter = Counter()
    made = registration(ONE_TRIP, counter)
    tx = Tx()
    keys = [made.next_key(tx, "usa") for _ in range(5)]
    assert keys == [1, 2, 3, 4, 5]
    assert tx.ops == ["cas_counter_usa"] * 5 and counter.requests == ["cas"] * 5


def test_the_read_and_cas_counter_reads_before_every_claim():
    counter = Counter()
    made = registration("naive", counter)
    tx = Tx()
    assert [made.next_key(tx, "usa") for _ in range(3)] == [1, 2, 3]
    assert tx.ops == ["read_counter_usa", "cas_counter_usa"] * 3


def test_one_trip_after_a_rival_claimed_retries_from_the_value_the_lost_race_returned():
    counter = Counter()
    made = registration(ONE_TRIP, counter)
    tx = Tx()
    assert made.next_key(tx, "ireland") == 1
    counter.rival_claims = 7  # the USA handed out 2..8 meanwhile
    assert made.next_key(tx, "ireland") == 9
    assert tx.ops == ["cas_counter_ireland"] * 3  # the lost attempt costs one request more, no read
    assert made.last_seen == {"usa": 0, "ireland": 9}  # each region knows only what it saw


def test_one_trip_from_many_threads_hands_out_every_key_once():
    counter = Counter()
    made = registration(ONE_TRIP, counter)
    keys: list[int] = []
    lock = threading.Lock()

    def claim(region):
        tx = Tx()
        for _ in range(50):
            key = made.next_key(tx, region)
            with lock:
                keys.append(key)

    workers = [threading.Thread(target=claim, args=(region,)) for region in ("usa", "ireland") for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted(keys) == list(range(1, 301))


def test_one_trip_is_offered_where_it_means_something():
    assert ONE_TRIP in EVERY_APPROACH and ONE_TRIP in PATTERN.approaches_for("availability")
    assert ONE_TRIP not in PATTERN.approaches_for("partition")  # cut apart, each datacenter's counter repeats the other's keys either way
    with pytest.raises(ConfigError, match="unknown approach"):
        PATTERN.check_approaches([ONE_TRIP], "partition")


def test_couchbase_refuses_one_trip_its_increment_is_one_request_already():
    from labkit.patterns.uuid_key.couchbase import CouchbaseUuidKey

    with pytest.raises(ConfigError, match="already one request per key"):
        CouchbaseUuidKey(SimpleNamespace(), ONE_TRIP, "availability", 10)
