"""Notebook 02 (Index Table): what the student predicts before each live run.

The mechanism questions (nodes one login touches, shards a find reaches) are judged exactly from the servers'
traces and explains; the outcome questions (which approach serves more) from the run's paired ratios, and
are "too few repeats to judge" where the run had fewer than three pairs."""

from __future__ import annotations

from ..predictions import RIGHT, TIE, TOO_FEW, WRONG, Question
from . import Lesson, sweep_repeats

INDEX = "the secondary index"
LOOKUP = "the lookup table"
STAYS, GROWS = "one or two, whatever the cluster's size", "more as the cluster grows"

LESSON = Lesson("02_index_table", (
    Question("index_nodes", "Cluster size: {nodes}. Each user row lives on one node. How many nodes will one login through "
             "the legacy secondary index touch (the coordinator included)?", "count", low=1, high=8,
             look={RIGHT: "The naive/legacy rows of the evidence table: nodes touched beside local index searches at each cluster size, and "
                          "the coordinator's range requests printed below, which show how much of the ring it asked.",
                   WRONG: "The naive/legacy rows' nodes touched and local index searches by cluster size, and the range requests printed "
                          "below: compare them with how many nodes could hold a row with that e-mail."},
             giveaways=("every node", "all nodes", "whole token ring", "whole ring", "scatter-gather", "equal the cluster's size", "no node knows",
                        "indexes only the rows it stores", "local", "each node indexes only")),
    Question("lookup_nodes", "And one login through the lookup table (its two reads together), as the cluster grows from "
             "1 to {nodes} nodes?", "choice", options=(STAYS, GROWS),
             look={RIGHT: "The pattern rows' nodes touched at each cluster size beside their statements: each read by key goes to the "
                          "replica owning its partition, which is what set the count as you predicted.",
                   WRONG: "The pattern rows' nodes touched at each cluster size (and the bar chart): count the statements, and for each "
                          "read by key, how many replicas own its partition at replication factor 1."},
             giveaways=("one replica each", "touch one node", "touches one node", "exactly the nodes", "straight to the replica", "one or two nodes",
                        "whatever the cluster size", "whatever the cluster's size", "the replica that owns"),
             expected=STAYS),
    Question("register_winner", "Registering users (cluster size {nodes}): which registers more users per second at the same "
             "number of client threads?", "choice", options=(LOOKUP, INDEX, TIE),
             look={RIGHT: "The interval against 1, then insert_user_mean_us and insert_lookup_mean_us: the lookup table registers with two "
                          "writes in a row, the index with one write whose replica also updates its index.",
                   WRONG: "Where the lookup table / index interval lies against 1, then mean_us beside insert_user_mean_us and "
                          "insert_lookup_mean_us: weigh the lookup table's second write against the index upkeep inside one write.",
                   TOO_FEW: "The register panel ran fewer than 3 repeats at every thread count, so no interval: set its repeats to 3 or "
                            "more and Run again, or read the classroom register rows in the closing section."},
             giveaways=("0.53x-0.67x", "a third to nearly half", "pays for its second write", "0.58x", "two fifths", "pattern gives up",
                        "the sum of its two writes", "the index registers more"),
             expected=INDEX),
    Question("login_winner", "Logging users in (cluster size {nodes}; the nodes share this machine's cores): which logs in "
             "more users per second at the same number of client threads?", "choice", options=(LOOKUP, INDEX, TIE),
             look={RIGHT: "The interval against 1, the server CPU per login and client_saturated: on shared cores the ratio follows what "
                          "ran out; section 1's nodes touched per login is the part that carries over to real clusters.",
                   WRONG: "Where the lookup table / index interval lies against 1, and client_saturated: two reads by key and one indexed "
                          "query share these cores, so compare server CPU per login and section 1's nodes touched.",
                   TOO_FEW: "The login panel ran fewer than 3 repeats at every thread count, so no interval: set its repeats to 3 or more "
                            "and Run again, or read the classroom login rows in the closing section."},
             giveaways=("is the lookup table ahead", "1.4x (1.2-1.8)", "lookup table is ahead", "index is ahead", "1.2x (1.1-1.4)")),
    Question("budget_growth", "Each node now gets {node_cpu} core of its own. From 1 to {budget_nodes} nodes, whose logins "
             "per second grow?", "choice", options=("both", f"only {LOOKUP}'s", f"only {INDEX}'s", "neither"),
             look={RIGHT: "Each approach's logins/s interval, high node count over low, and `limit` per run: the nodes one login touches "
                          "(section 1) decide whether added budgets serve more logins, as you predicted.",
                   WRONG: "Each approach's interval on the card, whether it lies wholly above 1, and `limit` per run; then section 1's nodes "
                          "touched per login: which logins spread over added nodes, and which must wait on every one.",
                   TOO_FEW: "An approach had fewer than 3 runs at a node count, so no interval: rerun the budgeted sweep with overrides "
                            "= {'budgeted': {'repeats': 3}} (the quick and classroom sizes do), or read the closing section's budgeted rows."},
             giveaways=("did not grow with the cluster", "do not grow from 1 to 8 nodes", "the lookup table's went from",
                        "grow until the 2-core machine is full"),
             expected=f"only {LOOKUP}'s"),
    Question("mongo_shards", "On MongoDB with the users sharded by hashed user id over {other_nodes} shards, how many shards "
             "will one login's find through the secondary index on `email` reach?", "count", low=1, high=16,
             look={RIGHT: "The naive/index rows' query_by_index (shards in the mongos's explain) at each shard count, beside the pattern's "
                          "read_lookup and read_user: what a hashed user id lets the router rule out for a find by e-mail sets it.",
                   WRONG: "The naive/index rows' query_by_index at each shard count, against the pattern's read_lookup and read_user: ask "
                          "which shards the router could skip when users are sharded by hashed user id and the find names only `email`."},
             giveaways=("to **every shard**", "every shard and merges", "every shard", "all shards", "keeps for its own documents",
                        "local to each shard")),
))


JUDGED_AT = {"register_winner": sweep_repeats("labkit.patterns.index_table", "register"),
             "login_winner": sweep_repeats("labkit.patterns.index_table", "login"),
             "budget_growth": sweep_repeats("labkit.patterns.index_table", "budgeted")}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
