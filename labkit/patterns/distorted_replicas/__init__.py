"""Distorted Replicas: one bibliography stored in more than one shape, each fast for one kind of request
(document 002). Five phases: `read` and `update` touch 1-3 attribute groups of a publication (one wide
record vs vertical partitions), `by-author` lists an author's publications (an index on the aggregate vs a
replica rooted at authors), `publish` measures what keeping every shape in step costs a write, and `route`
lists an author's publications from two shards (ask every shard vs ask where a counting Bloom filter says
the author may be). The engine-neutral part is in `core` (and `bloom`), Cassandra's in `cassandra`."""

from __future__ import annotations

from ..description import Pattern, Setting, NamedSweep
from .bloom import CountingBloomFilter
from .core import APPROACHES, GROUP_NAMES, GROUPS, NAME, PHASES, Corpus, Placement

QUICK = {"publications": 1000}
SMOKE = {"publications": 300}  # under a third of quick's, to load and verify; still the source's shape, and authors on one shard and on both
CLASSROOM = {"publications": 20000}  # the source: 3.1 million DBLP publications

PATTERN = Pattern(
    name=NAME,
    title="Distorted Replicas",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra",),
    settings=(
        Setting("publications", 2000, 100, 1_000_000, "publications of the seeded bibliography loaded before the run", step=100),
        Setting("groups", 1, 1, 3, "attribute groups (text, people, venue) each read or update touches", phases=("read", "update")),
        Setting("replication", 1, 1, 3, "replication factor of the pattern's keyspace", phases=("read", "update", "by-author", "publish")),
        Setting("bits_per_key", 10, 1, 32, "size of each shard's counting Bloom filter: buckets per author it starts with", phases=("route",)),
    ),
    sizes={
        "smoke": {  # every cell of the lesson once (make test): one run per approach (quick's read: 3), a quarter of a quick run's transactions or fewer, 300
            # publications, and sections 1-3 on the one-node cluster the notebook starts first (no second cluster to start;
            # the author and batch traces then show one node), so every card is judged but none can show an effect
            "read": NamedSweep("read", (1,), (16,), 100, {**SMOKE, "groups": 1}, warmup=20),
            "update": NamedSweep("update", (1,), (16,), 100, {**SMOKE, "groups": 1}),
            "by-author": NamedSweep("by-author", (1,), (16,), 60, SMOKE, warmup=10),
            "publish": NamedSweep("publish", (1,), (16,), 60, SMOKE),
            "route": NamedSweep("route", (2,), (16,), 100, SMOKE, warmup=20),
        },
        "quick": {
            "read": NamedSweep("read", (1,), (16,), 448, {**QUICK, "groups": 1}, warmup=100, repeats=3),  # 3 ABBA pairs at 16 threads: the card's interval (#70)
            "update": NamedSweep("update", (1,), (4, 16), 600, {**QUICK, "groups": 1}),
            "by-author": NamedSweep("by-author", (1, 3), (4, 16), 400, QUICK, warmup=50),
            "publish": NamedSweep("publish", (3,), (4, 16), 400, QUICK),
            "route": NamedSweep("route", (2,), (4, 16), 600, QUICK, warmup=100),
        },
        "classroom": {
            "read": NamedSweep("read", (3,), (8, 32, 64), 4000, {**CLASSROOM, "groups": 1}, warmup=400),
            "update": NamedSweep("update", (3,), (8, 32, 64), 4000, {**CLASSROOM, "groups": 1}),
            "by-author": NamedSweep("by-author", (1, 2, 4), (8, 32, 64), 2000, CLASSROOM, warmup=200),
            "publish": NamedSweep("publish", (3,), (8, 32), 2000, {"publications": 5000}),
            "route": NamedSweep("route", (2, 4), (8, 32, 64), 4000, CLASSROOM, warmup=400),
        },
    },
    main_phase="read",
)

__all__ = ["PATTERN", "APPROACHES", "GROUPS", "GROUP_NAMES", "NAME", "PHASES", "Corpus", "CountingBloomFilter", "Placement"]
