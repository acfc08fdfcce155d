"""Notebook 04 (Fan-out on Write): what the student predicts before each live run.

The mechanism questions (partitions one post writes, nodes one read-time page touches) are judged exactly
from the servers' traces; the outcome questions from the run's paired ratios ("too few repeats to judge"
below three pairs)."""

from __future__ import annotations

from ..predictions import TIE, Question
from . import Lesson

ON_WRITE = "fan-out on write"
ON_READ = "fan-out on read"

LESSON = Lesson("04_fan_out_on_write", (
    Question("post_partitions", "User 1 has {followers} followers. How many partitions will one post by user 1 write under "
             "fan-out on write (the keyspace keeps one replica of each partition)?", "count", low=1, high=1000,
             giveaways=("1 + followers", "1 + followers` partitions")),
    Question("page_nodes", "Cluster size {nodes}. One page under fan-out on read asks each of the {follows} users reader 1 "
             "follows for their newest activities, one query each, and keeps the newest 10. How many nodes will that page "
             "touch?", "count", low=1, high=10,
             giveaways=("the ring spreads those over the cluster", "reaches most of its nodes", "on whichever nodes own them", "the more of them take part in every page", "spread over the whole cluster")),
    Question("post_winner", "Saving activities (cluster size {nodes}): which saves more activities per second at the same "
             "number of client threads?", "choice", options=(ON_WRITE, ON_READ, TIE),
             giveaways=("0.05x", "FOR over 20x", "105-187 activities/s", "141-191 activities/s")),
    Question("page_winner", "Paginating feeds (cluster size {nodes}; the nodes share this machine's cores): which serves more "
             "pages per second at the same number of client threads?", "choice", options=(ON_WRITE, ON_READ, TIE),
             giveaways=("8.0x-9.5x", "1,495-1,942 pages/s", "7.3x-9.0x", "1,363-2,217 pages/s", "8.2x", "several times the pages")),
    Question("budget_growth", "Each node now gets {node_cpu} core of its own. From {low_nodes} to {budget_nodes} nodes, whose "
             "pages per second grow?", "choice", options=("both", f"only {ON_WRITE}'s", f"only {ON_READ}'s", "neither"),
             giveaways=("nodes did little for either", "did not help fan-out on read", "helped fan-out on write only")),
))
