"""The profile file a student writes to measure designs of their own: its format, and every check the file
alone allows, with the field's path in each message (e.g. `designs.by_room.operations.read_room`).

A profile names an application and two or more designs of it. Each design has its schema (CQL), a seeded
generator per column, an optional load, and operations with weights (the mix). An operation is an ordered
list of steps; a step's bind values come from the generators or from a column an earlier step returned
(`lookup.user_id`), and a step with `for_each: lookup` runs once per row that step returned. The designs
share the operation names, so they compare as approaches do (`design/<name>` in rows and panels).

The format is declared with pydantic models (unknown fields, wrong types and out-of-range values are its
errors); what spans fields (a bind value no generator or earlier step gives, an operation one design lacks,
a generator that does not fit its column's type) is checked after, in the same message style.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

NAME = r"^[a-z][a-z0-9_]*$"
"""Design, operation, step and column names: what CQL takes unquoted (lower case, digits, underscores)."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---- generators: one per column, seeded ------------------------------------------------------------------

class Sequence(Strict):
    """0, 1, 2, ... (from `start`): each call the next number, e.g. ids of loaded rows; with `repeat: k` each
    number comes k times running (0, 0, 1, 1, ...: a user's id once for each of the k users they follow)."""
    kind: Literal["sequence"]
    start: int = 0
    repeat: Annotated[int, Field(ge=1)] = 1


class Uniform(Strict):
    """Any whole number from `low` to `high`, all alike."""
    kind: Literal["uniform"]
    low: int = 0
    high: Annotated[int, Field(ge=0)]


class Zipfian(Strict):
    """One of `n` values (0..n-1) where a few are hot: value k is drawn in proportion to 1/(k+1)^exponent
    (YCSB's constant 0.99 by default). A plain zipfian over the n values, so value 0 is the hottest (about
    12% of draws for n = 2,000); YCSB's request distribution instead hashes ranks drawn over 10^10 items."""
    kind: Literal["zipfian"]
    n: Annotated[int, Field(ge=1)]
    exponent: Annotated[float, Field(gt=0, le=5)] = 0.99


class Latest(Strict):
    """Recent values are hot: a zipfian distance back from the newest of `n` values."""
    kind: Literal["latest"]
    n: Annotated[int, Field(ge=1)]
    exponent: Annotated[float, Field(gt=0, le=5)] = 0.99


class Text(Strict):
    """Letters and spaces, `length` characters."""
    kind: Literal["text"]
    length: Annotated[int, Field(ge=1, le=1_000_000)]


class Template(Strict):
    """Text made from another column's value in the same row: `text` with `{}` where that value goes (an
    e-mail address `user{}@lab.example` from the user's number, so a lookup finds what the load wrote)."""
    kind: Literal["template"]
    text: Annotated[str, Field(pattern=r"\{\}")]
    source: Annotated[str, Field(pattern=NAME)]


class Bucket(Strict):
    """The time bucket of another column's time in the same row (a `timestamp` or `timeuuid` generator's):
    `unit: day` gives its calendar day in UTC (a date column), `unit: hour` the moment its hour began (a
    timestamp column). In a partition key it closes each partition when its day or hour is over."""
    kind: Literal["bucket"]
    source: Annotated[str, Field(pattern=NAME)]
    unit: Literal["day", "hour"] = "day"


class Uuid(Strict):
    """A random (version 4) UUID, from the profile's seed."""
    kind: Literal["uuid"]


class TimeUuid(Strict):
    """A time-based (version 1) UUID of the moment it is made."""
    kind: Literal["timeuuid"]


class Timestamp(Strict):
    """The moment it is made, in milliseconds (a timestamp column, or a bigint holding milliseconds); a worker
    never draws the same millisecond twice (the next is 1 ms later), so rows keyed by it do not overwrite each other."""
    kind: Literal["timestamp"]


class Real(Strict):
    """A number with a fraction, from `low` to `high`, all alike (a price, a position, a reading)."""
    kind: Literal["real"]
    low: float = 0.0
    high: float


class Boolean(Strict):
    """True with probability `share` (a flag: read, archived, online)."""
    kind: Literal["boolean"]
    share: Annotated[float, Field(ge=0, le=1)] = 0.5


class Date(Strict):
    """A calendar day, from `days` days before the first of January 2026 up to that day, all alike."""
    kind: Literal["date"]
    days: Annotated[int, Field(ge=0, le=100_000)] = 365


ScalarGenerator = Annotated[Union[Sequence, Uniform, Zipfian, Latest, Text, Uuid, TimeUuid, Timestamp, Real, Boolean, Date],
                            Field(discriminator="kind")]


class Collection(Strict):
    """A list or set column: from `low` to `high` elements (all alike), each drawn from `of` (a set keeps
    distinct ones)."""
    kind: Literal["collection"]
    of: ScalarGenerator
    low: Annotated[int, Field(ge=0)] = 0
    high: Annotated[int, Field(ge=0, le=10_000)]


class MapOf(Strict):
    """A map column: from `low` to `high` entries, keys drawn from `keys`, values from `values`."""
    kind: Literal["map"]
    keys: ScalarGenerator
    values: ScalarGenerator
    low: Annotated[int, Field(ge=0)] = 0
    high: Annotated[int, Field(ge=0, le=10_000)]


Generator = Annotated[Union[Sequence, Uniform, Zipfian, Latest, Text, Template, Bucket, Uuid, TimeUuid, Timestamp, Real, Boolean, Date, Collection, MapOf],
                      Field(discriminator="kind")]

FITS = {  # which CQL column types each generator can fill (collections: see generator_fits)
    "sequence": {"int", "bigint", "smallint", "varint", "counter"},
    "uniform": {"int", "bigint", "smallint", "varint"},
    "zipfian": {"int", "bigint", "smallint", "varint"},
    "latest": {"int", "bigint", "smallint", "varint"},
    "text": {"text", "varchar", "ascii"},
    "template": {"text", "varchar", "ascii"},
    "bucket": {"date", "timestamp"},
    "uuid": {"uuid"},
    "timeuuid": {"timeuuid"},
    "timestamp": {"timestamp", "bigint"},
    "real": {"double", "float"},
    "boolean": {"boolean"},
    "date": {"date"},
    "collection": {"list<...>", "set<...>"},
    "map": {"map<..., ...>"},
}


def generator_fits(generator: Any, cql_type: str) -> bool:
    """Whether `generator` can fill a column of `cql_type` (`frozen<...>` as its inside; a collection's
    element type must fit its element generator)."""
    t = re.sub(r"\s+", "", cql_type.lower())
    frozen = re.fullmatch(r"frozen<(.*)>", t)
    t = frozen.group(1) if frozen else t
    if isinstance(generator, Collection):
        inner = re.fullmatch(r"(?:list|set)<(.*)>", t)
        return inner is not None and generator_fits(generator.of, inner.group(1))
    if isinstance(generator, MapOf):
        inner = re.fullmatch(r"map<(.*)>", t)
        parts = _split_top(inner.group(1)) if inner else []
        return len(parts) == 2 and generator_fits(generator.keys, parts[0]) and generator_fits(generator.values, parts[1])
    if isinstance(generator, Bucket):
        return t == {"day": "date", "hour": "timestamp"}[generator.unit]
    return t in FITS[generator.kind]


NOT_SCALAR = {"template", "bucket", "collection", "map"}
"""Generators made from another column, or holding several values: never an element of a collection or map."""
BUCKET_UNIT = {"date": "day", "timestamp": "hour"}
"""Which bucket fills which column type (`unit`)."""


def _bare(cql_type: str) -> str:
    """A column type without spaces and without `frozen<...>` around it."""
    t = re.sub(r"\s+", "", cql_type.lower())
    frozen = re.fullmatch(r"frozen<(.*)>", t)
    return frozen.group(1) if frozen else t


def generators_for(cql_type: str, scalar: bool = False) -> list[str]:
    """The generator kinds that can fill a column of `cql_type` (`scalar`: only those that may be a collection's
    elements or a map's keys or values), so that a refusal names what fits as well as what does not."""
    t = _bare(cql_type)
    if re.fullmatch(r"(?:list|set|map)<.*>", t):
        return [] if scalar else ["map" if t.startswith("map<") else "collection"]
    return sorted(kind for kind, types in FITS.items() if t in types and not (scalar and kind in NOT_SCALAR))


def _a(kinds: list[str], t: str = "") -> str:
    """'a real generator', 'a latest, sequence, uniform or zipfian generator' (a bucket with the unit `t` needs)."""
    named = [f"bucket (unit {BUCKET_UNIT[t]})" if k == "bucket" and t in BUCKET_UNIT else k for k in kinds]
    text = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
    return f"{'an' if text[:1] in 'aeio' else 'a'} {text} generator"  # a uniform, a uuid


def takes(cql_type: str) -> str:
    """Which generator a column of `cql_type` takes, as a refusal says it after what the refused generator fits."""
    t = _bare(cql_type)
    column = f"{'an' if t[:1] in 'aeio' else 'a'} {cql_type} column"
    inner = re.fullmatch(r"(?:list|set)<(.*)>", t)
    pair = re.fullmatch(r"map<(.*)>", t)
    if inner:
        elements = generators_for(inner.group(1), scalar=True)
        return f"{column} takes a collection generator whose `of` is {_a(elements)}" if elements else f"no generator fills {column}"
    if pair:
        parts = [generators_for(part, scalar=True) for part in _split_top(pair.group(1))]
        if len(parts) == 2 and all(parts):
            return f"{column} takes a map generator whose `keys` are {_a(parts[0])} and `values` {_a(parts[1])}"
        return f"no generator fills {column}"
    kinds = generators_for(t)
    return f"{column} takes {_a(kinds, t)}" if kinds else f"no generator fills {column}"


# ---- operations -----------------------------------------------------------------------------------------

class Newest(Strict):
    """Keep the `keep` rows with the largest `by` (a timeuuid by its time), newest first: what a design does when
    its table cannot return a partition's newest rows in order (a query through an index). `by` may list
    columns, the later ones breaking ties, as a table's clustering columns do."""
    by: Annotated[str, Field(pattern=NAME)] | Annotated[list[Annotated[str, Field(pattern=NAME)]], Field(min_length=1)]
    keep: Annotated[int, Field(ge=1, le=100_000)]

    @property
    def columns(self) -> list[str]:
        return [self.by] if isinstance(self.by, str) else list(self.by)


class Step(Strict):
    """One CQL statement of an operation: `bind` names, in the order of its `?` markers, a column's generator
    (`room`) or a column an earlier step returned (`lookup.user_id`); `for_each` repeats the step once per
    row an earlier step returned (its columns are then that row's). The step reads every row the statement
    returns, all pages, inside its timed call. `newest` then keeps the newest rows (over every repetition of a
    for_each), and `distinct` drops repeated rows: work the client does, paid for by reading every row first."""
    name: Annotated[str, Field(pattern=NAME)]
    cql: Annotated[str, Field(min_length=1)]
    bind: list[str] = []
    for_each: str | None = None
    newest: Newest | None = None
    distinct: bool = False


class Answer(Strict):
    """What an operation returns, so that two designs can be checked to answer the same question: the
    `columns` of its last step's rows (compared as a multiset, a timeuuid as its time), and `newest_first`
    when the answer's order is part of it (by its first column)."""
    columns: Annotated[list[Annotated[str, Field(pattern=NAME)]], Field(min_length=1)]
    newest_first: bool = False


class Operation(Strict):
    weight: Annotated[float, Field(gt=0)]
    """Its share of the mix, relative to the other operations' weights."""
    steps: Annotated[list[Step], Field(min_length=1)]
    answer: Answer | None = None
    """For an operation that reads: what it returns (the same in every design)."""


class Load(Strict):
    """Statements run `rows` times before any measured run (not measured), e.g. the rooms and users a chat starts
    with; `columns` replace the design's generators while loading (a sequence of ids where the operations pick
    one at random)."""
    rows: Annotated[int, Field(ge=1, le=10_000_000)]
    steps: Annotated[list[Step], Field(min_length=1)]
    columns: dict[Annotated[str, Field(pattern=NAME)], Generator] = {}
    operations: dict[Annotated[str, Field(pattern=NAME)], Annotated[int, Field(ge=1, le=1_000_000)]] = {}
    """Operations run that many times after the steps, unmeasured, with the design's generators: data a design
    keeps in step itself (each activity copied into every follower's feed), which a row at a time cannot load."""


class Design(Strict):
    schema_cql: Annotated[str, Field(alias="schema", min_length=1)]
    """CREATE TABLE / CREATE INDEX statements, separated by semicolons, in the design's own keyspace."""
    columns: dict[Annotated[str, Field(pattern=NAME)], Generator]
    load: Load | None = None
    operations: Annotated[dict[Annotated[str, Field(pattern=NAME)], Operation], Field(min_length=1)]

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Profile(Strict):
    name: Annotated[str, Field(pattern=NAME)]
    engine: Literal["cassandra"] = "cassandra"
    """Cassandra first: the format leaves room for MongoDB and Couchbase designs."""
    seed: int = 0
    description: str = ""
    designs: Annotated[dict[Annotated[str, Field(pattern=NAME)], Design], Field(min_length=2)]


def mix_text(profile: Profile) -> str:
    """The mix as a line, 'post_message 2, read_room 7, rooms_of_user 1': the operations and weights of the
    first design (the designs share the operation names; their weights are the file's to keep alike)."""
    first = next(iter(profile.designs.values()))
    return ", ".join(f"{o} {op.weight:g}" for o, op in first.operations.items())


# ---- reading one, with every mistake at once ------------------------------------------------------------

def load_profile(path: str | Path) -> Profile:
    """The profile in a YAML file, checked; a ConfigError lists every mistake with its path in the file."""
    import yaml

    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"no profile file at {file}: give the path of a .yaml file (examples in datasets/profiles/)")
    try:
        data = yaml.safe_load(file.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(f"{file} is not valid YAML: {exc}") from None
    return parse_profile(data, source=str(file))


def parse_profile(data: Any, source: str = "profile") -> Profile:
    """A profile from parsed YAML: the format's checks, then those that span fields."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a profile is a mapping with name, designs, ... at its top level")
    try:
        profile = Profile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source} has {exc.error_count()} mistake(s):\n" + "\n".join(_line(e) for e in exc.errors())) from None
    problems = cross_checks(profile)
    if problems:
        raise ConfigError(f"{source} has {len(problems)} mistake(s):\n" + "\n".join(f"  {p}" for p in problems))
    return profile


def _line(error: Mapping[str, Any]) -> str:
    """`designs.by_room.operations.read_room.weight: must be greater than 0 (got 0)`."""
    loc = ""
    for part in error["loc"]:
        if isinstance(part, str) and part in _UNION_TAGS:
            continue
        loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
    got = error.get("input")
    shown = "" if isinstance(got, (dict, list)) or error["type"] == "missing" else f" (got {got!r})"
    message = error["msg"][0].lower() + error["msg"][1:]
    return f"  {loc or '(top level)'}: {message}{shown}"


_UNION_TAGS = set(FITS)  # pydantic puts the chosen generator kind into an error's path; the file has no such key


# ---- what spans fields ----------------------------------------------------------------------------------

def table_columns(schema: str) -> dict[str, dict[str, str]]:
    """table -> column -> CQL type, from the CREATE TABLE statements of a schema (the types the generators must fit)."""
    tables: dict[str, dict[str, str]] = {}
    for match in re.finditer(r"create\s+table\s+(?:if\s+not\s+exists\s+)?(\w+)\s*\((.*?)\)\s*(?:with\b[^;]*)?(?:;|$)", schema, re.I | re.S):
        columns = {}
        for part in _split_top(match.group(2)):
            words = part.strip().split()
            if len(words) >= 2 and words[0].lower() != "primary":
                kind = re.split(r"\s+(?:static|primary\s+key)\b", " ".join(words[1:]), flags=re.I)[0]
                columns[words[0].lower()] = re.sub(r"\s+", "", kind.lower())
        tables[match.group(1).lower()] = columns
    return tables


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses and angle brackets (map<text, int> stays one type)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def selected_columns(cql: str) -> set[str] | None:
    """The columns a SELECT returns (None: `*` or not a SELECT we can read, so any reference is allowed)."""
    match = re.match(r"\s*select\s+(.*?)\s+from\s", cql, re.I | re.S)
    if not match or match.group(1).strip() == "*":
        return None
    out = set()
    for item in _split_top(match.group(1)):
        words = item.strip().split()
        if not words:
            continue
        out.add(words[-1].lower() if len(words) >= 3 and words[-2].lower() == "as" else words[0].lower())
    return out


def cross_checks(profile: Profile) -> list[str]:
    """What the format alone cannot say: bind values nobody gives, operations a design lacks, generators that
    do not fit their column, markers and bind lists of different lengths, columns no table has."""
    problems: list[str] = []
    names = {d: set(design.operations) for d, design in profile.designs.items()}
    every = set().union(*names.values())
    for d, ops in names.items():
        for missing in sorted(every - ops):
            others = ", ".join(sorted(o for o, their in names.items() if missing in their))
            problems.append(f"designs.{d}.operations: has no operation {missing!r}, which {others} has: every design answers the same operations")
    for d, design in profile.designs.items():
        types = {col: kind for table in table_columns(design.schema_cql).values() for col, kind in table.items()}
        if not types:
            problems.append(f"designs.{d}.schema: no CREATE TABLE found: a design needs at least one table")
        generators = list(design.columns.items()) + (list(design.load.columns.items()) if design.load else [])
        for col, generator in generators:
            if generator.kind == "template":
                source = design.columns.get(generator.source)
                if source is None or source.kind == "template":
                    problems.append(f"designs.{d}.columns.{col}.source: {generator.source!r} must be another column of this design with a "
                                    "generator that is not a template")
            if generator.kind == "bucket":
                source = design.columns.get(generator.source)
                if source is None or source.kind not in ("timestamp", "timeuuid"):
                    problems.append(f"designs.{d}.columns.{col}.source: {generator.source!r} must be a column of this design with a "
                                    "timestamp or timeuuid generator: a bucket is made from a row's time")
            if types and col not in types:
                problems.append(f"designs.{d}.columns.{col}: no table of this design has a column {col!r} (its columns: {', '.join(sorted(types))})")
            elif col in types and generator.kind != "template" and not generator_fits(generator, types[col]):
                problems.append(f"designs.{d}.columns.{col}: a {generator.kind} generator cannot fill a {types[col]} column "
                                f"(it fits {', '.join(sorted(FITS[generator.kind]))}; {takes(types[col])})")
            elif col in types and generator.kind == "template" and types[col] not in FITS["template"]:
                problems.append(f"designs.{d}.columns.{col}: a template generator cannot fill a {types[col]} column "
                                f"(it fits {', '.join(sorted(FITS['template']))}; {takes(types[col])})")
        steps_of = {f"operations.{o}": op.steps for o, op in design.operations.items()}
        if design.load is not None:
            steps_of["load"] = design.load.steps
            for o in design.load.operations:
                if o not in design.operations:
                    problems.append(f"designs.{d}.load.operations.{o}: no operation {o!r} in this design (it has {', '.join(design.operations)})")
            for i, step in enumerate(design.load.steps):
                if step.for_each or any("." in b for b in step.bind):
                    problems.append(f"designs.{d}.load.steps[{i}]: a load step binds generator values only (no for_each, no STEP.COLUMN): "
                                    "load rows are written in bulk, not one operation at a time")
        for where, steps in steps_of.items():
            problems += _step_problems(f"designs.{d}.{where}", steps, design)
        for o, op in design.operations.items():
            problems += _answer_problems(f"designs.{d}.operations.{o}", op)
    loaded_by = {d: dict(design.load.operations) if design.load else {} for d, design in profile.designs.items()}
    if len({tuple(sorted(ops.items())) for ops in loaded_by.values()}) > 1:
        problems.append(f"load.operations: the designs run different operations while loading ({', '.join(f'{d}: {ops or None}' for d, ops in loaded_by.items())}): "
                        "every design must be loaded with the same data")
    for o in every:
        declared = {d: design.operations[o].answer for d, design in profile.designs.items() if o in design.operations}
        if len({a.model_dump_json() if a else None for a in declared.values()}) > 1:
            problems.append(f"operations.{o}.answer: the designs declare different answers ({', '.join(f'{d}: {a.columns if a else None}' for d, a in declared.items())}): "
                            "an operation answers the same question in every design")
    return problems


def _answer_problems(where: str, op: Operation) -> list[str]:
    """An answer's columns are what the last step returns; newest options name a selected column."""
    problems = []
    for i, step in enumerate(op.steps):
        selected = selected_columns(step.cql)
        if step.newest is not None and selected is not None:
            for by in step.newest.columns:
                if by.lower() not in selected:
                    problems.append(f"{where}.steps[{i}].newest.by: the step does not return {by!r} (it selects {', '.join(sorted(selected))})")
        if (step.newest is not None or step.distinct) and not re.match(r"\s*select\b", step.cql, re.I):
            problems.append(f"{where}.steps[{i}]: newest and distinct keep rows a SELECT returned; this step is not a SELECT")
    if op.answer is not None:
        last = selected_columns(op.steps[-1].cql)
        missing = [c for c in op.answer.columns if last is not None and c.lower() not in last]
        if missing:
            problems.append(f"{where}.answer.columns: the last step does not return {', '.join(missing)} (it selects {', '.join(sorted(last or []))})")
    return problems


def _step_problems(where: str, steps: list[Step], design: Design) -> list[str]:
    problems: list[str] = []
    earlier: dict[str, set[str] | None] = {}  # step name -> the columns it selects
    for i, step in enumerate(steps):
        at = f"{where}.steps[{i}]"
        if step.name in earlier:
            problems.append(f"{at}.name: {step.name!r} names an earlier step too: each step of an operation has its own name")
        markers = step.cql.count("?")
        if markers != len(step.bind):
            problems.append(f"{at}.bind: {len(step.bind)} value(s) for {markers} '?' marker(s) in its cql")
        if step.for_each is not None and step.for_each not in earlier:
            problems.append(f"{at}.for_each: no earlier step named {step.for_each!r} in this operation (earlier: {', '.join(earlier) or 'none'})")
        for j, value in enumerate(step.bind):
            source, _, column = value.partition(".")
            if not column:
                if value not in design.columns:
                    problems.append(f"{at}.bind[{j}]: {value!r} is neither a column with a generator ({', '.join(sorted(design.columns)) or 'none'}) "
                                    "nor STEP.COLUMN of an earlier step")
                continue
            if source not in earlier:
                problems.append(f"{at}.bind[{j}]: {value!r} refers to step {source!r}, which is not an earlier step of this operation")
                continue
            returned = earlier[source]
            if returned is not None and column not in returned:
                problems.append(f"{at}.bind[{j}]: step {source!r} does not return {column!r} (it selects {', '.join(sorted(returned))})")
        earlier[step.name] = selected_columns(step.cql)
    return problems


def filtering_notes(profile: Profile) -> list[str]:
    """Steps that ask the server to filter (`ALLOW FILTERING`): valid, so not an error, but said, because such a
    query reads every partition of its table to answer (the traces show it as a range read)."""
    return [f"designs.{d}.operations.{o}.steps[{i}] ({step.name}) uses ALLOW FILTERING: the server reads every partition of the "
            "table to answer it, however few rows match; a table keyed by what it filters on answers from one"
            for d, design in profile.designs.items() for o, op in design.operations.items()
            for i, step in enumerate(op.steps) if re.search(r"\ballow\s+filtering\b", step.cql, re.I)]
