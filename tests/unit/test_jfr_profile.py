"""The CPU profile's reading side: `jfr print --json` output parsed into samples (thread, frames leaf first), and each
sample counted in the first of an engine's parts it matches, so flush work is not called a write and a request's
protocol frames do not swallow its memtable work."""

from __future__ import annotations

import json

import pytest

from labkit.results.cpu_samples import Sample, parse, part_of, shares
from labkit.engines.cassandra_work import MEMTABLE, PARTS


def frame(cls: str, method: str) -> dict:
    """As `jfr print --json` writes a frame: the class name with slashes."""
    return {"method": {"type": {"name": cls.replace(".", "/")}, "name": method}, "lineNumber": 1, "type": "JIT compiled"}


def printed(*stacks: tuple[str, list[tuple[str, str]]]) -> str:
    return json.dumps({"recording": {"events": [
        {"type": "jdk.ExecutionSample", "values": {"startTime": "2026-12-07T17:00:00Z", "sampledThread": {"javaName": thread},
                                                   "state": "STATE_RUNNABLE", "stackTrace": {"truncated": False, "frames": [frame(c, m) for c, m in frames]}}}
        for thread, frames in stacks]}})


C = "org.apache.cassandra."
WRITE = [(C + "utils.btree.BTree", "update"), (C + "db.partitions.AtomicBTreePartition", "addAll"), (C + "db.memtable.SkipListMemtable", "put"),
         (C + "db.Keyspace", "applyInternal"), (C + "transport.Dispatcher", "processRequest"), ("io.netty.channel.AbstractChannelHandlerContext", "fireChannelRead")]
FLUSH = [(C + "utils.btree.BTree", "iterate"), (C + "db.memtable.Flushing$FlushRunnable", "writeSortedContents")]
LOG = [(C + "db.commitlog.CommitLog", "add"), (C + "db.Keyspace", "applyInternal"), (C + "transport.Dispatcher", "processRequest")]
PROTOCOL = [(C + "transport.CBUtil", "readValue"), ("io.netty.buffer.ByteBuf", "readBytes")]
IDLE = [(C + "concurrent.SEPWorker", "doWaitSpin"), (C + "concurrent.SEPWorker", "run")]


def test_parse_keeps_the_thread_and_the_frames_leaf_first():
    samples = parse(printed(("MutationStage-2", WRITE)))
    assert samples == [Sample("MutationStage-2", tuple(f"{c}.{m}" for c, m in WRITE))]
    assert samples[0].frames[0].endswith("BTree.update")


def test_each_sample_counts_in_the_first_part_it_matches():
    samples = parse(printed(("a", WRITE), ("b", WRITE), ("c", FLUSH), ("d", LOG), ("e", PROTOCOL), ("f", IDLE), ("g", [("java.lang.Thread", "run")]), ("h", [])))
    got = shares(samples, PARTS)
    assert got[MEMTABLE] == pytest.approx(2 / 8)  # under the protocol's frames, still the memtable's work
    assert got["flush and compaction"] == pytest.approx(1 / 8)  # memtable code run by a flush is the flush's
    assert got["commit log"] == pytest.approx(1 / 8)
    assert got["client protocol (native transport)"] == pytest.approx(1 / 8)
    assert got["idle workers looking for work"] == pytest.approx(1 / 8)
    assert got["other"] == pytest.approx(2 / 8)
    assert sum(got.values()) == pytest.approx(1.0)


def test_no_samples_gives_zero_shares_not_an_error():
    assert set(shares([], PARTS).values()) == {0.0}


def test_part_of_names_the_first_part_a_sample_matches():
    samples = parse(printed(("a", WRITE), ("c", FLUSH), ("g", [("java.lang.Thread", "run")])))
    assert [part_of(s, PARTS) for s in samples] == [MEMTABLE, "flush and compaction", "other"]
