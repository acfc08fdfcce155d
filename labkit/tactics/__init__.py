"""Tactics: changes applied to a running cluster while a workload runs at a fixed offered load, each
returning once the server says it is effective (an index built, a node Up/Normal, a keyspace repaired).

A tactic is not free: it works while it happens and pays off later (or not). `run_under_load` measures
both on one per-second timeline; `advisor` turns the measured rows into a recommendation it can explain.
Engine-specific tactics live in the engine's module (`cassandra`)."""

from .base import Tactic, TacticError
from .under_load import TacticRun, run_under_load

__all__ = ["Tactic", "TacticError", "TacticRun", "run_under_load"]
