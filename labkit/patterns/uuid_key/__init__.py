"""UUID Key: keys handed out by a database counter (naive, Incrementing Key) or made by the application
as UUIDs (pattern), for one registration service deployed in two regions. Two tests, called phases:
`availability` (the counter lives in one region, the other reaches it over an ocean link) and
`partition` (the regions are cut apart while both keep registering). The engine-neutral part is in
`core`; the Cassandra binding (`cassandra`) runs both regions as two datacenters of one cluster, the
Couchbase variant (`couchbase`) as two clusters with XDCR, driven from the notebook."""

from __future__ import annotations

from ..description import Pattern, Setting, NamedSweep
from .core import APPROACHES, EVERY_APPROACH, NAME, ONE_TRIP, PHASES, REGIONS, TESTS, Registered, TwoRegionRegistration, by_region, check_plan

PATTERN = Pattern(
    name=NAME,
    title="UUID Key",
    package=__name__,
    phases=PHASES,
    approaches=EVERY_APPROACH,
    phase_approaches={"partition": APPROACHES},  # cut apart, both counters hand out the same keys however a key is claimed
    engines=("cassandra",),
    settings=(
        Setting("one_way_ms", 70, 0, 500, "latency of the ocean link each way, in ms (Dublin-New York is roughly 35-40)",
                step=10, phases=("availability",)),
        Setting("replication", 1, 1, 3, "replicas per datacenter of the users and the key counter (the availability test's counter: in dc1 only)"),
    ),
    sizes={
        "smoke": {  # every cell of the lesson (make test): one run of quick's thread count with a third of a run's registrations
            # (one pair: the card says "too few repeats"), a fifth of its partition registrations
            "availability": NamedSweep("availability", (2,), (2,), 2 * 5, {"one_way_ms": 70}),
            "partition": NamedSweep("partition", (2,), (4,), 2 * 10),
        },
        "quick": {
            # naive: ~7/s at 70 ms one way (Ireland's registrations take ~300 ms against ~1.5 ms): the card's lower thread count
            # only, 3 repeats there (3 ABBA pairs: the card's interval, #70) in about the time of the earlier two counts' one
            "availability": NamedSweep("availability", (2,), (2,), 2 * 14, {"one_way_ms": 70}, repeats=3),
            "partition": NamedSweep("partition", (2,), (4,), 2 * 50),
        },
        "classroom": {
            "availability": NamedSweep("availability", (4,), (2, 4, 8, 12, 16), 2 * 300, {"one_way_ms": 70}),
            "partition": NamedSweep("partition", (4,), (8,), 2 * 1000),
        },
    },
    check_plan=check_plan,
    cluster_options={"dcs": 2},  # USA's dc1 and Ireland's dc2
    thread_multiple=2,
    operations_multiple=2,
)

__all__ = ["PATTERN", "APPROACHES", "EVERY_APPROACH", "NAME", "ONE_TRIP", "PHASES", "REGIONS", "TESTS", "Registered", "TwoRegionRegistration", "by_region"]
