"""The tactic scenarios (one list for the notebook and the benchmark), the runner that keeps one cluster
across them, the `labkit tactics` command and the notebook's panel, without a server."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from labkit.cli import app
from labkit.clusters.contract import ContractOnly
from labkit.errors import ConfigError, LabkitError
from labkit.tactics.scenarios import SCENARIOS, ScenarioRunner, TacticScenario, scenarios, section_plan
from labkit.tactics.cassandra import SetNodeCpu
from labkit.widgets import TacticPanel


def test_every_profile_names_its_runs_once_and_the_benchmark_covers_the_issue():
    for profile, chosen in SCENARIOS.items():
        keys = [p.key for p in chosen]
        assert len(keys) == len(set(keys)), profile
    classroom = {(p.make().name, p.kind) for p in SCENARIOS["classroom"]}
    assert ("create-index", "query-by-tag") in classroom and ("raise-replication", "write-heavy") in classroom
    assert {kind for name, kind in classroom if name == "add-node"} == {"read-heavy", "write-heavy", "scan"}


def test_every_section_of_notebook_06_runs_its_tactic_in_both_profiles():
    """The sections name the quick plans; at classroom size each finds its tactic's read-heavy run (a classroom run
    of the notebook once skipped sections 3 and 5: "node-cpu-0.5: not in this run's plans")."""
    import json
    import re
    from pathlib import Path

    notebook = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "06_tactics.ipynb").read_text())
    named = [k for c in notebook["cells"] if c["cell_type"] == "code" for k in re.findall(r'^table = show\("([^"]+)"\)', c["source"], re.M)]
    assert named == ["create-index-sai", "consistency-quorum", "node-cpu-0.5", "raise-replication-3", "add-node"]
    quick = {p.key: p for p in scenarios("quick")}
    for profile in SCENARIOS:
        plans = {p.key: p for p in scenarios(profile)}
        found = {key: section_plan(plans, key) for key in named}
        assert all(found.values()), (profile, [k for k, p in found.items() if p is None])
        assert all(p.make().name == quick[k].make().name for k, p in found.items())  # the same tactic as the section's
    classroom = {p.key: p for p in scenarios("classroom")}
    assert section_plan(classroom, "add-node").key == "add-node-read-heavy" and section_plan(classroom, "node-cpu-0.5").kind == "read-heavy"
    assert section_plan({p.key: p for p in scenarios("classroom", ["create-index-sai"])}, "add-node") is None  # `only` left it out


def test_unknown_profiles_runs_and_kinds_are_refused_with_the_choices():
    with pytest.raises(ConfigError, match="quick, classroom"):
        scenarios("huge")
    with pytest.raises(ConfigError, match="there are: create-index-sai"):
        scenarios("quick", ["nope"])
    with pytest.raises(ConfigError, match="read-heavy"):
        TacticScenario("x", "sideways", lambda: SetNodeCpu(1), 1, 0.5, 10)


class FakeCluster(ContractOnly):
    def budgets(self):
        return self

    def __init__(self, nodes, node_cpu):
        self.nodes, self.node_cpu, self.stopped = list(range(nodes)), node_cpu, False

    def live_nodes(self):
        return [] if self.stopped else self.nodes

    def info(self):
        from labkit.clusters.base import ClusterInfo

        return ClusterInfo("cassandra", "test", "local", len(self.nodes), node_cpu=self.node_cpu)

    def set_node_cpu(self, cores):
        self.node_cpu = cores

    def stop(self):
        self.stopped = True


def test_the_runner_keeps_a_cluster_of_the_right_size_resizes_otherwise_and_sets_budgets_in_place():
    from labkit.clusters.slot import ClusterSlot

    started = []

    def start(nodes, node_cpu=None):
        started.append(FakeCluster(nodes, node_cpu))
        return started[-1]

    with ScenarioRunner(slot=ClusterSlot(start)) as runner:
        a = runner.cluster_for(3, 0.25)
        assert runner.cluster_for(3, 0.25) is a and a.node_cpu == 0.25
        a.nodes.append(3)  # a node was added by the last tactic: a plan starting from 4 nodes goes on with it
        assert runner.cluster_for(4, 0.25) is a
        a.node_cpu = 0.5  # a tactic raised the budget and nothing put it back: the next plan's budget is set again
        assert runner.cluster_for(4, 0.25) is a and a.node_cpu == 0.25
        b = runner.cluster_for(1, 0.5)
        assert a.stopped and b is not a and b.node_cpu == 0.5
    assert b.stopped and len(started) == 2


def test_the_runner_refuses_a_change_to_a_field_a_plan_does_not_have():
    from labkit.clusters.slot import ClusterSlot

    with pytest.raises(ConfigError, match="no speed"):
        ScenarioRunner(slot=ClusterSlot(FakeCluster)).run(SCENARIOS["quick"][0], speed=3)


def test_labkit_tactics_lists_the_runs_and_refuses_unknown_ones():
    result = CliRunner().invoke(app, ["tactics"])
    assert result.exit_code == 0 and "create-index-sai" in result.output and "add-node" in result.output
    result = CliRunner().invoke(app, ["tactics", "nope"])
    assert result.exit_code == 2 and "no tactic run named nope" in result.output


def test_the_panel_shows_an_error_and_keeps_earlier_runs():
    class Failing:
        def run(self, plan, **changes):
            assert changes == {"rate": 123.0, "threads": 16, "nodes": 1}
            raise LabkitError("port 9042 is taken")

    panel = TacticPanel(Failing(), SCENARIOS["quick"])
    panel.runs.append("earlier")
    panel.rate.value = 123
    assert panel.run() is None
    assert "port 9042 is taken" in panel.status.value and panel.runs == ["earlier"] and not panel.button.disabled
    panel.choice.value = "add-node"
    assert (panel.nodes.value, panel.rate.value) == (3, 400)


def test_repeated_scenarios_run_in_rounds_each_labelled_with_its_repeat(monkeypatch):
    from types import SimpleNamespace

    from labkit.tactics import scenarios as module

    ran = []

    class Runner:
        def __init__(self, progress=None):
            pass

        def run(self, plan):
            ran.append(plan.key)
            return SimpleNamespace(labels={"run": plan.key})

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    monkeypatch.setattr(module, "ScenarioRunner", Runner)
    chosen = module.scenarios("quick")[:2]
    runs = module.run_scenarios(chosen, repeats=3)
    keys = [p.key for p in chosen]
    assert ran == keys * 3  # rounds: every plan once per round, not one plan three times in a row
    assert [r.labels["repeat"] for r in runs] == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ConfigError, match="repeats"):
        module.run_scenarios(chosen, repeats=0)
