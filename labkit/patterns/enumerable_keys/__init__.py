"""Enumerable Keys: the comments of one popular post kept in a list inside the post (naive) or each under
a key the application can compute, "post + number" (pattern). Three phases, as in the source's tests:
`write`, `volume` and `paginate`. The engine-neutral part (phases, page walking, verify) is in `core`,
each engine's storage in the module named after it (`cassandra`, `mongodb`, `couchbase`)."""

from __future__ import annotations

from ..description import Pattern, Setting, NamedSweep
from .core import APPROACHES, NAME, PAGE_SIZE, PHASES, CommentStore, check_plan, store_class, volume_runs

PAGINATE_SMOKE = {"comments": 100, "delete_every": 7}
PAGINATE_QUICK = {"comments": 300, "delete_every": 7}
PAGINATE_CLASSROOM = {"comments": 3000, "delete_every": 7}  # the source's: 3,000 comments on one post

PATTERN = Pattern(
    name=NAME,
    title="Enumerable Keys",
    package=__name__,
    phases=PHASES,
    approaches=APPROACHES,
    engines=("cassandra", "mongodb", "couchbase"),
    settings=(
        Setting("comments", 300, PAGE_SIZE, 1_000_000, "comments loaded on the post before the paginate phase reads it",
                step=100, phases=("paginate",)),
        Setting("delete_every", 7, 0, 1_000, "delete every n-th loaded comment, leaving gaps a page must skip (0: none)",
                phases=("paginate",)),
    ),
    sizes={
        "smoke": {  # every cell of the lesson (make test): one run per approach (quick: 3) of under half a quick run's comments written
            # or pages read, a third of its comments loaded (one pair per card: "too few repeats"); volume: half its comments, two runs (the card's first and last)
            "write": NamedSweep("write", (1,), (10,), 100),
            "volume": NamedSweep("volume", (1,), (1,), 50, repeats=2),
            "paginate": NamedSweep("paginate", (1,), (10,), 100, PAGINATE_SMOKE),
        },
        "quick": {
            # write and paginate: one thread count, 3 repeats there (3 ABBA pairs: each card's interval, #70), in the work of the
            # two thread counts with one repeat they replaced
            "write": NamedSweep("write", (1,), (10,), 220, repeats=3),
            "volume": NamedSweep("volume", (1,), (1,), 100, repeats=3),
            "paginate": NamedSweep("paginate", (1,), (10,), 220, PAGINATE_QUICK, repeats=3),
        },
        "classroom": {
            "write": NamedSweep("write", (3,), tuple(range(10, 101, 10)), 3000),
            "volume": NamedSweep("volume", (3,), (1,), 1000, repeats=10),
            "paginate": NamedSweep("paginate", (3,), tuple(range(10, 101, 10)), 3000, PAGINATE_CLASSROOM, warmup=200),
        },
    },
    check_plan=check_plan,
)

__all__ = ["PATTERN", "APPROACHES", "NAME", "PAGE_SIZE", "PHASES", "CommentStore", "store_class", "volume_runs"]
