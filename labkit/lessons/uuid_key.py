"""Notebook 01 (UUID Key): what the student predicts before each live run.

Where the counter's Paxos round runs is read from the servers' trace and the users lost in the partition
are counted exactly; how much slower a counter registration is comes from paired runs ("too few repeats to
judge" below three pairs)."""

from __future__ import annotations

from ..predictions import Question
from . import Lesson

LESSON = Lesson("01_uuid_key", (
    Question("claim_dc", "Ireland's application claims one key from the counter, which lives in dc1 only. In which "
             "datacenter will the servers record the Paxos round of its compare-and-set?", "choice",
             options=("dc1", "dc2", "both"),
             giveaways=("was recorded in `dc1`", "coordinator in `dc1`")),
    Question("ireland_slower", "At {low_threads} client threads, how many times longer will a counter registration take "
             "than a UUID registration in Ireland ({one_way} ms each way to dc1)?", "ratio", low=1, high=5000,
             giveaways=("187x", "cannot go below", "4 × *one way ms*", "two trips through the link")),
    Question("partition_lost", "During the cut each region registers {partition_users} users, each region with its own "
             "counter starting at 0. After the heal and the repair, how many of the {partition_total} counter-keyed "
             "users will be gone?", "count", low=0, high=100000,
             giveaways=("lost half the users", "**every** key was issued twice", "1,000 (50 %)")),
    Question("uuid_lost", "And how many of the {partition_total} users keyed by random UUIDs?", "count", low=0, high=100000,
             giveaways=("the uuid approaches kept every record", "no key was issued twice")),
    Question("couchbase_lost", "On Couchbase, with replication paused, each region takes {partition_users} keys from its own "
             "cluster's counter. Once replication resumes, how many of the {partition_total} counter-keyed users will be gone?",
             "count", low=0, high=100000, giveaways=("couchbase lost",)),
))
