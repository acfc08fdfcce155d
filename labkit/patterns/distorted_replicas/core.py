"""What Distorted Replicas is on every engine: its phases and approaches, the attribute groups of a
publication, and the data each phase starts from and must end with (all derived from one seeded
bibliography, so a check knows exactly what every replica has to hold)."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...datasets.bibliography import Bibliography, Publication
from ...errors import ConfigError
from .bloom import CountingBloomFilter

NAME = "distorted-replicas"
APPROACHES = ("naive", "pattern")
PHASES = ("read", "update", "by-author", "publish", "route")
SEED = 2017

GROUPS: dict[str, tuple[str, ...]] = {
    "text": ("title", "pages", "url", "ee"),
    "people": ("authors", "citations"),
    "venue": ("year", "venue", "volume", "number"),
}
"""The vertical partitions of document 002's figure 2: one copy of a publication cut into three groups of
fields that are read together, each stored under the publication's id."""
GROUP_NAMES = tuple(GROUPS)
FIELDS = tuple(f for fields in GROUPS.values() for f in fields)


def groups_for(n: int, count: int) -> tuple[str, ...]:
    """The `count` groups transaction n touches: consecutive groups starting at n mod 3, so every group is
    touched as often as the others."""
    if not 1 <= count <= len(GROUP_NAMES):
        raise ConfigError(f"groups must be from 1 to {len(GROUP_NAMES)}; got {count}")
    return tuple(GROUP_NAMES[(n + i) % len(GROUP_NAMES)] for i in range(count))


def values(pub: Publication, group: str) -> dict[str, Any]:
    """A group's fields as stored (lists for the list columns)."""
    row = {f: getattr(pub, f) for f in GROUPS[group]}
    for f in ("authors", "citations"):
        if f in row:
            row[f] = list(row[f])
    return row


REVISED_FIELD = {"text": "title", "people": "citations", "venue": "number"}
"""The one field an update of each group changes (see revised)."""


def revised(pub: Publication, group: str) -> dict[str, Any]:
    """What an update of `group` writes: one field changed, the record's size unchanged (as in the source's
    update test), computed from the original so that applying it twice changes nothing."""
    if group == "text":
        return {"title": pub.title.upper()}
    if group == "people":
        return {"citations": list(reversed(pub.citations))}
    if group == "venue":
        return {"number": pub.number + 100}
    raise ConfigError(f"unknown group {group!r}: choose one of {', '.join(GROUP_NAMES)}")


def group_state(pub: Publication, group: str, stored: dict[str, Any]) -> set[str]:
    """Which versions of `group` a stored row matches: {'original'}, {'revised'}, both (an update that
    changes nothing, e.g. reversing an empty citation list) or none (the row holds other data)."""
    mine = {f: (list(stored[f] or []) if f in ("authors", "citations") else stored[f]) for f in GROUPS[group]}
    original = values(pub, group)
    found = set()
    if mine == original:
        found.add("original")
    if mine == {**original, **revised(pub, group)}:
        found.add("revised")
    return found


@dataclass
class Corpus:
    """The first `publications` records of the seeded bibliography (what is loaded) and `extra` more (what
    the publish phase inserts), with the by-author view every check compares against."""

    publications: int
    extra: int = 0
    seed: int = SEED
    loaded: list[Publication] = field(init=False, repr=False)
    fresh: list[Publication] = field(init=False, repr=False)
    by_id: dict[str, Publication] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.publications < 1 or self.extra < 0:
            raise ConfigError(f"a corpus needs publications >= 1 and extra >= 0; got {self.publications}, {self.extra}")
        pubs = list(Bibliography(self.publications + self.extra, self.seed).stream())
        self.loaded, self.fresh = pubs[: self.publications], pubs[self.publications :]
        self.by_id = {p.pub_id: p for p in pubs}

    @property
    def spec(self) -> str:
        """What a load marker records: a table loaded from another corpus is loaded again."""
        return f"bibliography seed={self.seed} publications={self.publications}"

    @staticmethod
    def by_author(pubs: list[Publication]) -> dict[str, list[str]]:
        """author -> ids of their publications, sorted (the replica rooted at authors, as facts)."""
        found: dict[str, list[str]] = {}
        for p in pubs:
            for a in p.authors:
                found.setdefault(a, []).append(p.pub_id)
        return {a: sorted(ids) for a, ids in found.items()}

    def update_target(self, n: int, groups: int) -> tuple[Publication, tuple[str, ...]]:
        """Update transaction n: which publication and which groups (a fixed shuffle of the loaded ones)."""
        order = self._order
        return self.loaded[order[n % len(order)]], groups_for(n, groups)

    @cached_property
    def _order(self) -> list[int]:
        order = list(range(len(self.loaded)))
        random.Random(self.seed + 1).shuffle(order)
        return order

    @cached_property
    def loaded_by_author(self) -> dict[str, list[str]]:
        """by_author() of the loaded publications, computed once (every by-author answer is checked against it)."""
        return self.by_author(self.loaded)

    def publish_ops(self, operations: int) -> list[tuple[str, Publication]]:
        """The publish phase's transactions in order: three new publications, then one loaded publication
        withdrawn, and so on ('insert' / 'delete', publication)."""
        deletes = operations // 4
        inserts = operations - deletes
        if inserts > len(self.fresh) or deletes > len(self.loaded):
            raise ConfigError(f"the publish phase was built for {len(self.fresh)} new publications; run it with fewer operations")
        order = self._order
        ops, i, d = [], 0, 0
        for n in range(operations):
            if n % 4 == 3:
                ops.append(("delete", self.loaded[order[d]]))
                d += 1
            else:
                ops.append(("insert", self.fresh[i]))
                i += 1
        return ops

    def after_publishing(self, operations: int) -> list[Publication]:
        """The publications that exist once the first `operations` publish transactions ran."""
        ops = self.publish_ops(operations)
        gone = {p.pub_id for kind, p in ops if kind == "delete"}
        return [p for p in self.loaded if p.pub_id not in gone] + [p for kind, p in ops if kind == "insert"]


def shard_of(pub_id: str, shards: int) -> int:
    """Where a publication is first placed: a hash of its id (shards are numbered from 0)."""
    return zlib.crc32(pub_id.encode()) % shards


@dataclass
class Placement:
    """Publications spread over shards by a hash of their id, then rebalanced (a share moved to the next
    shard) and thinned (a share withdrawn), as in the source's argument for counting filters: every move
    and deletion must take authors out of a shard's filter again."""

    corpus: Corpus
    shards: int = 2
    moved: float = 0.05
    deleted: float = 0.05
    bits_per_key: float = 10.0
    shard: dict[str, int] = field(init=False, repr=False)  # pub_id -> shard, for the publications that remain
    history: list[tuple[str, str, int, int | None]] = field(init=False, repr=False)  # (what, pub_id, from, to)

    def __post_init__(self) -> None:
        if self.shards < 2:
            raise ConfigError(f"routing needs at least 2 shards; got {self.shards}")
        if not (0 <= self.moved < 1 and 0 <= self.deleted < 1 and self.moved + self.deleted < 1):
            raise ConfigError(f"moved and deleted are shares of the publications (together below 1); got {self.moved}, {self.deleted}")
        if self.bits_per_key <= 0:
            raise ConfigError(f"bits_per_key must be > 0; got {self.bits_per_key}")
        pubs = self.corpus.loaded
        self.shard = {p.pub_id: shard_of(p.pub_id, self.shards) for p in pubs}
        rng = random.Random(self.corpus.seed + 2)
        chosen = rng.sample(range(len(pubs)), int(len(pubs) * (self.moved + self.deleted)))
        cut = int(len(pubs) * self.moved)
        self.history = []
        for i in chosen[:cut]:
            p = pubs[i]
            frm = self.shard[p.pub_id]
            self.shard[p.pub_id] = (frm + 1) % self.shards
            self.history.append(("move", p.pub_id, frm, self.shard[p.pub_id]))
        for i in chosen[cut:]:
            p = pubs[i]
            self.history.append(("delete", p.pub_id, self.shard.pop(p.pub_id), None))

    def initial(self) -> dict[int, list[Publication]]:
        """Each shard's publications before any move or deletion."""
        out: dict[int, list[Publication]] = {s: [] for s in range(self.shards)}
        for p in self.corpus.loaded:
            out[shard_of(p.pub_id, self.shards)].append(p)
        return out

    def final(self) -> dict[int, list[Publication]]:
        """Each shard's publications after the moves and deletions."""
        out: dict[int, list[Publication]] = {s: [] for s in range(self.shards)}
        for p in self.corpus.loaded:
            s = self.shard.get(p.pub_id)
            if s is not None:
                out[s].append(p)
        return out

    def authors(self) -> list[str]:
        """Every author with at least one publication left, sorted (what route queries pick from)."""
        return sorted({a for pubs in self.final().values() for p in pubs for a in p.authors})

    def expected(self, author: str) -> list[str]:
        """Ids of `author`'s remaining publications, sorted, wherever they are (from an index built once:
        every routed query is checked against it, so it must cost the client next to nothing)."""
        return self._remaining_by_author.get(author, [])

    @cached_property
    def _remaining_by_author(self) -> dict[str, list[str]]:
        return Corpus.by_author([self.corpus.by_id[pid] for pid in self.shard])

    def build_filters(self) -> list[CountingBloomFilter]:
        """One counting filter per shard, sized for the authors it starts with, then kept in step with every
        move (out of one shard's filter, into the other's) and deletion, as a router would."""
        first = self.initial()
        filters = []
        for s in range(self.shards):
            distinct = len({a for p in first[s] for a in p.authors})
            f = CountingBloomFilter.with_bits_per_key(max(1, distinct), self.bits_per_key)
            for p in first[s]:
                f.update(p.authors)
            filters.append(f)
        for what, pub_id, frm, to in self.history:
            authors = self.corpus.by_id[pub_id].authors
            for a in authors:
                filters[frm].remove(a)
                if to is not None:  # a move (a delete has nowhere to)
                    filters[to].add(a)
        return filters


def filter_sizes(publications: int, bits_per_key: tuple[float, ...] = (1, 2, 4, 6, 8, 10, 12, 16)) -> list[dict[str, Any]]:
    """For each filter size: the false-positive rate measured over every author a shard does not hold (and
    the textbook estimate), and how many of the two shards a routed query asks, on the route phase's
    placement after its moves and withdrawals. No server needed: the filters are the router's own."""
    rows = []
    for bits in bits_per_key:
        placement = Placement(Corpus(publications), bits_per_key=bits)
        filters = placement.build_filters()
        authors = placement.authors()
        held = [{a for p in pubs for a in p.authors} for pubs in placement.final().values()]
        rates = [sum(f.might_contain(a) for a in authors if a not in h) / max(1, sum(1 for a in authors if a not in h)) for f, h in zip(filters, held)]
        rows.append({
            "bits per author": bits, "hashes": filters[0].k, "filter bytes (all shards)": sum(f.size_bytes for f in filters),
            "false-positive rate (measured)": round(sum(rates) / len(rates), 4),
            "false-positive rate (estimate)": round(sum(f.expected_false_positive_rate(len(h)) for f, h in zip(filters, held)) / len(filters), 4),
            "shards asked per query": round(sum(sum(f.might_contain(a) for f in filters) for a in authors) / len(authors), 3),
            "shards holding the author": round(sum(sum(a in h for h in held) for a in authors) / len(authors), 3),
            "shards asked without filters": len(filters),
        })
    return rows
