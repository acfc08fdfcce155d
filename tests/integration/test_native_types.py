"""Every column type a profile accepts, written and read on a real node through both client paths: the native core
(acsylla, called as a run's greenlet workers call it) and cassandra-driver. Each path reads back what the other
wrote, the two give the same rows (the same Python types too), and those equal what was written, as
tests/column_types.py says a value reads back. A profile's `timestamp` value written through acsylla was stored
1,000 times too large, and the run hung on its first read (#68)."""

from __future__ import annotations

import re
import threading
import time

import greenlet
import pytest

import column_types
from labkit.engines import cassandra as cql
from labkit.engines import cassandra_calls
from labkit.runner.tasks import Hub

SHARED_CLUSTERS = ("one_node",)
KEYSPACE = "native_types"
TYPES = [t for t in column_types.SCALARS if t != "counter"] + column_types.COLLECTIONS
DRIVER_ROW, NATIVE_ROW, WARM_ROW = 1, 2, 0  # rows written by cassandra-driver, by acsylla, and while acsylla prepares


def column(cql_type: str) -> str:
    return "c_" + "_".join(re.findall(r"\w+", cql_type))


@pytest.fixture(scope="module")
def session(shared_clusters):
    s = shared_clusters.get("one_node", __name__).session()
    cql.execute_ddl(s, f"DROP KEYSPACE IF EXISTS {KEYSPACE}")
    cql.create_keyspace(s, KEYSPACE, 1)
    cql.execute_ddl(s, f"CREATE TABLE {KEYSPACE}.every_type (k int PRIMARY KEY, {', '.join(f'{column(t)} {t}' for t in TYPES)})")
    cql.execute_ddl(s, f"CREATE TABLE {KEYSPACE}.counts (k int PRIMARY KEY, c counter)")
    yield s
    s.cluster.shutdown()


def natively(session, calls: list[tuple]) -> list[list]:
    """The rows of each (statement, parameters, warm-up parameters) sent through the native path as a run's
    greenlet worker sends it, in order. First each statement is sent with its warm-up parameters, through whichever
    path takes it, until acsylla has prepared it (a run's first calls of a statement go through cassandra-driver
    while it does); then each call must go native. The hub runs in a thread of its own: a call that never
    returns fails the test instead of hanging it."""
    hub = Hub(threading.Event(), helper_threads=1)
    hub.restart_held_clock()  # every call's path counted from here
    path = cassandra_calls.native_path_name()
    rows: list[list] = []
    failed: list[BaseException] = []

    def went_native(statement, params) -> tuple[bool, list]:
        before = hub.calls[path]
        result = hub.invoke(session.execute, (statement, params), {})
        return hub.calls[path] == before + 1, list(result)

    def worker(*_first_switch) -> None:
        try:
            waiting, deadline = calls, time.monotonic() + 60
            while waiting:
                waiting = [c for c in waiting if not went_native(c[0], c[2])[0]]
                if waiting:
                    assert time.monotonic() < deadline, f"never sent through acsylla: {[c[0].query_string for c in waiting]}"
                    hub.sleep(0.01)
            for statement, params, _warm in calls:
                native, result = went_native(statement, params)
                assert native, f"{statement.query_string} went through cassandra-driver"
                rows.append(result)
        except BaseException as exc:  # noqa: BLE001  (raised again in the test's thread)
            failed.append(exc)

    runner = threading.Thread(target=lambda: hub.run([greenlet.greenlet(worker)]), daemon=True)
    runner.start()
    runner.join(120)
    assert not runner.is_alive(), "a native call never returned: a run would hang"
    if failed:
        raise failed[0]
    return rows


def test_every_type_a_profile_accepts_round_trips_alike_through_acsylla_and_cassandra_driver(session, monkeypatch):
    monkeypatch.setenv(cassandra_calls.DRIVER_VARIABLE, "acsylla")
    written = {t: column_types.value(t) for t in TYPES}
    insert = {t: session.prepare(f"INSERT INTO {KEYSPACE}.every_type (k, {column(t)}) VALUES (?, ?)") for t in TYPES}
    select = {t: session.prepare(f"SELECT {column(t)} FROM {KEYSPACE}.every_type WHERE k = ?") for t in TYPES}
    whole_row = session.prepare(f"SELECT * FROM {KEYSPACE}.every_type WHERE k = ?")
    add = session.prepare(f"UPDATE {KEYSPACE}.counts SET c = c + ? WHERE k = ?")
    count = session.prepare(f"SELECT c FROM {KEYSPACE}.counts WHERE k = ?")
    increment = column_types.value("counter")

    for t in TYPES:
        session.execute(insert[t], (DRIVER_ROW, written[t]))
    session.execute(add, (increment, DRIVER_ROW))
    natively(session, [*((insert[t], (NATIVE_ROW, written[t]), (WARM_ROW, written[t])) for t in TYPES), (add, (increment, NATIVE_ROW), (0, WARM_ROW))])

    reads = [(select[t], (k,)) for t in TYPES for k in (DRIVER_ROW, NATIVE_ROW)] + [(whole_row, (k,)) for k in (DRIVER_ROW, NATIVE_ROW)]
    reads += [(count, (k,)) for k in (DRIVER_ROW, NATIVE_ROW)]
    native = natively(session, [(statement, params, (WARM_ROW,)) for statement, params in reads])
    driver = [list(session.execute(statement, params)) for statement, params in reads]

    assert [len(rows) for rows in native] == [len(rows) for rows in driver] == [1] * len(reads)
    wrong = []
    for (statement, (k,)), [native_row], [driver_row] in zip(reads, native, driver):
        if statement is count:
            expected = {"c": increment}
        elif statement is whole_row:
            expected = {"k": k, **{column(t): column_types.read_back(t, written[t]) for t in TYPES}}
        else:
            t = next(t for t in TYPES if select[t] is statement)
            expected = {column(t): column_types.read_back(t, written[t])}
        for name, want in expected.items():
            got_native, got_driver = getattr(native_row, name), getattr(driver_row, name)
            if not (got_native == got_driver == want and column_types.kinds(got_native) == column_types.kinds(got_driver)):
                wrong.append(f"row {k} {name}: acsylla read {got_native!r}, cassandra-driver {got_driver!r}, written {want!r}")
    assert not wrong, "\n".join(wrong)
