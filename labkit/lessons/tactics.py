"""Notebook 06 (Tactics): what the student predicts before each tactic runs under load.

Every question is answered from the run itself: failures while the index builds and reads that found a
record missing during the repair (counted), the share of the ring the new node owns (the server's
evidence), what limited the load before the budget grew (the run's `limit`: `server nodeN` is a node at 90% of its
budget, which with Linux's default timer slack a budgeted Cassandra node was at any load, its idle workers
waking up to look for work; budgeted nodes now start with 1 ms of slack, and the card shows the cores the nodes
used), and what a tactic did to p95 (after over before, with 1.2x either way as "about the same")."""

from __future__ import annotations

from typing import Any

from ..predictions import Question
from . import Lesson

YES, NO = "yes", "no"
BETTER, SAME, WORSE = "better by more than 1.2x", "within 1.2x either way", "worse by more than 1.2x"
SHARES = {"about a quarter": 25.0, "about a sixth": 100 / 6, "about a third": 100 / 3, "about an eighth": 12.5}

LESSON = Lesson("06_tactics", (
    Question("index_fails", "While the SAI index builds under load, will any query planned against it fail?", "choice",
             options=(YES, NO), giveaways=("fail with `index_not_available`", "queries that reach it fail")),
    Question("quorum_effect", "A read-heavy load that keeps three budgeted nodes busy switches from ONE to QUORUM (replication factor "
             "3). What will the switch do to p95, after over before?", "choice", options=(BETTER, SAME, WORSE),
             giveaways=("328 ms after it", "what it costs is latency and capacity")),
    Question("cpu_limit", "Just before the nodes' budget is doubled, what will have limited the load?", "choice",
             options=("a node's budget", "the client", "the machine", "nothing"), giveaways=("a node had been at its budget",)),
    Question("replica_missing", "While the repair streams the records to their new replicas, will any read at ONE report a "
             "record missing?", "choice", options=(YES, NO), giveaways=("found a record missing", "did not yet mean three copies")),
    Question("new_node_share", "A fourth node joins a ring of three nodes that hold one token each. What share of the data "
             "will it own?", "choice", options=tuple(SHARES), giveaways=("splits one neighbour's range", "one sixth")),
    Question("tactic_effect", "Pick a run in the panel: what will its tactic do to p95, after over before?", "choice",
             options=(BETTER, SAME, WORSE), giveaways=("more cpu buys nothing unless the nodes were the limit", "see that more cpu buys nothing")),
))


def share_named(owns_pct: float) -> str:
    """The option nearest to the share of the ring a node owns (nodetool's percentage)."""
    return min(SHARES, key=lambda name: abs(SHARES[name] - owns_pct))


def effect_of(p95_after_vs_before: float | None) -> str | None:
    """What a tactic did to p95 in the terms of `tactic_effect` (None when either window had no p95)."""
    if p95_after_vs_before is None or p95_after_vs_before != p95_after_vs_before:
        return None
    return BETTER if p95_after_vs_before < 1 / 1.2 else WORSE if p95_after_vs_before > 1.2 else SAME


SECTIONS = ("create-index-sai", "consistency-quorum", "node-cpu-0.5", "raise-replication-3", "add-node")
"""The plans sections 1-5 run, by their quick keys (at classroom size each section runs the read-heavy plan of its key)."""


def sections_planned(chosen: dict[str, Any]) -> list[str]:
    """The sections whose plan is among this run's `chosen` plans (key -> plan; the notebook's `only` may leave
    some out): those whose runs section 7 must find verified."""
    from ..tactics.scenarios import section_plan

    return [key for key in SECTIONS if section_plan(chosen, key) is not None]
