"""The control panel over an in-memory cluster and workload (unit tests of the view; never a figure)."""

import dataclasses
import time

import pytest

import fake_pattern
from fake_pattern import PATTERN
from fake_pattern import cassandra as fake_binding
from labkit.clusters.base import ClusterInfo
from labkit.clusters.contract import ContractOnly
from labkit.clusters.slot import ClusterSlot
from labkit.errors import ConfigError
from labkit.sweeps import request_for
from labkit.widgets import ControlPanel, thread_counts


class FakeCluster(ContractOnly):
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

    def cpu_meter(self):
        return None  # no server processes to meter


def start(n):
    FakeCluster.started.append(n)
    return FakeCluster(n)


@pytest.fixture(autouse=True)
def fresh_binding():
    fake_pattern.MADE.clear()
    fake_binding.BEHAVIOUR.update(sleep_s=0.0, fail_at=None)
    yield


def make_panel(sleep_s=0.0, **kw):
    fake_binding.BEHAVIOUR["sleep_s"] = sleep_s
    phase = kw.pop("phase", "login")
    values = dict(threads=(1, 3), operations=30, nodes=2)
    values.update(kw)
    low, high = values.pop("threads")
    values["threads"], values["nodes"] = range(low, high + 1), [values["nodes"]]  # a range slider's start, step 1
    return ControlPanel(request_for(PATTERN, phase=phase, **values), slot=ClusterSlot(start)), fake_pattern.MADE


def test_thread_counts_cover_the_range_and_its_end():
    assert thread_counts(1, 8, 3) == [1, 4, 7, 8]
    assert thread_counts(10, 100, 10)[-1] == 100 and len(thread_counts(10, 100, 10)) == 10
    with pytest.raises(ConfigError):
        thread_counts(0, 4, 1)
    assert thread_counts(1, 8, 3, multiple=2) == [2, 4, 8]  # 1 -> 2, 7 -> 8 (merged with the end)


def test_controls_come_from_the_description_and_reach_the_workload_and_the_rows():
    panel, made = make_panel(threads=(1, 3))
    assert set(panel.settings) == {"users", "one_way_ms", "size"}  # the login phase's settings
    assert set(panel.approaches) == {"naive", "pattern"}
    assert panel.settings["size"].options == ("small", "large") and panel.settings["one_way_ms"].step == 10
    panel.settings["users"].value = 7
    panel.run(wait=True)
    df = panel.results
    assert sorted(set(df["threads"])) == [1, 2, 3] and (df["operations"] == 30).all()
    assert (df["one_way_ms"] == 70).all() and (df["users"] == 7).all() and (df["phase"] == "login").all()
    assert made[0] == ("naive", "login", 2, 30, {"users": 7, "one_way_ms": 70, "size": "small"})
    assert "naive · 2 nodes · users 7" in {t.name for t in panel.figure.data}  # a setting moved from its start is named


def test_a_phase_shows_only_its_settings_and_a_size_sets_the_start():
    panel, made = make_panel(phase="register")
    assert set(panel.settings) == {"users", "size"}
    size = PATTERN.named_sweep("quick", "login")
    panel = ControlPanel(request_for(PATTERN, size), slot=ClusterSlot(start))
    assert panel.phase == "login" and panel.threads.value == (1, 3) and panel.thread_step.value == 2 and panel.nodes.value == 2
    assert panel.operations.value == 30 and panel.settings["users"].value == 7 and panel.plan().run_options == {"warmup": 3}
    with pytest.raises(ConfigError, match="phase"):
        request_for(PATTERN, size, phase="register")
    with pytest.raises(ConfigError, match="setting users must be from 1 to 50"):
        ControlPanel(request_for(PATTERN, settings={"users": 99}), slot=ClusterSlot(start))


def test_a_size_whose_thread_counts_double_runs_its_own_counts_until_the_slider_moves():
    # a range slider starts at 1..8 step 1 for (1, 2, 4, 8); running its every step would measure 8 points, not 4
    size = dataclasses.replace(PATTERN.named_sweep("quick", "login"), threads=(1, 2, 4, 8))
    panel = ControlPanel(request_for(PATTERN, size), slot=ClusterSlot(start))
    assert panel.threads.value == (1, 8) and panel.thread_step.value == 1
    assert panel.thread_plan() == [1, 2, 4, 8] and "client threads: 1, 2, 4, 8<" in panel.thread_points.value
    panel.run(wait=True)
    assert sorted(set(panel.results["threads"])) == [1, 2, 4, 8]
    panel.threads.value = (1, 4)  # the student moved the slider: every step of their range
    assert panel.thread_plan() == [1, 2, 3, 4] and "client threads: 1, 2, 3, 4<" in panel.thread_points.value
    panel.threads.value = (1, 8)  # back where the size put it: the size's counts again
    assert panel.thread_plan() == [1, 2, 4, 8]
    panel.thread_step.value = 2
    assert panel.thread_plan() == [1, 3, 5, 7, 8]
    assert make_panel(threads=(1, 8))[0].thread_plan() == list(range(1, 9))  # no size: the slider's range, as before


def test_run_sweeps_the_sliders_and_draws_every_point():
    FakeCluster.started.clear()
    panel, made = make_panel(phase="register")
    panel.run(wait=True)
    df = panel.results
    assert len(df) == 2 * 3 and set(df["approach"]) == {"naive", "pattern"} and sorted(set(df["threads"])) == [1, 2, 3]
    assert (df["phase"] == "register").all() and (df["nodes"] == 2).all() and (df["server_version"] == "test").all()
    assert made[0] == ("naive", "register", 2, 30, {"users": 5, "size": "small"})
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
    assert {"naive · 2 nodes", "naive · 2 nodes · run 2", "pattern · 4 nodes · run 3"} <= names


@pytest.mark.full  # full tier: a slow unit test (9.0 s of make test's unit run on 2026-12-03)
def test_stop_keeps_what_was_measured_and_marks_the_partial_run():
    panel, _ = make_panel(sleep_s=0.01, threads=(1, 2), operations=400)
    panel.run(wait=False)
    deadline = time.monotonic() + 30
    while not panel.rows and time.monotonic() < deadline:  # past the warm-up block, into the measured runs
        time.sleep(0.05)
    time.sleep(0.5)
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
    fake_binding.BEHAVIOUR["fail_at"] = 3  # the warm-up block's workload, the first measured run's, then the failure
    panel, _ = make_panel(threads=(1, 2), operations=10)
    panel.approaches["pattern"].value = False
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


def test_a_choice_setting_splits_the_lines():
    panel, made = make_panel(threads=(1, 1))
    panel.run(wait=True)
    panel.settings["size"].value = "large"
    panel.run(wait=True)
    assert made[0][4]["size"] == "small" and made[-1][4]["size"] == "large"
    assert set(panel.results["phase"]) == {"login"} and set(panel.results["size"]) == {"small", "large"}
    assert len(panel.figure.data) == 8  # (approach, size, run): 4 lines x 2 panels
    assert "naive · 2 nodes · size large · run 2" in {t.name for t in panel.figure.data}


def test_cpu_per_node_reaches_the_slot_and_server_limited_points_are_squares():
    budgets_seen = []

    class BudgetedCluster(FakeCluster):
        node_cpu = None

        def budgets(self):
            return self  # it has budgets, so the slot re-budgets it in place

        def set_node_cpu(self, cores):
            budgets_seen.append(cores)

    def start_budgeted(n, node_cpu=None):
        budgets_seen.append(("start", node_cpu))
        return BudgetedCluster(n)

    slot = ClusterSlot(start_budgeted)
    panel = ControlPanel(request_for(PATTERN, threads=[1], operations=10), slot=slot)
    panel.approaches["pattern"].value = False
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
    panel = ControlPanel(request_for(PATTERN, threads=[1], operations=10), slot=slot)
    panel.approaches["pattern"].value = False
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


def test_a_run_where_no_transaction_succeeded_is_kept_and_said_not_drawn():
    panel, _ = make_panel(threads=(1, 1))
    drawn = len(panel.figure.data)
    panel._draw({"approach": "naive", "nodes": 1, "threads": 4, "throughput": 0.0, "p95_us": None, "errors": 4, "complete": True})
    assert len(panel.figure.data) == drawn  # nothing to plot, and no TypeError that would end the sweep


def test_repeats_are_one_point_with_their_spread_and_the_ratio_says_how_sure_it_is():
    from labkit.widgets.panel import point_spread

    panel, made = make_panel(threads=(2, 2), repeats=3)
    assert panel.plan().repeats == 3
    panel.run(wait=True)
    df = panel.results
    assert len(df) == 6 and sorted(df["repeat"]) == [0, 0, 1, 1, 2, 2]
    assert list(df["approach"]) == ["naive", "pattern", "pattern", "naive", "naive", "pattern"]  # ABBA
    assert len(made) == 8  # the warm-up block (each approach once, not drawn) and the six measured runs
    trace = next(t for t in panel.figure.data if t.name == "naive · 2 nodes")
    naive = df[df["approach"] == "naive"]
    assert list(trace.y) == [naive["throughput"].median()] and trace.error_y.visible
    assert trace.error_y.array[0] == pytest.approx(naive["throughput"].max() - naive["throughput"].median())
    assert "pattern / naive at 2 threads, 2 node(s): " in panel.status.value and "x (" in panel.status.value
    assert list(point_spread(panel.rows)["runs"]) == [3, 3]  # one point per approach, each its 3 repeats
    assert ControlPanel(request_for(PATTERN, PATTERN.named_sweep("classroom", "login")), slot=ClusterSlot(start)).repeats.value == 3
