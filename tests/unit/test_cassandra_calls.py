"""The native-core client path's choices, without a server: which driver a process uses (and the fallback
when acsylla is missing), which prepared statements can go native, what acsylla is handed to send (as
cassandra-driver sends it) for every column type a profile accepts, how rows and errors come back in
cassandra-driver's shapes, and that a call failing after its reply fails through the runner's error path. acsylla
itself is modelled here from its source (acsylla_sends, acsylla_reads); both paths against a real node:
tests/integration/test_native_types.py and test_ycsb_engines.py."""

from __future__ import annotations

import asyncio
import datetime
import threading
import types
import uuid

import pytest
from cassandra import ConsistencyLevel, OperationTimedOut, Unavailable, WriteTimeout
from cassandra import cqltypes
from cassandra.cluster import NoHostAvailable, Session
from cassandra.marshal import int32_pack, int32_unpack, int64_pack, int64_unpack, uint32_pack, uint32_unpack
from cassandra.query import PreparedStatement
from cassandra.util import Date, SortedSet

import column_types
from labkit.engines import cassandra_calls as calls
from labkit.errors import ConfigError
from labkit.runner import BaseWorkload, RunOptions, run
from labkit.runner.retry import NO_RETRIES
from labkit.runner.tasks import Hub, current_hub


def prepared(params: list[tuple[str, type]], result: list[tuple[str, type]], keyspace: str | None = "ks") -> PreparedStatement:
    meta = lambda cols: [("ks", "t", name, t) for name, t in cols]  # noqa: E731  (keyspace, table, name, type) as the driver keeps them
    return PreparedStatement(meta(params), b"id", None, "SELECT ...", keyspace, 4, meta(result), None)


class FakeSession:
    keyspace = "session_ks"


def test_the_driver_setting_takes_three_values_and_names_them_when_wrong():
    assert calls.requested({}) == "auto" and calls.requested({calls.DRIVER_VARIABLE: ""}) == "auto"
    assert calls.requested({calls.DRIVER_VARIABLE: "cassandra-driver"}) == "cassandra-driver"
    with pytest.raises(ConfigError, match="auto, acsylla, cassandra-driver"):
        calls.requested({calls.DRIVER_VARIABLE: "scylla"})
    assert calls.native_in_use({calls.DRIVER_VARIABLE: "cassandra-driver"}) is False


def test_without_the_acsylla_wheel_auto_falls_back_and_asking_for_it_says_what_to_do(monkeypatch):
    monkeypatch.setattr(calls, "_acsylla", lambda: None)
    assert calls.native_in_use({}) is False
    assert "cassandra-driver" in calls.describe({}) and "no wheel" in calls.describe({})
    with pytest.raises(ConfigError, match="not installed.*--driver cassandra-driver"):
        calls.native_in_use({calls.DRIVER_VARIABLE: "acsylla"})
    assert calls.native_execute(FakeSession().__init__) is None  # not a Session's execute: never the native form


def test_a_statement_goes_native_only_when_every_type_comes_back_as_the_driver_gives_it():
    plan = calls._plan(prepared([("k", cqltypes.Int32Type)], [("id", cqltypes.UUIDType), ("at", cqltypes.DateType),
                                                              ("tags", cqltypes.SetType.apply_parameters([cqltypes.UTF8Type])),
                                                              ("v", cqltypes.UTF8Type)]), FakeSession())
    assert plan is not None and plan.keyspace == "ks" and set(plan.convert) == {"id", "at", "tags"}
    aware = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert plan.convert["at"](aware) == datetime.datetime(2026, 1, 2, 3, 4, 5) and plan.convert["at"](None) is None
    assert plan.convert["id"]("0a7ba779-0d70-4a9f-a304-87319ccd43ee") == uuid.UUID("0a7ba779-0d70-4a9f-a304-87319ccd43ee")
    assert isinstance(plan.convert["tags"]({"b", "a"}), SortedSet) and list(plan.convert["tags"]({"b", "a"})) == ["a", "b"]
    decimal_result = prepared([("k", cqltypes.Int32Type)], [("price", cqltypes.DecimalType)])  # acsylla 1.2.0 cannot decode decimals
    inet_list_param = prepared([("ips", cqltypes.ListType.apply_parameters([cqltypes.InetAddressType]))], [])  # no profile binds one
    assert calls._plan(decimal_result, FakeSession()) is None and calls._plan(inet_list_param, FakeSession()) is None
    assert calls._plan(prepared([], [], keyspace=None), FakeSession()).keyspace == "session_ks"


def test_rows_answer_as_a_result_set_does():
    row = calls.row_class(("[applied]", "v"))._make
    applied = calls.NativeRows([row((False, 3))])
    assert applied.was_applied is False and applied.one().v == 3 and applied[0] == (False, 3) and list(applied) == [(False, 3)]
    plain = calls.NativeRows([calls.row_class(("k",))._make((1,)), calls.row_class(("k",))._make((2,))])
    assert plain.all() == [(1,), (2,)] and plain.current_rows[1].k == 2 and len(plain) == 2 and not plain.has_more_pages
    assert calls.NativeRows([]).one() is None and not calls.NativeRows([])
    with pytest.raises(RuntimeError, match="conditional statement"):
        plain.was_applied


def test_acsylla_errors_come_back_as_the_driver_exceptions_retries_and_error_counts_know():
    errors = pytest.importorskip("acsylla").errors
    assert isinstance(calls._as_driver_error(errors.CassErrorServerUnavailable("Cannot achieve consistency level QUORUM")), Unavailable)
    assert isinstance(calls._as_driver_error(errors.CassErrorServerWriteTimeout("timeout")), WriteTimeout)
    assert isinstance(calls._as_driver_error(errors.CassErrorLibRequestTimedOut("timed out")), OperationTimedOut)
    gone = calls._as_driver_error(errors.CassErrorLibNoHostsAvailable("no hosts"))
    assert isinstance(gone, NoHostAvailable) and "CassErrorLibNoHostsAvailable" in str(gone)
    other = errors.CassErrorServerOverloaded("busy")
    assert calls._as_driver_error(other) is other


def test_labkit_run_driver_is_checked_first_and_handed_to_every_client_process(monkeypatch):
    from labkit.cli import _choose_cql_driver
    from labkit.runner.pool import current_client_settings

    monkeypatch.delenv(calls.DRIVER_VARIABLE, raising=False)
    assert current_client_settings()[calls.DRIVER_VARIABLE] == ""  # unset: each process's default (auto)
    with pytest.raises(ConfigError, match="not a Cassandra client driver"):
        _choose_cql_driver("fast")
    _choose_cql_driver("cassandra-driver")
    assert current_client_settings()[calls.DRIVER_VARIABLE] == "cassandra-driver"  # what PoolSpec carries to spawned and Dask processes


# --- every column type a profile accepts, into acsylla and back (a real node: tests/integration/test_native_types.py) ---

UTC_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
DATE_OFFSET = 2**31  # a date is stored as 2**31 + days since the epoch


def _framed(parts: list[bytes], per_item: int = 1) -> bytes:
    """A collection as protocol 4 sends it: its number of elements (a map's entries), each part with its length."""
    return int32_pack(len(parts) // per_item) + b"".join(int32_pack(len(p)) + p for p in parts)


def _unframed(data: bytes, per_item: int = 1) -> list[bytes]:
    count, at, parts = int32_unpack(data[:4]) * per_item, 4, []
    for _ in range(count):
        size = int32_unpack(data[at:at + 4])
        parts.append(data[at + 4:at + 4 + size])
        at += 4 + size
    return parts


def acsylla_sends(cqltype, v) -> bytes:
    """The bytes acsylla 1.2.0 sends for `v` bound to a prepared statement's parameter of `cqltype`, as its
    acsylla/_cython/statement/bind.pyx has it: a number for a timestamp is seconds (as_cass_timestamp multiplies
    it by 1,000), a datetime by its fields (naive: UTC); a number for a date is seconds too, and a date by its
    fields; a varint only from bytes; a uuid from uuid.UUID or its text; the other scalars as cassandra-driver."""
    if issubclass(cqltype, cqltypes.MapType):
        key, value = cqltype.subtypes
        return _framed([b for k, x in v.items() for b in (acsylla_sends(key, k), acsylla_sends(value, x))], per_item=2)
    if issubclass(cqltype, (cqltypes.ListType, cqltypes.SetType)):
        return _framed([acsylla_sends(cqltype.subtypes[0], x) for x in v])
    if issubclass(cqltype, (cqltypes.UUIDType, cqltypes.TimeUUIDType)):  # first: cassandra-driver's TimeUUIDType is a DateType
        return (v if isinstance(v, uuid.UUID) else uuid.UUID(str(v))).bytes
    if issubclass(cqltype, cqltypes.DateType):
        if isinstance(v, datetime.datetime):
            offset = v.utcoffset() or datetime.timedelta(0)
            return int64_pack((v.replace(tzinfo=None) - offset - UTC_EPOCH.replace(tzinfo=None)) // datetime.timedelta(milliseconds=1))
        return int64_pack(v * 1000)
    if issubclass(cqltype, cqltypes.SimpleDateType):
        if isinstance(v, datetime.date):
            return uint32_pack((datetime.date(v.year, v.month, v.day) - UTC_EPOCH.date()).days + DATE_OFFSET)
        if not isinstance(v, int):
            raise TypeError(f"acsylla binds a date from a date, its text or seconds, not {type(v).__name__}")
        return uint32_pack((abs(v) // 86400) * (1 if v >= 0 else -1) + DATE_OFFSET)  # cass_date_from_epoch: C's division, toward zero
    if issubclass(cqltype, cqltypes.IntegerType):
        if not isinstance(v, bytes):
            raise ValueError(f'Value "{v}" is not bytes.')
        return v
    return cqltype.serialize(v, 4)


def acsylla_reads(cqltype, data: bytes):
    """What acsylla 1.2.0 hands back for a value of `cqltype` stored as `data` (its acsylla/_cython/result/
    value.pyx): a timestamp as an aware UTC datetime made from float seconds (milliseconds / 1000.0, by
    datetime.fromtimestamp) and truncated to whole milliseconds, a date as a datetime.date, a varint as its bytes,
    a uuid as its text, a set as a set, a map as a dict; the other scalars as cassandra-driver."""
    if issubclass(cqltype, cqltypes.MapType):
        key, value = cqltype.subtypes
        parts = _unframed(data, per_item=2)
        return {acsylla_reads(key, k): acsylla_reads(value, x) for k, x in zip(parts[0::2], parts[1::2])}
    if issubclass(cqltype, (cqltypes.ListType, cqltypes.SetType)):
        items = [acsylla_reads(cqltype.subtypes[0], p) for p in _unframed(data)]
        return set(items) if issubclass(cqltype, cqltypes.SetType) else items
    if issubclass(cqltype, (cqltypes.UUIDType, cqltypes.TimeUUIDType)):  # first: cassandra-driver's TimeUUIDType is a DateType
        return str(uuid.UUID(bytes=data))
    if issubclass(cqltype, cqltypes.DateType):
        at = datetime.datetime.fromtimestamp(int64_unpack(data) / 1000.0, datetime.timezone.utc)  # float seconds
        return at.replace(microsecond=at.microsecond // 1000 * 1000)  # then whole milliseconds
    if issubclass(cqltype, cqltypes.SimpleDateType):
        return UTC_EPOCH.date() + datetime.timedelta(days=uint32_unpack(data) - DATE_OFFSET)
    if issubclass(cqltype, cqltypes.IntegerType):
        return data
    return cqltype.from_binary(data, 4)


class FakeNativePrepared:
    """An acsylla prepared statement that keeps what it was bound with."""

    def bind(self, page_size=None):
        return self

    def bind_list(self, values):
        self.bound = values

    def set_consistency(self, level):
        pass


def bound_natively(cqltype, value):
    """The value the native path hands acsylla for `value` as a statement's one parameter of `cqltype`; None when
    the statement does not go native."""
    plan = calls._plan(prepared([("p", cqltype)], [("p", cqltype)]), FakeSession())
    if plan is None:
        return None
    twin = calls._Twin(mirror=None, keyspace="ks", loop=None)
    twin.prepared[plan.text] = FakeNativePrepared()
    return twin.statement(plan, [value], "ONE", None, -1, None, None).bound[0]


@pytest.mark.parametrize("cql_type", [*column_types.SCALARS, *column_types.COLLECTIONS])
def test_every_profile_type_goes_native_and_acsylla_sends_what_cassandra_driver_sends(cql_type):
    """For a value a profile binds, and for the value a read gives back (a later step binds a column an earlier
    step read): acsylla, handed what the native path hands it, sends the bytes cassandra-driver sends. (A
    profile's `timestamp` value, milliseconds, went to acsylla as is, and acsylla took it for seconds: #68.)"""
    cqltype = column_types.wire_type(cql_type)
    written = column_types.value(cql_type)
    for v in (written, cqltype.from_binary(cqltype.serialize(written, 4), 4)):
        handed = bound_natively(cqltype, v)
        assert handed is not None, f"a statement with a {cql_type} parameter stays on cassandra-driver"
        assert acsylla_sends(cqltype, handed) == cqltype.serialize(v, 4), (cql_type, v, handed)


@pytest.mark.parametrize("cql_type", [*column_types.SCALARS, *column_types.COLLECTIONS])
def test_every_profile_type_acsylla_reads_comes_back_as_cassandra_driver_gives_it(cql_type):
    cqltype = column_types.wire_type(cql_type)
    stored = cqltype.serialize(column_types.value(cql_type), 4)
    plan = calls._plan(prepared([], [("c", cqltype)]), FakeSession())
    assert plan is not None, f"a statement reading a {cql_type} column stays on cassandra-driver"
    native = plan.convert.get("c", lambda v: v)(acsylla_reads(cqltype, stored))
    driver = cqltype.from_binary(stored, 4)
    assert native == driver and column_types.kinds(native) == column_types.kinds(driver), (native, driver)


def test_a_timestamp_reads_back_as_cassandra_driver_reads_it_between_1900_and_2100_and_within_a_millisecond_beyond():
    """Both drivers go through float seconds; acsylla then keeps whole milliseconds, cassandra-driver the microsecond
    the float gives. Within 2**32 s of the epoch the float is within half a microsecond of the stored millisecond, so
    the two agree; at 2300-01-01 00:00:00.123 the float is 0.8 µs short: cassandra-driver reads .122999, acsylla .122
    (the module docstring says so)."""
    plan = calls._plan(prepared([], [("at", cqltypes.DateType)]), FakeSession())

    def both(at: datetime.datetime) -> tuple[datetime.datetime, datetime.datetime]:
        stored = cqltypes.DateType.serialize(at, 4)
        return plan.convert["at"](acsylla_reads(cqltypes.DateType, stored)), cqltypes.DateType.from_binary(stored, 4)

    for at in (datetime.datetime(1900, 1, 1, 0, 0, 0, 123_000), datetime.datetime(1969, 12, 31, 23, 59, 59, 999_000),
               datetime.datetime(2026, 12, 7, 7, 50, 51, 209_000), datetime.datetime(2099, 12, 31, 23, 59, 59, 999_000)):
        native, driver = both(at)
        assert native == driver == at, (at, native, driver)
    native, driver = both(datetime.datetime(2300, 1, 1, 0, 0, 0, 123_000))
    assert native == datetime.datetime(2300, 1, 1, 0, 0, 0, 122_000) and driver == datetime.datetime(2300, 1, 1, 0, 0, 0, 122_999)
    assert datetime.timedelta(0) < driver - native < datetime.timedelta(milliseconds=1)


def test_a_map_keyed_by_a_collection_stays_on_cassandra_driver():
    """acsylla makes a map a dict, and a list or set cannot be a dict's key: such a statement is not sent natively.
    (The protocol's metadata has no `frozen`: map<frozen<list<int>>, int> arrives as a map keyed by a ListType.)"""
    for key in (cqltypes.ListType.apply_parameters([cqltypes.Int32Type]), cqltypes.SetType.apply_parameters([cqltypes.UTF8Type]),
                cqltypes.MapType.apply_parameters([cqltypes.Int32Type, cqltypes.Int32Type])):
        keyed = cqltypes.MapType.apply_parameters([key, cqltypes.Int32Type])
        assert calls._converter(keyed) is False and calls._binder(keyed) is False, key
        assert calls._plan(prepared([], [("m", keyed)]), FakeSession()) is None
        assert calls._plan(prepared([("m", keyed)], []), FakeSession()) is None
    valued_by_list = cqltypes.MapType.apply_parameters([cqltypes.Int32Type, cqltypes.ListType.apply_parameters([cqltypes.Int32Type])])
    assert calls._plan(prepared([], [("m", valued_by_list)]), FakeSession()) is not None  # a collection as the value is fine


def test_the_types_a_profile_accepts_are_the_ones_these_tests_cover():
    assert set(column_types.SCALAR_GENERATORS) == set(column_types.SCALARS)


def test_a_timestamp_or_a_date_in_any_form_cassandra_driver_takes_is_sent_as_it_sends_it():
    at = datetime.datetime(2026, 12, 7, 7, 50, 51, 209_999)
    for v in (1_796_629_851_209, -1, 0, 1_796_629_851_209.7, at, at.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=-5))),
              datetime.date(2026, 12, 7)):
        assert acsylla_sends(cqltypes.DateType, bound_natively(cqltypes.DateType, v)) == cqltypes.DateType.serialize(v, 4), v
    for v in (Date(-800_000), Date(2_900_000), DATE_OFFSET + 3, datetime.date(1, 1, 1)):  # days outside datetime.date's years, the stored form
        assert acsylla_sends(cqltypes.SimpleDateType, bound_natively(cqltypes.SimpleDateType, v)) == cqltypes.SimpleDateType.serialize(v, 4), v
    assert bound_natively(cqltypes.DateType, None) is None and bound_natively(cqltypes.SimpleDateType, None) is None  # null stays null


def test_the_installed_acsylla_binds_as_the_model_says_and_takes_what_the_native_path_hands_it():
    """What the installed binary shows without a server (an unprepared statement, told each parameter's type): a
    number bound to a timestamp is taken as seconds (times 1,000 it leaves 64 bits one past (2**63 - 1) // 1000),
    cassandra-driver's Date is no date to it, a varint is bytes only; and every scalar the native path hands it
    binds (collections bind on prepared statements only)."""
    acsylla = pytest.importorskip("acsylla")
    statement, kinds = acsylla.create_statement("INSERT INTO t (k, v) VALUES (?, ?)", parameters=2), acsylla.ValueType
    statement.bind(1, (2**63 - 1) // 1000, kinds.TIMESTAMP)
    with pytest.raises(OverflowError):
        statement.bind(1, (2**63 - 1) // 1000 + 1, kinds.TIMESTAMP)
    with pytest.raises(TypeError):
        statement.bind(1, Date(5), kinds.DATE)
    with pytest.raises(ValueError, match="not bytes"):
        statement.bind(1, 10**30, kinds.VARINT)
    for cql_type in column_types.SCALARS:
        cqltype, written = column_types.wire_type(cql_type), column_types.value(cql_type)
        for v in (written, cqltype.from_binary(cqltype.serialize(written, 4), 4)):
            statement.bind(1, bound_natively(cqltype, v), kinds[{"smallint": "SMALL_INT"}.get(cql_type, cql_type.upper())])


# --- a native call that fails after its reply: the run ends, the call counted as an error ---------------------

class UndecodableRows:
    """A reply whose row acsylla cannot decode, as its decoder failed for a timestamp stored 1,000 times too large
    (`more_pages`: the first page of several, whose rows are decoded in a task that fetches the others)."""

    more_pages = False

    def has_more_pages(self):
        return self.more_pages

    def columns_names(self):
        return ["at"]

    def __iter__(self):
        return iter([self])

    def as_tuple(self):
        raise ValueError("year 58888 is out of range")


class FakeAcsyllaSession:
    """Replies on the hub's event loop a millisecond after each call, as acsylla does."""

    def __init__(self, loop):
        self.loop = loop

    async def create_prepared(self, text):
        return FakeNativePrepared()

    async def execute(self, statement):
        reply = self.loop.create_future()
        self.loop.call_later(0.001, reply.set_result, None)
        await reply
        return UndecodableRows()

    async def close(self):
        pass


class FakeAcsylla:
    """The acsylla module as the native path uses it."""

    class errors:
        class CassException(Exception):
            pass

    Consistency = {name: name for name in ConsistencyLevel.name_to_value}

    def create_cluster(self, **options):
        return self

    async def create_session(self, keyspace=None):
        return FakeAcsyllaSession(asyncio.get_running_loop())


class DriverSession(Session):
    """A cassandra-driver Session the native path mirrors, never connected: its own calls are `driver_calls`."""

    def __init__(self):
        self.keyspace = "ks"
        self.driver_calls = []


@pytest.fixture
def native_world(monkeypatch):
    """acsylla, the mirrored session's settings and cassandra-driver's asynchronous form replaced by fakes; the
    latter replies on the hub's event loop with no rows (outside a run, never)."""
    monkeypatch.setenv(calls.DRIVER_VARIABLE, "acsylla")
    monkeypatch.setattr(calls, "_acsylla", FakeAcsylla)
    monkeypatch.setattr(calls, "native_path_name", lambda: "fake acsylla")
    monkeypatch.setattr(calls, "_mirror", lambda session: types.SimpleNamespace(
        ok=True, options={"port": 9042}, consistency=ConsistencyLevel.ONE, serial_consistency=None, fetch_size=5000))

    def driver_form(fn):
        def start(args, kwargs, on_result, on_error):
            fn.__self__.driver_calls.append(args)
            if current_hub() is not None:
                current_hub().event_loop().call_soon(on_result, calls.NativeRows([]))
        return start

    monkeypatch.setattr(calls, "async_execute", driver_form)
    calls._consistency.cache_clear()  # it keeps acsylla's levels: the fake's here, the real ones elsewhere
    yield
    calls._consistency.cache_clear()


class ReadsATimestamp(BaseWorkload):
    name = "reads-a-timestamp"

    def __init__(self, session, statement):
        self.session, self.statement = session, statement

    def transaction(self, tx):
        tx.call("read", self.session.execute, self.statement, [1])


@pytest.mark.parametrize("more_pages", [False, True])
def test_a_native_call_whose_reply_fails_to_decode_fails_that_call_and_the_run_ends(native_world, monkeypatch, more_pages):
    """The runner's error path counts it with its kind, its worker goes on, the run ends. (It raised inside the
    hub's event-loop callback, was lost there, and the run waited for ever: #68.)"""
    monkeypatch.setattr(UndecodableRows, "more_pages", more_pages)
    session = DriverSession()
    statement = prepared([("k", cqltypes.Int32Type)], [("at", cqltypes.DateType)])
    finished = []
    runner = threading.Thread(target=lambda: finished.append(run(
        ReadsATimestamp(session, statement), threads=2, operations=40,
        options=RunOptions(workers="greenlets", retry=NO_RETRIES, verify=False))), daemon=True)
    runner.start()
    runner.join(30)
    assert finished, "the run did not end"
    r = finished[0]
    native = r.client_calls.get("fake acsylla", 0)
    assert r.complete and native > 0 and r.count + r.errors == 40
    assert r.errors == native and r.error_kinds == {"ValueError": native}  # each native call failed, none else
    assert "year 58888 is out of range" in r.error_samples["ValueError"]
    assert r.count == r.client_calls.get(calls.ASYNC_PATH, 0) == len(session.driver_calls)  # cassandra-driver's, until acsylla had prepared


def test_parameters_by_name_stay_on_cassandra_driver(native_world):
    """acsylla binds by position: a dict of parameters went native with its keys bound as the values."""
    session, hub = DriverSession(), Hub(threading.Event(), helper_threads=1)
    statement = prepared([("k", cqltypes.Int32Type)], [])
    try:
        starter = calls._native_starter(hub, session)
        twin = calls._HubSessions.of(hub).twins()[(id(session), "ks")] = calls._Twin(calls._mirror(session), "ks", hub.event_loop())
        twin.session, twin.prepared[statement.query_string] = FakeAcsyllaSession(hub.event_loop()), FakeNativePrepared()
        assert starter((statement, [1]), {}, None, None) == "fake acsylla" and twin.prepared[statement.query_string].bound == [1]
        assert starter((statement, {"k": 2}), {}, None, None) == calls.ASYNC_PATH
        assert session.driver_calls == [(statement, {"k": 2})] and twin.prepared[statement.query_string].bound == [1]
    finally:
        hub.event_loop().close()
