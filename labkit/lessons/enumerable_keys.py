"""Notebook 03 (Enumerable Keys): what the student predicts before each live run, about Cassandra only.

The MongoDB and Couchbase panels run on stand-ins where no real server exists, and a stand-in's numbers say
nothing about the engine, so every question here is judged from the Cassandra rows: which design stores or
pages faster (paired runs, "too few repeats to judge" below three pairs) and how the list's time per comment
changes as one post grows (the last run over the first)."""

from __future__ import annotations

from ..predictions import RIGHT, TIE, TOO_FEW, WRONG, Question
from . import Lesson, sweep_repeats

ROWS, LIST = "one row per comment", "the list in the post"
SLOWS, FLAT = "slows by more than 1.5x", "stays within 1.5x"

LESSON = Lesson("03_enumerable_keys", (
    Question("write_winner", "On Cassandra, many client threads comment on one post at once: which design stores more "
             "comments per second?", "choice", options=(ROWS, LIST, TIE),
             look={RIGHT: "The rows / list interval against 1, then Cassandra's server CPU per comment and client_saturated: neither "
                          "design reads the post to add a comment, so check whether the client or the server set each rate.",
                   WRONG: "Where the rows / list interval lies against 1, with server CPU per comment and client_saturated: both designs "
                          "write without reading the post, so compare their server cost and what limited each run.",
                   TOO_FEW: "The Cassandra write panel ran fewer than 3 repeats at every thread count, so no interval: set its repeats to "
                            "3 or more and Run again, or read the classroom write row in the closing section."},
             giveaways=("could these runs tell the two writes apart", "7.3x (5.7-9.2)", "the list's throughput falls", "without reading",
                        "never read the post", "neither design reads the post", "blind write"),
             expected=TIE),
    Question("volume_slowdown", "On Cassandra, one writer keeps adding comments to one post, run after run, with the comments "
             "in a list column: from the first run to the last, the time to save one comment...", "choice", options=(SLOWS, FLAT),
             look={RIGHT: "The Cassandra list line in the run-after-run time-per-comment plot beside the post-size plot: check that what "
                          "you predicted holds run after run as the post grows, not only in the first and last (one series).",
                   WRONG: "The first and last ms per comment on the card and the Cassandra list line run after run: set how far the post "
                          "grew against how the time moved, then read what the closing section's profile says a list append costs."},
             giveaways=("the list's writes did not slow down as the post grew", "the last run 1.09x", "its writes do not slow down as the post grows",
                        "the last run 1.1x", "without reading", "did not show in the time per comment", "did not slow down",
                        "on the document stores every write does too", "mongodb and couchbase rewrite"),
             expected=FLAT),
    Question("page_winner", "On Cassandra, pages of ten comments, newest first: which design serves more pages per second?",
             "choice", options=(ROWS, LIST, TIE),
             look={RIGHT: "The rows / list interval against 1 and Cassandra's server CPU per page: the list comes back whole for every "
                          "page, the rows as a slice of ten; compare what each page makes the server read.",
                   WRONG: "Where the rows / list interval lies against 1, then server CPU per page and client_saturated: set what a page "
                          "reads in each design, the whole list or ten rows, against what limited each run.",
                   TOO_FEW: "The Cassandra paginate panel ran fewer than 3 repeats at every thread count, so no interval: set its repeats "
                            "to 3 or more and Run again, or read the classroom paginate row in the closing section."},
             giveaways=("11x (4.8-27)", "7.3x (5.6-9.4)", "the page is where the list loses", "7.1x (6.6-7.7)", "reads back whole",
                        "the whole list", "reads the whole list", "comes back whole", "moves the whole list"),
             expected=ROWS),
))


JUDGED_AT = {"write_winner": sweep_repeats("labkit.patterns.enumerable_keys", "write"),
             "page_winner": sweep_repeats("labkit.patterns.enumerable_keys", "paginate")}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
