"""The clusters labkit started on this machine, found through their state directories.

Each cluster a provider starts lives in its own directory under `clusters_dir()/<name>/` (base.clusters_dir) with a
`cluster.json` describing it; that directory is how status and down (and the next start's reaper) find
what labkit started, and only that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psutil

from ..faults import Toxiproxy, heal_all
from ..home import clusters_dir


PROCESS_PROVIDERS = ("local", "standin")  # clusters made of processes labkit started, found under their directory


def _left_over(meta: dict[str, Any], directory: Path) -> bool:
    """A process-based cluster with no process left and no live owner: a crashed or killed run's leftover."""
    from ..host import processes

    if meta.get("provider") not in PROCESS_PROVIDERS or processes.processes_under(directory):
        return False
    owner = meta.get("owner_pid")
    return owner is None or not psutil.pid_exists(owner)


def _recorded_clusters() -> list[tuple[dict[str, Any], Any, Path]]:
    """(state, provider class, directory) of every cluster with a state file; leftovers of dead runs are
    forgotten (their state file removed), so status and the next run see only what is there."""
    from . import provider_for

    root = clusters_dir()
    found = []
    for state_file in sorted(root.glob("*/cluster.json")) if root.exists() else []:
        meta = json.loads(state_file.read_text())
        if _left_over(meta, state_file.parent):
            state_file.unlink(missing_ok=True)
            continue
        found.append((meta, provider_for(meta["engine"], meta["provider"]), state_file.parent))
    return found


def running_clusters() -> list[dict[str, Any]]:
    """Describe every cluster with a state directory, asking its provider for live node states."""
    return [cls.describe_state_dir(directory) for _meta, cls, directory in _recorded_clusters()]


def purge_namespace() -> list[str]:
    """On every recorded external cluster, drop what this user's namespace wrote there (keyspaces, databases);
    return 'engine: name' of each. Refused without a namespace: on a shared cluster that would be everyone's."""
    from ..errors import ConfigError
    from ..namespace import ENV, namespace_for

    purged = []
    for meta, cls, _directory in _recorded_clusters():
        if meta.get("provider") != "external":
            continue
        cluster = cls.from_record(meta).start()
        namespace = namespace_for(cluster)
        if not namespace:
            raise ConfigError(f"--purge removes one namespace's keyspaces, but {ENV} is set empty: set it to yours (default: your user name)")
        purged += [f"{meta['engine']}: {name}" for name in cluster.purge(namespace)]
    return purged


def stop_all(provider: str | None = None) -> list[str]:
    """Stop every cluster with a state directory (only `provider`'s when given; and heal partitions, stop
    toxiproxy); return their names."""
    if provider in (None, "local"):
        heal_all()  # a partition left by a crashed lesson would confuse the next cluster
        Toxiproxy.stop_all()
    stopped = []
    for meta, cls, directory in _recorded_clusters():
        if provider is not None and meta.get("provider") != provider:
            continue
        cls.stop_state_dir(directory)
        name = meta.get("name", directory.name)
        stopped.append(f"{name} (forgotten: labkit did not start it, so nothing was stopped)" if meta.get("provider") == "external" else name)
    return stopped
