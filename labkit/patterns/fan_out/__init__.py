"""Fan-out on Write: a news feed gathered from the followed users at read time (naive, Fan-out on
Read) or copied into every follower's feed at write time (pattern). Two phases, as in the source's
test: `post` (each transaction saves one activity) and `paginate` (each transaction reads the next page
of one user's feed: the next `page_size` newest activities of the users they follow, the same page in
both approaches; a naive page asks every followed user's partition, `follows` of them). The engine-neutral part is in `core`, each engine's workload in the module named
after it (`cassandra`)."""

from __future__ import annotations

from ..description import Pattern, Setting, NamedSweep
from .core import APPROACHES, NAME, PHASES, Network

QUICK_NETWORK = {"users": 40, "follows": 10, "posts": 8}
SMOKE_NETWORK = {"users": 20, "follows": 10, "posts": 4}  # 80 activities; still 10 followed users, so a naive page asks 10 partitions
CLASSROOM_NETWORK = {"users": 200, "follows": 20, "posts": 10}  # the source: 1,000 users following 100, 80 posts each

PATTERN = Pattern(
    name=NAME,
    title="Fan-out on Write",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra",),
    settings=(
        Setting("users", 40, 2, 100_000, "users in the follower network", step=10),
        Setting("follows", 10, 1, 1_000, "users each user follows (fewer than users)"),
        Setting("posts", 8, 1, 1_000, "activities each user posts (the post phase saves at most users x posts)"),
        Setting("replication", 1, 1, 5, "replication factor of the pattern's keyspace"),
    ),
    sizes={
        "smoke": {  # every cell of the lesson at its smallest (make test): 2 nodes, 20 users (a third of a quick run's activities), one thread count;
            # every activity posted, 60 pages (a third of a quick run's), one run per approach (quick: 3), budgeted runs on 1 and 2 nodes
            "post": NamedSweep("post", (2,), (8,), 20 * 4, SMOKE_NETWORK),
            "paginate": NamedSweep("paginate", (2,), (8,), 60, SMOKE_NETWORK, warmup=10),
            "budgeted": NamedSweep("paginate", (1, 2), (16,), 40, SMOKE_NETWORK, warmup=40, node_cpu=0.15),
        },
        "quick": {
            # one thread count each, 3 repeats there (3 ABBA pairs: each card's interval, #70), in the work of the two thread counts
            # (or the one run per node count) with one repeat they replaced
            "post": NamedSweep("post", (3,), (8,), 30 * 8, QUICK_NETWORK, repeats=3),
            "paginate": NamedSweep("paginate", (3,), (8,), 180, QUICK_NETWORK, warmup=50, repeats=3),
            "budgeted": NamedSweep("paginate", (1, 3), (16,), 96, QUICK_NETWORK, warmup=80, node_cpu=0.15, repeats=3),
        },
        "classroom": {
            "post": NamedSweep("post", (4,), (10, 20, 40, 60, 80, 100), 200 * 10, CLASSROOM_NETWORK),
            "paginate": NamedSweep("paginate", (4,), (10, 20, 40, 60, 80, 100), 2000, CLASSROOM_NETWORK, warmup=200),
            "budgeted": NamedSweep("paginate", (1, 2, 4, 8), (96,), 1000, CLASSROOM_NETWORK, warmup=1000, node_cpu=0.15),
        },
    },
)

__all__ = ["PATTERN", "APPROACHES", "NAME", "PHASES", "Network"]
