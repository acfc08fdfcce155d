"""Distorted Replicas' Cassandra binding: one bibliography kept in more than one shape, each shape fast for
one kind of request (document 002, put on a wide-column store).

Phases and approaches:
- `read` / `update` (vertical partitioning): each transaction reads or updates `groups` attribute groups of
  one publication, from one wide record holding every field (naive: the aggregate, one request that
  names only the wanted columns) or from one table per group (pattern: one request per group touched);
- `by-author` (a second aggregate root): each transaction lists an author's publications, through a
  Storage-Attached Index on the aggregate's author list (naive: the query is sent to every token range)
  or from the replica rooted at authors (pattern: one partition);
- `publish` (keeping the shapes in step): three new publications for every one withdrawn; the naive
  application writes the aggregate only (the index is the server's business), the pattern writes the
  aggregate, its three vertical partitions and one row per author in one logged batch;
- `route` (counting Bloom filters, module `cassandra_routing`): the replica rooted at authors spread over
  two shards; each transaction asks every shard (naive) or only the shards whose filter says "maybe".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from cassandra import ConsistencyLevel
from cassandra.query import BatchStatement, BatchType, PreparedStatement, SimpleStatement

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...errors import ConfigError, LabkitError
from ...namespace import in_namespace, namespace_for, namespaced
from ...runner import Transaction, Verification
from ..cassandra_workload import CassandraWorkload
from .cassandra_tables import by_author_row, by_author_table, columns, insert_by_author, row_of
from .core import APPROACHES, FIELDS, GROUP_NAMES, GROUPS, NAME, PHASES, REVISED_FIELD, Corpus, group_state, groups_for, revised, values

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster
    from ...datasets.bibliography import Publication

KEYSPACE = "distorted_replicas"  # read, update and by-author: loaded once, changed only by updates that are undone by nothing
WRITES_KEYSPACE = "distorted_writes"  # publish: reloaded for every run, so its deletions leave the others whole
VERTICAL = {g: f"pub_{g}" for g in GROUP_NAMES}
INDEX = "publications_authors"


def schema(keyspace: str) -> list[str]:
    """The aggregate, its three vertical partitions, the replica rooted at authors (a full copy of each
    publication under every one of its authors, in author order `pos`) and the aggregate's author index."""
    return [
        f"CREATE TABLE IF NOT EXISTS {keyspace}.publications (pub_id text PRIMARY KEY, {columns(FIELDS)})",
        *(f"CREATE TABLE IF NOT EXISTS {keyspace}.{VERTICAL[g]} (pub_id text PRIMARY KEY, {columns(GROUPS[g])})" for g in GROUP_NAMES),
        by_author_table(keyspace),
        f"CREATE TABLE IF NOT EXISTS {keyspace}.loaded (what text PRIMARY KEY, spec text)",
        f"CREATE INDEX IF NOT EXISTS {INDEX} ON {keyspace}.publications (values(authors)) USING 'sai'",
    ]


def structures(phase: str, approach: str) -> tuple[str, ...]:
    """The shapes one run reads and writes: 'aggregate', 'vertical', 'by_author'."""
    if phase in ("read", "update"):
        return ("aggregate",) if approach == "naive" else ("vertical",)
    if phase == "by-author":
        return ("aggregate",) if approach == "naive" else ("by_author",)
    return ("aggregate",) if approach == "naive" else ("aggregate", "vertical", "by_author")


def tables_of(structure: str) -> tuple[str, ...]:
    return {"aggregate": ("publications",), "vertical": tuple(VERTICAL.values()), "by_author": ("publications_by_author",)}[structure]


@dataclass
class Statements:
    insert_aggregate: PreparedStatement
    insert_vertical: dict[str, PreparedStatement]
    insert_by_author: PreparedStatement
    delete_aggregate: PreparedStatement
    delete_vertical: dict[str, PreparedStatement]
    delete_by_author: PreparedStatement
    read_record: dict[tuple[str, ...], PreparedStatement]  # naive: the wide record, the wanted groups' columns
    read_group: dict[str, PreparedStatement]  # pattern: one group's table
    update_record: dict[tuple[str, ...], PreparedStatement]
    update_group: dict[str, PreparedStatement]
    by_author_index: PreparedStatement
    by_author_replica: PreparedStatement


class DistortedReplicas(CassandraWorkload):
    """One phase (read, update, by-author, publish) of the Distorted Replicas test with one approach."""

    def __init__(self, addresses: list[str], approach: str, phase: str, publications: int, groups: int = 1,
                 operations: int = 0, replication: int = 1, consistency: str = "ONE"):
        """`operations`: the update and publish phases number their transactions (seq*workers+worker), so
        verify() knows exactly which publication got which change; give the run's operation count."""
        self.open_as(NAME, addresses, approach, phase, approaches=APPROACHES, phases=PHASES[:-1], replication=replication, consistency=consistency)
        if not 1 <= groups <= len(GROUP_NAMES):
            raise ConfigError(f"groups must be from 1 to {len(GROUP_NAMES)}; got {groups}")
        if phase in ("update", "publish") and operations < 1:
            raise ConfigError(f"the {phase} phase needs the run's operation count (operations >= 1)")
        self.publications = publications
        self.groups = groups
        self.operations = operations
        self.base_keyspace = WRITES_KEYSPACE if phase == "publish" else KEYSPACE  # behind the namespace: self.keyspace
        self._corpus: Any = None
        self._ops_cache: Any = None

    statements_class = Statements
    _transient = ("_corpus", "_ops_cache")

    @property
    def corpus(self) -> Corpus:
        """The seeded bibliography, made again in each client process (never pickled)."""
        if not isinstance(self._corpus, Corpus):
            extra = self.operations - self.operations // 4 if self.phase == "publish" else 0
            self._corpus = Corpus(self.publications, extra=extra)
        return self._corpus

    # ---- statements ------------------------------------------------------------------------------

    @property
    def statements(self) -> Statements:
        if self._statements is None:
            s, ks = self.session, self.keyspace

            def prep(text: str) -> PreparedStatement:
                made = s.prepare(text)
                made.consistency_level = self.consistency
                return made

            insert = lambda table, fields: prep(  # noqa: E731
                f"INSERT INTO {ks}.{table} (pub_id, {', '.join(fields)}) VALUES (?{', ?' * len(fields)})")
            starts = [groups_for(i, self.groups) for i in range(len(GROUP_NAMES))]
            self._statements = Statements(
                insert_aggregate=insert("publications", FIELDS),
                insert_vertical={g: insert(VERTICAL[g], GROUPS[g]) for g in GROUP_NAMES},
                delete_aggregate=prep(f"DELETE FROM {ks}.publications WHERE pub_id = ?"),
                delete_vertical={g: prep(f"DELETE FROM {ks}.{VERTICAL[g]} WHERE pub_id = ?") for g in GROUP_NAMES},
                read_record={gs: prep(f"SELECT {', '.join(f for g in gs for f in GROUPS[g])} FROM {ks}.publications WHERE pub_id = ?") for gs in starts},
                read_group={g: prep(f"SELECT {', '.join(GROUPS[g])} FROM {ks}.{VERTICAL[g]} WHERE pub_id = ?") for g in GROUP_NAMES},
                update_record={gs: prep(f"UPDATE {ks}.publications SET {', '.join(f'{REVISED_FIELD[g]} = ?' for g in gs)} WHERE pub_id = ?")
                               for gs in starts},
                update_group={g: prep(f"UPDATE {ks}.{VERTICAL[g]} SET {REVISED_FIELD[g]} = ? WHERE pub_id = ?")
                              for g in GROUP_NAMES},
                **self.author_statements(prep, ks),
            )
        return self._statements

    def author_statements(self, prep: Callable[[str], PreparedStatement], ks: str) -> dict[str, PreparedStatement | None]:
        """The statements of the replica rooted at authors and of the aggregate's author index."""
        return {
            "insert_by_author": prep(insert_by_author(ks)),
            "delete_by_author": prep(f"DELETE FROM {ks}.publications_by_author WHERE author = ? AND pub_id = ?"),
            "by_author_index": prep(f"SELECT pub_id, title, year, venue FROM {ks}.publications WHERE authors CONTAINS ?"),
            "by_author_replica": prep(f"SELECT pub_id, title, year, venue FROM {ks}.publications_by_author WHERE author = ?"),
        }

    def statement_texts(self) -> dict[str, str | None]:  # the statements above are built directly
        return {}

    def prepared(self) -> dict[str, Any]:
        st = self.statements
        out: dict[str, Any] = {}
        for name, value in vars(st).items():
            for key, stmt in (value.items() if isinstance(value, dict) else [("", value)]):
                out[f"{name}{'/' + '+'.join(key) if isinstance(key, tuple) else ('/' + key if key else '')}"] = stmt
        return out

    # ---- phases ----------------------------------------------------------------------------------

    def setup(self) -> None:
        """Keyspace, every table and the author index (waited for until it answers)."""
        s = self.session
        cql.create_keyspace(s, self.keyspace, self.replication)
        for statement in schema(self.keyspace):
            cql.execute_ddl(s, statement)
        wait_for_index(s, self.keyspace)
        if self.phase == "publish":
            for structure in ("aggregate", "vertical", "by_author"):
                self._forget(structure)

    def load(self) -> None:
        """The shapes this run uses, written once per corpus (the publish phase: for every run)."""
        for structure in self.kept_structures():
            self.load_structure(structure)

    def kept_structures(self) -> tuple[str, ...]:
        """The shapes this run keeps and verify() compares (an exercise checks a shape of the student's own design itself)."""
        return structures(self.phase, self.approach)

    def load_structure(self, structure: str) -> None:
        s, st = self.session, self.statements
        marker = s.execute(at_one(f"SELECT spec FROM {self.keyspace}.loaded WHERE what = %s"), (structure,)).one()
        if marker is not None and marker.spec == self.corpus.spec:
            return
        for table in tables_of(structure):
            s.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)
        pubs = self.corpus.loaded
        if structure == "aggregate":
            cql.write_all(s, st.insert_aggregate, [row_of(p) for p in pubs])
        elif structure == "vertical":
            for g in GROUP_NAMES:
                cql.write_all(s, st.insert_vertical[g], [(p.pub_id, *values(p, g).values()) for p in pubs])
        else:
            cql.write_all(s, st.insert_by_author, [by_author_row(p, pos, a) for p in pubs for pos, a in enumerate(p.authors)])
        s.execute(at_one(f"INSERT INTO {self.keyspace}.loaded (what, spec) VALUES (%s, %s)"), (structure, self.corpus.spec))

    def _forget(self, structure: str) -> None:
        self.session.execute(at_one(f"DELETE FROM {self.keyspace}.loaded WHERE what = %s"), (structure,))

    def transaction(self, tx: Transaction) -> None:
        if self.phase == "read":
            n = tx.rng.randrange(len(self.corpus.loaded))
            self.read(tx, self.corpus.loaded[n], groups_for(n, self.groups))
        elif self.phase == "by-author":
            pub = self.corpus.loaded[tx.rng.randrange(len(self.corpus.loaded))]
            author = pub.authors[tx.rng.randrange(len(pub.authors))]  # an author picked by authorship: prolific ones more often
            self.find_by_author(tx, author)
        else:
            if tx.seq < 0:
                return  # no warm-up for writes: verify() knows exactly which ones ran
            n = tx.seq * tx.workers + tx.worker
            if n >= self.operations:
                raise ConfigError(f"the {self.phase} phase was built for {self.operations} transactions; run it with operations={self.operations}")
            if self.phase == "update":
                pub, groups = self.corpus.update_target(n, self.groups)
                self.update(tx, pub, groups)
            else:
                kind, pub = self._ops()[n]
                self.publish(tx, pub) if kind == "insert" else self.withdraw(tx, pub)

    def _ops(self) -> list[tuple[str, "Publication"]]:
        """This run's publish schedule, made once per client process (the corpus is per process too)."""
        if not isinstance(self._ops_cache, list):
            self._ops_cache = self.corpus.publish_ops(self.operations)
        return self._ops_cache

    def read(self, tx: Transaction, pub: "Publication", groups: tuple[str, ...]) -> dict[str, Any]:
        """Naive: one request for the wanted columns of the wide record. Pattern: one request per group."""
        s, st = self.session, self.statements
        if self.approach == "naive":
            row = tx.call("read_record", s.execute, st.read_record[groups], (pub.pub_id,)).one()
            found = row._asdict() if row is not None else None
        else:
            found = {}
            for g in groups:
                row = tx.call(f"read_{g}", s.execute, st.read_group[g], (pub.pub_id,)).one()
                if row is None:
                    found = None
                    break
                found.update(row._asdict())
        if found is None:
            raise LookupError(f"publication {pub.pub_id} not found")
        for g in groups:
            if not group_state(pub, g, found):
                raise LookupError(f"publication {pub.pub_id}: group {g} holds {({f: found[f] for f in GROUPS[g]})}, not its data")
        return found

    def update(self, tx: Transaction, pub: "Publication", groups: tuple[str, ...]) -> None:
        """Naive: one UPDATE of the wide record. Pattern: one UPDATE per group's table."""
        s, st = self.session, self.statements
        if self.approach == "naive":
            params = [v for g in groups for v in revised(pub, g).values()]
            tx.call("update_record", s.execute, st.update_record[groups], (*params, pub.pub_id))
        else:
            for g in groups:
                tx.call(f"update_{g}", s.execute, st.update_group[g], (*revised(pub, g).values(), pub.pub_id))

    def find_by_author(self, tx: Transaction, author: str) -> list[str]:
        """Ids of `author`'s publications: through the index (naive) or the replica rooted at authors."""
        s, st = self.session, self.statements
        if self.approach == "naive":
            rows = tx.call("query_by_index", s.execute, st.by_author_index, (author,))
        else:
            rows = tx.call("read_author", s.execute, st.by_author_replica, (author,))
        found = sorted(r.pub_id for r in rows)
        expected = self._expected_of(author)
        if found != expected:
            raise LookupError(f"{author}: {len(found)} publications found, {len(expected)} expected")
        return found

    def _expected_of(self, author: str) -> list[str]:
        return self.corpus.loaded_by_author.get(author, [])

    def publish(self, tx: Transaction, pub: "Publication") -> None:
        """Naive: the aggregate alone. Pattern: the aggregate and every distorted replica, one logged batch."""
        if self.approach == "naive":
            tx.call("insert_aggregate", self.session.execute, self.publish_statement(pub))
            return
        tx.call("publish_batch", self.session.execute, self.publish_statement(pub))

    def publish_statement(self, pub: "Publication") -> Any:
        """What publishing `pub` sends: the aggregate's insert (bound), or the logged batch of every shape."""
        st = self.statements
        if self.approach == "naive":
            return st.insert_aggregate.bind(row_of(pub))
        batch = BatchStatement(batch_type=BatchType.LOGGED, consistency_level=self.consistency)
        batch.add(st.insert_aggregate, row_of(pub))
        for g in GROUP_NAMES:
            batch.add(st.insert_vertical[g], (pub.pub_id, *values(pub, g).values()))
        for pos, a in enumerate(pub.authors):
            batch.add(st.insert_by_author, by_author_row(pub, pos, a))
        return batch

    def withdraw(self, tx: Transaction, pub: "Publication") -> None:
        """Take a publication out of every shape this approach keeps."""
        s, st = self.session, self.statements
        if self.approach == "naive":
            tx.call("delete_aggregate", s.execute, st.delete_aggregate, (pub.pub_id,))
            return
        batch = BatchStatement(batch_type=BatchType.LOGGED, consistency_level=self.consistency)
        batch.add(st.delete_aggregate, (pub.pub_id,))
        for g in GROUP_NAMES:
            batch.add(st.delete_vertical[g], (pub.pub_id,))
        for a in pub.authors:
            batch.add(st.delete_by_author, (a, pub.pub_id))
        tx.call("withdraw_batch", s.execute, batch)

    # ---- checks ----------------------------------------------------------------------------------

    def stored(self, structure: str) -> dict[str, dict[str, Any]]:
        """Every publication one shape holds, rebuilt as field -> value (the by-author replica: from the row
        of its first author, after checking that all its authors' rows agree)."""
        ks = self.keyspace
        whole = RangeReader(self.session, consistency=ConsistencyLevel.ONE)  # a range at a time: one full scan times out on small nodes
        if structure == "aggregate":
            return {r.pub_id: r._asdict() for r in whole.rows(f"{ks}.publications", f"pub_id, {', '.join(FIELDS)}", "pub_id")}
        if structure == "vertical":
            parts: dict[str, dict[str, Any]] = {}
            for g in GROUP_NAMES:
                for r in whole.rows(f"{ks}.{VERTICAL[g]}", f"pub_id, {', '.join(GROUPS[g])}", "pub_id"):
                    parts.setdefault(r.pub_id, {"pub_id": r.pub_id, "_groups": 0}).update(r._asdict())
                    parts[r.pub_id]["_groups"] += 1
            return parts
        copies: dict[str, dict[str, Any]] = {}
        for r in whole.rows(f"{ks}.publications_by_author", f"author, pub_id, pos, {', '.join(FIELDS)}", "author"):
            row = r._asdict()
            first = copies.setdefault(r.pub_id, {**row, "_rows": 0, "_disagree": 0, "_misplaced": 0})
            first["_rows"] += 1
            if any(row[f] != first[f] for f in FIELDS):
                first["_disagree"] += 1
            if row["authors"] is None or r.pos >= len(row["authors"]) or row["authors"][r.pos] != r.author:
                first["_misplaced"] += 1
        return copies

    def verify(self) -> Verification:
        """Every shape this approach keeps holds exactly the publications it should, each group in the
        state the run left it in (an update phase: updated groups revised, the rest original or revised by
        an earlier run), and the replica rooted at authors has one agreeing row per author."""
        corpus = self.corpus
        if self.phase == "publish":
            expected = {p.pub_id: p for p in corpus.after_publishing(self.operations)}
        else:
            expected = {p.pub_id: p for p in corpus.loaded}
        touched: dict[str, set[str]] = {}
        if self.phase == "update":
            for n in range(self.operations):
                pub, groups = corpus.update_target(n, self.groups)
                touched.setdefault(pub.pub_id, set()).update(groups)
        problems: list[str] = []
        checks: dict[str, Any] = {"expected_publications": len(expected)}
        for structure in self.kept_structures():
            held = self.stored(structure)
            checks[f"{structure}_publications"] = len(held)
            missing = [k for k in expected if k not in held]
            extra = [k for k in held if k not in expected]
            if missing or extra:
                problems.append(f"{structure}: {len(missing)} publications missing (first {missing[:3]}), {len(extra)} that should not be there (first {extra[:3]})")
            wrong, stale = [], []
            for pub_id, row in held.items():
                found = expected.get(pub_id)
                if found is None:
                    continue
                pub = found
                if structure == "vertical" and row["_groups"] != len(GROUP_NAMES):
                    wrong.append(f"{pub_id} has {row['_groups']} of {len(GROUP_NAMES)} parts")
                    continue
                if structure == "by_author" and (row["_rows"] != len(pub.authors) or row["_disagree"] or row["_misplaced"]):
                    wrong.append(f"{pub_id}: {row['_rows']} author rows for {len(pub.authors)} authors, {row['_disagree']} disagreeing, {row['_misplaced']} misplaced")
                    continue
                for g in GROUP_NAMES:
                    state = group_state(pub, g, row)
                    if not state or (self.phase == "publish" and "original" not in state):
                        wrong.append(f"{pub_id} group {g}")
                    elif g in touched.get(pub_id, ()) and "revised" not in state:
                        stale.append(f"{pub_id} group {g}")
            if wrong:
                problems.append(f"{structure}: {len(wrong)} publications hold other data than they should (first: {wrong[:3]})")
            if stale:
                problems.append(f"{structure}: {len(stale)} updates lost (first: {stale[:3]})")
        if self.phase == "update":
            checks["updated_groups"] = sum(len(v) for v in touched.values())
        if "aggregate" in structures(self.phase, self.approach) and self.approach == "naive":
            sample = sorted({a for p in list(expected.values())[:: max(1, len(expected) // 40)] for a in p.authors})
            by_author = Corpus.by_author(list(expected.values()))
            found_wrong = [a for a in sample if sorted(r.pub_id for r in self.session.execute(self.statements.by_author_index, (a,))) != by_author[a]]
            checks["index_sample_right"] = f"{len(sample) - len(found_wrong)}/{len(sample)}"
            if found_wrong:
                problems.append(f"the author index answers wrongly for {len(found_wrong)} of {len(sample)} sampled authors (first: {found_wrong[:3]})")
        return Verification(not problems, checks, problems)

    def cleanup(self) -> None:
        cql.execute_ddl(self.session, f"DROP KEYSPACE IF EXISTS {self.keyspace}")


def at_one(text: str) -> SimpleStatement:
    """A statement at ONE, not the driver's LOCAL_ONE: on a two-datacenter cluster a SimpleStrategy keyspace
    has ranges with no replica in the coordinator's datacenter."""
    return SimpleStatement(text, consistency_level=ConsistencyLevel.ONE)


def wait_for_index(session: Any, keyspace: str, timeout_s: float = 180) -> None:
    """Until the author index answers: Cassandra refuses queries on an index that is still building."""
    probe = at_one(f"SELECT pub_id FROM {keyspace}.publications WHERE authors CONTAINS 'nobody' LIMIT 1")
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            session.execute(probe)
            return
        except Exception as exc:  # an index still building answers with a server error that names it
            if "index" not in str(exc).lower() or time.monotonic() > deadline:
                raise LabkitError(f"the author index of {keyspace} did not become queryable in {timeout_s:.0f} s: {exc}") from exc
            time.sleep(0.5)


def trace_transaction(workload: DistortedReplicas, pub_number: int = 0) -> cql.TraceTotals:
    """One transaction of the workload's phase, traced, summed over its statements (nodes, partitions, index scans)."""
    s, st = workload.session, workload.statements
    pub = workload.corpus.loaded[pub_number]
    groups = groups_for(pub_number, workload.groups)
    reports = []
    if workload.phase == "read":
        if workload.approach == "naive":
            reports.append(cql.trace(s, st.read_record[groups], (pub.pub_id,)))
        else:
            reports += [cql.trace(s, st.read_group[g], (pub.pub_id,)) for g in groups]
    elif workload.phase == "update":
        if workload.approach == "naive":
            params = [v for g in groups for v in revised(pub, g).values()]
            reports.append(cql.trace(s, st.update_record[groups], (*params, pub.pub_id)))
        else:
            reports += [cql.trace(s, st.update_group[g], (*revised(pub, g).values(), pub.pub_id)) for g in groups]
    elif workload.phase == "by-author":
        stmt = st.by_author_index if workload.approach == "naive" else st.by_author_replica
        reports.append(cql.trace(s, stmt, (pub.authors[0],)))
    elif workload.phase == "publish":
        reports.append(cql.trace(s, workload.publish_statement(pub)))
    else:
        raise ConfigError("trace_transaction traces the read, update, by-author and publish phases")
    return cql.summarise(reports)


BATCHLOG_WORDS = ("batch",)
"""Trace events of a logged batch's own log (the coordinator stores the batch on other nodes before applying it,
then removes it): Cassandra's events name the batch or its `batches` table."""


def batchlog_events(workload: DistortedReplicas, pub_number: int = 0) -> list[tuple[str, str]]:
    """One publish of the workload's approach, traced: the (node, event) pairs that concern the batch log."""
    report = cql.trace(workload.session, workload.publish_statement(workload.corpus.loaded[pub_number]))
    return [(src, text) for src, text in report.activities if any(w in text.lower() for w in BATCHLOG_WORDS)]


def returned_bytes(workload: DistortedReplicas, sample: int = 200) -> float:
    """Mean bytes of field values one transaction of a read run brings back (the client's view of what moved)."""
    s, st, pubs = workload.session, workload.statements, workload.corpus.loaded
    total = 0
    for n in range(min(sample, len(pubs))):
        groups = groups_for(n, workload.groups)
        if workload.approach == "naive":
            rows = [s.execute(st.read_record[groups], (pubs[n].pub_id,)).one()]
        else:
            rows = [s.execute(st.read_group[g], (pubs[n].pub_id,)).one() for g in groups]
        total += sum(_size(v) for r in rows for v in r)
    return total / max(1, min(sample, len(pubs)))


def _size(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value)
    return 4 if isinstance(value, int) else len(str(value).encode())


def storage_cost(cluster: CassandraCluster, keyspace: str | None = None) -> list[dict[str, Any]]:
    """Each shape's tables on disk, from the servers (flushed first; `nodetool tablestats`, live space over
    every node): what keeping a replica in another shape costs. Local clusters only. `keyspace`: default,
    this user's (the read phases' keyspace in the user's namespace)."""
    keyspace = keyspace or namespaced(KEYSPACE, namespace_for(cluster))
    admin = cluster.node_admin()
    if admin is None:
        raise ConfigError("storage_cost reads nodetool tablestats: it needs a cluster labkit started locally")
    names = [n.name for n in cluster.nodes]
    shapes = {"publications": "aggregate (by publication)", **{t: f"vertical part: {g}" for g, t in VERTICAL.items()},
              "publications_by_author": "second aggregate root (by author)"}
    live: dict[str, int] = {t: 0 for t in shapes}
    partitions: dict[str, int] = {t: 0 for t in shapes}
    for name in names:  # one flush and one tablestats per node: each nodetool call starts a JVM
        admin.nodetool(name, "flush", keyspace)
        table = None
        for line in admin.nodetool(name, "tablestats", keyspace).splitlines():
            line = line.strip()
            if line.startswith("Table: "):
                table = line.split(":", 1)[1].strip()
            elif table in shapes and line.startswith("Space used (live):"):
                live[table] += int(line.split(":")[1].strip().split()[0])
            elif table in shapes and line.startswith("Number of partitions (estimate):"):
                partitions[table] += int(line.split(":")[1].strip())
    return [{"table": t, "shape": shape, "partitions (estimate)": partitions[t], "bytes on disk": live[t]} for t, shape in shapes.items()]


def workload(approach: str, phase: str, cluster: CassandraCluster, operations: int, publications: int, groups: int = 1,
             replication: int = 1, bits_per_key: int = 10) -> Any:
    """The workload of one run (the route phase's lives in `cassandra_routing`)."""
    if phase == "route":
        from .cassandra_routing import ShardRouting

        return in_namespace(ShardRouting(cluster.datacenters(), approach, publications, bits_per_key=bits_per_key), cluster)
    return in_namespace(DistortedReplicas(cluster.addresses, approach, phase, publications, groups=groups, operations=operations,
                                          replication=replication), cluster)


def cluster_options(phase: str, _settings: Any) -> dict[str, Any]:
    """The route phase's shards are the two datacenters of one cluster."""
    return {"dcs": 2} if phase == "route" else {}
