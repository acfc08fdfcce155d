"""The way from `labkit run --nodes 3` to the cluster's start is short and goes one way, down: every call on it
is made by a room at the same floor or above the room it calls (no callback climbs back up into the CLI or a
pattern), and the node count is carried by at most six calls. Read from the live stack at the start of a test
double's cluster: nothing starts."""

from __future__ import annotations

import inspect

import pytest
from typer.testing import CliRunner

from labkit.cli import app
from labkit.clusters.contract import Capabilities

from test_import_layers import FLOOR as LAYER, _package

MOST_CALLS = 6


class Reached(Exception):
    """Raised by the double's start, carrying the stack that reached it."""


def walk_to_start(monkeypatch, args: list[str]) -> list[tuple[str, str]]:
    """(module, function) of each call from `labkit run`'s function (exclusive) to the cluster's start (inclusive)."""
    import labkit.clusters as clusters

    class StartsNothing:
        capabilities = Capabilities(resize=True)
        engine, provider = "cassandra", "local"

        def __init__(self, nodes: int, node_cpu: float | None = None, **_options):
            self.nodes = nodes

        def start(self):
            raise Reached([(f.frame.f_globals.get("__name__", "?"), f.function) for f in inspect.stack()])

    monkeypatch.setattr(clusters, "provider_for", lambda engine, provider: StartsNothing)
    result = CliRunner().invoke(app, ["run", "fan-out", *args])
    assert isinstance(result.exception, Reached), result.output
    frames = list(reversed(result.exception.args[0]))  # outermost first
    first = next(i for i, (_module, function) in enumerate(frames) if function == "run_pattern")
    return frames[first + 1:]


def climbs(walk: list[tuple[str, str]], start: str = "labkit.cli") -> list[str]:
    """Each call made from a lower floor into a higher one (a callback climbing back up)."""
    found, here = [], start
    for module, function in walk:
        if module.startswith("labkit") and _package(here) in LAYER and _package(module) in LAYER:
            if LAYER[_package(module)] > LAYER[_package(here)]:
                found.append(f"{here} -> {module}.{function}")
        if module.startswith("labkit"):
            here = module
    return found


def test_nodes_reach_the_cluster_start_in_six_calls_without_a_climb(monkeypatch, tmp_path):
    walk = walk_to_start(monkeypatch, ["--nodes", "3", "--threads", "2", "--operations", "10", "--out", str(tmp_path / "r.csv")])
    assert walk[-1][1] == "start"
    assert len(walk) <= MOST_CALLS, walk
    assert climbs(walk) == [], walk


def test_the_walk_sees_a_climb_and_a_long_way():
    assert climbs([("labkit.sweeps.loop", "measure"), ("labkit.widgets.panel", "on_cluster"), ("labkit.clusters.slot", "ensure")]) == [
        "labkit.sweeps.loop -> labkit.widgets.panel.on_cluster"]
    assert climbs([("labkit.sweeps.run", "run_sweep"), ("labkit.clusters.slot", "ensure")]) == []
