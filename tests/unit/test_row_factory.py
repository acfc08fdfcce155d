"""The lab's row factory gives what the driver's default gives (the same field names, values and tuple
behaviour), with one class per column list instead of one per result."""

from __future__ import annotations

import pytest
from cassandra.query import named_tuple_factory

from labkit.engines.cassandra import row_factory


@pytest.mark.parametrize("columns", [["k", "v"], ["count(*)"], ["system.ttl(v)", "k"], ["class", "from", "_x", "1st"], ["a", "a"]])
def test_rows_match_the_drivers_named_tuples(columns):
    rows = [tuple(range(i, i + len(columns))) for i in range(3)]
    ours, theirs = row_factory(columns, rows), named_tuple_factory(columns, rows)
    assert [r._fields for r in ours] == [r._fields for r in theirs]
    assert ours == theirs and [tuple(r) for r in ours] == rows
    assert [getattr(r, r._fields[0]) for r in ours] == [r[0] for r in rows]


def test_one_class_per_column_list():
    first, second = row_factory(["k", "v"], [(1, "a")]), row_factory(["k", "v"], [(2, "b")])
    assert type(first[0]) is type(second[0])
    assert type(row_factory(["k", "w"], [(1, "a")])[0]) is not type(first[0])
    assert row_factory(["k"], []) == []


def test_the_driver_takes_it_for_its_own_named_tuple_factory():
    """ResultSet.was_applied (an LWT's outcome) refuses row factories it does not know, by an equality test."""
    from cassandra.cluster import ResultSet
    from cassandra.query import SimpleStatement, dict_factory, tuple_factory

    assert row_factory in (named_tuple_factory, dict_factory, tuple_factory)
    assert row_factory != tuple_factory and row_factory != dict_factory
    future = type("Future", (), {"row_factory": row_factory, "query": SimpleStatement("UPDATE t SET v = 1 WHERE k = 1 IF v = 0"),
                                 "has_more_pages": False, "_continuous_paging_session": None,
                                 "_col_names": ["[applied]", "v"], "_col_types": None})()
    result = ResultSet(future, row_factory(["[applied]", "v"], [(False, 3)]))
    assert result.was_applied is False and result.one().v == 3
