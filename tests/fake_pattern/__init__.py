"""A pattern description over in-memory workloads, for the view's and the sweep's unit tests (never a figure)."""

from labkit.patterns.description import Pattern, Setting, NamedSweep

MADE: list[tuple] = []
"""(approach, phase, nodes, operations, settings) of every workload the binding made."""

PATTERN = Pattern(
    name="fake",
    title="Fake pattern",
    package=__name__,
    phases=("login", "register"),
    approaches=("naive", "pattern"),
    engines=("cassandra",),
    settings=(
        Setting("users", 5, 1, 50, "users per test"),
        Setting("one_way_ms", 70, 0, 200, "a link's latency", step=10, phases=("login",)),
        Setting("size", "small", 0, 0, "a named choice", choices=("small", "large")),
    ),
    sizes={
        "quick": {"login": NamedSweep("login", (2,), (1, 3), 30, {"users": 7}, warmup=3), "register": NamedSweep("register", (1,), (1,), 10)},
        "classroom": {"login": NamedSweep("login", (4,), (10, 20), 300), "register": NamedSweep("register", (4,), (10,), 100)},
    },
)
