"""Stop what this process started, even on the way out: one guard for every provider that starts local
server processes (Cassandra nodes, mongod/mongos, stand-in JVMs).

A notebook kernel that exits, or is sent SIGTERM by JupyterLab's "shut down kernel", must not leave JVMs
behind for the next run to trip over. Clusters started detached (`labkit up`) outlive their starter and
are not tracked; SIGKILL cannot be caught, and the next start reaps what it left (processes.reap_under)."""

from __future__ import annotations

import atexit
import signal
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .contract import Cluster

_started: list[Any] = []
_lock = threading.Lock()
_installed = False


def track(cluster: Cluster) -> None:
    """Stop `cluster` at interpreter exit or SIGTERM unless it is stopped first (`untrack`); detached ones are left."""
    global _installed
    with _lock:
        if cluster.detached or cluster in _started:
            return
        _started.append(cluster)
        if not _installed:
            atexit.register(stop_started)
            if threading.current_thread() is threading.main_thread():  # signal handlers can only be set there
                previous = signal.getsignal(signal.SIGTERM)

                def on_term(signum: int, frame: Any) -> None:
                    stop_started()
                    if callable(previous):
                        previous(signum, frame)
                    raise SystemExit(128 + signum)

                signal.signal(signal.SIGTERM, on_term)
            _installed = True


def untrack(cluster: Cluster) -> None:
    with _lock:
        if cluster in _started:
            _started.remove(cluster)


def stop_started() -> None:
    """Stop every tracked cluster, newest first; one that fails to stop does not keep the others running."""
    for cluster in reversed(list(_started)):
        try:
            cluster.stop()
        except Exception:  # noqa: BLE001 - on the way out, stop what can be stopped
            pass
        untrack(cluster)
