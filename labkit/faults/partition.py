"""Network partitions between the local datacenters with iptables (root only, no namespaces needed).

Source addresses cannot tell the sides apart: for every 127.x destination the kernel picks 127.0.0.1
as the source, so a node on 127.0.0.2 talks to 127.0.0.1 *from* 127.0.0.1. The rules therefore match
who sent a packet by the sending process: each side's server processes are put into a net_cls control
group of their own, and locally generated packets from one side's group to the other side's addresses
(TCP to the storage port) are dropped. Rules live in one chain of our own, LABKIT-PARTITION, jumped to
from OUTPUT; healing flushes it, so a crashed lesson can always be healed with `heal_all()` (and
`labkit down` does so).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, Iterator

import psutil

from ..errors import LabkitError, NotAvailableError

CHAIN = "LABKIT-PARTITION"
HOOK = "OUTPUT"  # cgroup matches see the sending socket: locally generated packets only
STORAGE_PORT = 7000
NET_CLS = Path("/sys/fs/cgroup/net_cls")
SIDE_CLASSIDS = (0x4C4B0001, 0x4C4B0002)  # "LK" 0001 / 0002


def _iptables(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["iptables", "-w", *args], capture_output=True, text=True, check=check)


def require_iptables() -> None:
    if os.geteuid() != 0:
        raise NotAvailableError(
            "a network partition needs root (iptables rules on the loopback interface); "
            "run the notebook as root, or skip the partition step"
        )
    if shutil.which("iptables") is None:
        raise NotAvailableError("a network partition needs iptables: apt-get install iptables (Debian/Ubuntu)")


def _ensure_chain() -> None:
    if _iptables("-n", "-L", CHAIN, check=False).returncode != 0:
        _iptables("-N", CHAIN)
    if _iptables("-C", HOOK, "-j", CHAIN, check=False).returncode != 0:
        _iptables("-I", HOOK, "1", "-j", CHAIN)


def _mounted_net_cls() -> Path | None:
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] == "cgroup" and "net_cls" in fields[3].split(","):
            return Path(fields[1])
    return None


def _net_cls_root() -> Path:
    """Where the net_cls controller (cgroup v1) is mounted; mounted at NET_CLS when it is nowhere yet."""
    mounted = _mounted_net_cls()
    if mounted is not None:
        return mounted
    NET_CLS.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "cgroup", "-o", "net_cls", "net_cls", str(NET_CLS)], capture_output=True, text=True)
    if done.returncode != 0:
        raise NotAvailableError(
            f"a partition needs the net_cls cgroup controller to tell the datacenters' processes apart, and it cannot be "
            f"mounted here ({done.stderr.strip()}); on this machine the partition lessons cannot run"
        )
    return NET_CLS


def servers_on(addresses: Iterable[str], port: int = STORAGE_PORT) -> list[int]:
    """PIDs of the processes listening on address:port (one Cassandra node per address)."""
    wanted = set(addresses)
    pids = {c.pid for c in psutil.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.ip in wanted and c.laddr.port == port and c.pid}
    return sorted(pids)


def _classify(addresses: list[str], classid: int, port: int) -> None:
    """Put the servers of one side into a net_cls group whose packets carry `classid`."""
    group = _net_cls_root() / f"labkit-{classid:08x}"
    group.mkdir(exist_ok=True)
    (group / "net_cls.classid").write_text(str(classid))
    pids = servers_on(addresses, port)
    if len(pids) < len(addresses):
        raise LabkitError(f"found {len(pids)} server processes listening on port {port} of {', '.join(addresses)}; is every node up?")
    for pid in pids:
        (group / "cgroup.procs").write_text(str(pid))  # moving a process re-tags its open sockets too


def cut(side_a: Iterable[str], side_b: Iterable[str], port: int = STORAGE_PORT) -> None:
    """Drop inter-node traffic (TCP to `port`) between the servers of side A and those of side B."""
    require_iptables()
    a, b = list(side_a), list(side_b)
    for addresses, classid in zip((a, b), SIDE_CLASSIDS):
        _classify(addresses, classid, port)
    _ensure_chain()
    for classid, others in zip(SIDE_CLASSIDS, (b, a)):
        for dst in others:
            _iptables("-A", CHAIN, "-m", "cgroup", "--cgroup", str(classid), "-d", dst, "-p", "tcp", "--dport", str(port), "-j", "DROP")


def heal_all() -> None:
    """Remove every labkit partition rule (a no-op where there are none or iptables is absent)."""
    if os.geteuid() != 0:
        return
    _forget_groups()
    if shutil.which("iptables") is None or _iptables("-n", "-L", CHAIN, check=False).returncode != 0:
        return
    _iptables("-F", CHAIN)
    for hook in (HOOK, "INPUT"):  # INPUT: where versions before 0.2 hooked the chain
        while _iptables("-D", hook, "-j", CHAIN, check=False).returncode == 0:
            pass
    _iptables("-X", CHAIN, check=False)


def _forget_groups() -> None:
    """Remove the sides' net_cls groups: with the rules gone their tag means nothing, so any server still
    inside goes back to the root group first (a group with members cannot be removed)."""
    root = _mounted_net_cls()
    if root is None:
        return
    for group in root.glob("labkit-*"):
        try:
            for pid in (group / "cgroup.procs").read_text().split():
                try:
                    (root / "cgroup.procs").write_text(pid)
                except ProcessLookupError:
                    pass  # exited meanwhile
            group.rmdir()
        except OSError:
            pass  # a server exiting right now; the next heal (labkit down, the next partition) removes it


def rules() -> list[str]:
    """The partition rules in force, as iptables prints them."""
    if os.geteuid() != 0 or shutil.which("iptables") is None:
        return []
    out = _iptables("-S", CHAIN, check=False)
    return [line for line in out.stdout.splitlines() if line.startswith("-A")]


@contextlib.contextmanager
def partition(side_a: Iterable[str], side_b: Iterable[str]) -> Iterator[None]:
    """`with partition(dc1, dc2): ...` — the two sides cannot gossip or replicate until the block ends."""
    cut(side_a, side_b)
    try:
        yield
    finally:
        heal_all()
