"""Notebook 02 (Index Table): what the student predicts before each live run.

The mechanism questions (nodes one login touches, shards a find reaches) are judged exactly from the servers'
traces and explains; the outcome questions (which approach serves more) from the run's paired ratios, and
are "too few repeats to judge" where the run had fewer than three pairs."""

from __future__ import annotations

from typing import Any

from ..predictions import NOISE, RIGHT, TOO_FEW, WRONG, Question
from ..results.intervals import RatioInterval
from . import Lesson

INDEX = "the secondary index"
LOOKUP = "the lookup table"
STAYS, GROWS = "one or two, whatever the cluster's size", "more as the cluster grows"

LESSON = Lesson("02_index_table", (
    Question("index_nodes", "The cluster has {nodes} nodes and each user row lives on one of them. How many nodes will one "
             "login through the legacy secondary index touch (the coordinator included)?", "count", low=1, high=8,
             giveaways=("scatter-gather", "every node", "all nodes", "whole token ring", "whole ring", "equal the cluster's size")),
    Question("lookup_nodes", "And one login through the lookup table (its two reads together), as the cluster grows from "
             "1 to {nodes} nodes?", "choice", options=(STAYS, GROWS),
             giveaways=("touch one node", "touches one node", "exactly the nodes", "straight to the replica", "one replica each")),
    Question("register_winner", "Registering users on {nodes} nodes: which registers more users per second at the same "
             "number of client threads?", "choice", options=(LOOKUP, INDEX),
             giveaways=("pays for its second write", "0.58x", "two fifths", "pattern gives up")),
    Question("login_winner", "Logging users in on {nodes} nodes that share this machine's cores: which logs in more users "
             "per second at the same number of client threads?", "choice", options=(LOOKUP, INDEX),
             giveaways=("lookup table is ahead", "index is ahead", "1.2x (1.1-1.4)")),
    Question("budget_growth", "Each node now gets {node_cpu} core of its own. From 1 to {budget_nodes} nodes, whose logins "
             "per second grow?", "choice", options=("both", "only the lookup table's", "only the index's", "neither"),
             giveaways=("did not grow with the cluster", "do not grow from 1 to 8 nodes", "the lookup table's went from")),
    Question("mongo_shards", "On MongoDB with the users sharded by hashed user id over {other_nodes} shards, how many shards "
             "will one login's find through the secondary index on `email` reach?", "count", low=1, high=16,
             giveaways=("to **every shard**", "every shard and merges")),
))


def growth_card(asked: Any, grew: dict[str, RatioInterval | None], low_n: int, high_n: int, evidence: str) -> dict[str, Any]:
    """The card of "whose logins per second grow": `grew` holds each approach's logins/s at `high_n` nodes over
    `low_n` (independent clusters, so a Welch interval). An approach grew where its whole interval is above 1;
    the verdict is "too few repeats" or "within noise" where any interval cannot say."""
    measured = "; ".join(f"{name} {i.text() if i else 'not run'}" for name, i in grew.items()) + f" (logins/s, {high_n} nodes over {low_n})"
    intervals = list(grew.values())
    box = asked["budget_growth"]
    prediction = box.frozen[-1] if box.frozen else box.answer
    if any(i is None or not i.has_interval for i in intervals):
        return asked.card("budget_growth", measured, evidence, verdict=TOO_FEW)
    if any(i.within_noise for i in intervals):
        return asked.card("budget_growth", measured, evidence, verdict=NOISE)
    up = {name for name, i in grew.items() if i.low > 1}
    answer = "both" if len(up) == 2 else "only the lookup table's" if LOOKUP in up else "only the index's" if INDEX in up else "neither"
    return asked.card("budget_growth", f"{answer}: {measured}", evidence, verdict=RIGHT if prediction == answer else WRONG)
