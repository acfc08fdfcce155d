"""Notebook 04 (Fan-out on Write): what the student predicts before each live run.

The mechanism questions (partitions one post writes, nodes one read-time page touches) are judged exactly
from the servers' traces; the outcome questions from the run's paired ratios ("too few repeats to judge"
below three pairs)."""

from __future__ import annotations

from ..predictions import RIGHT, TIE, TOO_FEW, WRONG, Question
from . import Lesson, sweep_repeats

ON_WRITE = "fan-out on write"
ON_READ = "fan-out on read"

LESSON = Lesson("04_fan_out_on_write", (
    Question("post_partitions", "User 1 has {followers} followers. How many partitions will one post by user 1 write under "
             "fan-out on write (the keyspace keeps one replica of each partition)?", "count", low=1, high=1000,
             look={RIGHT: "The pattern's one-post row: partitions written beside statements and the follower count in the question; "
                          "the activity and each follower's feed row are partitions of their own, each a write the trace counts.",
                   WRONG: "The pattern's one-post row's partitions written and statements, against the naive one-post row: list what a post "
                          "writes under fan-out on write, the activity and each follower's feed row, at one replica each."},
             giveaways=("1 + followers", "1 + followers` partitions", "followers + 1", "each post costs")),
    Question("page_nodes", "Cluster size {nodes}. One page under fan-out on read asks each of the {follows} users reader 1 "
             "follows for their newest activities, one query each, and keeps the newest 10. How many nodes will that page "
             "touch?", "count", low=1, high=10,
             look={RIGHT: "The naive one-page row: statements and partitions read beside nodes touched; each followed user's query goes to "
                          "wherever the ring put that user's partition, so their spread over the cluster sets the count.",
                   WRONG: "The naive one-page row's statements, partitions read and nodes touched, against the cluster size: ask where the "
                          "ring puts each followed user's partition, and how many nodes that many partitions would cover."},
             giveaways=("the ring spreads those over the cluster", "reaches most of its nodes", "on whichever nodes own them",
                        "the more of them take part in every page", "spread over the whole cluster", "on a different node",
                        "most of its nodes", "every node", "all nodes")),
    Question("post_winner", "Saving activities (cluster size {nodes}): which saves more activities per second at the same "
             "number of client threads?", "choice", options=(ON_WRITE, ON_READ, TIE),
             look={RIGHT: "The fan-out on write / on read interval against 1, then insert_feed_count and mean_us: a post under fan-out on "
                          "write adds up the round trips of its sequential writes, against one write under fan-out on read.",
                   WRONG: "Where the fan-out on write / on read interval lies against 1, then insert_activity_count, insert_feed_count and "
                          "mean_us: count the sequential requests one post makes under each approach and compare their latencies.",
                   TOO_FEW: "The save-activities panel ran fewer than 3 repeats at every thread count, so no interval: set its repeats to "
                            "3 or more and Run again, or read the classroom save-activities row in the closing section."},
             giveaways=("0.05x", "FOR over 20x", "105-187 activities/s", "141-191 activities/s", "keeps writes cheap", "the push's full cost",
                        "adds up their round trips"),
             expected=ON_READ),
    Question("page_winner", "Paginating feeds (cluster size {nodes}; the nodes share this machine's cores): which serves more "
             "pages per second at the same number of client threads?", "choice", options=(ON_WRITE, ON_READ, TIE),
             look={RIGHT: "The interval against 1, read_friend_count and read_feed_count per page, and client_saturated: section 1's "
                          "statements per page are the cost that holds elsewhere; check which side ran out of CPU here.",
                   WRONG: "Where the fan-out on write / on read interval lies against 1, with read_friend_count, read_feed_count and "
                          "client_saturated: set section 1's statements per page against which side's client or cores ran out first.",
                   TOO_FEW: "The paginate panel ran fewer than 3 repeats at every thread count, so no interval: set its repeats to 3 or "
                            "more and Run again, or read the classroom paginate rows in the closing section."},
             giveaways=("8.0x-9.5x", "1,495-1,942 pages/s", "7.3x-9.0x", "1,363-2,217 pages/s", "8.2x", "several times the pages",
                        "reads become single-partition, sorted, and cheap"),
             expected=ON_WRITE),
    Question("budget_growth", "Each node now gets {node_cpu} core of its own. From {low_nodes} to {budget_nodes} nodes, whose "
             "pages per second grow?", "choice", options=("both", f"only {ON_WRITE}'s", f"only {ON_READ}'s", "neither"),
             look={RIGHT: "Each approach's pages/s interval, high node count over low, and `limit` per run: check whether node budgets or "
                          "the client and machine set each rate, since the growth you predicted depends on which.",
                   WRONG: "Each approach's interval, whether it lies wholly above 1, and `limit` per run: a side held back by the client or "
                          "the machine cannot grow with added budgets; compare with section 1's nodes touched per page.",
                   TOO_FEW: "An approach had fewer than 3 runs at a node count, so no interval: rerun the budgeted sweep with overrides "
                            "= {'budgeted': {'repeats': 3}} (the quick and classroom sizes do), or read the closing section's budgeted rows."},
             giveaways=("nodes did little for either", "did not help fan-out on read", "helped fan-out on write only"),
             expected=f"only {ON_WRITE}'s"),
))


JUDGED_AT = {"post_winner": sweep_repeats("labkit.patterns.fan_out", "post"),
             "page_winner": sweep_repeats("labkit.patterns.fan_out", "paginate"),
             "budget_growth": sweep_repeats("labkit.patterns.fan_out", "budgeted")}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
