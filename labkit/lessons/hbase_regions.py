"""Notebook 09 (HBase regions): what the student predicts before each live run.

Which regions took the writes, how the writes split between the region servers and how many rows a login's
scan threw away are counted exactly by the servers; the hashed keys' write rate over the timestamp keys' comes
from paired runs ("too few repeats to judge" below three pairs)."""

from __future__ import annotations

from ..predictions import RIGHT, TOO_FEW, WRONG, Question
from . import Lesson

ALL, HALF, SIXTEENTH = "all of them", "about half", "about a sixteenth"
SHARES = {ALL: 1.0, HALF: 0.5, SIXTEENTH: 1 / 16}
"""The choices of `hashed_busiest` and the share each stands for; a measured share is the nearest of them."""

SIZES = {"smoke": {"writes": 160, "blocks": 1, "users": 200, "logins": 10},  # every cell at its smallest (make test): one block, a fifth of quick's users, a quarter of its logins
         # 3 blocks of both key designs (3 ABBA pairs: the hashed_faster card's interval, #70), in the writes of the one block of 800 they replaced
         "quick": {"writes": 272, "blocks": 3, "users": 1000, "logins": 40},
         "classroom": {"writes": 3000, "blocks": 3, "users": 10000, "logins": 200}}
"""The notebook's sizes (its `profile` parameter picks one): writes per run and blocks of the hot-spot test, users and logins of
the index test."""

LESSON = Lesson("09_hbase_regions", (
    Question("sequential_regions", "{threads} client threads write {writes} rows keyed by timestamp into a table split into "
             "16 regions on 2 region servers. How many of the 16 regions will take writes?", "count", low=0, high=16,
             look={RIGHT: "the `naive/sequential` bars of writes per region and the start keys on the card: a key growing in order sorts "
                          "after the last one, so writes land in the regions covering the clock's current leading digits.",
                   WRONG: "the `naive/sequential` bars of writes per region and the regions table before the run (start and end keys): "
                          "compare the leading digits of a nanosecond timestamp with the key range each region covers."},
             giveaways=("took every write", "into one region", "the last region", "queueing on one", "neighbouring keys sit in the same region",
                        "the region from 1 to 2", "one region on one server", "hot spot"),
             expected=1),
    Question("hashed_busiest", "The same writes with the first 4 hex digits of each key's MD5 in front of it. What share of "
             "the writes will the busier of the 2 region servers take?", "choice", options=(ALL, HALF, SIXTEENTH),
             look={RIGHT: "the `pattern/hashed` bars coloured by server and `busiest_server_share`: the MD5 prefix scatters the keys over the "
                          "regions, so each server's share follows how many of those regions the master gave it.",
                   WRONG: "the `pattern/hashed` bars coloured by server and the regions table's `region server` row: compare how the hash "
                          "prefix spreads keys over the regions with how those regions are split between the servers."},
             giveaways=("each server took about half", "about half", "half the writes"),
             expected=HALF),
    Question("hashed_faster", "Each region server held to {node_cpu} core: how many writes per second will the hashed keys "
             "reach for each one the timestamp keys reach?", "ratio", low=0.1, high=100,
             look={RIGHT: "each run's writes per second and `limit` on the card, beside the two cards above: spreading writes over more "
                          "servers raises the rate only while the servers, not the client or the gateway, set the limit.",
                   WRONG: "each run's writes per second and `limit`, beside `busiest_server_share` for both key kinds: a second server's help "
                          "shows in the rate only where the busy server, not the client, gateway or machine, held it back.",
                   TOO_FEW: "this profile ran fewer than 3 blocks, too few pairs for an interval: set profile = 'classroom' (3 interleaved "
                            "blocks) and rerun section 1, or read the committed 2-server row in the closing section."},
             giveaways=("1.8x (1.6-2.1)", "hashed keys use both", "one server's rate"),
             expected=(0.88, 2.9)),
    Question("scan_filtered", "The users table holds {users} users in 4 regions, keyed by id. A login by e-mail scans it "
             "with a filter on the e-mail column. How many rows will the servers read and throw away per login (within one row "
             "counts as right)?", "count", low=0, high=10_000_000, tolerance=1,
             look={RIGHT: "the rows thrown away per login, region by region, against the users stored: the region servers test every row of "
                          "their regions against the filter, so the count follows the table, not the match.",
                   WRONG: "the rows thrown away per login in each users-table region, summed, against the users stored and the one row "
                          "returned: ask which rows a filter evaluated on the servers must read."},
             giveaways=("every region still reads every row to test it", "all but one", "reads every row", "every row", "grows with the table")),
    Question("lookup_regions", "With a lookup table keyed by e-mail (one region) beside the users table, how many regions "
             "will one login touch?", "count", low=0, high=100,
             look={RIGHT: "the lookup's read requests per login on the card: each `get` asks the one region holding its key, one in the "
                          "lookup table and one in the users table, against every region the scan visits.",
                   WRONG: "the lookup's `read_requests_per_login` and `regions_per_login` beside the scan's: count the `get`s one login "
                          "makes, then which table and which region each one's key sends it to."},
             giveaways=("the lookup's work is two `get`s", "one region of each table", "two regions", "2 regions"),
             expected=2),
))


def nearest_share(share: float) -> str:
    """The choice of `hashed_busiest` nearest to a measured share of the writes."""
    return min(SHARES, key=lambda choice: abs(SHARES[choice] - share))


JUDGED_AT = {"hashed_faster": lambda size: SIZES[size]["blocks"]}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
