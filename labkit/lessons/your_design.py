"""Notebook 08 (Your design): what the student predicts before each live run of the chat example.

What `by_index` reads for a page and what the partitions hold are read from the servers' traces and
histograms; which design serves more comes from the panel's paired repeats. The questions are about the
worked example (the chat); with a profile of your own, skip them."""

from __future__ import annotations

from ..predictions import RIGHT, TIE, TOO_FEW, WRONG, Question
from . import Lesson

ONE, TWENTY, EVERY = "one", "twenty, one per message shown", "every message of the room"
DAYS = {"about 1": 1, "about 7 (the days kept)": 7, "about 30 (every day written)": 30}
ROOM, DAY, SAME_ROWS = "the room's partition", "the day's partition", "the same"
BOTH, NEITHER = "both", "neither"

LESSON = Lesson("08_your_design", (
    Question("index_page_partitions", "The chat: to show a room's latest 20 messages, how many partitions will design "
             "`by_index` read per execution?", "choice", options=(ONE, TWENTY, EVERY),
             look={RIGHT: "by_index's `partitions_per_execution` and `rows_read_per_execution` for `read_room` beside by_query's: the index "
                          "hands back a room's messages in token order, and each message it finds is then fetched from the table by its own "
                          "key.",
                   WRONG: "by_index's `partitions_per_execution`, `rows_read_per_execution` and `index_scans_per_execution` for `read_room`: "
                          "ask what it must read to know which 20 are the latest when the index returns them in token order."},
             giveaways=("118 partitions per read", "as a partition of its own", "reads all of the room's messages", "every message of the room",
                        "reads every row it needs", "the client keeps the newest"),
             expected=EVERY),
    Question("mix_winner", "The chat's mix (8 reads in 10 operations): which design will serve more operations per second?",
             "choice", options=("by_query", "by_index", TIE),
             look={RIGHT: "each design's server CPU per operation on the card and section 1's partitions per `read_room`: with 8 reads in 10 "
                          "operations, what one read costs the servers weighs most, and `limit` says what set each rate.",
                   WRONG: "the ratio's interval (holding 1 means a tie), each design's server CPU per operation and `limit`: compare them "
                          "with section 1's partitions and rows per `read_room`, the operation most of the mix is made of.",
                   TOO_FEW: "fewer than 3 repeats at one thread and node count give no interval: set the panel's repeats to 3 or more and Run "
                            "again, or read the classroom's by_query over by_index in the closing section."},
             giveaways=("8.1x (5.5-12)", "should serve more operations per second", "a query is fast when"),
             expected="by_query"),
    Question("room_days", "30 days of 200 messages a day, kept 7 days: how many times the largest day's partition will the "
             "room's partition be on disk?", "choice", options=tuple(DAYS),
             look={RIGHT: "the `largest partition cells (server)` keyed by room against keyed by room and day: an expired message stays on "
                          "disk as a tombstone until a compaction after `gc_grace_seconds`, which sets what the room's partition still holds.",
                   WRONG: "the two `largest partition cells (server)` figures (buckets about a fifth apart): compare what a TTL leaves on "
                          "disk before `gc_grace_seconds` passes with the days each partition key lets one partition collect."},
             giveaways=("the room's partition holds every day written", "the room's partition holds all 30 days", "the number of days the room has run",
                        "every message ever posted", "stays on disk as a tombstone", "holds every day written"),
             expected="about 30 (every day written)"),
    Question("newest_rows", "For the newest page of 20, which read reads more rows?", "choice", options=(ROOM, DAY, SAME_ROWS),
             look={RIGHT: "the newest page's `rows returned (trace)`, room against room + day: a slice starts at the newest row and reads "
                          "until it has 20 live ones, so only what it meets on the way counts.",
                   WRONG: "the newest page's `rows returned (trace)` and `tombstone cells read (trace)` in both tables: compare where each "
                          "slice starts, clustered newest first, with where it has found its 20 live rows."},
             giveaways=("both designs read 20 live rows", "return 20 live rows, with no tombstone", "a slice starts at the newest row"),
             expected=SAME_ROWS),
    Question("oldest_tombstones", "For the oldest page still kept, whose read steps over expired messages (tombstones)?",
             "choice", options=(ROOM, DAY, BOTH, NEITHER),
             look={RIGHT: "the oldest kept page's `tombstone cells read (trace)` in each table and `server warned`: which expired messages a "
                          "read meets depends on where its slice starts, at the oldest end or at a named day.",
                   WRONG: "the oldest kept page's `tombstone cells read (trace)` in both tables: compare where each read starts (the room's "
                          "with no bound on `sent`, the day table's at day 7 back) with where the expired messages lie."},
             giveaways=("steps over every expired message", "the read of day 7 back meets none", "starts at the oldest end and steps over"),
             expected=ROOM),
))


def partitions_named(per_execution: float) -> str:
    """The `index_page_partitions` option a measured count of partitions per execution falls in."""
    return ONE if per_execution <= 1.5 else TWENTY if per_execution <= 20.5 else EVERY


def days_named(ratio: float) -> str:
    """The `room_days` option nearest (on a log scale) to a measured size ratio."""
    import math

    return min(DAYS, key=lambda name: abs(math.log(DAYS[name]) - math.log(max(ratio, 1e-9))))


def _chat_mix_repeats(size: str) -> int:
    """The repeats of the chat profile's mix sweep (datasets/profiles/chat.yaml) at a size."""
    from pathlib import Path

    from ..catalogue import describe

    chat = Path(__file__).resolve().parents[2] / "datasets" / "profiles" / "chat.yaml"
    return int(describe(str(chat)).named_sweep(size, "mix").repeats)


JUDGED_AT = {"mix_winner": _chat_mix_repeats}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
