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


def _state_files() -> list[Path]:
    root = clusters_dir()
    return sorted(root.glob("*/cluster.json")) if root.exists() else []


def running_clusters() -> list[dict[str, Any]]:
    """Describe every cluster with a state directory, asking its provider for live node states."""
    from . import provider_for

    found = []
    for state in _state_files():
        meta = json.loads(state.read_text())
        cls = provider_for(meta["engine"], meta["provider"])
        found.append(cls.describe_state_dir(state.parent))
    return found


def stop_all() -> list[str]:
    """Stop every cluster with a state directory (and heal partitions, stop toxiproxy); return their names."""
    from . import provider_for

    from ..faults import Toxiproxy, heal_all

    heal_all()  # a partition left by a crashed lesson would confuse the next cluster
    Toxiproxy().stop()
    stopped = []
    for state in _state_files():
        meta = json.loads(state.read_text())
        cls = provider_for(meta["engine"], meta["provider"])
        cls.stop_state_dir(state.parent)
        stopped.append(meta.get("name", state.parent.name))
    return stopped
