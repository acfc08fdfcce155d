"""Notebook 05 (YCSB workloads): what the student predicts before each live run.

The SSTables a read merges are counted from its trace; which mix costs the node the most CPU per
transaction and which bends first under offered load are read from the runs; the index's saving is a
paired ratio, and the cache's hit ratio comes from the nodes' own counters; which engine answers workload C
sooner is a paired ratio over the blocks and loads both kept up with."""

from __future__ import annotations

from ..predictions import RIGHT, TOO_FEW, WRONG, Question
from . import Lesson, sweep_repeats

RISES, SAME, FALLS = "rises", "stays within 5 points", "falls"

LESSON = Lesson("05_ycsb_workloads", (
    Question("costliest_mix", "Which mix will cost the node the most CPU per transaction?", "choice",
             options=("A", "B", "C", "D", "E", "F", "insert-mostly"),
             look={RIGHT: "each mix's server CPU per transaction on the card beside section 1's operations: what one transaction of your mix "
                          "asks the node (rows per request, a read before a write) puts it on top.",
                   WRONG: "each mix's server CPU per transaction on the card: find the mix you picked and the one at the top, then compare "
                          "what one transaction of each asks the node in section 1's table."},
             giveaways=("many rows per request", "e is the slowest mix by far", "several times a read's work", "scans are several times slower"),
             expected="E"),
    Question("sstables_merged", "One record's fields are written one at a time, with a flush after each. How many SSTables "
             "will the read after the third flush consult?", "count", low=0, high=10,
             look={RIGHT: "how `SSTables the read consulted (trace)` moves with `flushes so far` from row to row: the read consults every "
                          "SSTable that may hold a piece of the record and merges what it finds.",
                   WRONG: "the table row by row: set `SSTables the read consulted (trace)` beside `flushes so far` and `fields the read "
                          "returned`, and ask which SSTables could hold a piece of the record the read returned."},
             giveaways=("each flush wrote the memtable's piece", "every on-disk sstable", "every sstable", "sstable of its own", "three sstables",
                        "3 sstables", "one sstable per flush"),
             expected=3),
    Question("first_knee", "Offered loads rise step by step on one budgeted node. At the highest load both mixes run, which will "
             "achieve the smaller share of the rate offered to it?", "choice", options=("C (reads)", "E (scans)", "both within 5 points"),
             look={RIGHT: "the knees on the card and where C's and E's curves leave the diagonal: a mix bends once its work per transaction "
                          "fills the node's budget; check that `limit` there names the server.",
                   WRONG: "C's and E's achieved shares at the highest load both ran, then where each curve leaves the diagonal: compare the "
                          "work one read and one scan ask of the node, and check `limit` and `client_cpu_cores` there."},
             giveaways=("each many reads' work for the node", "bends at a fraction of the load", "e bends first", "scans bend first"),
             expected="E (scans)"),
    Question("index_saving", "A query by tag: how many times the node's CPU per query will it cost without an index (ALLOW "
             "FILTERING) as with the legacy secondary index?", "ratio", low=0.1, high=1000,
             look={RIGHT: "the median server CPU per query of no-index and 2i on the card: ALLOW FILTERING makes the node read every record "
                          "to find one tag's, while the index answers from a structure keyed by tag.",
                   WRONG: "the median server CPU per query of no-index, 2i and sai, with the records and tags on the card: relate how many "
                          "records a query by tag reads without an index to how many it returns.",
                   TOO_FEW: "fewer than 3 runs per approach at one thread count give no interval: set overrides = {'index-query': {'repeats': "
                            "3}} (or profile 'classroom') in the parameters cell and rerun, or compare the CPU medians meanwhile."},
             giveaways=("costs the node a scan of every record", "for about a tenth of that", "reads every record",
                        "a scan of every record")),
    Question("cache_hits", "Workload C on a table too large for one node's chunk cache: from 1 to {cache_nodes} nodes, "
             "its chunk cache hit ratio...", "choice", options=(RISES, SAME, FALLS),
             look={RIGHT: "the large table's `chunk_cache_hit_ratio` at each node count beside the fitting table's: with replication factor 1 "
                          "a node caches only its own share of the records, and that share against the cache sets the ratio.",
                   WRONG: "the large table's `chunk_cache_hit_ratio` at each node count, then the share of the records each node holds "
                          "(replication factor 1) against `chunk_cache_mb`: that share, not the whole table, is what a node's cache must fit."},
             giveaways=("fits better as nodes are added", "hit ratio doubled", "only its share of the records", "holds only its share"),
             expected=RISES),
    Question("engines_reads", "Workload C (read only) on Cassandra's two nodes and on HBase's two region servers, {engines_cpu} "
             "core each, at the same offered loads: whose mean latency (from each read's actual start, as YCSB measures it) will be lower?", "choice",
             options=("Cassandra", "HBase"),
             look={RIGHT: "the workload C lines load by load and the card's CPU per read (HBase's with its gateway): the ratio comes from one "
                          "offered load, so check that the loads in its range agree.",
                   WRONG: "the ratio's interval on the card (Cassandra over HBase; below 1, Cassandra answered sooner; holding 1, neither "
                          "did) and the workload C lines at each load, beside each engine's CPU per read and HBase's gateway share.",
                   TOO_FEW: "fewer than 3 blocks at an offered load both engines kept up with, so no interval: read the summary's mean "
                            "latencies load by load and the committed workload C rows in the closing section."},
             giveaways=("0.75x (0.63-0.89)", "answered reads sooner", "0.56x (0.32-0.97)", "answered sooner")),
))


JUDGED_AT = {"index_saving": sweep_repeats("labkit.workloads.ycsb", "index-query", description="WORKLOAD")}
"""The paired repeats each interval-judged question's card rests on at a size (labkit.lessons.sweep_repeats)."""
