"""Every column type a profile accepts (labkit.profiles.format.FITS), a value for each drawn by a generator of the
profile format that fills it (what a profile's step binds), cassandra-driver's class for the type, and what the
value reads back as. Shared by the unit tests of the native client path's conversions (tests/unit/
test_cassandra_calls.py) and the round trip through a real node (tests/integration/test_native_types.py).

What a value reads back as (cassandra-driver's rows, and the native path's, which gives the same): a timestamp's
milliseconds as the naive UTC datetime, a date as cassandra.util.Date, a float rounded to 32 bits, a set as a
SortedSet of its distinct elements, a map as its entries; every other value as written."""

from __future__ import annotations

import datetime
import random
import re
import struct
from collections.abc import Mapping
from typing import Any

from cassandra.protocol import ResultMessage
from cassandra.util import Date, SortedSet
from pydantic import TypeAdapter

from labkit.profiles.format import FITS, Generator, generator_fits
from labkit.profiles.generators import drawer

SCALAR_GENERATORS: dict[str, dict[str, Any]] = {
    "int": {"kind": "sequence", "start": 7},
    "bigint": {"kind": "timestamp"},  # milliseconds in a bigint, as the format allows
    "smallint": {"kind": "uniform", "low": -300, "high": 300},
    "varint": {"kind": "uniform", "low": -10**30, "high": 10**30},  # beyond 64 bits
    "counter": {"kind": "sequence", "start": 5},
    "text": {"kind": "text", "length": 12},
    "varchar": {"kind": "text", "length": 5},
    "ascii": {"kind": "text", "length": 7},
    "date": {"kind": "date"},
    "timestamp": {"kind": "timestamp"},
    "uuid": {"kind": "uuid"},
    "timeuuid": {"kind": "timeuuid"},
    "double": {"kind": "real", "low": -1e6, "high": 1e6},
    "float": {"kind": "real", "low": 0.0, "high": 100.0},
    "boolean": {"kind": "boolean"},
}
"""A generator of the profile format for each scalar column type it accepts."""

SCALARS = sorted({t for types in FITS.values() for t in types if "<" not in t})
ELEMENTS = [t for t in SCALARS if t != "counter"]  # a counter is never inside a collection
COLLECTIONS = [*(f"list<{t}>" for t in ELEMENTS), *(f"set<{t}>" for t in ELEMENTS), *(f"map<{t}, {t}>" for t in ELEMENTS)]
"""A list, a set and a map of each type a collection generator's elements can fill."""

_EPOCH = datetime.datetime(1970, 1, 1)
_WIRE = {getattr(t, "typename", None): t for t in ResultMessage.type_codes.values()}
_COLLECTION = re.compile(r"(list|set|map)<(\w+)(?:, (\w+))?>")


def generator(cql_type: str) -> Any:
    """The profile format's generator for a column of `cql_type` (a collection of 2 or 3 elements), one the
    format itself accepts for that type."""
    shape = _COLLECTION.fullmatch(cql_type)
    if shape is None:
        spec = SCALAR_GENERATORS[cql_type]
    elif shape.group(1) == "map":
        spec = {"kind": "map", "keys": SCALAR_GENERATORS[shape.group(2)], "values": SCALAR_GENERATORS[shape.group(3)], "low": 2, "high": 3}
    else:
        spec = {"kind": "collection", "of": SCALAR_GENERATORS[shape.group(2)], "low": 2, "high": 3}
    made = TypeAdapter(Generator).validate_python(spec)
    assert generator_fits(made, cql_type), (cql_type, spec)
    return made


def value(cql_type: str, seed: int = 0) -> Any:
    """One value a profile's step would bind to a column of `cql_type`."""
    return drawer(generator(cql_type))(random.Random(f"{cql_type}/{seed}"))


def wire_type(cql_type: str) -> Any:
    """cassandra-driver's class for `cql_type`, as a prepared statement's metadata names it."""
    shape = _COLLECTION.fullmatch(cql_type)
    if shape is None:
        return _WIRE[cql_type]
    return _WIRE[shape.group(1)].apply_parameters([_WIRE[t] for t in shape.groups()[1:] if t])


def read_back(cql_type: str, written: Any) -> Any:
    """What `written`, bound to a column of `cql_type`, reads back as (this module's docstring)."""
    shape = _COLLECTION.fullmatch(cql_type)
    if shape is not None:
        element = shape.group(2)
        if shape.group(1) == "list":
            return [read_back(element, v) for v in written]
        if shape.group(1) == "set":
            return SortedSet(read_back(element, v) for v in written)
        return {read_back(element, k): read_back(shape.group(3), v) for k, v in written.items()}
    if cql_type == "timestamp":
        return _EPOCH + datetime.timedelta(milliseconds=written)
    if cql_type == "date":
        return Date(written)
    if cql_type == "float":
        return struct.unpack(">f", struct.pack(">f", written))[0]
    return written


def kinds(v: Any) -> Any:
    """The Python types in a value, its elements' included (any mapping as dict: cassandra-driver's
    OrderedMapSerializedKey, the native path's dict): two client paths must give the same, not only values that
    compare equal (a cassandra.util.Date equals the datetime.date of its day)."""
    if isinstance(v, Mapping):
        return dict, [(kinds(k), kinds(x)) for k, x in v.items()]
    if isinstance(v, (list, set, SortedSet)):
        return type(v), [kinds(x) for x in v]
    return type(v)
