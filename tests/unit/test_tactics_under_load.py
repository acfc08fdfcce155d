"""labkit.tactics without a server: the timing of a tactic inside a paced run, the before / during /
after windows and their ratios, a failing tactic keeping the run, refusals before anything starts, and
the per-second latency from the scheduled start. The cluster and workload are fakes (unit tests only)."""

from __future__ import annotations

import time

import pytest

from labkit.clusters.base import ClusterInfo
from labkit.clusters.contract import ContractOnly
from labkit.errors import ConfigError
from labkit.runner import BaseWorkload, Verification
from labkit.runner.timeline import Stamps, Timeline
from labkit.tactics import Tactic, TacticError, run_under_load
from labkit.tactics.cassandra import ChangeConsistency, CreateIndex, Decommission, RaiseReplication, ring


class FakeCluster(ContractOnly):
    node_cpu = None

    def __init__(self, nodes: int = 3):
        self.nodes = nodes

    def info(self) -> ClusterInfo:
        return ClusterInfo("fake", "0", "none", self.nodes)

    def cpu_meter(self):
        return None  # a fake has no server processes to meter


class SlowThenFast(BaseWorkload):
    """Each transaction waits `slow` s until the tactic flips it to `fast`; verify counts transactions."""

    name = "slow-then-fast"

    def __init__(self, slow: float = 0.02, fast: float = 0.002):
        self.delay, self.fast = slow, fast
        self.done = 0
        self.prepared = False

    def transaction(self, tx):
        tx.call("read", time.sleep, self.delay)
        self.done += 1

    def verify(self):
        return Verification(True, {"done": self.done}, [])


class Speedup(Tactic):
    name = "speed-up"
    title = "make the fake fast"

    def __init__(self, takes: float = 1.0, fail: bool = False):
        self.takes, self.fail = takes, fail

    def prepare(self, cluster, workload):
        workload.prepared = True

    def apply(self, cluster, workload):
        time.sleep(self.takes)
        if self.fail:
            raise TacticError("the fake refuses")
        workload.delay = workload.fast

    def evidence(self, cluster, workload):
        if workload.delay != workload.fast:
            raise TacticError("not fast")
        return {"delay": workload.delay}


@pytest.mark.full  # full tier: a slow unit test (6.1 s of make test's unit run on 2026-12-03)
def test_the_tactic_starts_on_time_and_the_windows_show_its_effect():
    w = SlowThenFast()
    r = run_under_load(FakeCluster(), w, Speedup(takes=1.0), kind="read-heavy", rate=100, threads=8, before_s=2, expect_s=2, after_s=2, warmup=0)
    assert w.prepared
    assert 1.9 <= r.started_s <= 2.5  # before_s after the release
    assert 0.9 <= r.took_s <= 1.5
    assert r.evidence == {"delay": 0.002} and r.evidence_after == {"delay": 0.002} and r.error is None
    assert r.result.count == 600 and r.result.verification.ok  # every scheduled transaction ran, then verify
    w_ = r.windows()
    assert w_["before"]["p95_ms"] >= 15 and w_["after"]["p95_ms"] <= 10  # 20 ms before, 2 ms after (plus scheduling)
    row = r.row()
    assert row["p95_after_vs_before"] < 0.5 and row["tactic"] == "speed-up" and row["workload_kind"] == "read-heavy"
    assert row["engine"] == "fake" and row["nodes_before"] == 3 and row["threads"] == 8
    assert [t["window"] for t in r.timeline_rows()][1] == "before"
    assert {t["window"] for t in r.timeline_rows()} >= {"before", "during", "after"}


@pytest.mark.full  # full tier: a slow unit test (3.0 s of make test's unit run on 2026-12-03)
def test_a_failing_tactic_keeps_the_measured_run_and_says_why():
    r = run_under_load(FakeCluster(), SlowThenFast(), Speedup(takes=0.2, fail=True), kind="read-heavy", rate=50, threads=4,
                       before_s=1, expect_s=1, after_s=1, warmup=0)
    assert r.error == "TacticError: the fake refuses" and r.effective_s is None
    assert r.result.count == 150 and r.row()["tactic_error"].startswith("TacticError")


@pytest.mark.full  # full tier: a slow unit test (4.0 s of make test's unit run on 2026-12-03)
def test_a_tactic_slower_than_the_load_is_waited_for_and_reported_after_the_run():
    r = run_under_load(FakeCluster(), SlowThenFast(), Speedup(takes=3.0), kind="read-heavy", rate=50, threads=4,
                       before_s=1, expect_s=1, after_s=1, warmup=0)
    assert r.effective_s > r.result.wall_s and r.row()["effective_within_run"] is False


@pytest.mark.parametrize("kwargs, words", [({"rate": 0}, "rate"), ({"rate": 10, "before_s": 0}, "before_s")])
def test_bad_arguments_are_refused_before_the_tactic_prepares(kwargs, words):
    w = SlowThenFast()
    with pytest.raises(ConfigError, match=words):
        run_under_load(FakeCluster(), w, Speedup(), kind="read-heavy", **kwargs)
    assert not w.prepared


def test_cassandra_tactics_refuse_what_the_cluster_or_workload_cannot_do():
    with pytest.raises(ConfigError, match="sai"):
        CreateIndex("btree")
    with pytest.raises(ConfigError, match="QUORUM"):
        ChangeConsistency("MOST")

    class Local(FakeCluster):
        def node_admin(self):
            return self

        def membership(self):
            return self

        def nodetool(self, *a, **k):
            return ""

        def live_nodes(self):
            return list(range(self.nodes))

    class Keyspace:
        replication = 1
        indexed = False

    with pytest.raises(ConfigError, match="at least 3 nodes"):
        RaiseReplication(3).check(Local(2), Keyspace())
    with pytest.raises(ConfigError, match="at least 2 nodes"):
        Decommission().check(Local(1), Keyspace())
    with pytest.raises(ConfigError, match="index-query"):
        CreateIndex().check(Local(1), Keyspace())
    with pytest.raises(ConfigError, match="provider local"):
        RaiseReplication(3).check(FakeCluster(3), Keyspace())


def test_ring_reads_state_and_ownership_from_nodetool_status():
    text = """Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address    Load        Tokens  Owns (effective)  Host ID                               Rack
UN  127.0.0.1  1.2 MiB     1       33.3%             0b3c0c3e-1111-2222-3333-444455556666  rack1
UJ  127.0.0.4  98.51 KiB   1       16.7%             1b3c0c3e-1111-2222-3333-444455556666  rack1
DN  127.0.0.2  1.1 MiB     1       50.0%             2b3c0c3e-1111-2222-3333-444455556666  rack1
"""

    class Status(ContractOnly):
        def node_admin(self):
            return self

        def live_nodes(self):
            return [type("N", (), {"name": "node1"})()]

        def nodetool(self, node, *args):
            assert args == ("status", "ycsb")
            return text

    assert ring(Status()) == {"127.0.0.1": ("UN", 33.3), "127.0.0.4": ("UJ", 16.7), "127.0.0.2": ("DN", 50.0)}


def test_timeline_keeps_latency_from_the_scheduled_start_per_second_and_over_the_wire():
    s = Stamps()
    s.note(100.2, 1000, 5000)
    s.note(100.7, 2000, 2000)
    s.note(101.5, 3000)  # an unpaced transaction has no intended latency
    t = Timeline.from_wire(Timeline.of(100.0, [s]).to_wire())
    rows = t.rows()
    assert rows[0]["transactions"] == 2 and 4900 <= rows[0]["intended_p99_us"] <= 5100
    assert rows[1]["transactions"] == 1 and rows[1]["intended_p95_us"] is None
    assert t.window(0, 2).get_total_count() == 3 and t.window(0, 2, intended=True).get_total_count() == 2


@pytest.mark.full  # full tier: a slow unit test (7.0 s of make test's unit run on 2026-12-03)
def test_a_tactic_that_settles_keeps_its_first_seconds_after_the_effect_out_of_after():
    tactic = Speedup(takes=0.5)
    tactic.settle_s = 2
    r = run_under_load(FakeCluster(), SlowThenFast(), tactic, kind="read-heavy", rate=50, threads=4, before_s=2, expect_s=1, after_s=4, warmup=0)
    b = r.bounds()
    assert b["settling"][1] - b["settling"][0] == 2 and b["after"][0] == b["settling"][1]
    assert r.windows()["settling"]["seconds"] == 2 and r.row()["settle_s"] == 2
