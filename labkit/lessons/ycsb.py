"""Notebook 05 (YCSB workloads): what the student predicts before each live run.

The SSTables a read merges are counted from its trace; which mix costs the node the most CPU per
transaction and which bends first under offered load are read from the runs; the index's saving is a
paired ratio, and the cache's hit ratio comes from the nodes' own counters; which engine answers workload C
sooner is a paired ratio over the blocks and loads both kept up with."""

from __future__ import annotations

from ..predictions import Question
from . import Lesson

RISES, SAME, FALLS = "rises", "stays within 5 points", "falls"

LESSON = Lesson("05_ycsb_workloads", (
    Question("costliest_mix", "Which mix will cost the node the most CPU per transaction?", "choice",
             options=("A", "B", "C", "D", "E", "F", "insert-mostly"),
             giveaways=("many rows per request", "e is the slowest mix by far", "several times a read's work", "scans are several times slower")),
    Question("sstables_merged", "One record's fields are written one at a time, with a flush after each. How many SSTables "
             "will the read after the third flush consult?", "count", low=0, high=10,
             giveaways=("each flush wrote the memtable's piece",)),
    Question("first_knee", "Offered loads rise step by step on one budgeted node. At the highest load both mixes run, which will "
             "achieve the smaller share of the rate offered to it?", "choice", options=("C (reads)", "E (scans)", "both within 5 points"),
             giveaways=("each many reads' work for the node", "bends at a fraction of the load")),
    Question("index_saving", "A query by tag: how many times the node's CPU per query will it cost without an index (ALLOW "
             "FILTERING) as with the legacy secondary index?", "ratio", low=0.1, high=1000,
             giveaways=("costs the node a scan of every record", "for about a tenth of that")),
    Question("cache_hits", "Workload C on a table too large for one node's chunk cache: from 1 to {cache_nodes} nodes, "
             "its chunk cache hit ratio...", "choice", options=(RISES, SAME, FALLS),
             giveaways=("fits better as nodes are added", "hit ratio doubled")),
    Question("engines_reads", "Workload C (read only) on Cassandra's two nodes and on HBase's two region servers, {engines_cpu} "
             "core each, at the same offered loads: whose mean latency (from each read's actual start, as YCSB measures it) will be lower?", "choice",
             options=("Cassandra", "HBase"), giveaways=("0.75x (0.63-0.89)", "answered reads sooner", "0.56x (0.32-0.97)", "answered sooner")),
))
