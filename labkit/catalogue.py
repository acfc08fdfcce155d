"""What `labkit run`, `labkit patterns`, the panels and the benchmarks can run, in one catalogue: the patterns,
the standard workloads, and a profile file of one's own design. Why here: it names packages of every layer
(patterns, workloads, profiles), so it sits above them all and none of them imports it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    from .patterns.description import Pattern

PACKAGES: dict[str, str] = {
    "uuid-key": "labkit.patterns.uuid_key",
    "index-table": "labkit.patterns.index_table",
    "enumerable-keys": "labkit.patterns.enumerable_keys",
    "fan-out": "labkit.patterns.fan_out",
    "distorted-replicas": "labkit.patterns.distorted_replicas",
}
"""pattern name -> package, for the patterns `labkit run` offers (in the notebooks' order)."""
PATTERNS = tuple(PACKAGES)
STANDARD_WORKLOADS: dict[str, str] = {"ycsb": "labkit.workloads.ycsb"}
"""Standard workloads that are not patterns but run the same way (`labkit run ycsb`, panels, sweeps)."""
RUNNABLE = (*PATTERNS, *STANDARD_WORKLOADS)


def describe(name: str) -> "Pattern":
    """The description of a pattern, of a profile file (`path/to/design.yaml`, labkit.profiles), or an error
    naming the patterns that exist."""
    from .profiles.description import is_profile_path, profile_pattern

    if is_profile_path(name):
        return profile_pattern(name)
    package = PACKAGES.get(name) or STANDARD_WORKLOADS.get(name)
    if package is None:
        raise ConfigError(f"unknown pattern {name!r}: choose one of {', '.join(RUNNABLE)}, or give a profile file (path/to/design.yaml)")
    return importlib.import_module(package).PATTERN


def descriptions(standard: bool = True) -> list["Pattern"]:
    """Every pattern `labkit run` offers, in order, then (unless `standard=False`) the standard workloads."""
    return [describe(name) for name in (RUNNABLE if standard else PATTERNS)]
