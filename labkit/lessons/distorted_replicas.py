"""Notebook 07 (Distorted Replicas): what the student predicts before each live run.

Requests per transaction, nodes an author query touches, the batch log's own writes and the shards a
routed query asks are counted from the runs and the servers' traces; which shape reads one group faster
comes from paired runs ("too few repeats to judge" below three pairs)."""

from __future__ import annotations

from typing import Any

from ..predictions import RIGHT, TIE, TOO_FEW, WRONG, Question
from . import Lesson, sweep_repeats

PARTS, WIDE = "a table per group", "the wide record"
YES, NO = "yes", "no"
ONE_SHARD, BETWEEN, BOTH_SHARDS = "1", "between 1 and 2", "2"

LESSON = Lesson("07_distorted_replicas", (
    Question("one_group_winner", "Reading one attribute group of a publication: which serves more reads per second?", "choice",
             options=(PARTS, WIDE, TIE),
             look={RIGHT: "the `limit` column, then each shape's server CPU per read: one group is one request either way, so a gap the "
                          "servers made shows in their CPU, one the client made in `limit`.",
                   WRONG: "the ratio's interval (holding 1 means a tie), each shape's server CPU per read and the `limit` column: one group "
                          "is one request either way, so see what else separated them, or did not.",
                   TOO_FEW: "fewer than 3 repeats at one thread count, node count and groups: set the panel's repeats to 3 or more and Run "
                            "again, or read the classroom's one-group reads in the closing section."},
             giveaways=("found a tie for one-group reads", "expect a tie or a small gain at one group", "a tie", "already partly vertical",
                        "about as few bytes"),
             expected=TIE),
    Question("three_group_requests", "How many requests will the pattern send to read all three groups of one publication?",
             "count", low=1, high=10,
             look={RIGHT: "the card's requests per transaction for the pattern at 1, 2 and 3 groups against the naive's: each group is a "
                          "table of its own, so reading one more group adds one more request.",
                   WRONG: "the `requests/tx` column, pattern against naive at 1, 2 and 3 groups, then the traced requests' `statements` and "
                          "`partitions read`: see how the count follows the groups each table holds."},
             giveaways=("one request per group", "three parts are three lookups", "pieces cost requests", "three requests", "3 requests",
                        "a request per part"),
             expected=3),
    Question("author_nodes", "Cluster size {author_nodes}. How many nodes will one 'papers of an author' query through the "
             "index on the author list touch?", "count", low=1, high=8,
             look={RIGHT: "the traced index query's `nodes touched` and `index searches` beside the author partition's: each node indexes "
                          "only the rows it holds, so count how many nodes' ranges the coordinator had to cover.",
                   WRONG: "the trace's `nodes touched` and `index searches` for the index query against the author partition's: compare them "
                          "with the cluster size, remembering that each node's index covers only the rows that node holds."},
             giveaways=("the index query is sent to every node", "asks every node", "every node", "all nodes", "indexes only the rows it holds",
                        "covers only the rows")),
    Question("batch_extra", "Publishing one paper in the pattern's logged batch: will the servers write anything besides the "
             "paper's rows?", "choice", options=(YES, NO),
             look={RIGHT: "the pattern's `batch-log writes` and `batch-log steps`, in the servers' words, beside its rows written: they show "
                          "whether and where the coordinator stored the batch before applying its rows.",
                   WRONG: "the pattern's `batch-log steps` and `batch-log writes` against its `rows written (replica writes)` and the naive "
                          "row: separate what the servers wrote for the batch itself from the paper's own rows."},
             giveaways=("batch_store_req", "stores the whole batch on other nodes", "batch log", "batch-log"),
             expected=YES),
    Question("route_shards", "With a counting Bloom filter per shard, how many of the 2 shards will a routed query ask, on "
             "average?", "choice", options=(ONE_SHARD, BETWEEN, BOTH_SHARDS),
             look={RIGHT: "the routed `shards asked per query` and the two traced authors (one on one shard, one on both): a filter spares "
                          "only the shards an author is absent from, so the average follows where the papers lie.",
                   WRONG: "the routed and naive `shards asked per query` and the two traced authors: compare how often an author's papers lie "
                          "on both shards with how often a filter wrongly says \"maybe\" (the filter-size table)."},
             giveaways=("1.6 shards per query", "1.59 shards asked per query", "1.59 of the 2 shards", "some on both shards",
                        "bounded by the data"),
             expected=BETWEEN),
))


def shards_named(asked_per_query: float) -> str:
    """The option a measured average of shards asked per query falls in."""
    return ONE_SHARD if asked_per_query <= 1.0 else BOTH_SHARDS if asked_per_query >= 2.0 else BETWEEN


def assert_like_the_source(bibliography: Any) -> None:
    """The check the lesson makes of the bibliography it just streamed (labkit.datasets.bibliography.shape_problems:
    every publication counted, the stream seeded, the source's shape): VerificationFailed naming what is off."""
    from ..datasets.bibliography import shape_problems
    from ..results.verification import VerificationFailed

    problems = shape_problems(bibliography)
    if problems:
        raise VerificationFailed(problems, "What to do: the data set is labkit's own seeded generator, so this is no chance: "
                                 "if you changed its code or its seed, look there; otherwise tell your instructor.")


JUDGED_AT = {"one_group_winner": sweep_repeats("labkit.patterns.distorted_replicas", "read")}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
