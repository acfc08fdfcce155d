"""Notebook 08's graded exercise: the student's own design of the fleet application, checked from what the
servers did when it ran (their traces), not from the profile's text: each query the instructor lists must be
answered from at most the partitions the instructor allows, without a secondary index or a scan of token
ranges, must find rows, and must read tables whose partitions stop growing (one row each, or a time bucket in
the partition key, as the server's schema gives it).

The application (its operations and a naive design) is `datasets/profiles/exercise/fleet.yaml`; the student
writes one more design, `mine`, as YAML text returned by a function (so an untouched exercise says "not
written yet" instead of failing its cell).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..errors import ConfigError
from .format import Profile, parse_profile

if TYPE_CHECKING:
    from ..clusters.contract import CassandraCluster
    from ..patterns.exercise import CheckReport

BASE = Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "exercise" / "fleet.yaml"
DESIGN = "mine"
QUERIES = {"van_track": 1, "vans_in_zone": 1}
"""The instructor's list: operation -> the most partitions one execution may read (change it per course)."""


def exercise_profile(design_text: str, base: Path = BASE) -> Profile:
    """The application's file with the student's design added as `mine`, checked like any profile (each
    mistake with its path, e.g. `designs.mine.operations.van_track.steps[0].bind[0]`)."""
    import yaml

    data = yaml.safe_load(base.read_text())
    try:
        design = yaml.safe_load(design_text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"your design is not valid YAML: {exc}") from None
    if not isinstance(design, dict):
        raise ConfigError("your design is a mapping with schema, columns, load and operations at its top level (see the worked example)")
    naive = next(iter(data["designs"].values()))
    for name, operation in (design.get("operations") or {}).items():  # the question is the application's: its answer too
        if isinstance(operation, dict) and "answer" not in operation and "answer" in naive["operations"].get(name, {}):
            operation["answer"] = naive["operations"][name]["answer"]
    data["designs"][DESIGN] = design
    return parse_profile(data, source=f"the {data['name']} profile with your design")


def check_exercise(my_design: Callable[[], str], cluster: CassandraCluster, queries: Mapping[str, int] = QUERIES, operations: int = 400,
                 base: Path = BASE) -> "CheckReport":
    """The exercise's check: the design is a valid one of the application, its mix runs on the cluster without
    an error, and the servers' traces of each listed query show a partition read (at most the allowed number),
    no index scan, no range read, and rows found."""
    from ..namespace import in_namespace
    from ..patterns.exercise import CheckReport, Graded, check_all, run_step
    from .cassandra import DesignWorkload, access_paths

    found: dict[str, Any] = {}

    def workload() -> DesignWorkload:
        return in_namespace(DesignWorkload(cluster.addresses, found["profile"], DESIGN), cluster)

    def your_design_is_a_design_of_the_application(report: CheckReport) -> bool:
        step = "your design is a design of the application (same operations, every value bound)"
        text = my_design()
        if not isinstance(text, str):
            return report.add(step, False, f"my_design() returned {type(text).__name__}; return the design's YAML text")
        try:
            found["profile"] = exercise_profile(text, base)
        except ConfigError as exc:
            return report.add(step, False, str(exc))
        missing = sorted(set(queries) - set(found["profile"].designs[DESIGN].operations))
        if missing:
            return report.add(step, False, f"the instructor lists {', '.join(missing)}, which the application does not have")
        return report.add(step, True, f"operations {', '.join(found['profile'].designs[DESIGN].operations)}")

    def the_mix_runs(report: CheckReport) -> bool:
        return run_step(report, f"{operations} operations of the mix run on the cluster without an error", workload(), operations)

    def each_listed_query_reads_its_partitions(report: CheckReport) -> bool:
        w = workload()
        try:
            w.setup()  # the run above loaded it: the marker row says so
            w.load()
            paths = {p["operation"]: p for p in access_paths(w, samples=3)}
        finally:
            w.close_process()
        ok = True
        for operation, allowed in queries.items():
            p = paths[operation]
            shown = (f"{p['partitions_per_execution']:g} partition(s), {p['rows_read_per_execution']:g} rows, "
                     f"{p['index_scans_per_execution']:g} index scans, {p['range_reads_per_execution']:g} range reads per execution, "
                     f"{p['nodes_touched']} node(s) touched")
            step = f"{operation} reads at most {allowed} partition(s) (servers' traces)"
            found.setdefault("partition_read", {})[operation] = False
            if p["index_scans_per_execution"] or p["range_reads_per_execution"]:
                ok &= report.add(step, False, f"{shown}: the query asks by a column that is not its table's partition key, so the "
                                              "coordinator asks token ranges; give it a table partitioned by what it asks by")
            elif p["partitions_per_execution"] > allowed:
                ok &= report.add(step, False, f"{shown}: more than {allowed}; keep what one execution needs in fewer partitions")
            elif not p["rows_read_per_execution"]:
                ok &= report.add(step, False, f"{shown}: it found nothing; does a load step and a write operation fill the table it reads?")
            else:
                found["partition_read"][operation] = True
                ok &= report.add(step, True, shown)
        return ok

    def each_listed_query_reads_partitions_that_stop_growing(report: CheckReport) -> bool:
        w = workload()
        try:
            w.setup()
            keys = {table: partition_key(w.session, w.keyspace, table) for table in {t for o in queries for t in tables_read(w.design, o)}}
        finally:
            w.close_process()
        ok = True
        for operation in queries:
            step = f"{operation} reads partitions that stop growing (the server's schema)"
            if not found.get("partition_read", {}).get(operation):  # an index's or a scan's partitions are not the design's
                report.not_checked(step, "it asks for a partition read of this query first (the traces above)")
                ok = False
                continue
            unbounded = [(t, keys[t]) for t in tables_read(w.design, operation) if not stops_growing(keys[t], w.design)]
            if unbounded:
                table, (partition, _) = unbounded[0]
                ok &= report.add(step, False, f"{table} is partitioned by ({', '.join(partition)}) alone, so one partition takes rows for as long "
                                              "as the fleet runs: it grows without end (notebook 08's partition lesson), and a zone's would keep "
                                              "every van that ever passed through; put a time bucket in its partition key (a column with a bucket "
                                              "generator of at)")
            else:
                ok &= report.add(step, True, ", ".join(f"{t}: (({', '.join(keys[t][0])}), {', '.join(keys[t][1]) or 'one row'})" for t in tables_read(w.design, operation)))
        return ok

    return check_all(f"Your design of the {Path(base).stem} application (design {DESIGN})",
                     [Graded(your_design_is_a_design_of_the_application, 0),
                      Graded(the_mix_runs, 1, [your_design_is_a_design_of_the_application]),
                      Graded(each_listed_query_reads_its_partitions, 4, [your_design_is_a_design_of_the_application]),
                      Graded(each_listed_query_reads_partitions_that_stop_growing, 2, [your_design_is_a_design_of_the_application])])
    # a query's partitions are judged for growth only once the traces show it reads partitions by key: an index's
    # hidden table, partitioned by the indexed value, grows too, so the naive design earns nothing there


def tables_read(design: Any, operation: str) -> list[str]:
    """The tables an operation's SELECT steps read (their FROM), in order, each once."""
    found = (re.search(r"\bfrom\s+(?:\w+\.)?(\w+)", step.cql, re.I) for step in design.operations[operation].steps)
    return list(dict.fromkeys(m.group(1).lower() for m in found if m and re.match(r"\s*select\b", m.string, re.I)))


def partition_key(session: Any, keyspace: str, table: str) -> tuple[list[str], list[str]]:
    """A table's partition key and clustering columns as the server holds them (system_schema), in order."""
    rows = list(session.execute("SELECT column_name, kind, position FROM system_schema.columns WHERE keyspace_name = %s AND table_name = %s",
                                (keyspace, table)))
    def of(kind: str) -> list[str]:
        return [r.column_name for r in sorted((r for r in rows if r.kind == kind), key=lambda r: r.position)]
    return of("partition_key"), of("clustering")


def stops_growing(key: tuple[list[str], list[str]], design: Any) -> bool:
    """A partition stops growing when it holds one row (no clustering columns) or its key holds a time bucket."""
    partition, clustering = key
    return not clustering or any(getattr(design.columns.get(c), "kind", None) == "bucket" for c in partition)
