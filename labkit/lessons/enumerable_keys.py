"""Notebook 03 (Enumerable Keys): what the student predicts before each live run, about Cassandra only.

The MongoDB and Couchbase panels run on stand-ins where no real server exists, and a stand-in's numbers say
nothing about the engine, so every question here is judged from the Cassandra rows: which design stores or
pages faster (paired runs, "too few repeats to judge" below three pairs) and how the list's time per comment
changes as one post grows (the last run over the first)."""

from __future__ import annotations

from ..predictions import TIE, Question
from . import Lesson

ROWS, LIST = "one row per comment", "the list in the post"
SLOWS, FLAT = "slows by more than 1.5x", "stays within 1.5x"

LESSON = Lesson("03_enumerable_keys", (
    Question("write_winner", "On Cassandra, many client threads comment on one post at once: which design stores more "
             "comments per second?", "choice", options=(ROWS, LIST, TIE),
             giveaways=("could these runs tell the two writes apart", "7.3x (5.7-9.2)", "the list's throughput falls")),
    Question("volume_slowdown", "On Cassandra, one writer keeps adding comments to one post, run after run, with the comments "
             "in a list column: from the first run to the last, the time to save one comment...", "choice", options=(SLOWS, FLAT),
             giveaways=("the list's writes did not slow down as the post grew", "the last run 1.09x", "its writes do not slow down as the post grows", "the last run 1.1x")),
    Question("page_winner", "On Cassandra, pages of ten comments, newest first: which design serves more pages per second?",
             "choice", options=(ROWS, LIST, TIE), giveaways=("11x (4.8-27)", "7.3x (5.6-9.4)", "the page is where the list loses", "7.1x (6.6-7.7)")),
))
