"""Index Table: find a user by e-mail through a secondary index (naive) or a lookup table keyed by the
e-mail (pattern). Two phases, as in the source's test: `register` (each transaction registers one new
user) and `login` (each transaction finds a registered user by e-mail). The engine-neutral part is in
`core`, each engine's workload in the module named after it (`cassandra`, `mongodb`, `couchbase`; the
last two share `documents`). The naive side is each engine's own index: Cassandra's two index kinds
(`naive/legacy`, `naive/sai`), MongoDB's secondary index and Couchbase's GSI (`naive/index`)."""

from __future__ import annotations

from ..description import Pattern, Setting, NamedSweep
from .core import APPROACHES, ENGINE_APPROACHES, NAME, PHASES, email_of, id_of, number_of, user_row

PATTERN = Pattern(
    name=NAME,
    title="Index Table",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra", "mongodb", "couchbase"),
    engine_approaches=ENGINE_APPROACHES,
    settings=(
        Setting("users", 1000, 1, 1_000_000, "users loaded once per cluster and approach, among which each login picks one "
                "(the register phase registers one user per operation)", step=100, phases=("login",)),
        Setting("replication", 1, 1, 5, "replication factor of the pattern's keyspace (Cassandra; on MongoDB and Couchbase the cluster decides, leave it at 1)"),
    ),
    sizes={
        "smoke": {  # every cell of the lesson once (make test): one run per approach (quick: 3), a quarter of a quick run's transactions or fewer, and
            # the live runs and traces on the one-node cluster the notebook starts first (the traces then show one node); the
            # budgeted sweep keeps two node counts, which its card compares, and runs only the two approaches the card names
            "register": NamedSweep("register", (1,), (8,), 100),
            "login": NamedSweep("login", (1,), (8,), 100, {"users": 300}, warmup=20),
            "budgeted": NamedSweep("login", (1, 2), (16,), 40, {"users": 300}, warmup=20, node_cpu=0.15,
                                   approaches=("naive/legacy", "pattern")),
        },
        "quick": {
            # one thread count each, 3 repeats there (3 ABBA pairs: each card's interval, #70), in the work of the two thread counts
            # with one repeat they replaced; the budgeted sweep runs the two approaches its card compares (as smoke does)
            "register": NamedSweep("register", (3,), (8,), 480, repeats=3),
            "login": NamedSweep("login", (1, 3), (8,), 360, {"users": 1000}, warmup=100, repeats=3),
            "budgeted": NamedSweep("login", (1, 3), (16,), 160, {"users": 1000}, warmup=160, node_cpu=0.15, repeats=3,
                                   approaches=("naive/legacy", "pattern")),
        },
        "classroom": {
            "register": NamedSweep("register", (4,), tuple(range(10, 101, 10)), 3000),
            "login": NamedSweep("login", (1, 2, 4), tuple(range(10, 101, 10)), 3000, {"users": 20000}, warmup=200),
            "budgeted": NamedSweep("login", (1, 2, 4, 8), (96,), 2000, {"users": 20000}, warmup=2000, node_cpu=0.15),
        },
    },
)

__all__ = ["PATTERN", "APPROACHES", "NAME", "PHASES", "email_of", "id_of", "number_of", "user_row"]
