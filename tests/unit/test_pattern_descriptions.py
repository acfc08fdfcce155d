"""Every pattern's description is complete and self-consistent: what the panel, the CLI, sweeps and the
benchmarks read from it exists, each size is one its pattern can run, and each engine has a binding."""

from __future__ import annotations

import importlib
import inspect

import pytest

from labkit.errors import ConfigError
from labkit.catalogue import describe, descriptions
from labkit.patterns.description import SIZES
from labkit.workloads.ycsb import WORKLOAD as YCSB

ALL = descriptions()


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: p.name)
def test_description_names_phases_approaches_engines_and_settings(pattern):
    assert pattern.title and pattern.phases and pattern.approaches and pattern.engines
    assert len(set(pattern.phases)) == len(pattern.phases) and len(set(pattern.approaches)) == len(pattern.approaches)
    if pattern.name != "ycsb":  # standard workloads compare mixes or index kinds, not naive vs pattern
        assert "pattern" in pattern.approaches and any(a.startswith("naive") for a in pattern.approaches)
    names = [s.name for s in pattern.settings]
    assert len(set(names)) == len(names)
    for setting in pattern.settings:
        assert setting.help and set(setting.phases) <= set(pattern.phases), setting.name
        assert setting.check(setting.default) == setting.default  # the default is a value it takes
        if not setting.choices:
            assert setting.low <= setting.high and setting.step >= 1


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: p.name)
def test_every_engine_has_a_binding_with_a_workload_factory(pattern):
    for engine in pattern.engines:
        binding = importlib.import_module(f"{pattern.package}.{engine}")
        assert callable(binding.workload), f"{pattern.package}.{engine} has no workload()"
        assert pattern.binding(engine) is binding
        for phase in pattern.phases:  # the factory takes exactly what the description resolves for each phase
            inspect.signature(binding.workload).bind(pattern.approaches[0], phase, object(), 10, **pattern.resolve(phase))
    with pytest.raises(ConfigError, match="has no workload for redis"):
        pattern.binding("redis")


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: p.name)
def test_every_phase_has_a_quick_and_a_classroom_sweep_the_pattern_can_run(pattern):
    assert tuple(pattern.sizes) == SIZES
    for profile in SIZES:
        assert set(pattern.phases) <= set(pattern.sizes[profile]), f"{pattern.name} {profile} lacks a sweep for a phase"
        for name, size in pattern.sizes[profile].items():
            plan = pattern.sweep_plan(profile, name)
            pattern.check_plan(plan)  # e.g. even thread counts for two regions
            assert plan.labels["phase"] == size.phase
            assert all(t % pattern.thread_multiple == 0 for t in size.threads)
            assert size.operations % pattern.operations_multiple == 0
            assert set(plan.labels) == {"phase", *(s.name for s in pattern.settings_for(size.phase))}


def test_settings_are_checked_and_a_misplaced_one_is_refused():
    index_table = describe("index-table")
    assert index_table.resolve("login", {"users": 2000}) == {"users": 2000, "replication": 1}
    assert index_table.resolve("register") == {"replication": 1}
    with pytest.raises(ConfigError, match="is for phase login, not register"):
        index_table.resolve("register", {"users": 5})
    with pytest.raises(ConfigError, match="has no setting 'colour'; it takes: users, replication"):
        index_table.resolve("login", {"colour": 1})
    with pytest.raises(ConfigError, match="from 1 to 1000000"):
        index_table.resolve("login", {"users": 0})
    with pytest.raises(ConfigError, match="takes one of ONE, TWO"):
        YCSB.resolve("mix", {"consistency": "SOME"})
    assert YCSB.setting("consistency").parse(" ALL ") == "ALL"


def test_a_workload_is_made_by_the_engine_binding_with_the_phase_defaults(monkeypatch):
    fan_out = describe("fan-out")
    made = []
    monkeypatch.setattr(fan_out.binding("cassandra"), "workload", lambda *a, **k: made.append((a, k)) or "w")

    class Cluster:
        engine = "cassandra"

    assert fan_out.workload("pattern", Cluster(), 10, phase="post", users=50) == "w"
    assert made == [(("pattern", "post", made[0][0][2], 10), {"users": 50, "follows": 10, "posts": 8, "replication": 1})]
    with pytest.raises(ConfigError, match="unknown approach 'fast'"):
        fan_out.workload("fast", Cluster(), 10)
    with pytest.raises(ConfigError, match="unknown phase"):
        fan_out.workload("naive", Cluster(), 10, phase="read")


def test_a_sweep_can_be_overridden_and_the_result_is_checked():
    index_table = describe("index-table")
    tiny = {"login": {"nodes": [1], "threads": [1, 2], "operations": 60, "settings": {"users": 100}}}
    size = index_table.named_sweep("quick", "login", tiny)
    assert size.nodes == (1,) and size.threads == (1, 2) and size.operations == 60 and size.settings == {"users": 100}
    assert index_table.named_sweep("quick", "register", tiny) == index_table.named_sweep("quick", "register")
    plan = index_table.sweep_plan("quick", "login", overrides=tiny)
    assert plan.labels["users"] == 100 and plan.nodes == (1,)
    with pytest.raises(ConfigError, match="setting users must be from 1"):
        index_table.named_sweep("quick", "login", {"login": {"settings": {"users": 0}}})
    with pytest.raises(ConfigError, match="got colour"):
        index_table.named_sweep("quick", "login", {"login": {"colour": 1}})


@pytest.mark.parametrize("pattern", ALL, ids=lambda p: p.name)
def test_a_smoke_sweep_has_no_warm_up_block_and_the_others_let_the_sweep_decide(pattern):
    """make test runs every lesson at smoke size: a cold cluster's unmeasured warm-up block would only cost time there."""
    for name in pattern.sizes["smoke"]:
        assert pattern.named_sweep("smoke", name).warmup_block is False
        assert pattern.sweep_plan("smoke", name).warmup_block is False
        assert pattern.sweep_plan("smoke", name, overrides={name: {"warmup_block": True}}).warmup_block is True
    for profile in ("quick", "classroom"):
        for name in pattern.sizes[profile]:
            assert pattern.sweep_plan(profile, name).warmup_block is pattern.sizes[profile][name].warmup_block
