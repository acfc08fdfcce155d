"""One design of a profile as a workload on Cassandra: its schema in its own keyspace (behind the user's
namespace), its load, and a transaction that picks an operation by the mix's weights and runs its steps.

Why a marker row: loading a design's data takes longer than a measured run, so the keyspace remembers
which schema, load and seed it holds (a hash) and a later run of the same design finds it ready; any
change to the design's text drops the keyspace and starts again.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import uuid
from typing import TYPE_CHECKING, Any

from ..engines import cassandra as cql
from ..errors import ConfigError
from ..patterns.cassandra_workload import CassandraWorkload
from .format import Design, Profile, Step
from .generators import ColumnValues

if TYPE_CHECKING:
    from ..clusters.contract import CassandraCluster

MARKER_TABLE = "labkit_loaded"


def design_hash(profile: Profile, design: str) -> str:
    """What a loaded keyspace must match: the design's schema, columns and load (with its operations' steps), and
    the profile's seed."""
    d = profile.designs[design]
    text = json.dumps({"seed": profile.seed, "schema": d.schema_cql, "columns": {k: v.model_dump() for k, v in d.columns.items()},
                       "load": d.load.model_dump() if d.load else None,
                       "load_operations": {o: d.operations[o].model_dump() for o in (d.load.operations if d.load else {})}}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def schema_statements(schema: str) -> list[str]:
    """The schema's statements, one per semicolon (CQL string literals with semicolons are not expected here)."""
    return [s.strip() for s in schema.split(";") if s.strip()]


class DesignWorkload(CassandraWorkload):
    """`design` of `profile`; the operations' steps are prepared once per client process (`operation.step`)."""

    protocol_version = cql.PROTOCOL_KEYSPACE_PER_STATEMENT  # its statements are prepared with keyspace=

    def __init__(self, addresses: list[str], profile: Profile, design: str, replication: int = 1, consistency: str = "ONE"):
        if design not in profile.designs:
            raise ConfigError(f"profile {profile.name} has no design {design!r}; it has: {', '.join(profile.designs)}")
        self.connect_to(addresses, consistency)
        self.profile = profile
        self.design_name = design
        self.replication = replication
        self.name = f"{profile.name}/design/{design}"
        self.base_keyspace = f"profile_{profile.name}_{design}"
        ops = list(self.design.operations.items())
        self._op_names = [name for name, _ in ops]
        self._cumulative = list(itertools.accumulate(op.weight for _, op in ops))

    @property
    def design(self) -> Design:
        return self.profile.designs[self.design_name]

    def statement_texts(self) -> dict[str, str | None]:
        texts: dict[str, str | None] = {f"{o}.{step.name}": step.cql for o, op in self.design.operations.items() for step in op.steps}
        if self.design.load is not None:
            texts.update({f"load.{step.name}": step.cql for step in self.design.load.steps})
        return texts

    @property
    def statements(self) -> Any:
        """Prepared in the design's keyspace (its statements name tables without one), given with each prepare
        (protocol 5) rather than by `USE`, which the server warns about for prepared statements."""
        if self._statements is None:
            prepared = {name: self.session.prepare(text, keyspace=self.keyspace) for name, text in self.statement_texts().items()}
            for statement in prepared.values():
                statement.consistency_level = self.consistency
                statement.fetch_size = None  # every row in one reply, inside the step's timed call (no untimed later pages)
            self._statements = prepared
        return self._statements

    # ---- phases ----------------------------------------------------------------------------------

    def setup(self) -> None:
        """The design's keyspace and tables, unless the keyspace already holds this very design (marker row)."""
        if not self._holds_this_design():
            self.create_schema()
        self.check_statements()

    def create_schema(self) -> None:
        """The keyspace dropped and made again with the design's tables and an empty marker table."""
        s = self.session
        cql.execute_ddl(s, f"DROP KEYSPACE IF EXISTS {self.keyspace}")
        cql.create_keyspace(s, self.keyspace, self.replication)
        ddl = cql.connect(self.addresses)  # a session of its own for the schema's unqualified names: the workload's never has a USE
        try:
            ddl.set_keyspace(self.keyspace)
            for statement in schema_statements(self.design.schema_cql):
                cql.execute_ddl(ddl, statement)
            cql.execute_ddl(ddl, f"CREATE TABLE IF NOT EXISTS {MARKER_TABLE} (design text PRIMARY KEY, hash text)")
        finally:
            ddl.cluster.shutdown()

    def check_statements(self) -> None:
        """Prepare every statement of the design once, at the first contact with the cluster and before any
        measured run: a statement the server refuses becomes a ConfigError naming its place in the profile
        and the server's reason (a query that would need ALLOW FILTERING says so, with what to do)."""
        from cassandra import InvalidRequest

        places = {f"{o}.{step.name}": f"designs.{self.design_name}.operations.{o}.steps[{i}]"
                  for o, op in self.design.operations.items() for i, step in enumerate(op.steps)}
        if self.design.load is not None:
            places.update({f"load.{step.name}": f"designs.{self.design_name}.load.steps[{i}]" for i, step in enumerate(self.design.load.steps)})
        problems = []
        for name, text in self.statement_texts().items():
            if text is None:  # a statement this workload does not use (a profile's designs use every one)
                continue
            try:
                self.session.prepare(text, keyspace=self.keyspace)
            except InvalidRequest as exc:
                reason = str(exc).split('message="', 1)[-1].rstrip('"')
                hint = (" (the query filters on a column that is neither the partition key nor indexed: give this design a table "
                        "keyed by that column, or an index on it; ALLOW FILTERING would read every partition)") if "ALLOW FILTERING" in reason else ""
                problems.append(f"  {places.get(name, name)}: the server refuses `{text.strip()}`: {reason}{hint}")
        if problems:
            raise ConfigError(f"profile {self.profile.name}: {len(problems)} statement(s) of design {self.design_name} cannot run:\n" + "\n".join(problems))

    def load(self) -> None:
        """`load.rows` rows through the load steps (generator values only), then the marker that says so."""
        s = self.session
        if self._holds_this_design():
            return
        load = self.design.load
        if load is not None:
            values = ColumnValues({**self.design.columns, **load.columns}, self.profile.seed, worker=0, workers=1)
            rows = [values.row(list(self.design.columns)) for _ in range(load.rows)]  # one row's columns alike in every step
            for step in load.steps:
                cql.write_all(s, s.prepare(step.cql, keyspace=self.keyspace), [[row[name] for name in step.bind] for row in rows])
            self.run_load_operations(ColumnValues(self.design.columns, self.profile.seed + 1, worker=0, workers=1))
        s.execute(f"INSERT INTO {self.keyspace}.{MARKER_TABLE} (design, hash) VALUES (%s, %s)", (self.design_name, design_hash(self.profile, self.design_name)))

    def run_load_operations(self, values: ColumnValues, draws: dict[str, list[dict[str, Any]]] | None = None) -> None:
        """The load's `operations`, each its number of times, unmeasured (`draws`: the values of each execution,
        the same for every design when the answers are compared)."""
        for name, times in (self.design.load.operations if self.design.load else {}).items():
            for i in range(times):
                self.run_operation(UNTIMED, name, values, drawn=draws[name][i] if draws else None)

    def _holds_this_design(self) -> bool:
        s = self.session
        found = s.execute("SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s AND table_name = %s",
                          (self.keyspace, MARKER_TABLE)).one()
        if found is None:
            return False
        marker = s.execute(f"SELECT hash FROM {self.keyspace}.{MARKER_TABLE} WHERE design = %s", (self.design_name,)).one()
        return marker is not None and marker.hash == design_hash(self.profile, self.design_name)

    def transaction(self, tx: Any) -> None:
        values = tx.worker_state.get("values")
        if values is None:
            values = tx.worker_state["values"] = ColumnValues(self.design.columns, self.profile.seed, tx.worker, tx.workers)
        name = self._op_names[bisect.bisect_right(self._cumulative, tx.rng.random() * self._cumulative[-1])]
        self.run_operation(tx, name, values)

    def run_operation(self, tx: Any, name: str, values: ColumnValues | None = None, drawn: dict[str, Any] | None = None) -> dict[str, list[Any]]:
        """The operation's steps in order; each step's rows are kept for the steps after it (after its `newest`
        and `distinct`). A generator column has one value per execution, whichever steps bind it (a post and its
        index row name the same author); `drawn` gives those values instead (two designs asked the same)."""
        prepared = self.statements
        results: dict[str, list[Any]] = {}
        steps = self.design.operations[name].steps
        if drawn is None:
            if values is None:
                raise ValueError(f"operation {name}: give the values to draw from, or the values drawn")
            drawn = values.row(generator_binds(steps))  # one draw per execution: steps agree
        for step in steps:
            statement = prepared[f"{name}.{step.name}"]
            for row in (results[step.for_each] if step.for_each else [None]):
                params = [bound(step, b, drawn, results, row) for b in step.bind]
                results.setdefault(step.name, []).extend(tx.call(f"{name}.{step.name}", self.session.execute, statement, params))
            results[step.name] = kept_rows(step, results.get(step.name, []))
        return results


class _Untimed:
    """Runs each step's call as it is: load operations and the answer check time nothing."""

    def call(self, op: str, fn: Any, *args: Any) -> Any:
        return fn(*args)


UNTIMED = _Untimed()


class _TracingTx:
    """Stands in for the runner's transaction when the evidence is gathered: each call runs traced, its
    report kept under the step's name, its rows handed on to the steps after it."""

    def __init__(self, session: Any, consistency: int):
        self.session, self.consistency = session, consistency
        self.reports: list[tuple[str, Any]] = []

    def call(self, op: str, fn: Any, statement: Any, params: Any) -> list[Any]:
        report = cql.trace(self.session, statement, params, consistency=self.consistency)
        self.reports.append((op.split(".", 1)[1], report))
        return report.result


def access_paths(workload: DesignWorkload, samples: int = 3) -> list[dict[str, Any]]:
    """Per operation of the design, from the servers' own traces of `samples` executions: nodes that took part,
    and per execution the statements, partitions read, rows read, index scans (one per node a scatter-gather
    asked), replica writes and range reads (a scan over token ranges), in all and per step (`steps`). The evidence is the cluster's, not the profile's text."""
    values = ColumnValues(workload.design.columns, workload.profile.seed + 1, worker=0, workers=1)
    out = []
    for name, operation in workload.design.operations.items():
        tx = _TracingTx(workload.session, workload.consistency)
        for _ in range(samples):
            workload.run_operation(tx, name, values)
        row = {"design": workload.design_name, "operation": name, "executions": samples,
               **per_execution(cql.summarise([r for _, r in tx.reports]), samples)}
        row["steps"] = {step.name: per_execution(cql.summarise([r for s, r in tx.reports if s == step.name]), samples)
                        for step in operation.steps}
        out.append(row)
    return out


def generator_binds(steps: list[Step]) -> list[str]:
    """The generator columns an operation's steps bind (not STEP.COLUMN references), each once."""
    return list(dict.fromkeys(b for step in steps for b in step.bind if "." not in b))


def time_order(value: Any) -> Any:
    """What "newest" compares: a time-based UUID by the time inside it (a UUID's own order is not its time)."""
    return value.time if isinstance(value, uuid.UUID) and value.version == 1 else value


def kept_rows(step: Step, rows: list[Any]) -> list[Any]:
    """A step's rows after what the client does with them: repeated rows dropped (`distinct`, first kept), then
    the newest `keep` by the `by` columns (in that order, as a clustering sorts), newest first."""
    if step.distinct:
        rows = _first_of_each(rows)
    if step.newest is not None:
        by = step.newest.columns
        rows = sorted(rows, key=lambda r: tuple(time_order(getattr(r, c)) for c in by), reverse=True)[: step.newest.keep]
    return rows


def _first_of_each(rows: list[Any]) -> list[Any]:
    seen: set[tuple] = set()
    out = []
    for r in rows:
        if tuple(r) not in seen:
            seen.add(tuple(r))
            out.append(r)
    return out


def per_execution(totals: Any, samples: int) -> dict[str, Any]:
    """Trace totals of `samples` executions as figures per execution (nodes_touched: how many took part in any)."""
    return {"nodes_touched": len(totals.nodes), "statements_per_execution": round(totals.statements / samples, 2),
            "partitions_per_execution": round(totals.partitions_read / samples, 2),
            "rows_read_per_execution": round(totals.rows_read / samples, 2),
            "index_scans_per_execution": round(totals.index_scans / samples, 2),
            "replica_writes_per_execution": round(totals.replica_writes / samples, 2),
            "range_reads_per_execution": round(totals.range_reads / samples, 2)}


def bound(step: Step, value: str, drawn: dict[str, Any], results: dict[str, list[Any]], row: Any) -> Any:
    """One bind value: a generator's draw, or a column of an earlier step's row (for_each: the row in hand;
    otherwise that step's first row, and a LookupError, counted as the transaction's error, if it had none)."""
    source, _, column = value.partition(".")
    if not column:
        return drawn[value]
    if step.for_each == source and row is not None:
        return getattr(row, column)
    rows = results.get(source) or []
    if not rows:
        raise LookupError(f"step {step.name} needs {value}, and step {source} returned no row")
    return getattr(rows[0], column)


def traced_designs(profile: Profile, cluster: CassandraCluster, samples: int = 3, designs: Any = None) -> list[dict[str, Any]]:
    """Every design of `profile` (or those named) set up and loaded in the user's namespace on `cluster`, then
    traced: `access_paths` rows labelled with engine, server version, provider and nodes, for a notebook's table."""
    from ..namespace import in_namespace

    out = []
    for design in designs or profile.designs:
        workload = in_namespace(DesignWorkload(cluster.addresses, profile, design), cluster)
        try:
            workload.setup()
            workload.load()
            for row in access_paths(workload, samples):
                out.append({"engine": "cassandra", "server_version": cluster.info().server_version, "provider": cluster.provider,
                            "nodes": len(cluster.addresses), "profile": profile.name, **row})
        finally:
            workload.close_process()
    return out
