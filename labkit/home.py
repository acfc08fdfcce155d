"""Where labkit keeps what it writes on this machine: the ground floor every room finds its state directory on.

Nothing here knows of clusters or engines, so the host helpers, the faults and the predictions find their
directories without climbing into the cluster providers."""

from __future__ import annotations

import os
from pathlib import Path


def labkit_home() -> Path:
    """Where labkit keeps caches and cluster state (LABKIT_HOME, else ~/.cache/labkit)."""
    return Path(os.environ.get("LABKIT_HOME", Path.home() / ".cache" / "labkit"))


SHARED_CACHE_ENV = "LABKIT_SHARED_CACHE"
DEFAULT_SHARED_CACHE = Path("/opt/labkit/cache")


def shared_cache() -> Path | None:
    """A read-only cache of server jars (and their class archive) an instructor filled once for every user
    of the host (`labkit provision --shared DIR`): LABKIT_SHARED_CACHE, else /opt/labkit/cache when it
    exists. Forty students then start clusters from one copy instead of downloading forty."""
    chosen = os.environ.get(SHARED_CACHE_ENV)
    if chosen:
        return Path(chosen)
    return DEFAULT_SHARED_CACHE if DEFAULT_SHARED_CACHE.is_dir() else None


def clusters_dir() -> Path:
    """One directory per cluster labkit started: its state file, node directories, logs."""
    return labkit_home() / "clusters"
