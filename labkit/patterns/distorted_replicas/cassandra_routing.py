"""Distorted Replicas' route phase on Cassandra: the replica rooted at authors spread over two shards, and a
router that asks every shard (naive) or only those whose counting Bloom filter may hold the author (pattern).

How a shard is modelled: Cassandra has no shards of its own (every node owns token ranges of every
keyspace), so a shard here is one datacenter of a two-datacenter cluster holding a keyspace replicated
only there (`distorted_shard1` in dc1, `distorted_shard2` in dc2), reached through a session pinned to that
datacenter's nodes. A request to a shard therefore costs that shard's nodes work and nobody else's, as a
request to a MongoDB shard does. The filters are the router's metadata: built while the data is loaded,
kept in step with the moves and deletions the load makes, stored in `distorted_router.filters` (in both
datacenters) and read by every client process before the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cassandra import ConsistencyLevel

from ...engines import cassandra as cql
from ...engines.cassandra_ranges import RangeReader
from ...errors import ConfigError
from ...namespace import Namespaced, namespaced
from ...runner import BaseWorkload, Transaction, Verification
from .. import check_choice
from .bloom import CountingBloomFilter
from .cassandra_tables import by_author_row, by_author_table, insert_by_author
from .core import APPROACHES, NAME, Corpus, Placement

if TYPE_CHECKING:
    from ...datasets.bibliography import Publication

ROUTER = "distorted_router"
SHARD_DCS = ("dc1", "dc2")


def shard_keyspace(shard: int) -> str:
    return f"distorted_shard{shard + 1}"


class ShardRouting(Namespaced, BaseWorkload):
    """Each transaction lists one author's publications from the shards (every one, or the filters' choice)."""

    @property
    def router(self) -> str:
        """The router's keyspace (the filters), in this workload's namespace."""
        return namespaced(ROUTER, self.namespace)

    def shard_keyspace(self, shard: int) -> str:
        return namespaced(shard_keyspace(shard), self.namespace)

    def __init__(self, datacenters: dict[str, list[str]], approach: str, publications: int, bits_per_key: float = 10,
                 moved: float = 0.05, deleted: float = 0.05):
        check_choice(NAME, "approach", approach, APPROACHES)
        if set(datacenters) != set(SHARD_DCS):
            raise ConfigError(f"the route phase needs a cluster with datacenters dc1 and dc2 (one per shard); got {sorted(datacenters)}. "
                              "Start it with dcs=2 (labkit does so for `--phase route`).")
        self.name = f"{NAME}/route/{approach}"
        self.datacenters = {dc: list(addrs) for dc, addrs in datacenters.items()}
        self.approach = approach
        self.publications = publications
        self.bits_per_key = bits_per_key
        self.moved, self.deleted = moved, deleted
        self._placement: Any = None
        self._sessions: dict[int, Any] = {}
        self._statements: dict[int, Any] = {}
        self._inserts: dict[int, Any] = {}
        self._filters: list[CountingBloomFilter] | None = None
        self._authors: list[str] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_placement": None, "_sessions": {}, "_statements": {}, "_inserts": {}, "_filters": None, "_authors": None}

    @property
    def placement(self) -> Placement:
        if self._placement is None:
            self._placement = Placement(Corpus(self.publications), shards=len(SHARD_DCS), moved=self.moved, deleted=self.deleted,
                                        bits_per_key=self.bits_per_key)
        return self._placement

    @property
    def spec(self) -> str:
        return f"{self.placement.corpus.spec} moved={self.moved} deleted={self.deleted} bits_per_key={self.bits_per_key}"

    def session(self, shard: int) -> Any:
        """A session that only ever talks to the shard's own datacenter."""
        if shard not in self._sessions:
            dc = SHARD_DCS[shard]
            self._sessions[shard] = cql.connect(self.datacenters[dc], dc=dc)
        return self._sessions[shard]

    def statement(self, shard: int) -> Any:
        if shard not in self._statements:
            self._statements[shard] = self.session(shard).prepare(
                f"SELECT pub_id FROM {self.shard_keyspace(shard)}.publications_by_author WHERE author = ?")
        return self._statements[shard]

    # ---- phases ----------------------------------------------------------------------------------

    def setup(self) -> None:
        s = self.session(0)
        cql.create_keyspace(s, self.router, {dc: 1 for dc in SHARD_DCS})
        cql.execute_ddl(s, f"CREATE TABLE IF NOT EXISTS {self.router}.filters (shard int PRIMARY KEY, filter blob, spec text)")
        for shard, dc in enumerate(SHARD_DCS):
            ks = self.shard_keyspace(shard)
            cql.create_keyspace(s, ks, {dc: 1})
            cql.execute_ddl(s, by_author_table(ks))

    def load(self) -> None:
        """Place every publication on its shard, move and withdraw some as a balancer would, and keep each
        shard's filter in step; skipped when the shards already hold this placement."""
        marker = self.session(0).execute(f"SELECT spec FROM {self.router}.filters WHERE shard = 0").one()
        if marker is None or marker.spec != self.spec:
            placement = self.placement
            for shard, pubs in placement.initial().items():
                s = self.session(shard)
                s.execute(f"TRUNCATE {self.shard_keyspace(shard)}.publications_by_author", timeout=120)
                cql.write_all(s, self._insert(shard), [by_author_row(p, pos, a) for p in pubs for pos, a in enumerate(p.authors)])
            for what, pub_id, frm, to in placement.history:
                pub = placement.corpus.by_id[pub_id]
                if to is not None:  # a move (a delete has nowhere to)
                    self._write(to, pub)
                self._delete(frm, pub)
            filters = placement.build_filters()
            for shard, f in enumerate(filters):
                self.session(0).execute(f"INSERT INTO {self.router}.filters (shard, filter, spec) VALUES (%s, %s, %s)", (shard, f.to_bytes(), self.spec))
        self.filters()  # and read them back, as a client process does before the barrier

    def _insert(self, shard: int) -> Any:
        """The shard's insert into the author-rooted copy, prepared once per shard (load and moves use it)."""
        if shard not in self._inserts:
            self._inserts[shard] = self.session(shard).prepare(insert_by_author(self.shard_keyspace(shard)))
        return self._inserts[shard]

    def _write(self, shard: int, pub: "Publication") -> None:
        for pos, a in enumerate(pub.authors):
            self.session(shard).execute(self._insert(shard), by_author_row(pub, pos, a))

    def _delete(self, shard: int, pub: "Publication") -> None:
        s = self.session(shard)
        for a in pub.authors:
            s.execute(f"DELETE FROM {self.shard_keyspace(shard)}.publications_by_author WHERE author = %s AND pub_id = %s", (a, pub.pub_id))

    def filters(self) -> list[CountingBloomFilter]:
        """The shards' filters as the router stores them."""
        if self._filters is None:
            rows = {r.shard: r for r in self.session(0).execute(f"SELECT shard, filter, spec FROM {self.router}.filters")}
            if sorted(rows) != list(range(len(SHARD_DCS))) or any(r.spec != self.spec for r in rows.values()):
                raise ConfigError("the router's filters are missing or were built for other data: run load() first")
            self._filters = [CountingBloomFilter.from_bytes(rows[s].filter) for s in range(len(SHARD_DCS))]
        return self._filters

    def open_process(self) -> None:
        self.filters()
        for shard in range(len(SHARD_DCS)):
            self.statement(shard)
        self._authors = self.placement.authors()

    def close_process(self) -> None:
        for s in self._sessions.values():
            s.cluster.shutdown()
        self._sessions, self._statements, self._inserts = {}, {}, {}

    def transaction(self, tx: Transaction) -> None:
        authors = self._authors or self.placement.authors()
        self.find(tx, authors[tx.rng.randrange(len(authors))])

    def shards_to_ask(self, author: str) -> list[int]:
        """Naive: every shard. Pattern: the shards whose filter may hold the author."""
        if self.approach == "naive":
            return list(range(len(SHARD_DCS)))
        return [s for s, f in enumerate(self.filters()) if f.might_contain(author)]

    def find(self, tx: Transaction, author: str) -> list[str]:
        found: list[str] = []
        for shard in self.shards_to_ask(author):
            rows = tx.call(f"ask_shard{shard + 1}", self.session(shard).execute, self.statement(shard), (author,))
            found += [r.pub_id for r in rows]
        found.sort()
        expected = self.placement.expected(author)
        if found != expected:
            raise LookupError(f"{author}: {len(found)} publications found, {len(expected)} expected")
        return found

    # ---- checks ----------------------------------------------------------------------------------

    def verify(self) -> Verification:
        """Each shard holds exactly its publications after the moves and deletions, one row per author; the
        filters say "maybe" for every author a shard holds (no false negatives) and the checks report how
        often they say it for an author it does not hold (false positives)."""
        placement = self.placement
        final = placement.final()
        filters = self.filters()
        problems: list[str] = []
        checks: dict[str, Any] = {}
        every = set(placement.authors())
        for shard, pubs in final.items():
            whole = RangeReader(self.session(shard), consistency=ConsistencyLevel.LOCAL_ONE)  # a range at a time, not one full scan
            rows = {(r.author, r.pub_id) for r in whole.rows(f"{self.shard_keyspace(shard)}.publications_by_author", "author, pub_id", "author")}
            wanted = {(a, p.pub_id) for p in pubs for a in p.authors}
            if rows != wanted:
                problems.append(f"shard {shard + 1}: {len(wanted - rows)} author rows missing, {len(rows - wanted)} that should not be there")
            present = {a for a, _ in wanted}
            negatives = [a for a in present if not filters[shard].might_contain(a)]
            if negatives:
                problems.append(f"shard {shard + 1}'s filter misses {len(negatives)} authors it holds (first: {negatives[:3]})")
            absent = every - present
            fp = sum(1 for a in absent if filters[shard].might_contain(a))
            checks[f"shard{shard + 1}_rows"] = len(rows)
            checks[f"shard{shard + 1}_false_positive_rate"] = round(fp / len(absent), 4) if absent else 0.0
        one = sum(1 for a in every if sum(1 for pubs in final.values() if any(a in p.authors for p in pubs)) == 1)
        checks["authors_on_one_shard"] = f"{one}/{len(every)}"
        checks["moves_and_deletions"] = len(placement.history)
        return Verification(not problems, checks, problems)

    def cleanup(self) -> None:
        s = self.session(0)
        for ks in (self.router, *(self.shard_keyspace(i) for i in range(len(SHARD_DCS)))):
            cql.execute_ddl(s, f"DROP KEYSPACE IF EXISTS {ks}")


def trace_route(workload: ShardRouting, author: str) -> dict[str, Any]:
    """Which shards and nodes one query for `author` reached, from the servers' traces."""
    reports = [cql.trace(workload.session(s), workload.statement(s), (author,)) for s in workload.shards_to_ask(author)]
    totals = cql.summarise(reports)
    return {"shards asked": len(reports), "nodes touched": len(totals.nodes), "partitions read": totals.partitions_read,
            "rows read": totals.rows_read}
