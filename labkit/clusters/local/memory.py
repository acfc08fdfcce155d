"""Memory admission: local nodes start only when the memory they need is free, else one sentence says how
many fit. On a shared lab server or in a hub pod of 1-4 GiB, starting more JVMs than fit ends with the
kernel's OOM killer taking one (or the student's kernel) without a word; refusing first is kinder.

Free memory is the host's available memory, or less where this process sits in a control group with a
memory limit (a container, a hub pod, a systemd slice): the tightest limit minus what the group uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import psutil

from ...errors import NotAvailableError

GIB = 2**30
CASSANDRA_NODE_BYTES = int(0.9 * GIB)
"""What one local Cassandra node takes (512 MiB heap, direct buffers, metaspace, code cache, thread stacks):
measured here after YCSB A on 20,000 records, 0.84-0.87 GiB resident per node (0.75 GiB proportional share
when three nodes share the class-data archive; benchmarks/results/node_memory.md); rounded up."""
UNLIMITED = 2**60  # cgroup v1 reports "no limit" as a number near 2**63


@dataclass(frozen=True)
class FreeMemory:
    bytes: int
    source: str  # "the host" or "the memory limit of control group ..."

    @property
    def gib(self) -> float:
        return self.bytes / GIB


def free_memory(cgroup_root: Path = Path("/sys/fs/cgroup"), self_cgroup: Path = Path("/proc/self/cgroup")) -> FreeMemory:
    """What this process may still use: the host's available memory, or a control group's limit minus its use
    when that is lower (the tightest group from this process's own up to the root, cgroup v1 or v2)."""
    best = FreeMemory(psutil.virtual_memory().available, "the host")
    for group, limit, used in _limited_groups(cgroup_root, self_cgroup):
        left = max(0, limit - used)
        if left < best.bytes:
            best = FreeMemory(left, f"the memory limit of control group {group} ({limit / GIB:.1f} GiB)")
    return best


def _limited_groups(root: Path, self_cgroup: Path) -> list[tuple[str, int, int]]:
    """(group path, limit, usage) of every group above this process that has a memory limit."""
    try:
        lines = self_cgroup.read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if controllers == "" and (root / "cgroup.controllers").exists():  # v2: limit and usage per group
            base, limit_file, usage_file, cache = root, "memory.max", "memory.current", "inactive_file"
        elif "memory" in controllers.split(","):  # v1: the memory controller's own hierarchy
            base, limit_file, usage_file, cache = root / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
        else:
            continue
        parts = [p for p in path.split("/") if p]
        for depth in range(len(parts), -1, -1):
            group = base.joinpath(*parts[:depth])
            limit, used = _number(group / limit_file), _number(group / usage_file)
            if limit is not None and used is not None and limit < UNLIMITED:
                used -= min(used, _stat(group / "memory.stat", cache))  # file cache the kernel gives back before it kills anything
                found.append(("/" + "/".join(parts[:depth]), limit, used))
    return found


def _stat(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _number(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if text == "max":
        return UNLIMITED
    try:
        return int(text)
    except ValueError:
        return None


def nodes_that_fit(free: FreeMemory, per_node: int = CASSANDRA_NODE_BYTES) -> int:
    return free.bytes // per_node


def admit(nodes: int, *, engine: str = "Cassandra", per_node: int = CASSANDRA_NODE_BYTES, free: FreeMemory | None = None,
          starting: str = "start") -> None:
    """Refuse to start `nodes` more local nodes when the memory they need is not free, saying how many fit."""
    free = free or free_memory()
    need = nodes * per_node
    if need <= free.bytes:
        return
    fit = nodes_that_fit(free, per_node)
    fits = {0: "not even one node fits", 1: "1 node fits"}.get(fit, f"{fit} nodes fit")
    raise NotAvailableError(
        f"cannot {starting}: {nodes} more local {engine} node{'s' if nodes != 1 else ''} need about {need / GIB:.1f} GiB "
        f"({per_node / GIB:.2f} GiB each), but only {free.gib:.1f} GiB is free (limited by {free.source}), so {fits}. Use fewer nodes"
        + (f" (--nodes {fit})" if fit and starting == "start" else "") + ", stop what else holds memory (`labkit status` shows the lab's "
        "clusters), or measure a cluster that runs elsewhere (--provider external: a course cluster)"
    )
