"""Notebook 00 (Getting started): what the student predicts before each live run.

The replicas that read a row and the rows a dead node takes out are counted exactly from the servers;
the consistency levels' and the budgeted nodes' throughput come from paired runs."""

from __future__ import annotations

from ..predictions import TIE, Question
from . import Lesson

BOTH, ONE_ONLY, QUORUM_ONLY, NEITHER = "at ONE and at QUORUM", "at ONE only", "at QUORUM only", "at neither"

LESSON = Lesson("00_getting_started", (
    Question("faster_level", "Workload A on {nodes} nodes, replication factor 3: at the same number of client threads, which "
             "consistency level will serve more transactions per second?", "choice", options=("ONE", "QUORUM", TIE),
             giveaways=("quorum costs in latency", "the coordinator waits for the slower")),
    Question("quorum_replicas", "One row, replication factor 3 on {nodes} nodes. How many replicas will read that row for one "
             "read at QUORUM?", "count", low=1, high=9,
             giveaways=("at quorum at least two replicas read", "one sends the data, the other a digest")),
    Question("kill_reads", "Replication factor 2. After node 3 is killed, how will the rows with a replica on node 3 "
             "(counted above) read?", "choice", options=(BOTH, ONE_ONLY, QUORUM_ONLY, NEITHER),
             giveaways=("still read at `one`", "but fail at `quorum`", "refuses up front")),
    Question("budget_scaling", "Three budgeted nodes ({node_cpu} core each) have three times the CPU of one. How many times "
             "the transactions per second of one budgeted node will they serve?", "ratio", low=0.1, high=10,
             giveaways=("1.7x (1.2-2.2)", "do not serve three times")),
))
