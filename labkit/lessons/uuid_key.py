"""Notebook 01 (UUID Key): what the student predicts before each live run.

Where the counter's Paxos round runs is read from the servers' trace and the users lost in the partition
are counted exactly; how much slower a counter registration is comes from paired runs ("too few repeats to
judge" below three pairs)."""

from __future__ import annotations

from typing import Any

from ..predictions import RIGHT, TOO_FEW, WRONG, Question
from . import Lesson, sweep_repeats

LESSON = Lesson("01_uuid_key", (
    Question("claim_dc", "The service's single counter has its one replica in dc1; Ireland's application writes its users to "
             "dc2 and claims one key from that counter. In which datacenter will the servers record the Paxos round of its "
             "compare-and-set?", "choice",
             options=("dc1", "dc2", "both"),
             look={RIGHT: "The compare-and-set row of the trace table: coordinator_dc and datacenters beside paxos_steps show where the "
                          "round ran; set that beside the counter's replication and where Ireland's request had to travel.",
                   WRONG: "The compare-and-set row's coordinator_dc, datacenters and the nodes that logged paxos_steps: compare them with the "
                          "counter keyspace's replication, which decides which nodes can take part in its Paxos round."},
             giveaways=("crosses the ocean to a coordinator there", "the paxos round runs where the replica is", "was recorded in `dc1`", "coordinator in `dc1`",
                        "from dc1", "crosses the ocean to agree", "runs where the replica is"),  # where the replica is, is the premise; where Paxos runs, the answer
             expected="dc1"),
    Question("ireland_slower", "At {low_threads} client threads, how many times longer will a counter registration take "
             "than a UUID registration in Ireland ({one_way} ms each way to dc1)?", "ratio", low=1, high=5000,
             look={RIGHT: "The breakdown table's Ireland rows: the counter read and compare-and-set means beside the insert mean, and "
                          "compare-and-sets per user; each counter statement is a round trip over the one way ms link.",
                   WRONG: "The interval against your factor, then the breakdown's Ireland rows: compare-and-sets per user and the counter read "
                          "and compare-and-set means beside the insert mean, against one round trip over the link.",
                   TOO_FEW: "The panel ran fewer than 3 repeats at the lowest thread count, so no interval: set its repeats to 3 or more "
                            "and Run again, or read the classroom table in the closing section."},
             giveaways=("187x", "cannot go below", "4 × *one way ms*", "two trips through the link", "174x", "a round trip per statement",
                        "ireland waits for the ocean"),
             expected=(140, 240)),
    Question("partition_lost", "During the cut each region registers {partition_users} users, each advancing the counter "
             "in its own datacenter (LOCAL_SERIAL; both replicas start at 0). After the heal and the repair, how many of the "
             "{partition_total} counter-keyed users will be gone?", "count", low=0, high=100000,
             look={RIGHT: "The naive row: keys handed out twice beside records lost; both datacenters' counters counted up from the same "
                          "start, and the repair kept one record of each key written in both regions.",
                   WRONG: "The naive row's registered, keys handed out twice and users stored after repair: follow how many keys both regions "
                          "issued alike, and what last write wins does to two records under one key."},
             giveaways=("lost half the users", "**every** key was issued twice", "1,000 (50 %)", "half the users", "issue the same numbers",
                        "issued twice", "upserts", "replaces the first", "collisions are silent")),
    Question("uuid_lost", "And how many of the {partition_total} users keyed by random UUIDs?", "count", low=0, high=100000,
             look={RIGHT: "The pattern row's keys handed out twice beside its records lost: the repair removes a record only where another "
                          "region wrote the same key, and each region made its UUIDs without asking anyone.",
                   WRONG: "The pattern row's keys handed out twice and records lost, then the naive row's: the repair overwrites a record only "
                          "when another shares its key, so ask how a random UUID would get a twin."},
             giveaways=("the uuid approaches kept every record", "no key was issued twice", "kept every record", "collisions are negligible",
                        "chance of a single duplicate", "cannot overwrite each other"),
             expected=0),
    Question("couchbase_lost", "On Couchbase, with replication paused, each region takes {partition_users} keys from its own "
             "cluster's counter. Once replication resumes, how many of the {partition_total} counter-keyed users will be gone?",
             "count", low=0, high=100000,
             look={RIGHT: "The Couchbase table's naive partition row: keys handed out twice beside stored after convergence; each paused "
                          "cluster's counter issued keys without seeing the other's, and XDCR merged them.",
                   WRONG: "The Couchbase table's naive partition row: registered, keys handed out twice and stored after convergence; compare "
                          "with Cassandra's naive row in section 3, and ask what each paused cluster's counter knew."},
             giveaways=("couchbase lost",)),
))

PARTITION_COLUMNS = ("approach", "registered (both regions)", "keys handed out twice", "users stored after repair", "records lost")


def expected_losses(totals: Any) -> list[str]:
    """What section 3's table must show, approach by approach (one sentence per row that does not): the
    counter (`naive`) handed every key out twice, once per region (the counter's replica in each datacenter
    started at 0 and each region registered as many users), and the repair kept one record of each pair, so
    it lost exactly as many records as keys it handed out twice; the UUIDs handed none out twice and lost
    nothing."""
    wrong = []
    for row in totals.to_dict("records") if len(totals) else []:
        approach, registered = row["approach"], int(row["registered (both regions)"])
        twice, lost = int(row["keys handed out twice"]), int(row["records lost"])
        if approach == "naive":
            if 2 * twice != registered or lost != twice:
                wrong.append(f"naive: {twice} keys handed out twice and {lost} records lost of {registered} registered; "
                             f"expected every key twice ({registered / 2:g}) and one record lost per key")
        elif twice or lost:
            wrong.append(f"{approach}: {twice} keys handed out twice and {lost} records lost; expected none of either")
    return wrong


def assert_partition_outcome(totals: Any) -> None:
    """Section 3's check cell: the table of what each approach registered and kept, its verification report,
    and VerificationFailed unless every run verified and each approach lost what the lesson says it loses."""
    from ..results.verification import assert_verified

    if len(totals):
        print(totals[list(PARTITION_COLUMNS)].to_string(index=False))
    assert_verified(totals, expect_none={"rows unlike the lesson's account": expected_losses(totals)})


JUDGED_AT = {"ireland_slower": sweep_repeats("labkit.patterns.uuid_key", "availability")}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
