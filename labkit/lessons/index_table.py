"""Notebook 02 (Index Table): what the student predicts before each live run.

The mechanism questions (nodes one login touches, shards a find reaches) are judged exactly from the servers'
traces and explains; the outcome questions (which approach serves more) from the run's paired ratios, and
are "too few repeats to judge" where the run had fewer than three pairs."""

from __future__ import annotations

from ..predictions import TIE, Question
from . import Lesson

INDEX = "the secondary index"
LOOKUP = "the lookup table"
STAYS, GROWS = "one or two, whatever the cluster's size", "more as the cluster grows"

LESSON = Lesson("02_index_table", (
    Question("index_nodes", "Cluster size: {nodes}. Each user row lives on one node. How many nodes will one login through "
             "the legacy secondary index touch (the coordinator included)?", "count", low=1, high=8,
             giveaways=("every node", "all nodes", "whole token ring", "whole ring", "scatter-gather", "equal the cluster's size")),
    Question("lookup_nodes", "And one login through the lookup table (its two reads together), as the cluster grows from "
             "1 to {nodes} nodes?", "choice", options=(STAYS, GROWS),
             giveaways=("one replica each", "touch one node", "touches one node", "exactly the nodes", "straight to the replica")),
    Question("register_winner", "Registering users (cluster size {nodes}): which registers more users per second at the same "
             "number of client threads?", "choice", options=(LOOKUP, INDEX, TIE),
             giveaways=("0.53x-0.67x", "a third to nearly half", "pays for its second write", "0.58x", "two fifths", "pattern gives up")),
    Question("login_winner", "Logging users in (cluster size {nodes}; the nodes share this machine's cores): which logs in "
             "more users per second at the same number of client threads?", "choice", options=(LOOKUP, INDEX, TIE),
             giveaways=("is the lookup table ahead", "1.4x (1.2-1.8)", "lookup table is ahead", "index is ahead", "1.2x (1.1-1.4)")),
    Question("budget_growth", "Each node now gets {node_cpu} core of its own. From 1 to {budget_nodes} nodes, whose logins "
             "per second grow?", "choice", options=("both", f"only {LOOKUP}'s", f"only {INDEX}'s", "neither"),
             giveaways=("did not grow with the cluster", "do not grow from 1 to 8 nodes", "the lookup table's went from")),
    Question("mongo_shards", "On MongoDB with the users sharded by hashed user id over {other_nodes} shards, how many shards "
             "will one login's find through the secondary index on `email` reach?", "count", low=1, high=16,
             giveaways=("to **every shard**", "every shard and merges")),
))

