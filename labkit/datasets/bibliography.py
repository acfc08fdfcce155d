"""A bibliography shaped like the DBLP extract of the distorted-replicas paper (document 002): publications
with their authors, venue and citations, about 2.85 authors per publication and 5.46 publications per
author, author productivity long-tailed. Streamed one publication at a time, so millions cost no memory
beyond the authors' counts; the first N records never depend on how many more are asked for.

    python -m labkit.datasets.bibliography --publications 1000000 > bibliography.jsonl   # statistics on stderr
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from array import array
from dataclasses import asdict, dataclass, field
from typing import Iterator

from ..errors import ConfigError

AUTHORS_PER_PUBLICATION = 2.85  # document 002, section V-C
PUBLICATIONS_PER_AUTHOR = 5.46
PREFERENTIAL = 0.5
"""Share of repeat authorships that go to an author in proportion to what they have already written (the
rest pick any known author): enough for a long tail, without one author writing a tenth of everything."""
MAX_AUTHORS = 24
RECENT_FOR_CITATIONS = 5_000  # citations point at one of the last publications generated (streaming)

_FIRST = ("Ada", "Ben", "Chen", "Dana", "Emil", "Fatma", "Goran", "Hana", "Ines", "Jun", "Kofi", "Lena", "Mehdi", "Nora",
          "Omar", "Paula", "Qing", "Rui", "Sara", "Tomas", "Uma", "Vera", "Wei", "Ximena", "Yusuf", "Zofia")
_LAST = ("Abe", "Berg", "Costa", "Diallo", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jensen", "Kim", "Lopez",
         "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Silva", "Tanaka", "Ueda", "Varga", "Wang", "Yilmaz", "Zhou")
_WORDS = ("adaptive", "replicated", "queries", "storage", "distributed", "consistency", "index", "streams", "graphs",
          "learning", "scalable", "transactions", "caching", "partitioning", "documents", "keys", "logs", "latency",
          "sharding", "compression", "joins", "views", "workloads", "provenance", "privacy", "benchmarks", "models")
_VENUES = tuple([("journals", v) for v in ("vldb", "tods", "pvldb", "tkde", "is", "dke", "sigmod-rec", "jdm")] +
                [("conf", v) for v in ("sigmod", "icde", "edbt", "cikm", "dexa", "dasfaa", "socc", "middleware", "adbis", "er")])


@dataclass(frozen=True)
class Publication:
    """One record, the shape of the paper's figure 1. `authors` in the order they appear on the paper."""

    pub_id: str
    title: str
    authors: tuple[str, ...]
    citations: tuple[str, ...]
    pages: str
    year: int
    venue: str
    volume: int
    number: int
    url: str
    ee: str

    def as_json(self) -> dict:
        return {**asdict(self), "authors": list(self.authors), "citations": list(self.citations)}


def author_name(n: int) -> str:
    """Author n's name; a DBLP-style number tells apart people who share a name."""
    first, last = _FIRST[n % len(_FIRST)], _LAST[(n // len(_FIRST)) % len(_LAST)]
    homonym = n // (len(_FIRST) * len(_LAST))
    return f"{first} {last}" + (f" {homonym:04d}" if homonym else "")


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method: fine for the small means used here."""
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


@dataclass
class Stats:
    """What a generated stream looks like, to compare with the source's figures."""

    publications: int = 0
    authorships: int = 0
    citations: int = 0
    per_author: array = field(default_factory=lambda: array("I"))

    def add(self, pub: Publication, author_ids: list[int]) -> None:
        self.publications += 1
        self.authorships += len(author_ids)
        self.citations += len(pub.citations)
        for a in author_ids:
            while a >= len(self.per_author):
                self.per_author.append(0)
            self.per_author[a] += 1

    @property
    def authors(self) -> int:
        return len(self.per_author)

    def summary(self) -> dict[str, float]:
        counts = sorted(self.per_author, reverse=True)
        top = max(1, len(counts) // 100)
        return {
            "publications": self.publications,
            "authors": self.authors,
            "authors_per_publication": round(self.authorships / max(1, self.publications), 3),
            "publications_per_author": round(self.authorships / max(1, self.authors), 3),
            "max_publications_of_an_author": counts[0] if counts else 0,
            "share_of_authors_with_one_publication": round(sum(1 for c in counts if c == 1) / max(1, len(counts)), 3),
            "share_of_authorships_by_top_1pct_authors": round(sum(counts[:top]) / max(1, self.authorships), 3),
            "citations_per_publication": round(self.citations / max(1, self.publications), 3),
        }


class Bibliography:
    """`Bibliography(publications, seed).stream()` yields the records; `stats` fills as they go."""

    def __init__(self, publications: int, seed: int = 2017, citations: float = 5.0):
        if isinstance(publications, bool) or not isinstance(publications, int) or publications < 1:
            raise ConfigError(f"a bibliography needs a whole number of publications >= 1; got {publications!r}")
        if citations < 0:
            raise ConfigError(f"citations per publication must be >= 0; got {citations}")
        self.publications = publications
        self.seed = seed
        self.citations = citations
        self.stats = Stats()

    def __iter__(self) -> Iterator[Publication]:
        return self.stream()

    def stream(self) -> Iterator[Publication]:
        rng = random.Random(self.seed)
        slots = array("I")  # author of every authorship so far: picking one uniformly is picking by productivity
        authors = 0
        p_new = 1 / PUBLICATIONS_PER_AUTHOR
        recent: list[str] = []  # a ring of the last RECENT_FOR_CITATIONS ids
        self.stats = Stats()
        for i in range(self.publications):
            k = min(MAX_AUTHORS, 1 + _poisson(rng, AUTHORS_PER_PUBLICATION - 1))
            chosen: list[int] = []
            for _ in range(k):
                pick = None
                if authors and rng.random() >= p_new:
                    for _attempt in range(8):
                        candidate = slots[rng.randrange(len(slots))] if rng.random() < PREFERENTIAL else rng.randrange(authors)
                        if candidate not in chosen:
                            pick = candidate
                            break
                if pick is None:
                    pick, authors = authors, authors + 1
                chosen.append(pick)
                slots.append(pick)
            kind, venue = _VENUES[min(len(_VENUES) - 1, int(rng.paretovariate(1.2)) - 1)]
            year = 2016 - min(46, int(rng.expovariate(1 / 8)))
            last = author_name(chosen[0]).split()[1]
            pub_id = f"{kind}/{venue}/{last}{year % 100:02d}-{i}"
            first_page = rng.randrange(1, 900)
            wanted = min(len(recent), _poisson(rng, self.citations)) if self.citations else 0
            cited = tuple(dict.fromkeys(recent[rng.randrange(len(recent))] for _ in range(wanted)))
            pub = Publication(
                pub_id=pub_id,
                title=" ".join(rng.choice(_WORDS) for _ in range(rng.randrange(5, 12))).capitalize(),
                authors=tuple(author_name(a) for a in chosen),
                citations=cited,
                pages=f"{first_page}-{first_page + rng.randrange(4, 30)}",
                year=year,
                venue=venue.upper() if kind == "conf" else venue.capitalize() + " J.",
                volume=max(1, year - 1975),
                number=rng.randrange(1, 13),
                url=f"db/{kind}/{venue}/{venue}{year}.html#{last}{year % 100:02d}-{i}",
                ee=f"https://doi.org/10.5555/{self.seed}.{i}",
            )
            self.stats.add(pub, chosen)
            if len(recent) < RECENT_FOR_CITATIONS:
                recent.append(pub_id)
            else:
                recent[i % RECENT_FOR_CITATIONS] = pub_id
            yield pub


def shape_problems(bibliography: Bibliography) -> list[str]:
    """What is off in a streamed bibliography (one sentence each; empty when nothing): its statistics must
    count every publication asked for, the stream must be seeded (the first record the same however many are
    asked for), and its shape must be the source's within what the seeded generator gives at any size of at
    least 100 publications: about 2.85 authors per publication (within 0.2), at least 15% and at most 60% of
    authors with one publication; from 1,000 publications on, about 5.46 publications per author (within
    0.3) and a long tail (the most prolific author at least 10 times the average)."""
    summary = bibliography.stats.summary()
    problems = []
    if summary["publications"] != bibliography.publications:
        problems.append(f"the statistics count {summary['publications']} publications, {bibliography.publications} were asked for "
                        "(stream every record before reading bibliography.stats)")
    if next(iter(Bibliography(bibliography.publications, bibliography.seed))) != next(iter(Bibliography(1, bibliography.seed))):
        problems.append("the first record depends on how many are asked for: the stream is not seeded as it should be")
    per_publication, per_author = summary["authors_per_publication"], summary["publications_per_author"]
    if abs(per_publication - AUTHORS_PER_PUBLICATION) > 0.2:
        problems.append(f"{per_publication:.2f} authors per publication, the source {AUTHORS_PER_PUBLICATION} (within 0.2 expected)")
    if not 0.15 <= summary["share_of_authors_with_one_publication"] <= 0.6:
        problems.append(f"{summary['share_of_authors_with_one_publication']:.0%} of authors with one publication (15-60% expected)")
    if bibliography.publications >= 1000:
        if abs(per_author - PUBLICATIONS_PER_AUTHOR) > 0.3:
            problems.append(f"{per_author:.2f} publications per author, the source {PUBLICATIONS_PER_AUTHOR} (within 0.3 expected)")
        if summary["max_publications_of_an_author"] < 10 * per_author:
            problems.append(f"the most prolific author has {summary['max_publications_of_an_author']} publications, "
                            f"less than 10 times the average {per_author:.2f}: no long tail")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Stream a seeded DBLP-like bibliography as JSON lines (statistics on stderr).")
    parser.add_argument("--publications", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2017)
    parser.add_argument("--citations", type=float, default=5.0, help="mean citations per publication")
    args = parser.parse_args(argv)
    try:
        bib = Bibliography(args.publications, args.seed, args.citations)
    except ConfigError as exc:
        parser.error(str(exc))
    out = sys.stdout
    for pub in bib.stream():
        out.write(json.dumps(pub.as_json(), ensure_ascii=False) + "\n")
    print(json.dumps(bib.stats.summary()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
