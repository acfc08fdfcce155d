"""Notebook 07 (Distorted Replicas): what the student predicts before each live run.

Requests per transaction, nodes an author query touches, the batch log's own writes and the shards a
routed query asks are counted from the runs and the servers' traces; which shape reads one group faster
comes from paired runs ("too few repeats to judge" below three pairs)."""

from __future__ import annotations

from typing import Any

from ..predictions import TIE, Question
from . import Lesson

PARTS, WIDE = "a table per group", "the wide record"
YES, NO = "yes", "no"
ONE_SHARD, BETWEEN, BOTH_SHARDS = "1", "between 1 and 2", "2"

LESSON = Lesson("07_distorted_replicas", (
    Question("one_group_winner", "Reading one attribute group of a publication: which serves more reads per second?", "choice",
             options=(PARTS, WIDE, TIE), giveaways=("found a tie for one-group reads", "expect a tie or a small gain at one group")),
    Question("three_group_requests", "How many requests will the pattern send to read all three groups of one publication?",
             "count", low=1, high=10, giveaways=("one request per group", "three parts are three lookups")),
    Question("author_nodes", "Cluster size {author_nodes}. How many nodes will one 'papers of an author' query through the "
             "index on the author list touch?", "count", low=1, high=8,
             giveaways=("the index query is sent to every node", "asks every node")),
    Question("batch_extra", "Publishing one paper in the pattern's logged batch: will the servers write anything besides the "
             "paper's rows?", "choice", options=(YES, NO), giveaways=("batch_store_req", "stores the whole batch on other nodes")),
    Question("route_shards", "With a counting Bloom filter per shard, how many of the 2 shards will a routed query ask, on "
             "average?", "choice", options=(ONE_SHARD, BETWEEN, BOTH_SHARDS),
             giveaways=("1.6 shards per query", "1.59 shards asked per query")),
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
