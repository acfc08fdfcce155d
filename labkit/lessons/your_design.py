"""Notebook 08 (Your design): what the student predicts before each live run of the chat example.

What `by_index` reads for a page and what the partitions hold are read from the servers' traces and
histograms; which design serves more comes from the panel's paired repeats. The questions are about the
worked example (the chat); with a profile of your own, skip them."""

from __future__ import annotations

from ..predictions import TIE, Question
from . import Lesson

ONE, TWENTY, EVERY = "one", "twenty, one per message shown", "every message of the room"
DAYS = {"about 1": 1, "about 7 (the days kept)": 7, "about 30 (every day written)": 30}
ROOM, DAY, SAME_ROWS = "the room's partition", "the day's partition", "the same"
BOTH, NEITHER = "both", "neither"

LESSON = Lesson("08_your_design", (
    Question("index_page_partitions", "The chat: to show a room's latest 20 messages, how many partitions will design "
             "`by_index` read per execution?", "choice", options=(ONE, TWENTY, EVERY),
             giveaways=("118 partitions per read", "as a partition of its own", "reads all of the room's messages")),
    Question("mix_winner", "The chat's mix (8 reads in 10 operations): which design will serve more operations per second?",
             "choice", options=("by_query", "by_index", TIE), giveaways=("8.1x (5.5-12)", "should serve more operations per second")),
    Question("room_days", "30 days of 200 messages a day, kept 7 days: how many times the largest day's partition will the "
             "room's partition be on disk?", "choice", options=tuple(DAYS),
             giveaways=("the room's partition holds every day written", "the room's partition holds all 30 days", "the number of days the room has run")),
    Question("newest_rows", "For the newest page of 20, which read reads more rows?", "choice", options=(ROOM, DAY, SAME_ROWS),
             giveaways=("both designs read 20 live rows", "return 20 live rows, with no tombstone")),
    Question("oldest_tombstones", "For the oldest page still kept, whose read steps over expired messages (tombstones)?",
             "choice", options=(ROOM, DAY, BOTH, NEITHER), giveaways=("steps over every expired message", "the read of day 7 back meets none")),
))


def partitions_named(per_execution: float) -> str:
    """The `index_page_partitions` option a measured count of partitions per execution falls in."""
    return ONE if per_execution <= 1.5 else TWENTY if per_execution <= 20.5 else EVERY


def days_named(ratio: float) -> str:
    """The `room_days` option nearest (on a log scale) to a measured size ratio."""
    import math

    return min(DAYS, key=lambda name: abs(math.log(DAYS[name]) - math.log(max(ratio, 1e-9))))
