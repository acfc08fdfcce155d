"""Cutting the links between two datacenters, with root or without.

With root, iptables drops what one side's servers send to the other's storage port (`partition`). Without
root (a student on a lab server, a hub pod) the nodes of a cluster started with `internode_proxy=True`
reach the other datacenter only through toxiproxy: each node advertises a second loopback address (its
`broadcast_address`), where a proxy forwards to its storage port, and `prefer_local` keeps traffic
inside a datacenter on the nodes' own addresses. Closing the proxies of both sides then cuts exactly the
links between the datacenters, as the iptables rules do. Both kinds are small and picklable, so a
workload carries the one its cluster needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


KIND_ENV = "LABKIT_PARTITIONS"


def partition_kind() -> str:
    """How partitions are made here: LABKIT_PARTITIONS (iptables or toxiproxy) when set; else iptables for
    root, toxiproxy for everyone else (no privilege needed)."""
    import os

    from ..errors import ConfigError

    chosen = os.environ.get(KIND_ENV, "").strip()
    if chosen:
        if chosen not in ("iptables", "toxiproxy"):
            raise ConfigError(f"{KIND_ENV} is iptables (root) or toxiproxy (anyone); got {chosen!r}")
        return chosen
    return "iptables" if os.geteuid() == 0 else "toxiproxy"


@dataclass(frozen=True)
class IptablesLinks:
    """The datacenters' links cut by iptables rules (root only)."""

    kind: str = "iptables"

    def cut(self, side_a: Iterable[str], side_b: Iterable[str]) -> None:
        from .partition import cut

        cut(side_a, side_b)

    def heal(self) -> None:
        from .partition import heal_all

        heal_all()

    def is_cut(self) -> bool:
        from .partition import rules

        return bool(rules())


@dataclass(frozen=True)
class ProxiedLinks:
    """The datacenters' links through one toxiproxy server: `proxies` maps each node's own address to the
    proxy in front of its storage port (the only way the other datacenter reaches it)."""

    host: str
    port: int
    proxies: dict[str, str] = field(default_factory=dict)
    kind: str = "toxiproxy"

    def _server(self):
        from .latency import Toxiproxy

        return Toxiproxy(self.host, self.port)

    def cut(self, side_a: Iterable[str], side_b: Iterable[str]) -> None:
        """Close the proxies of every node on both sides: no cross-datacenter connection is left or made."""
        server = self._server()
        for address in [*side_a, *side_b]:
            server.enable(self.proxies[address], False)

    def heal(self) -> None:
        server = self._server()
        for name in self.proxies.values():
            server.enable(name, True)

    def is_cut(self) -> bool:
        proxies = self._server().proxies()
        return any(not proxies[name]["enabled"] for name in self.proxies.values() if name in proxies)
