"""The native-core client path's choices, without a server: which driver a process uses (and the fallback
when acsylla is missing), which prepared statements can go native, how rows and errors come back in
cassandra-driver's shapes. Both paths against a real node: tests/integration/test_ycsb_engines.py."""

from __future__ import annotations

import datetime
import uuid

import pytest
from cassandra import OperationTimedOut, Unavailable, WriteTimeout
from cassandra import cqltypes
from cassandra.cluster import NoHostAvailable
from cassandra.query import PreparedStatement
from cassandra.util import SortedSet

from labkit.engines import cassandra_calls as calls
from labkit.errors import ConfigError


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
    uuid_list_param = prepared([("ids", cqltypes.ListType.apply_parameters([cqltypes.UUIDType]))], [])
    assert calls._plan(decimal_result, FakeSession()) is None and calls._plan(uuid_list_param, FakeSession()) is None
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
