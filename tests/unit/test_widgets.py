"""The control panel over an in-memory cluster and workload (unit tests of the view; never a figure)."""

import time

import pytest

from fakes import CountingWorkload
from labkit.clusters.base import ClusterInfo
from labkit.clusters.slot import ClusterSlot
from labkit.errors import ConfigError
from labkit.widgets import ControlPanel, thread_counts


class FakeCluster:
    """Stands for a started cluster in these view tests: it only describes itself."""

    started: list[int] = []

    def __init__(self, nodes):
        self.nodes = list(range(nodes))
        self.stopped = False

    def live_nodes(self):
        return [] if self.stopped else self.nodes

    def info(self):
        return ClusterInfo(engine="cassandra", server_version="test", provider="local", nodes=len(self.nodes))

    def stop(self):
        self.stopped = True


def start(n):
    FakeCluster.started.append(n)
    return FakeCluster(n)


def make_panel(sleep_s=0.0, **kw):
    made = []

    def workload_for(approach, cluster, operations, **choices):
        w = CountingWorkload(sleep_s)
        w.name = f"{approach}/{choices}"
        made.append((approach, len(cluster.nodes), operations, choices))
        return w

    options = dict(threads=(1, 3), operations=30, nodes=2, choices={"phase": ["login", "register"]})
    options.update(kw)
    panel = ControlPanel(title="t", pattern="index-table", approaches=["naive", "pattern"], workload_for=workload_for, slot=ClusterSlot(start), **options)
    return panel, made


def test_thread_counts_cover_the_range_and_its_end():
    assert thread_counts(1, 8, 3) == [1, 4, 7, 8]
    assert thread_counts(10, 100, 10)[-1] == 100 and len(thread_counts(10, 100, 10)) == 10
    with pytest.raises(ConfigError):
        thread_counts(0, 4, 1)
    assert thread_counts(1, 8, 3, multiple=2) == [2, 4, 8]  # 1 -> 2, 7 -> 8 (merged with the end)


def test_settings_sliders_reach_the_workload_label_rows_and_derive_operations():
    panel, made = make_panel(threads=(1, 3), choices=None, settings={"one_way_ms": (70, 0, 200, 10), "users_per_region": (5, 1, 50, 1)},
                             operations_for=lambda chosen: 2 * chosen["users_per_region"], thread_multiple=2)
    assert panel.operations.value == 10 and panel.operations.disabled
    panel.settings["users_per_region"].value = 7
    assert panel.operations.value == 14
    panel.run(wait=True)
    df = panel.results
    assert sorted(set(df["threads"])) == [2, 4] and (df["operations"] == 14).all()
    assert (df["one_way_ms"] == 70).all() and (df["users_per_region"] == 7).all()
    assert made[0] == ("naive", 2, 14, {"one_way_ms": 70, "users_per_region": 7})
    assert "naive · 2 nodes · one way ms 70 · users per region 7" in {t.name for t in panel.figure.data}


def test_run_sweeps_the_sliders_and_draws_every_point():
    FakeCluster.started.clear()
    panel, made = make_panel()
    panel.choices["phase"].value = "register"
    panel.run(wait=True)
    df = panel.results
    assert len(df) == 2 * 3 and set(df["approach"]) == {"naive", "pattern"} and sorted(set(df["threads"])) == [1, 2, 3]
    assert (df["phase"] == "register").all() and (df["nodes"] == 2).all() and (df["server_version"] == "test").all()
    assert made[0] == ("naive", 2, 30, {"phase": "register"})
    assert len(panel.figure.data) == 4  # throughput and latency line per approach
    assert all(list(t.x) == [1, 2, 3] for t in panel.figure.data)
    assert "2 nodes" in panel.cluster_line.value and "done: 6 runs" in panel.status.value
    assert panel.progress.value == panel.progress.max and not panel.running


def test_changing_nodes_restarts_the_cluster_with_that_size():
    FakeCluster.started.clear()
    panel, _ = make_panel(threads=(1, 1))
    panel.run(wait=True)
    panel.run(wait=True)
    assert FakeCluster.started == [2]  # same size: reused
    panel.nodes.value = 4
    panel.run(wait=True)
    assert FakeCluster.started == [2, 4] and panel.slot.cluster.info().nodes == 4
    assert set(panel.results["nodes"]) == {2, 4}
    assert len(panel.figure.data) == 12  # each press of Run draws its own line per approach, in both panels
    names = {t.name for t in panel.figure.data}
    assert {"naive · 2 nodes · login", "naive · 2 nodes · login · run 2", "pattern · 4 nodes · login · run 3"} <= names


def test_stop_keeps_what_was_measured_and_marks_the_partial_run():
    panel, _ = make_panel(sleep_s=0.01, threads=(1, 2), operations=400)
    panel.run(wait=False)
    time.sleep(1.0)
    panel.stop()
    panel.wait(30)
    assert not panel.running
    df = panel.results
    assert len(df) >= 1 and not df["complete"].iloc[-1]
    assert "stopped" in panel.status.value


def test_no_approach_ticked_says_what_to_do():
    panel, _ = make_panel()
    for box in panel.approaches.values():
        box.value = False
    with pytest.raises(ConfigError, match="tick at least one approach"):
        panel.run(wait=True)
    panel.run(wait=False)  # the button path shows it instead of raising
    assert "tick at least one approach" in panel.status.value


def test_an_error_mid_sweep_is_shown_and_earlier_rows_survive():
    calls = {"n": 0}

    def workload_for(approach, cluster, operations, **choices):
        calls["n"] += 1
        if calls["n"] == 2:
            raise ConfigError("the cluster went away")
        return CountingWorkload()

    panel = ControlPanel(title="t", pattern="fan-out", approaches=["naive"], workload_for=workload_for, slot=ClusterSlot(start), threads=(1, 2), operations=10)
    with pytest.raises(ConfigError):
        panel.run(wait=True)
    assert len(panel.results) == 1 and "the cluster went away" in panel.status.value and not panel.running


def test_client_bound_points_are_marked_and_warned_about():
    panel, _ = make_panel(threads=(1, 1))
    panel._draw({"approach": "naive", "nodes": 1, "threads": 4, "throughput": 10.0, "p95_us": 1000, "client_saturated": True, "complete": True})
    panel.rows.append({"client_saturated": True})
    panel._draw({"approach": "naive", "nodes": 1, "threads": 8, "throughput": 12.0, "p95_us": 1000, "client_saturated": False, "complete": True})
    assert list(panel.figure.data[0].marker.symbol) == ["x", "circle"]
    assert "bottleneck" in panel.warning.value


def test_fixed_labels_reach_the_workload_and_the_rows_and_choices_split_the_lines():
    panel, made = make_panel(threads=(1, 1), labels={"phase": "login"}, choices={"size": ["small", "large"]})
    panel.run(wait=True)
    panel.choices["size"].value = "large"
    panel.run(wait=True)
    assert made[0][3] == {"phase": "login", "size": "small"} and made[-1][3] == {"phase": "login", "size": "large"}
    assert set(panel.results["phase"]) == {"login"} and set(panel.results["size"]) == {"small", "large"}
    assert len(panel.figure.data) == 8  # (approach, nodes, size): 4 lines x 2 panels


def test_cpu_per_node_reaches_the_slot_and_server_limited_points_are_squares():
    budgets_seen = []

    class BudgetedCluster(FakeCluster):
        def set_node_cpu(self, cores):
            budgets_seen.append(cores)

    def start_budgeted(n, node_cpu=None):
        budgets_seen.append(("start", node_cpu))
        return BudgetedCluster(n)

    slot = ClusterSlot(start_budgeted)
    panel = ControlPanel(title="t", pattern="fan-out", approaches=["naive"], workload_for=lambda a, c, o, **k: CountingWorkload(), slot=slot, threads=(1, 1), operations=10)
    assert panel.node_cpu is None
    panel.run(wait=True)
    panel.node_cpu = 0.15
    panel.run(wait=True)
    assert budgets_seen == [("start", None), 0.15] and slot.node_cpu == 0.15
    panel._draw({"approach": "naive", "nodes": 1, "threads": 4, "throughput": 10.0, "p95_us": 1000, "limit": "server node1", "node_cpu": 0.15, "complete": True})
    assert "square" in list(panel.figure.data[-1].marker.symbol)
    assert any("0.15 core per node" in (t.name or "") for t in panel.figure.data)


def test_the_cpu_per_node_control_shows_a_choice_for_every_budget():
    slot = ClusterSlot(lambda n, node_cpu=None: FakeCluster(n))
    panel = ControlPanel(title="t", pattern="fan-out", approaches=["naive"], workload_for=lambda a, c, o, **k: CountingWorkload(), slot=slot, threads=(1, 1), operations=10)
    assert panel.cpu_per_node.label.startswith("none") and panel.node_cpu is None  # a visible choice, not a blank dropdown
    panel.cpu_per_node.value = 0.25  # what a student's click does
    assert panel.node_cpu == 0.25
    panel.node_cpu = 0.3  # a budget outside the list becomes a choice of its own
    assert panel.cpu_per_node.label == "0.3 core" and panel.node_cpu == 0.3
    panel.node_cpu = None
    assert panel.cpu_per_node.label.startswith("none")
    import pytest

    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match="cores"):
        panel.node_cpu = -1
