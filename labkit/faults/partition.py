"""Network partitions between loopback addresses with iptables (root only, no namespaces needed).

Rules live in one chain of our own, LABKIT-PARTITION, jumped to from INPUT; healing flushes it, so a
crashed lesson can always be healed with `heal_all()` (and `labkit down` does so).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from typing import Iterable, Iterator

from ..errors import NotAvailableError

CHAIN = "LABKIT-PARTITION"
STORAGE_PORT = 7000


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
    if _iptables("-C", "INPUT", "-j", CHAIN, check=False).returncode != 0:
        _iptables("-I", "INPUT", "1", "-j", CHAIN)


def cut(side_a: Iterable[str], side_b: Iterable[str], port: int = STORAGE_PORT) -> None:
    """Drop inter-node traffic (TCP to `port`) between every address of side A and every one of side B."""
    require_iptables()
    _ensure_chain()
    a, b = list(side_a), list(side_b)
    for src in a:
        for dst in b:
            for s, d in ((src, dst), (dst, src)):
                _iptables("-A", CHAIN, "-s", s, "-d", d, "-p", "tcp", "--dport", str(port), "-j", "DROP")


def heal_all() -> None:
    """Remove every labkit partition rule (a no-op where there are none or iptables is absent)."""
    if os.geteuid() != 0 or shutil.which("iptables") is None:
        return
    if _iptables("-n", "-L", CHAIN, check=False).returncode != 0:
        return
    _iptables("-F", CHAIN)
    while _iptables("-D", "INPUT", "-j", CHAIN, check=False).returncode == 0:
        pass
    _iptables("-X", CHAIN, check=False)


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
