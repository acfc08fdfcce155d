"""The seams a newcomer calls take short lists: what used to be a dozen keywords is a settings object
(RunOptions and Watch for a run, SweepRequest for what a sweep or a panel asks for, PanelLimits for a panel's
sliders, YcsbSettings for a YCSB run), and an unknown name in one is refused with the names it knows."""

from __future__ import annotations

import inspect

import pytest

from labkit.errors import ConfigError
from labkit.sweeps import Bench, run_pattern_sweep, run_sweep
from labkit.runner import RunOptions, run
from labkit.widgets import ControlPanel
from labkit.workloads.ycsb import cassandra as ycsb_cassandra
from labkit.workloads.ycsb import mongodb as ycsb_mongodb
from labkit.workloads.ycsb.core import YcsbSettings

MOST = 8
SEAMS = {
    "ControlPanel": ControlPanel.__init__,
    "runner.run": run,
    "ycsb cassandra workload": ycsb_cassandra.workload,
    "ycsb mongodb workload": ycsb_mongodb.workload,
    "YcsbCassandra": ycsb_cassandra.YcsbCassandra.__init__,
    "the function behind `labkit run`": run_sweep,
    "a notebook's sweep on its slot": run_pattern_sweep,
    "Bench": Bench.__init__,
}


def named_parameters(function) -> list[str]:
    """Its parameters, without self and without a **settings that a settings object checks by name."""
    return [p.name for p in inspect.signature(function).parameters.values() if p.name != "self" and p.kind is not p.VAR_KEYWORD]


@pytest.mark.parametrize("name", SEAMS)
def test_each_seam_takes_at_most_eight_parameters(name):
    parameters = named_parameters(SEAMS[name])
    assert len(parameters) <= MOST, f"{name} takes {len(parameters)}: {parameters}"


def test_the_cli_calls_one_function_of_at_most_eight():
    import labkit.cli

    source = inspect.getsource(labkit.cli.run_pattern)
    assert source.count("run_sweep(") == 1 and source.count("SweepRequest(") == 1


def test_an_unknown_option_is_named_with_the_ones_there_are():
    with pytest.raises(ConfigError, match="unknown run option.*warm_up.*warmup"):
        RunOptions.of({"warm_up": 10})
    assert RunOptions.of({"warmup": 10}, processes=2) == RunOptions(processes=2, warmup=10)


def test_a_ycsb_setting_is_checked_by_name():
    with pytest.raises(ConfigError, match="unknown YCSB setting.*recods"):
        YcsbSettings.of({"recods": 10})
    with pytest.raises(ConfigError, match="needs records"):
        YcsbSettings.of({"fields": 2})
    assert YcsbSettings.of({"records": 10, "tags": 5}).tags == 5
