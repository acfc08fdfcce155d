"""Notebook 06 (Tactics): what the student predicts before each tactic runs under load.

Every question is answered from the run itself: failures while the index builds and reads that found a
record missing during the repair (counted), the share of the ring the new node owns (the server's
evidence), what limited the load before the budget grew (the run's `limit`: `server nodeN` is a node at 90% of its
budget, which with Linux's default timer slack a budgeted Cassandra node was at any load, its idle workers
waking up to look for work; budgeted nodes now start with 1 ms of slack, and the card shows the cores the nodes
used), and what a tactic did to p95 (after over before, with 1.2x either way as "about the same")."""

from __future__ import annotations

from typing import Any

from ..predictions import RIGHT, WRONG, Question
from . import Lesson

YES, NO = "yes", "no"
BETTER, SAME, WORSE = "better by more than 1.2x", "within 1.2x either way", "worse by more than 1.2x"
SHARES = {"about a quarter": 25.0, "about a sixth": 100 / 6, "about a third": 100 / 3, "about an eighth": 12.5}

LESSON = Lesson("06_tactics", (
    Question("index_fails", "While the SAI index builds under load, will any query planned against it fail?", "choice",
             options=(YES, NO),
             look={RIGHT: "the timeline's red `failed / s` bars while the tactic ran, beside the during window's `errors`: they show what a "
                          "query planned against an index still being built got back from the node.",
                   WRONG: "the red `failed / s` bars and the during window's `errors`, then the card's server evidence: compare when the "
                          "index entered the schema, and the planner began using it, with when every node reported it queryable."},
             giveaways=("fail with `index_not_available`", "queries that reach it fail", "before it has been built", "as soon as the index exists",
                        "makes queries fail", "returns long before the index can answer", "watch the red bars"),
             expected=YES),
    Question("quorum_effect", "A read-heavy load that keeps three budgeted nodes busy switches from ONE to QUORUM (replication factor "
             "3). What will the switch do to p95, after over before?", "choice", options=(BETTER, SAME, WORSE),
             look={RIGHT: "the before and after rows' `p95_ms` and the nodes the traced QUORUM read touched: each read now waits for a second "
                          "replica, and how much that shows depends on the queue the before window already had.",
                   WRONG: "the before and after rows' `p95_ms` and `limit`, and the nodes the traced QUORUM read touched: compare the extra "
                          "replica each read now waits for with the queueing the before window already showed."},
             giveaways=("328 ms after it", "what it costs is latency and capacity", "waits for a second replica", "cost latency"),
             expected=WORSE),
    Question("cpu_limit", "Just before the nodes' budget is doubled, what will have limited the load?", "choice",
             options=("a node's budget", "the client", "the machine", "nothing"),
             look={RIGHT: "the before window's `limit` and `server_cores`, then p95 after over before: idle workers spinning can keep a node "
                          "near its budget, so the p95 change tells whether the budget really held the load back.",
                   WRONG: "the before row's `limit`, `server_cores` and `machine_busy`, then the after row's: the card's answer is the before "
                          "`limit` alone, so see whether it names a node, the client, the machine or none."},
             giveaways=("a node had been at its budget", "keep them busy", "the nodes were the limit"),
             expected="a node's budget"),
    Question("replica_missing", "While the repair streams the records to their new replicas, will any read at ONE report a "
             "record missing?", "choice", options=(YES, NO),
             look={RIGHT: "the red `failed / s` bars during the repair and the card's count of missing records: a read at ONE asks a single "
                          "replica, which may lack the record until the repair reaches it.",
                   WRONG: "the during window's `errors` and the red bars while the repair ran, then the verification after the run: compare "
                          "which replica a read at ONE may ask with when the repair streamed the record to it."},
             giveaways=("found a record missing", "did not yet mean three copies", "did not have the record yet", "not found"),
             expected=YES),
    Question("new_node_share", "A fourth node joins a ring of three nodes that hold one token each. What share of the data "
             "will it own?", "choice", options=tuple(SHARES),
             look={RIGHT: "the new node's `owns_pct` in the card's nodetool evidence: with one token per node the newcomer takes part of one "
                          "neighbour's range, so where its token fell, not the node count, sets its share.",
                   WRONG: "the new node's `owns_pct` on the card against an even split among the nodes: ask whose range its single token cut "
                          "into, and how much of that range it took."},
             giveaways=("splits one neighbour's range", "one sixth", "a sixth", "relieves only that neighbour", "relieves one neighbour"),
             expected="about a sixth"),
    Question("tactic_effect", "Pick a run in the panel: what will its tactic do to p95, after over before?", "choice",
             options=(BETTER, SAME, WORSE),
             look={RIGHT: "the run's p95 before and after with each window's `limit` on the card: a tactic helps p95 only where it adds what "
                          "limited the before window, and costs p95 where it adds work to every request.",
                   WRONG: "the card's `limit` before and after beside the two p95s, then the timeline: compare what held the load back before "
                          "with what this tactic adds, and whether its own work left a queue still draining after."},
             giveaways=("more cpu buys nothing unless the nodes were the limit", "see that more cpu buys nothing")),
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
