"""docs/adding-an-engine.md is the contract a new engine implements, and it is enough: a double of a whole
engine (tests/engine_double: an in-process store partitioned over nodes, its cluster and an Index Table
binding) built from the page alone runs Index Table through labkit.sweeps, the one way into a sweep, and
defines nothing the page does not name."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from labkit.clusters.contract import Cluster
from labkit.clusters.slot import ClusterSlot
from labkit.patterns import index_table
from labkit.sweeps import SweepPlan, SweepRequest, run_sweep
from labkit.runner import BaseWorkload
from tests.engine_double import memory
from tests.engine_double.cluster import MemoryCluster

PAGE = Path(__file__).resolve().parents[2] / "docs" / "adding-an-engine.md"


def documented() -> set[str]:
    """Every name the page sets in code (`name`, `name()`)."""
    return {m.split("(")[0].strip(".") for m in re.findall(r"`([A-Za-z_][\w.]*)(?:\(\))?`", PAGE.read_text())}


def public(cls: type, base: type = object) -> set[str]:
    return {n for k in cls.__mro__ if k not in base.__mro__ for n in vars(k) if not n.startswith("_")}


def test_the_double_implements_only_what_the_page_documents():
    names = documented()
    assert public(MemoryCluster) <= names, public(MemoryCluster) - names
    assert set(Cluster.__annotations__) | {"start", "stop", "live_nodes", "info", "cpu_meter", "held_addresses", "owner"} <= names
    hooks = {n for n in vars(memory) if not n.startswith("_") and callable(getattr(memory, n)) and getattr(memory, n).__module__ == memory.__name__}
    assert hooks - {"MemoryUsers"} <= names
    assert public(memory.MemoryUsers, BaseWorkload) - {"tables", "register", "login"} <= names | {"users", "approach", "phase", "store"}


def test_a_pattern_runs_through_the_sweep_on_the_double():
    pattern = dataclasses.replace(index_table.PATTERN, package="tests.engine_double", engines=("memory",),
                                  engine_approaches={"memory": memory.APPROACHES})
    slot = ClusterSlot(lambda n, node_cpu=None: MemoryCluster(nodes=n, node_cpu=node_cpu).start())
    slot.engine = "memory"
    plan = SweepPlan(pattern="index-table", nodes=[1, 3], threads=[2], operations=60, approaches=list(memory.APPROACHES), repeats=1, warmup_block=False,
                     labels={"phase": "login", "users": 50})
    rows = run_sweep(SweepRequest(pattern, plan, engine="memory"), slot=slot, echo=lambda _m: None)
    slot.stop()
    assert sorted((r["nodes"], r["approach"]) for r in rows) == sorted((n, a) for n in (1, 3) for a in memory.APPROACHES)
    assert all(r["engine"] == "memory" and r["server_version"] == "0.1-double" and r["provider"] == "local" for r in rows)
    assert all(r["verify_state"] == "ok" and r["errors"] == 0 and r["operations"] == 60 for r in rows), [r["verify_problems"] for r in rows]
