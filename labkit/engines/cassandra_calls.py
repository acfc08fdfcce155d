"""How the runner's greenlet workers make Cassandra calls: cassandra-driver's own asynchronous call, or, for
the measured calls, a native-core driver: acsylla (ScyllaDB's C++ driver, its protocol work
in a C++ thread outside the interpreter lock), behind the same `tx.call(op, session.execute, ...)`.

Why: on one machine the client and the nodes share the cores. cassandra-driver does the protocol work in
Python; the same primary-key read costs the client several times less CPU on a native core
(benchmarks/runner_vs_driver.py), CPU the database then gets. Workload code does not change: it prepares
its statements on its cassandra-driver session, and when the runner's greenlet workers call
`session.execute(prepared, params)` this module sends the same statement, the same parameters and the same
consistency through an acsylla session that mirrors the cassandra-driver one (same nodes, same routing),
made on the hub's event loop for the run (it opens in the background; see _Twin) and closed after it.
Parameters reach acsylla as values it sends as cassandra-driver would (the two read a number for a timestamp or
a date differently: _BOUND), and rows come back in cassandra-driver's shapes (named tuples, uuid.UUID, naive UTC
datetimes, cassandra.util.Date, int varints, SortedSet; a map as a dict in the server's order, which compares equal
to the driver's OrderedMapSerializedKey) and with its values, but for timestamps far from the epoch: both drivers
decode a timestamp through float seconds, and acsylla 1.2.0 then truncates it to whole milliseconds while
cassandra-driver keeps the microsecond the float gives. Between roughly 1900 and 2100 (within 2**32 s of the
epoch, where the float lies within half a microsecond of the stored millisecond) the two read back the same
datetime; further out they can differ by up to a millisecond (2300-01-01 00:00:00.123 reads back 00:00:00.122 on acsylla, 00:00:00.122999 on
cassandra-driver). A date outside years 1-9999 does not decode on acsylla (a datetime.date cannot hold it). A
call that fails anywhere, its rows' decoding included, fails through the runner's error path: counted with its
kind, its worker resumed.
cassandra-driver keeps everything else: DDL, metadata, tracing, batches, unprepared statements, thread
workers, the exercises, and a run's first calls while acsylla opens.

Which driver a run uses is the client's setting LABKIT_CQL_DRIVER (`labkit run --driver`), read in every
client process: `auto` (the default: acsylla where its wheel is installed), `acsylla`, or
`cassandra-driver`. Every measured call counts its path (runner.tasks.Hub.calls); result rows record them.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import importlib.metadata
import os
import uuid
import weakref
from typing import Any, Mapping

from cassandra import (
    ConsistencyLevel, InvalidRequest, OperationTimedOut, ReadFailure, ReadTimeout, Unavailable, WriteFailure, WriteTimeout,
)
from cassandra import cqltypes
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import _NOT_SET, EXEC_PROFILE_DEFAULT, NoHostAvailable, Session
from cassandra.marshal import int64_unpack, uint32_unpack, varint_unpack
from cassandra.policies import DCAwareRoundRobinPolicy, IdentityTranslator, RoundRobinPolicy, TokenAwarePolicy
from cassandra.query import FETCH_SIZE_UNSET, PreparedStatement
from cassandra.util import Date, SortedSet

from ..errors import ConfigError
from ..runner.pool import client_setting
from ..runner.tasks import ASYNC_PATH, Hub, current_hub, register_async_form
from .cassandra_rows import row_class, row_maker

DRIVER_VARIABLE = "LABKIT_CQL_DRIVER"
DRIVERS = ("auto", "acsylla", "cassandra-driver")
client_setting(DRIVER_VARIABLE)


@functools.lru_cache(maxsize=1)
def _acsylla() -> Any:
    """The acsylla module, or None where its wheel is not installed (platforms without one: see docs/deployment.md, Requirements)."""
    try:
        import acsylla
    except ImportError:
        return None
    return acsylla


@functools.lru_cache(maxsize=1)
def native_path_name() -> str:
    return f"acsylla {importlib.metadata.version('acsylla')}"


def requested(environ: Any = None) -> str:
    value = (environ if environ is not None else os.environ).get(DRIVER_VARIABLE, "auto").strip() or "auto"
    if value not in DRIVERS:
        raise ConfigError(f"{DRIVER_VARIABLE}={value!r} is not a Cassandra client driver the lab knows; use one of {', '.join(DRIVERS)} "
                          "(auto: acsylla where it is installed, else cassandra-driver)")
    return value


def native_in_use(environ: Any = None) -> bool:
    """True when measured calls go through acsylla in this process; a clear error when it was asked for by name
    and cannot be had."""
    choice = requested(environ)
    if choice == "cassandra-driver":
        return False
    if _acsylla() is None:
        if choice == "acsylla":
            raise ConfigError(f"{DRIVER_VARIABLE}=acsylla, but acsylla is not installed in this Python: `make venv` installs it "
                              "where it has a wheel (Linux x86_64/aarch64, macOS); or run with --driver cassandra-driver")
        return False
    return True


def describe(environ: Any = None) -> str:
    """One line for `labkit doctor`: which client path this machine's measured Cassandra calls take."""
    choice = requested(environ)
    if choice == "cassandra-driver":
        return "cassandra-driver (chosen: LABKIT_CQL_DRIVER=cassandra-driver)"
    if _acsylla() is None:
        return "cassandra-driver (acsylla has no wheel installed here; measured calls cost the client more CPU)"
    return f"{native_path_name()} for measured calls (native core), cassandra-driver for the rest"


EXECUTE_ARGS = ("query", "parameters", "timeout", "trace", "custom_payload", "execution_profile", "paging_state", "host", "execute_as")


def async_execute(fn: Any) -> Any:
    """The asynchronous form of `session.execute` for greenlet workers (runner.tasks): the same request
    through `execute_async`, its reply handed over by the driver's callback. None for anything else."""
    session = getattr(fn, "__self__", None)
    if not isinstance(session, Session) or getattr(fn, "__name__", "") != "execute":
        return None

    def start(args: tuple, kwargs: dict, on_result: Any, on_error: Any) -> None:
        if not kwargs and len(args) <= 2:  # (query, parameters): the same two first arguments in both
            future = session.execute_async(*args)
        else:  # execute and execute_async order their later arguments differently
            future = session.execute_async(**dict(zip(EXECUTE_ARGS, args), **kwargs))

        def replied(_first_page: Any) -> None:
            try:
                result = future.result()  # the ResultSet execute() would return; done, so it does not block
            except Exception as exc:
                on_error(exc)
                return
            on_result(result)

        future.add_callbacks(callback=replied, errback=on_error)

    return start



# --- what can go native, and its values in and out ------------------------------------------------------

_PLAIN = (cqltypes.Int32Type, cqltypes.LongType, cqltypes.CounterColumnType, cqltypes.UTF8Type, cqltypes.AsciiType,
          cqltypes.BooleanType, cqltypes.DoubleType, cqltypes.FloatType, cqltypes.BytesType, cqltypes.ShortType, cqltypes.ByteType)
"""Types acsylla takes and hands back as cassandra-driver does."""
_UUIDS = (cqltypes.UUIDType, cqltypes.TimeUUIDType)
_EPOCH = datetime.datetime(1970, 1, 1)
_DAY_S = 86_400


def _driver_uuid(v: Any) -> Any:
    """acsylla may decode a uuid as its text; cassandra-driver gives a uuid.UUID."""
    return v if v is None or isinstance(v, uuid.UUID) else uuid.UUID(v)


def _driver_timestamp(v: Any) -> Any:
    """acsylla decodes a timestamp as an aware UTC datetime; cassandra-driver gives the naive UTC one."""
    return v.astimezone(datetime.timezone.utc).replace(tzinfo=None) if v is not None and v.tzinfo is not None else v


def _driver_date(v: Any) -> Any:
    """acsylla decodes a date as a datetime.date; cassandra-driver gives its own Date (days from the epoch)."""
    return None if v is None else Date(v)


def _driver_varint(v: Any) -> Any:
    """acsylla decodes a varint as its bytes (two's complement, as on the wire); cassandra-driver gives the int."""
    return None if v is None else varint_unpack(v)


def _timestamp_param(v: Any) -> Any:
    """cassandra-driver sends a number bound to a timestamp as milliseconds since the epoch, acsylla as seconds
    (it multiplies it by 1,000: a profile's `timestamp` value was stored 1,000 times too large, #68); a
    datetime they send alike. So acsylla is handed the naive UTC datetime of the milliseconds cassandra-driver
    would send, whatever it was given (a number, a datetime, a date)."""
    return None if v is None else _EPOCH + datetime.timedelta(milliseconds=int64_unpack(cqltypes.DateType.serialize(v, 4)))


def _date_param(v: Any) -> Any:
    """cassandra-driver takes its own Date (what it reads), a datetime.date, or an int as the stored form
    (2**31 + days); acsylla knows no Date and reads a number as seconds since the epoch. So acsylla is handed
    the seconds of the day cassandra-driver would send: binding is exact for any day, where a datetime.date stops
    at year 9999. Reading such a day back is not: acsylla decodes a date into a datetime.date, so a row holding a
    date outside years 1-9999 fails its call (counted as an error, as any call that fails to decode)."""
    if v is None:
        return None
    return (uint32_unpack(cqltypes.SimpleDateType.serialize(v, 4)) - cqltypes.SimpleDateType.EPOCH_OFFSET_DAYS) * _DAY_S


def _varint_param(v: Any) -> Any:
    """acsylla binds a varint only from its bytes: those cassandra-driver would send for the int."""
    return None if v is None else cqltypes.IntegerType.serialize(v, 4)


_DECODED = ((_UUIDS, _driver_uuid), (cqltypes.DateType, _driver_timestamp), (cqltypes.SimpleDateType, _driver_date),
            (cqltypes.IntegerType, _driver_varint))
"""Types acsylla decodes otherwise than cassandra-driver, and what turns its value into the driver's (the first
that matches: cassandra-driver's TimeUUIDType is a DateType)."""
_BOUND = ((_UUIDS, None), (cqltypes.DateType, _timestamp_param), (cqltypes.SimpleDateType, _date_param),
          (cqltypes.IntegerType, _varint_param))
"""Types acsylla binds from other values than cassandra-driver (None: from the same ones), and what makes the value
acsylla sends as cassandra-driver sends the original (the first that matches, as in _DECODED)."""


def _same(v: Any) -> Any:
    return v


def _converter(cqltype: Any) -> Any:
    """How a value of this column type, as acsylla decodes it, becomes cassandra-driver's value: None when it
    needs nothing, False when the type is not supported on the native path (the statement then stays on
    cassandra-driver)."""
    return _per_type(cqltype, _DECODED, _converter, SortedSet)


def _binder(cqltype: Any) -> Any:
    """How a parameter of this type becomes the value acsylla sends as cassandra-driver sends the parameter:
    None when it needs nothing, False when the type is not supported on the native path."""
    return _per_type(cqltype, _BOUND, _binder, None)


_COLLECTIONS = (cqltypes.ListType, cqltypes.SetType, cqltypes.MapType)


def _per_type(cqltype: Any, table: tuple, each: Any, set_type: Any) -> Any:
    """`table`'s function for a scalar type; for a list, set or map, `each` of its element types applied to every
    element (a set made a `set_type`, when given); False for a type not in the table, and for a map whose keys are
    collections (acsylla makes a map a dict, and a list, set or dict cannot be a dict's key)."""
    if issubclass(cqltype, _PLAIN):
        return None
    for types, f in table:
        if issubclass(cqltype, types):
            return f
    if not issubclass(cqltype, _COLLECTIONS):
        return False  # decimal (acsylla 1.2.0 fails to decode it), time, inet, durations, tuples, UDTs, vectors ...
    if issubclass(cqltype, cqltypes.MapType) and issubclass(cqltype.subtypes[0], _COLLECTIONS):
        return False  # map<frozen<list<...>>, ...>: stays on cassandra-driver
    parts = [each(sub) for sub in cqltype.subtypes]
    if any(p is False for p in parts):
        return False
    if issubclass(cqltype, cqltypes.MapType):
        if parts == [None, None]:
            return None
        key, value = (p or _same for p in parts)
        return lambda m: None if m is None else {key(k): value(v) for k, v in m.items()}
    element = parts[0] or _same
    make = set_type if set_type is not None and issubclass(cqltype, cqltypes.SetType) else list
    if parts[0] is None and make is list:
        return None
    return lambda c: None if c is None else make(element(x) for x in c)


class _Plan:
    """What one prepared statement needs on the native path: its text, keyspace, parameter conversions
    (position, function) and result conversions (column name: function)."""

    __slots__ = ("text", "keyspace", "bind", "convert")

    def __init__(self, prepared: PreparedStatement, keyspace: str | None, bind: list[tuple[int, Any]], convert: dict[str, Any]):
        self.text, self.keyspace, self.bind, self.convert = prepared.query_string, keyspace, bind, convert


_PLANS: "weakref.WeakKeyDictionary[PreparedStatement, _Plan | None]" = weakref.WeakKeyDictionary()


def _plan(prepared: PreparedStatement, session: Session) -> _Plan | None:
    try:
        return _PLANS[prepared]
    except KeyError:
        pass
    plan = None
    bind = [_binder(c[3]) for c in (prepared.column_metadata or ())]
    convert = {c[2]: _converter(c[3]) for c in (prepared.result_metadata or ())}
    if all(f is not False for f in [*bind, *convert.values()]):
        plan = _Plan(prepared, prepared.keyspace or session.keyspace, [(i, f) for i, f in enumerate(bind) if f is not None],
                     {k: f for k, f in convert.items() if f is not None})
    _PLANS[prepared] = plan
    return plan


@functools.lru_cache(maxsize=None)
def _consistency(level: int) -> Any:
    return _acsylla().Consistency[ConsistencyLevel.value_to_name[level]]


class _Mirror:
    """acsylla cluster settings that reach the same nodes the same way as one cassandra-driver session."""

    def __init__(self, session: Session):
        cluster = session.cluster
        profile = cluster.profile_manager.default
        policy = profile.load_balancing_policy
        child = getattr(policy, "_child_policy", None)
        self.ok = isinstance(policy, TokenAwarePolicy) and type(child) in (DCAwareRoundRobinPolicy, RoundRobinPolicy) \
            and all(isinstance(p, str) for p in cluster.contact_points) and cluster.ssl_context is None and cluster.ssl_options is None \
            and (cluster.auth_provider is None or isinstance(cluster.auth_provider, PlainTextAuthProvider)) \
            and type(cluster.address_translator) is IdentityTranslator  # a translated (proxied) address would be bypassed
        if isinstance(child, DCAwareRoundRobinPolicy) and child.used_hosts_per_remote_dc:
            self.ok = False
        self.consistency = profile.consistency_level
        self.serial_consistency = profile.serial_consistency_level
        self.fetch_size = session.default_fetch_size
        if not self.ok:
            return
        auth = cluster.auth_provider
        self.options = dict(
            contact_points=list(cluster.contact_points), port=cluster.port, protocol_version=4, log_level="disabled",
            connect_timeout=cluster.connect_timeout, request_timeout=profile.request_timeout,
            token_aware_routing=True, token_aware_routing_shuffle_replicas=policy.shuffle_replicas,
            **({"load_balance_dc_aware": child.local_dc} if isinstance(child, DCAwareRoundRobinPolicy) and child.local_dc
               else {"load_balance_round_robin": True}),
            **({"username": auth.username, "password": auth.password} if auth is not None else {}),
        )


_MIRRORS: "weakref.WeakKeyDictionary[Session, _Mirror]" = weakref.WeakKeyDictionary()


def _mirror(session: Session) -> _Mirror:
    mirror = _MIRRORS.get(session)
    if mirror is None:
        mirror = _MIRRORS[session] = _Mirror(session)
    return mirror


class _Twin:
    """One acsylla session for one cassandra-driver session and keyspace, on one hub's event loop, for one run.

    It opens and prepares in the background from the run's first call (in its warm-up, when it has one): until
    a statement is ready on it, that statement's calls go through cassandra-driver (already connected in the
    workload's open_process), so no call waits for a connection or a prepare the cassandra-driver path would
    not have waited for. In a run without warm-up the opening's client CPU (about 30 ms here) falls in the
    measured window, and its first calls' share shows in client_path."""

    _FAILED = object()  # a statement acsylla could not prepare (or a session it could not open): cassandra-driver keeps it

    def __init__(self, mirror: _Mirror, keyspace: str | None, loop: asyncio.AbstractEventLoop):
        self.mirror, self.keyspace, self.loop = mirror, keyspace, loop
        self.session: Any = None
        self.prepared: dict[str, Any] = {}  # query text -> acsylla PreparedStatement, the task preparing it, or _FAILED
        self._opening: Any = None
        self.problem = ""  # why acsylla could not take this session's calls, if it could not

    def warm(self, text: str) -> None:
        """Start opening the session and preparing `text` in the background, once."""
        if text not in self.prepared:
            self.prepared[text] = self.loop.create_task(self._prepare(text))

    async def _prepare(self, text: str) -> None:
        try:
            if self._opening is None:
                self._opening = asyncio.ensure_future(_awaited(_acsylla().create_cluster(**self.mirror.options).create_session(keyspace=self.keyspace)))
            self.session = await asyncio.shield(self._opening)
            self.prepared[text] = await self.session.create_prepared(text)
        except Exception as exc:  # noqa: BLE001  (the call goes on through cassandra-driver, as it would without acsylla)
            self.prepared[text] = self._FAILED
            self.problem = f"{type(exc).__name__}: {exc}"

    def statement(self, plan: _Plan, params: Any, consistency: Any, serial: Any, page_size: int, timeout: Any, host: Any) -> Any:
        """The bound acsylla statement, or None while the session or the prepared statement is not ready yet."""
        prepared = self.prepared.get(plan.text)
        if prepared is None or prepared is self._FAILED or isinstance(prepared, asyncio.Future):
            return None
        statement = prepared.bind(page_size=page_size)
        if params:
            values = list(params)
            for i, f in plan.bind:
                if i < len(values):
                    values[i] = f(values[i])
            statement.bind_list(values)
        statement.set_consistency(consistency)
        if serial is not None:
            statement.set_serial_consistency(serial)
        if timeout is not None:
            statement.set_timeout(timeout)
        if host is not None:
            statement.set_host(host.address, self.mirror.options["port"])
        return statement

    async def rows(self, result: Any, statement: Any, plan: _Plan) -> "NativeRows":
        rows = _rows(result, plan)
        try:
            while result.has_more_pages():  # cassandra-driver would fetch these while the caller iterates
                statement.set_page_state(result.page_state())
                result = await self.session.execute(statement)
                rows.extend(_rows(result, plan))
        except _acsylla().errors.CassException as exc:
            raise _as_driver_error(exc) from exc
        return NativeRows(rows)

    async def close(self) -> None:
        if self._opening is not None:
            try:
                session = await asyncio.shield(self._opening)
            except Exception:  # noqa: BLE001  (never opened: nothing to close)
                return
            await session.close()


def _drive(coroutine: Any, finished: Any) -> None:
    """Run one acsylla call without an asyncio Task: send into its coroutine here, and again from the done
    callback of each future it waits on (acsylla's futures belong to the session's loop, the hub's); then
    `finished(result, None)` or `finished(None, error)`, which must not raise: from a done callback an
    exception would only be logged by the loop. A Task would do the same with two more trips through the loop
    per call."""

    def step(_future: Any = None) -> None:
        try:
            coroutine.send(None).add_done_callback(step)
        except StopIteration as stop:
            finished(stop.value, None)
        except BaseException as exc:  # noqa: BLE001  (handed to the caller, as a Task would)
            finished(None, exc)

    step()


async def _awaited(awaitable: Any) -> Any:
    """A task needs a coroutine asyncio recognises; acsylla's compiled ones are awaited from a plain one."""
    return await awaitable


def _rows(result: Any, plan: _Plan) -> list:
    names = result.columns_names()
    make = row_maker(tuple(names))
    convert = plan.convert
    if not convert:
        return [make(row.as_tuple()) for row in result]
    steps = [(i, convert[n]) for i, n in enumerate(names) if n in convert]
    out = []
    for row in result:
        values = list(row.as_tuple())
        for i, f in steps:
            values[i] = f(values[i])
        out.append(make(values))
    return out


class NativeRows:
    """What `session.execute` returns, for rows read on the native path: cassandra-driver's ResultSet
    interface as the lab's workloads use it (iteration, one(), all(), current_rows, was_applied), every page
    already fetched."""

    __slots__ = ("current_rows",)
    has_more_pages = False
    paging_state = None

    def __init__(self, rows: list):
        self.current_rows = rows

    def one(self) -> Any:
        return self.current_rows[0] if self.current_rows else None

    def all(self) -> list:
        return list(self.current_rows)

    def __iter__(self):
        return iter(self.current_rows)

    def __getitem__(self, i: int) -> Any:
        return self.current_rows[i]

    def __len__(self) -> int:
        return len(self.current_rows)

    def __bool__(self) -> bool:
        return bool(self.current_rows)

    @property
    def was_applied(self) -> bool:
        """A conditional statement's outcome, as ResultSet.was_applied gives it."""
        if not self.current_rows or self.current_rows[0]._fields[0] not in ("applied", "_0"):
            raise RuntimeError("was_applied is only for the result of a conditional statement (IF ...)")
        return bool(self.current_rows[0][0])


def _as_driver_error(exc: BaseException) -> BaseException:
    """acsylla's errors as the cassandra-driver exceptions workloads, retry rules and error counts know."""
    errors = _acsylla().errors
    text = f"{exc} (acsylla {type(exc).__name__})"
    for native, driver in ((errors.CassErrorServerUnavailable, Unavailable), (errors.CassErrorServerWriteTimeout, WriteTimeout),
                           (errors.CassErrorServerReadTimeout, ReadTimeout), (errors.CassErrorServerWriteFailure, WriteFailure),
                           (errors.CassErrorServerReadFailure, ReadFailure), (errors.CassErrorServerInvalidQuery, InvalidRequest)):
        if isinstance(exc, native):
            mapped = driver.__new__(driver)  # the driver's constructors want details (write type, counts) acsylla does not give
            Exception.__init__(mapped, text)
            return mapped
    if isinstance(exc, errors.CassErrorLibRequestTimedOut):
        return OperationTimedOut(errors={"native": text})
    if isinstance(exc, (errors.CassErrorLibNoHostsAvailable, errors.CassErrorLibUnableToConnect)):
        return NoHostAvailable(text, {})
    return exc


# --- the runner's asynchronous form -------------------------------------------------------------------------

_UNSUPPORTED = ("trace", "custom_payload", "paging_state", "execute_as")


class _HubSessions:
    """What the native path keeps for one hub (one run's greenlet workers in one process): each session's starter,
    decided once, and the acsylla sessions (twins) its starters opened, closed once the workers are done."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self.starters: dict[int, Any] = {}  # id(session) -> its starter, or None: cassandra-driver's form
        self._twins: dict[tuple[int, str | None], _Twin] | None = None

    @classmethod
    def of(cls, hub: Hub) -> "_HubSessions":
        return hub.kept(cls, lambda: cls(hub))

    def twins(self) -> dict[tuple[int, str | None], _Twin]:
        """(id(session), keyspace) -> its twin; the first ask has the hub close them all when the workers are done."""
        if self._twins is None:
            twins: dict[tuple[int, str | None], _Twin] = {}
            self._twins = twins

            async def close_all() -> None:
                for twin in twins.values():
                    await twin.close()

            self.hub.close_when_done(close_all)
        return self._twins


def native_execute(fn: Any) -> Any:
    """The runner's asynchronous form of `session.execute` on acsylla: None (cassandra-driver's form is used)
    when acsylla is not in use, outside a greenlet hub, or for a session it cannot mirror; the starter itself
    hands any call it cannot send natively (not a prepared statement, tracing, a type it does not decode) to
    cassandra-driver's form. Decided once per session and run (the hub keeps the starter)."""
    session = getattr(fn, "__self__", None)
    if not isinstance(session, Session) or getattr(fn, "__name__", "") != "execute":
        return None
    hub = current_hub()
    if hub is None:
        return None
    starters = _HubSessions.of(hub).starters
    try:
        return starters[id(session)]
    except KeyError:
        starter = starters[id(session)] = _native_starter(hub, session) if native_in_use() else None
        return starter


def _native_starter(hub: Hub, session: Session) -> Any:
    mirror = _mirror(session)
    if not mirror.ok:
        return None
    driver_form = async_execute(session.execute)
    loop = hub.event_loop()
    path = native_path_name()
    twins = _HubSessions.of(hub).twins()

    def start(args: tuple, kwargs: dict, on_result: Any, on_error: Any) -> str:
        call = dict(zip(EXECUTE_ARGS, args), **kwargs) if kwargs or len(args) > 2 else None
        prepared = args[0] if call is None else call.get("query")
        unsupported = call is not None and (any(call.get(k) for k in _UNSUPPORTED)
                                            or call.get("execution_profile", EXEC_PROFILE_DEFAULT) is not EXEC_PROFILE_DEFAULT)
        if not isinstance(prepared, PreparedStatement) or (plan := _plan(prepared, session)) is None or unsupported:
            driver_form(args, kwargs, on_result, on_error)
            return ASYNC_PATH
        key = (id(session), plan.keyspace)
        twin = twins.get(key)
        if twin is None:
            twin = twins[key] = _Twin(mirror, plan.keyspace, loop)
        level = prepared.consistency_level if prepared.consistency_level is not None else mirror.consistency
        serial = prepared.serial_consistency_level if prepared.serial_consistency_level is not None else mirror.serial_consistency
        fetch = prepared.fetch_size if prepared.fetch_size is not FETCH_SIZE_UNSET else mirror.fetch_size
        if call is None:
            params, timeout, host = (args[1] if len(args) > 1 else None), None, None
        else:
            params, timeout, host = call.get("parameters"), call.get("timeout", _NOT_SET), call.get("host")
            timeout = None if timeout is _NOT_SET else timeout
        if isinstance(params, Mapping):  # parameters by name: cassandra-driver binds them (the native path binds by position)
            driver_form(args, kwargs, on_result, on_error)
            return ASYNC_PATH
        statement = twin.statement(plan, params, _consistency(level), None if serial is None else _consistency(serial),
                                   -1 if fetch is None else fetch, timeout, host)
        if statement is None:  # not ready on acsylla yet (the run's first calls), or never: cassandra-driver sends it
            twin.warm(plan.text)
            driver_form(args, kwargs, on_result, on_error)
            return ASYNC_PATH

        def finished(result: Any, error: BaseException | None) -> None:
            """Exactly one of on_result and on_error, whatever fails here. Why: this runs in a callback of the
            hub's event loop, where an exception (a row acsylla cannot decode, a conversion) was logged and lost,
            its worker never resumed and the run never ended (#68); now it fails this call only."""
            if error is None:
                try:
                    if result.has_more_pages():
                        loop.create_task(twin.rows(result, statement, plan)).add_done_callback(paged)
                        return
                    rows = NativeRows(_rows(result, plan))
                except BaseException as exc:  # noqa: BLE001  (handed to the worker, as a reply's error)
                    error = exc
                else:
                    on_result(rows)
                    return
            on_error(_as_driver_error(error) if isinstance(error, _acsylla().errors.CassException) else error)

        def paged(task: asyncio.Task) -> None:
            try:
                rows = task.result()
            except BaseException as exc:  # noqa: BLE001  (cancelled included: its worker must still be resumed)
                on_error(exc)
                return
            on_result(rows)

        _drive(twin.session.execute(statement), finished)
        return path

    return start


register_async_form(async_execute)
register_async_form(native_execute, first=True)
