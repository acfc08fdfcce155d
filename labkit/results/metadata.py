"""The metadata columns every result row carries, so a number never loses its context."""

from __future__ import annotations

import datetime as _dt
import os
import platform

from .. import __version__
from ..clusters.base import ClusterInfo

METADATA_COLUMNS = (
    "pattern",
    "approach",
    "engine",
    "server_version",
    "provider",
    "server_label",
    "nodes",
    "node_cpu",
    "threads",
    "processes",
    "operations",
    "repeat",
    "labkit_version",
    "time",
    "machine_cores",
    "host",
)


def run_metadata(
    cluster: ClusterInfo, *, pattern: str, approach: str, threads: int, processes: int, operations: int, repeat: int = 0
) -> dict:
    """The metadata part of one tidy row (see DESIGN.md: engine, version, provider, nodes, threads...)."""
    return {
        "pattern": pattern,
        "approach": approach,
        "engine": cluster.engine,
        "server_version": cluster.server_version,
        "provider": cluster.provider,
        "server_label": cluster.label,
        "nodes": cluster.nodes,
        "node_cpu": cluster.node_cpu,
        "threads": threads,
        "processes": processes,
        "operations": operations,
        "repeat": repeat,
        "labkit_version": __version__,
        "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine_cores": os.cpu_count(),
        "host": platform.node(),
    }
