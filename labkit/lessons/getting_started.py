"""Notebook 00 (Getting started): what the student predicts before each live run.

The replicas that read a row and the rows a dead node takes out are counted exactly from the servers;
the consistency levels' and the budgeted nodes' throughput come from paired runs."""

from __future__ import annotations

from ..predictions import NOT_MEASURED, RIGHT, TIE, TOO_FEW, WRONG, Question
from . import Lesson

BOTH, ONE_ONLY, QUORUM_ONLY, NEITHER = "at ONE and at QUORUM", "at ONE only", "at QUORUM only", "at neither"

SIZES = {
    # every cell at its smallest (make test): one thread count, one round, each card judged (too few repeats is a verdict)
    "smoke": {"records": 500, "threads": (4,), "operations": 300, "level_rounds": 1,
              "budget_ops": 500, "budget_records": 2000, "budget_threads": 32, "budget_repeats": 1, "budget_warmup": 200},
    # one thread count, the two levels alternating over 3 rounds (3 ABBA pairs: the faster_level card's interval, #70), in the
    # work of the three thread counts it replaced; 3 budgeted blocks per node count (budget_scaling's interval) of 1,500
    # transactions (about 16 per client in flight, under a second at 96 in flight) after 1,500 unmeasured ones (a run that
    # warms itself needs no unmeasured block)
    "quick": {"records": 1000, "threads": (4,), "operations": 1500, "level_rounds": 3,
              "budget_ops": 1500, "budget_records": 20000, "budget_threads": 96, "budget_repeats": 3, "budget_warmup": 1500},
    "classroom": {"records": 10000, "threads": (1, 2, 4, 8, 16, 32), "operations": 20000, "level_rounds": 1,
                  "budget_ops": 4000, "budget_records": 20000, "budget_threads": 96, "budget_repeats": 3, "budget_warmup": 4000},
}
"""The notebook's sizes (its `profile` parameter picks one; its `sizes` parameter replaces parts): records and client
threads of the consistency sweep, its rounds (each runs both levels, in alternating order), and section 5's budgeted sweep."""

LESSON = Lesson("00_getting_started", (
    Question("faster_level", "Workload A on {nodes} nodes, replication factor 3: at the same number of client threads, which "
             "consistency level will serve more transactions per second?", "choice", options=("ONE", "QUORUM", TIE),
             look={RIGHT: "The ONE / QUORUM interval and each level's median p95 latency, then the next cell's trace: the replicas "
                          "each level waits for set the difference, or its absence, that you predicted.",
                   WRONG: "Where the ONE / QUORUM interval lies against 1 and the two levels' median p95 latency; then weigh the replicas "
                          "QUORUM waits for in the next cell's trace against ONE's, with every node on one machine.",
                   TOO_FEW: "This sweep ran each level fewer than 3 times per thread count, so no point has an interval: read the two throughput curves "
                            "and p95 latencies as one run's hint, and the next trace's replica counts for the mechanism."},
             giveaways=("quorum costs in latency", "the coordinator waits for the slower", "waiting for the slower", "the price is waiting",
                        "one serves more", "quorum serves fewer")),
    Question("quorum_replicas", "One row, replication factor 3 on {nodes} nodes. How many replicas will read that row for one "
             "read at QUORUM?", "count", low=1, high=9,
             look={RIGHT: "The trace table's `replicas that read the row` and `which`, QUORUM's row beside ONE's: the count follows how "
                          "many replicas each level must hear from before the coordinator replies.",
                   WRONG: "The QUORUM row's `replicas that read the row` and `which` beside the ONE row: count the nodes that logged reading "
                          "their copy, and work out how many of replication factor 3 a majority needs."},
             giveaways=("at quorum at least two replicas read", "one sends the data, the other a digest", "2 of 3", "two of three",
                        "two replicas read", "at least two replicas"),
             expected=2),
    Question("kill_reads", "Replication factor 2. After node 3 is killed, how will the rows with a replica on node 3 "
             "(counted above) read?", "choice", options=(BOTH, ONE_ONLY, QUORUM_ONLY, NEITHER),
             look={RIGHT: "The summary's row for rows with a replica on the dead node, ONE succeeded and QUORUM succeeded against its rows, "
                          "and the errors named on the card: each level's replicas needed against the one left alive.",
                   WRONG: "The summary's replica_on_dead_node True row, ONE succeeded and QUORUM succeeded against rows, and the errors the card "
                          "names; then count, for each level, how many live replicas of replication factor 2 it needs."},
             giveaways=("still read at `one`", "but fail at `quorum`", "refuses up front", "2 of 2", "two of two", "failing when too few",
                        "fail at quorum", "one live replica is enough"),
             expected=ONE_ONLY),
    Question("down_after", "Node 3 is killed without warning (SIGKILL). How many seconds until the other nodes mark it down? "
             "(An estimate within 3 s of the measured time, or a third of it, whichever is more, is right.)", "estimate",
             low=0, high=120, unit="s",
             look={RIGHT: "The line the kill cell printed: seconds from the kill until a QUORUM read of node 3's rows was refused at once "
                          "(asked every half second), which is when gossip's failure detector convicted node 3 on the coordinator.",
                   WRONG: "The printed seconds against your estimate, then the reading after the table: until the detector convicts a node, "
                          "requests still wait for it; it convicts only after a silence long against the heartbeats it has seen.",
                   NOT_MEASURED: "The kill cell printed no time: node 3 was not marked down within 90 s (see the table's errors)."},
             giveaways=("phi accrual", "phi_convict_threshold")),
    Question("budget_scaling", "Three budgeted nodes ({node_cpu} core each) have three times the CPU of one. How many times "
             "the transactions per second of one budgeted node will they serve?", "ratio", low=0.1, high=10,
             look={RIGHT: "The interval holds your factor; check `limit` for 1 and 3 nodes to see whether node budgets, the client or the "
                          "machine set each throughput, rather than server_cpu_ms_per_tx, which includes idle workers waking.",
                   WRONG: "The interval against your factor, then `limit` for each node count: whether a node's budget, the client or the "
                          "machine ran out first says how much of the added CPU three nodes could use.",
                   TOO_FEW: "budget_repeats was below 3, so the factor has no interval: set sizes = {\"budget_repeats\": 3} (quick and classroom "
                            "do) and run section 5 again, or read the classroom run's multiples of one node in the closing section."},
             giveaways=("1.7x (1.2-2.2)", "do not serve three times", "not three times", "0.87x (0.43-1.7)"),
             expected=(0.43, 1.7)),
))


JUDGED_AT = {"faster_level": lambda size: SIZES[size]["level_rounds"], "budget_scaling": lambda size: SIZES[size]["budget_repeats"]}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
