"""Faults for lessons about availability: network partitions, WAN latency, dead nodes.

Node kill/restart lives on the cluster (`cluster.kill_node(i)`, `cluster.restart_node(i)`); this package
adds what happens between nodes and clients: `partition` (iptables) and `Toxiproxy` (latency).
"""

from .latency import Toxiproxy
from .partition import heal_all, partition

__all__ = ["Toxiproxy", "heal_all", "partition"]
