"""What the Distorted Replicas exercise hands a student: the aggregate and its three vertical parts with their
statements, the corpus and the check. The table(s) an author's publications are listed from, publish(),
withdraw() and the author listing are the student's to design and write (the library's binding is the
solution, so the base is a stub).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cassandra.query import BatchStatement, BatchType

from ...engines import cassandra as cql
from ...runner import Transaction, Verification
from ...namespace import in_namespace
from ..exercise_tables import StudentTables, by_partition_key, indexed_tables, own_design, partition_keys
from .cassandra import DistortedReplicas as _Binding
from .cassandra import VERTICAL, DistortedReplicas, schema
from .cassandra_tables import row_of
from ...datasets.bibliography import Publication
from .core import FIELDS, GROUP_NAMES, Corpus, values

if TYPE_CHECKING:
    from ...clusters.contract import CassandraCluster
    from ..exercise import CheckReport

__all__ = ["BatchStatement", "BatchType", "DistortedReplicasExercise", "FIELDS", "GROUP_NAMES", "check_exercise", "row_of", "values"]

AUTHOR_PAGE = ("pub_id", "title", "year", "venue")  # what an author's page shows of each publication
GIVEN_TABLES = ("publications", *VERTICAL.values())


class DistortedReplicasExercise(StudentTables, _Binding):
    """The aggregate `publications` and its vertical parts (`pub_text`, `pub_people`, `pub_venue`), their
    statements (`self.statements.insert_aggregate`, `.insert_vertical[group]`, `.delete_aggregate`,
    `.delete_vertical[group]`), `self.prepare(cql)` for statements of your own, the corpus and verify(): the
    table(s) an author's page is read from (`author_tables()`), publish(), withdraw() and
    publications_of() are yours."""

    def author_tables(self) -> list[str]:
        raise NotImplementedError("author_tables() is not written yet")

    def publish(self, tx: Transaction, pub: Publication) -> None:
        raise NotImplementedError("publish() is not written yet")

    def withdraw(self, tx: Transaction, pub: Publication) -> None:
        raise NotImplementedError("withdraw() is not written yet")

    def publications_of(self, tx: Transaction, author: str) -> list[Any]:
        raise NotImplementedError("publications_of() is not written yet")

    # ---- what the exercise gives -----------------------------------------------------------------

    def student_ddl(self) -> list[str]:
        return self.author_tables()

    def author_statements(self, prep: Any, ks: str) -> dict[str, Any]:
        return dict.fromkeys(("insert_by_author", "delete_by_author", "by_author_index", "by_author_replica"))  # the author copy is yours

    def kept_structures(self) -> tuple[str, ...]:
        return ("aggregate", "vertical")  # the author copy is the student's design: verify() reads it through their code

    def setup(self) -> None:
        """The keyspace, the aggregate, its vertical parts and your tables; the publish phase starts from empty ones."""
        s = self.session
        cql.create_keyspace(s, self.keyspace, self.replication)
        given = [ddl for ddl in schema(self.keyspace) if "publications_by_author" not in ddl and " INDEX " not in ddl.upper()]
        for ddl in given + self.author_tables():
            cql.execute_ddl(s, ddl)

    def load(self) -> None:
        """The corpus's first publications, published by your publish() every time (your tables are yours to fill;
        a design changed since the last check must not find the old one's rows)."""
        from ..exercise import a_transaction

        for table in (*GIVEN_TABLES, *self.own_tables()):
            self.session.execute(f"TRUNCATE {self.keyspace}.{table}", timeout=120)
        for pub in self.corpus.loaded:
            self.publish(a_transaction(), pub)

    def listed(self, author: str) -> list[str]:
        """The ids of `author`'s publications as your publications_of() lists them, sorted."""
        from ..exercise import a_transaction

        return sorted(r if isinstance(r, str) else r.pub_id for r in self.publications_of(a_transaction(), author))

    def verify(self) -> Verification:
        """The aggregate and its vertical parts hold exactly the publications left after this run, and your
        author listing names, for every author of the corpus, exactly their publications still published."""
        given = super().verify()
        problems, checks = list(given.problems), dict(given.checks)
        expected = self.corpus.after_publishing(self.operations)
        now = Corpus.by_author(expected)
        authors = sorted({a for p in [*self.corpus.loaded, *self.corpus.fresh] for a in p.authors})
        wrong = [a for a in authors if self.listed(a) != now.get(a, [])]
        checks["authors_listed_right"] = f"{len(authors) - len(wrong)}/{len(authors)}"
        if wrong:
            first = wrong[0]
            problems.append(f"publications_of() lists {len(wrong)} of {len(authors)} authors wrongly (first: {first}: "
                            f"{self.listed(first)[:4]} listed, {now.get(first, [])[:4]} expected)")
        return Verification(not problems, checks, problems)


def check_exercise(workload_class: type[DistortedReplicas], cluster: CassandraCluster, publications: int = 300, operations: int = 200) -> "CheckReport":
    """The exercise's check: the student's own design and code (not the library's), run for real (150 published,
    50 withdrawn with 2 threads, the aggregate and its parts compared, every author's listing compared), then
    their access paths: publish and withdraw are one logged batch each holding every shape's write, the
    student's copy included (separate requests leave shapes that disagree when a client fails between them);
    an author's page is one read of one partition of the student's table, naming its whole partition key as
    the servers' schema holds it (never an index or a filtering scan of the aggregate)."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, not_written, run_step
    from ..exercise_paths import judged_call, listing, recording

    def workload() -> DistortedReplicasExercise:
        return in_namespace(workload_class(cluster.addresses, "pattern", "publish", publications, operations=operations), cluster)

    def own(report: CheckReport) -> bool:
        return own_design(report, workload_class, ("publish", "withdraw", "author_tables", "publications_of"), workload)

    def publish(report: CheckReport) -> bool:
        return run_step(report, "publish 150 and withdraw 50 publications; every shape and every author's page compared", workload(), operations)

    def one_batch(report: CheckReport) -> bool:
        w = workload()
        step = "publish and withdraw are one logged batch each, with every shape's row"
        try:
            w.setup()
            mine = w.own_tables()
            if not mine:
                return report.add(step, False, "author_tables() creates no table: an author's page needs a table that holds it")
            recorder = recording(w)
            pub = w.corpus.after_publishing(operations)[0]
            given = {"publications": 1, **{VERTICAL[g]: 1 for g in GROUP_NAMES}}
            for call, verb in ((w.publish, ("INSERT", "UPDATE")), (w.withdraw, ("DELETE",)), (w.publish, ("INSERT", "UPDATE"))):
                call(a_transaction(), pub)
                requests, done = recorder.requests, recorder.take()
                written = {t: sum(1 for s in done if s.table == t and s.verb in verb) for t in (*given, *mine)}
                if requests != 1 or any(s.batch != "LOGGED" for s in done):
                    return report.add(step, False, f"{call.__name__}() sent {requests} request(s) ({listing(done)}): when the client fails "
                                                   "between two of them, the shapes disagree for good; decide how the writes reach the "
                                                   "servers so that all of them happen once any of them does")
                missing = [t for t, n in given.items() if written[t] != n] + [t for t in mine if written[t] != len(pub.authors)]
                if missing:
                    return report.add(step, False, f"{call.__name__}() wrote {written}; every shape needs its row (one per author in "
                                                   f"{', '.join(mine)}: {len(pub.authors)} authors)")
        except NotImplementedError as exc:
            return report.add(step, False, not_written(str(exc)))
        finally:
            w.close_process()
        return report.add(step, True, f"{len(given) + len(pub.authors)} statements in one batch each")

    def page_path(report: CheckReport) -> bool:
        w = workload()
        step = "an author's page is one read of one partition of your table, by its partition key"
        try:
            w.setup()
            mine = set(w.own_tables())
            keys = partition_keys(w.session, w.keyspace)
            indexed = indexed_tables(w.session, w.keyspace)
            recorder = recording(w)

            def wrong_path(author: str, done: list) -> str | None:
                if len(done) != 1 or done[0].table not in mine or not by_partition_key(done[0], keys) or done[0].table in indexed:
                    hint = "the aggregate is keyed by publication, so finding an author there scans or uses an index: " if any(
                        s.table in GIVEN_TABLES for s in done) else ""
                    return (f"publications_of({author!r}) ran {listing(done)}: {hint}an author's page reads one "
                            f"partition of your table, naming its whole partition key "
                            f"({', '.join(f'{t}: {keys.get(t)}' for t in sorted(mine))}), once")
                return None

            for author in sorted(Corpus.by_author(w.corpus.loaded))[:3]:
                _, wrong = judged_call(recorder, f"publications_of({author!r})", lambda: w.publications_of(a_transaction(), author),
                                       lambda done: wrong_path(author, done))
                if wrong:
                    return report.add(step, False, wrong)
        except NotImplementedError as exc:
            return report.add(step, False, not_written(str(exc)))
        finally:
            w.close_process()
        return report.add(step, True, "3 authors, one query each")

    return check_all(f"Distorted Replicas exercise ({workload_class.__name__})",
                     [Graded(own, 0), Graded(publish, 2, [own]), Graded(one_batch, 2, [own]), Graded(page_path, 2, [own])])
