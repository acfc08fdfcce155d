"""Where the lab keeps what it knows of a cluster it did not start: one state file per engine, which `status`,
sweeps and panels read and `labkit down` removes (stopping nothing)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...engines.credentials import redacted  # noqa: F401  (re-exported: messages and status hide passwords)
from ...errors import NotAvailableError
from ...home import clusters_dir

NOT_OURS = "labkit did not start this cluster, so it does not {what} it"


@dataclass(frozen=True)
class ExternalNode:
    """A node (Cassandra) or shard (MongoDB) as the cluster itself reports it."""

    name: str
    address: str
    dc: str
    state: str = "UP"


def state_dir(name: str) -> Path:
    return clusters_dir() / name


def record(name: str, engine: str, **where: Any) -> Path:
    """Remember where the external cluster is (`where`: contact points, a URI, a datacenter)."""
    directory = state_dir(name)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "cluster.json"
    path.touch(mode=0o600)  # a URI may carry a password: the record is the user's alone
    path.write_text(json.dumps({"name": name, "engine": engine, "provider": "external", **where}, indent=2))
    return path


def recorded(name: str) -> dict[str, Any] | None:
    path = state_dir(name) / "cluster.json"
    return json.loads(path.read_text()) if path.exists() else None


def forget(directory: Path) -> None:
    """`labkit down`: remove the record, stop nothing."""
    (directory / "cluster.json").unlink(missing_ok=True)
    try:
        directory.rmdir()
    except OSError:
        pass


def refuse_budget(node_cpu: float | None) -> None:
    if node_cpu is not None:
        raise NotAvailableError(f"node CPU budgets apply to clusters labkit starts: {NOT_OURS.format(what='budget')}. "
                                "Leave the budget unset (CPU per node: none).")


def hosts_option(hosts: Any) -> list[str]:
    """--hosts "a,b" (or a list) -> ["a", "b"], blanks dropped."""
    if isinstance(hosts, str):
        hosts = [h.strip() for h in hosts.split(",")]
    return [h for h in (hosts or []) if h]

