"""Notebook 09 (HBase regions): what the student predicts before each live run.

Which regions took the writes, how the writes split between the region servers and how many rows a login's
scan threw away are counted exactly by the servers; the hashed keys' write rate over the timestamp keys' comes
from paired runs ("too few repeats to judge" below three pairs)."""

from __future__ import annotations

from ..predictions import Question
from . import Lesson

ALL, HALF, SIXTEENTH = "all of them", "about half", "about a sixteenth"
SHARES = {ALL: 1.0, HALF: 0.5, SIXTEENTH: 1 / 16}
"""The choices of `hashed_busiest` and the share each stands for; a measured share is the nearest of them."""

LESSON = Lesson("09_hbase_regions", (
    Question("sequential_regions", "{threads} client threads write {writes} rows keyed by timestamp into a table split into "
             "16 regions on 2 region servers. How many of the 16 regions will take writes?", "count", low=0, high=16,
             giveaways=("took every write", "into one region", "the last region")),
    Question("hashed_busiest", "The same writes with the first 4 hex digits of each key's MD5 in front of it. What share of "
             "the writes will the busier of the 2 region servers take?", "choice", options=(ALL, HALF, SIXTEENTH),
             giveaways=("each server took about half",)),
    Question("hashed_faster", "Each region server held to {node_cpu} core: how many writes per second will the hashed keys "
             "reach for each one the timestamp keys reach?", "ratio", low=0.1, high=100,
             giveaways=("1.8x (1.6-2.1)",)),
    Question("scan_filtered", "The users table holds {users} users in 4 regions, keyed by id. A login by e-mail scans it "
             "with a filter on the e-mail column. How many rows will the servers read and throw away per login (within one row "
             "counts as right)?", "count", low=0, high=10_000_000, tolerance=1, giveaways=("every region still reads every row to test it", "all but one")),
    Question("lookup_regions", "With a lookup table keyed by e-mail (one region) beside the users table, how many regions "
             "will one login touch?", "count", low=0, high=100, giveaways=("the lookup's work is two `get`s", "one region of each table")),
))


def nearest_share(share: float) -> str:
    """The choice of `hashed_busiest` nearest to a measured share of the writes."""
    return min(SHARES, key=lambda choice: abs(SHARES[choice] - share))
