"""The CLI and the control panel go into a sweep through the same door: for every pattern, phase and engine
they build the same plan and take the same hooks from the engine binding (checks, cluster options,
per-sweep resources), or refuse it with the same sentence. Nothing starts: the door is watched, not opened."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from labkit.cli import app
from labkit.errors import ConfigError
from labkit.catalogue import descriptions
from labkit import sweeps
from labkit.sweeps import Bench, Sweep, SweepRequest, pattern_slot, resolve
from labkit.widgets import ControlPanel

CASES = [(p, phase, engine) for p in descriptions() for phase in p.phases for engine in p.engines]


def comparable(chosen: Sweep) -> dict:
    plan = {f.name: getattr(chosen.plan, f.name) for f in dataclasses.fields(chosen.plan)}
    plan["run_options"], plan["labels"] = dict(plan["run_options"]), dict(plan["labels"])
    return {"plan": plan, "hooks": chosen.hooks()}


def through_the_cli(pattern, phase, engine, operations, tmp_path, monkeypatch) -> dict | str:
    seen: list[Sweep] = []

    def watched(request, **_kwargs):
        seen.append(resolve(request))
        return []

    monkeypatch.setattr(sweeps, "run_sweep", watched)
    result = CliRunner().invoke(app, ["run", pattern.name, "--phase", phase, "--engine", engine, "--threads", "2,4", "--nodes", "1",
                                      "--operations", str(operations), "--out", str(tmp_path / "rows.csv")])
    if result.exit_code != 0:
        return result.output.strip().removeprefix("error: ")
    [chosen] = seen
    return comparable(chosen)


def through_the_panel(pattern, phase, engine, operations) -> dict | str:
    panel = ControlPanel(sweeps.request_for(pattern, phase=phase, engine=engine, threads=[2, 4], nodes=[1], operations=operations),
                         slot=pattern_slot(pattern, phase, engine=engine))
    try:
        return comparable(panel.sweep())
    except ConfigError as exc:
        return str(exc)


@pytest.mark.parametrize("pattern,phase,engine", CASES, ids=[f"{p.name}-{phase}-{engine}" for p, phase, engine in CASES])
def test_the_cli_and_the_panel_build_the_same_sweep(pattern, phase, engine, tmp_path, monkeypatch):
    operations = 40 * pattern.operations_multiple
    panel = through_the_panel(pattern, phase, engine, operations)
    cli = through_the_cli(pattern, phase, engine, operations, tmp_path, monkeypatch)
    assert cli == panel
    if isinstance(panel, dict):  # what the engine binding has, the sweep uses
        binding = pattern.binding(engine)  # the module itself: which hooks it defines
        assert panel["hooks"]["sweep_resources"] == callable(getattr(binding, "sweep_resources", None))
        assert panel["hooks"]["check_sweep"] == callable(getattr(binding, "check_sweep", None))


def test_a_slot_without_the_cluster_a_phase_needs_is_refused():
    from labkit.clusters.slot import ClusterSlot
    from labkit.patterns import uuid_key

    plan = uuid_key.PATTERN.sweep_plan("quick", "availability")
    chosen = resolve(SweepRequest(uuid_key.PATTERN, plan))
    with pytest.raises(ConfigError, match="needs a cluster started with dcs=2"):
        Bench(chosen, slot=ClusterSlot.for_engine("cassandra", "local"))
    assert chosen.cluster_options == {"dcs": 2}
    Bench(chosen, slot=pattern_slot(uuid_key.PATTERN, "availability"))  # made, not opened: nothing starts


def test_a_budget_given_beside_a_slot_is_refused_not_ignored():
    from labkit.clusters.slot import ClusterSlot
    from labkit.patterns import index_table

    plan = index_table.PATTERN.sweep_plan("quick", "login")
    chosen = resolve(SweepRequest(index_table.PATTERN, plan, node_cpu=0.5))
    with pytest.raises(ConfigError, match="set it there"):
        Bench(chosen, slot=ClusterSlot.for_engine("cassandra", "local"))
    slot = ClusterSlot.for_engine("cassandra", "local", node_cpu=0.5)
    assert Bench(chosen, slot=slot).slot is slot


def test_a_slot_of_another_engine_is_refused():
    from labkit.clusters.slot import ClusterSlot
    from labkit.patterns import index_table

    chosen = resolve(SweepRequest(index_table.PATTERN, index_table.PATTERN.sweep_plan("quick", "login")))
    with pytest.raises(ConfigError, match="the sweep runs cassandra and the slot given starts mongodb clusters"):
        Bench(chosen, slot=ClusterSlot.for_engine("mongodb", "standin"))
