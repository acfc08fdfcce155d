"""The clusters labkit started on this machine, found through their state directories.

Each cluster a provider starts lives in its own directory under `labkit_home()/clusters/<name>/` with a
`cluster.json` describing it; that directory is how status and down (and the next start's reaper) find
what labkit started, and only that.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def labkit_home() -> Path:
    """Where labkit keeps caches and cluster state (LABKIT_HOME, else ~/.cache/labkit)."""
    return Path(os.environ.get("LABKIT_HOME", Path.home() / ".cache" / "labkit"))


def clusters_dir() -> Path:
    return labkit_home() / "clusters"


def _recorded_clusters() -> list[tuple[dict[str, Any], Any, Path]]:
    """(state, provider class, directory) of every cluster with a state file."""
    from . import provider_for

    root = clusters_dir()
    found = []
    for state_file in sorted(root.glob("*/cluster.json")) if root.exists() else []:
        meta = json.loads(state_file.read_text())
        found.append((meta, provider_for(meta["engine"], meta["provider"]), state_file.parent))
    return found


def running_clusters() -> list[dict[str, Any]]:
    """Describe every cluster with a state directory, asking its provider for live node states."""
    return [cls.describe_state_dir(directory) for _meta, cls, directory in _recorded_clusters()]


def stop_all() -> list[str]:
    """Stop every cluster with a state directory (and heal partitions, stop toxiproxy); return their names."""
    from ..faults import Toxiproxy, heal_all

    heal_all()  # a partition left by a crashed lesson would confuse the next cluster
    Toxiproxy().stop()
    stopped = []
    for meta, cls, directory in _recorded_clusters():
        cls.stop_state_dir(directory)
        stopped.append(meta.get("name", directory.name))
    return stopped
