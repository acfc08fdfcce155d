"""Whether a profile's designs answer the same question: the same rows loaded into every design, each
operation that declares its answer asked of every design with the same values, and the answers compared.

Why: two designs compared on speed must return the same thing. A query through an index with `LIMIT 20`
returns 20 rows in token order, not the newest 20, and a list of rooms read from messages repeats a room
once per message; such a design is faster at answering another question. The comparison is of the
declared answer columns as a multiset (a timeuuid by its time, a timestamp in the same unit), in order
where the answer is newest first.
"""

from __future__ import annotations

import datetime
import uuid
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..engines import cassandra as cql
from ..errors import ConfigError
from .cassandra import UNTIMED, DesignWorkload, generator_binds
from .format import Answer, Profile
from .generators import ColumnValues

if TYPE_CHECKING:
    from ..clusters.contract import CassandraCluster

UUID_EPOCH_MS = 12_219_292_800_000
"""Milliseconds from the start of the Gregorian calendar (a version-1 UUID's clock) to the Unix epoch."""


def shared_generators(profile: Profile, *, load: bool) -> dict[str, Any]:
    """One generator per column name over every design (with the load's replacements when `load`): the same
    name must mean the same values in every design, or the designs cannot be given the same data."""
    merged: dict[str, Any] = {}
    for d, design in profile.designs.items():
        columns = {**design.columns, **(design.load.columns if load and design.load else {})}
        for name, generator in columns.items():
            if name in merged and merged[name] != generator:
                raise ConfigError(f"profile {profile.name}: column {name!r} has different generators in different designs "
                                  f"({merged[name].kind} and {generator.kind} in {d}); give one meaning one name so the designs can hold the same data")
            merged[name] = generator
    return merged


def time_ms(value: Any) -> Any:
    """A time-based UUID or a timestamp as milliseconds since the Unix epoch; anything else as it is."""
    if isinstance(value, uuid.UUID) and value.version == 1:
        return value.time // 10_000 - UUID_EPOCH_MS
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
        return int(moment.timestamp() * 1000)
    if isinstance(value, (list, set, frozenset)):
        return tuple(sorted(value, key=repr)) if isinstance(value, (set, frozenset)) else tuple(value)
    return value


def answer_of(rows: list[Any], answer: Answer) -> Any:
    """The declared columns of `rows`, normalised: a list in order when newest first, else a multiset."""
    projected = [tuple(time_ms(getattr(r, c)) for c in answer.columns) for r in rows]
    return projected if answer.newest_first else Counter(projected)


def load_same_rows(workload: DesignWorkload, rows: list[dict[str, Any]], draws: dict[str, list[dict[str, Any]]]) -> None:
    """The design's tables made anew in its keyspace, `rows` written through its load steps and its load
    operations run with `draws` (no marker row, so a measured run never takes this keyspace for a loaded one)."""
    workload.create_schema()
    s = workload.session
    for step in workload.design.load.steps if workload.design.load else []:
        cql.write_all(s, s.prepare(step.cql, keyspace=workload.keyspace), [[row[name] for name in step.bind] for row in rows])
    for name, executions in draws.items():
        for drawn in executions:
            workload.run_operation(UNTIMED, name, drawn=drawn)


def ask(workload: DesignWorkload, operation: str, drawn: dict[str, Any]) -> list[Any]:
    """The rows an operation's last step returns; none when an earlier step found nothing to go on (a login
    whose lookup row is missing answers "no such user", as the index design's empty result does)."""
    try:
        return workload.run_operation(UNTIMED, operation, drawn=drawn)[workload.design.operations[operation].steps[-1].name]
    except LookupError:
        return []


def compare_designs(profile: Profile, cluster: CassandraCluster, *, rows: int | None = None, samples: int = 20) -> list[dict[str, Any]]:
    """Per operation with a declared answer and per sample: the same values asked of every design, each loaded
    with the same rows (`rows`, default the profile's load, at most 5,000) and the same load operations; whether
    every design returned the same answer, and how many rows each returned."""
    from ..namespace import in_namespace

    designs = list(profile.designs)
    loads = [d.load for d in profile.designs.values() if d.load]
    rows = rows if rows is not None else min(max((load.rows for load in loads), default=0), 5000)
    generators = shared_generators(profile, load=True)
    data = ColumnValues(generators, profile.seed, worker=0, workers=1)
    loaded = [data.row(list(generators)) for _ in range(rows)]
    asked = ColumnValues(shared_generators(profile, load=False), profile.seed + 2, worker=0, workers=1)
    load_operations = {o: n for load in loads for o, n in load.operations.items()}
    draws = {o: [asked.row(list(dict.fromkeys(b for d in designs for b in generator_binds(profile.designs[d].operations[o].steps))))
                 for _ in range(n)] for o, n in load_operations.items()}
    workloads = {}
    try:
        for d in designs:
            w = DesignWorkload(cluster.addresses, profile, d)
            w.base_keyspace += "_answers"
            workloads[d] = in_namespace(w, cluster)
            load_same_rows(workloads[d], loaded, draws)
        out = []
        first = profile.designs[designs[0]]
        for name, operation in first.operations.items():
            if operation.answer is None:
                continue
            binds = list(dict.fromkeys(b for d in designs for b in generator_binds(profile.designs[d].operations[name].steps)))
            for sample in range(samples):
                drawn = asked.row(binds)
                answers = {}
                for d in designs:
                    answers[d] = answer_of(ask(workloads[d], name, drawn), operation.answer)
                reference = answers[designs[0]]
                out.append({"profile": profile.name, "operation": name, "sample": sample, "asked": drawn,
                            "rows": {d: (len(a) if isinstance(a, list) else sum(a.values())) for d, a in answers.items()},
                            "same": all(a == reference for a in answers.values()),
                            "differs": [d for d, a in answers.items() if a != reference]})
        return out
    finally:
        for w in workloads.values():
            cql.execute_ddl(w.session, f"DROP KEYSPACE IF EXISTS {w.keyspace}")
            w.close_process()
