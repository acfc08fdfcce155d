"""What every cluster the lab did not start shares: it is entered and left without starting or stopping
anything, described to `status` as it reports itself, forgotten by `down`, and sized by itself.

Each engine's class supplies NAME (its record), `start()` (connect and read nodes and version) and
`from_record(saved)` (the instance a saved record describes); `hosts_of(saved)` says where it is, for status.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import LabkitError, NotAvailableError
from ..base import ClusterInfo
from ..contract import NOTHING
from ..lifecycle import ProviderCluster
from . import records
from .records import ExternalNode


class ExternalCluster(ProviderCluster):
    """A cluster labkit did not start: it connects, labels and measures from outside, and never starts,
    resizes, budgets or stops it."""

    engine = ""
    provider = "external"
    capabilities = NOTHING
    detached = True  # it outlives every lab process
    NAME = ""
    nodes: list[ExternalNode]
    _server_version: str


    def start(self) -> Any:
        raise NotImplementedError

    def stop(self) -> None:
        """Nothing to stop: the cluster keeps running (clients close their own connections)."""

    def live_nodes(self) -> list[ExternalNode]:
        return [n for n in self.nodes if n.state == "UP"]

    def held_addresses(self) -> list[tuple[str, int]]:
        return []  # nothing on this machine: its servers are elsewhere

    @property
    def owner(self) -> str:
        return ""  # not the lab's: the course's or the provider's

    def cpu_meter(self) -> None:
        return None

    def info(self) -> ClusterInfo:
        return ClusterInfo(engine=self.engine, server_version=self._server_version, provider="external", nodes=len(self.nodes), node_cpu=None)

    @property
    def server_version(self) -> str:
        return self._server_version

    def status_extra(self) -> dict[str, Any]:
        """Engine-specific fields of `status` (Cassandra: its datacenter count)."""
        return {}

    # ---- what the CLI and the registry use -------------------------------------------------------

    @classmethod
    def provision(cls) -> str:
        return "nothing to provision for an external cluster: labkit only connects to it"

    @classmethod
    def from_record(cls, saved: dict[str, Any]) -> Any:
        raise NotImplementedError

    @classmethod
    def hosts_of(cls, saved: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    @classmethod
    def describe_state_dir(cls, directory: Path) -> dict[str, Any]:
        saved = records.recorded(cls.NAME) or {}
        base = {"name": cls.NAME, "engine": cls.engine, "provider": "external", "hosts": cls.hosts_of(saved), "owner_pid": None, "node_cpu": None}
        try:
            cluster = cls.from_record(saved).start()
        except LabkitError as exc:
            return {**base, "server_version": "?", "nodes": [], "error": str(exc)}
        return {**base, "server_version": cluster.server_version, **cluster.status_extra(),
                "nodes": [{"name": n.name, "address": n.address, "dc": n.dc, "state": n.state, "pid": None, "node_cpu": None} for n in cluster.nodes]}

    def purge(self, namespace: str) -> list[str]:
        """Remove what the lab wrote on this cluster in `namespace` (its keyspaces or databases), nothing else."""
        raise NotAvailableError(f"purging a namespace is not available for an external {self.engine} cluster yet: "
                                "remove the scopes your runs made with the cluster's own tools")

    @classmethod
    def stop_state_dir(cls, directory: Path) -> None:
        """`labkit down`: forget the cluster (its record), stop nothing."""
        records.forget(directory)

    @classmethod
    def fixed_size(cls) -> int | None:
        """The node count of the recorded cluster (the panel's node slider cannot change it), or None."""
        try:
            return len(cls().start().nodes)
        except LabkitError:
            return None
