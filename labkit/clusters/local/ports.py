"""Ports a local cluster needs, and what a student reads when one is held.

Why one module: every local engine binds its processes to this home's loopback range, and a held port means either
one of the user's own programs (stop it) or someone else's claim on the range (choose another range), whichever
engine asked."""

from __future__ import annotations

import os
import time

import psutil

from ...errors import LabkitError
from ...host import loopback, processes


def _port_holder(address: str, port: int) -> tuple[str, int | None]:
    """Who listens on address:port: ('pid N (name)', uid), or ('another process', None) when that is not
    visible (another user's sockets are hidden from an unprivileged user)."""
    try:
        for c in psutil.net_connections("tcp"):
            if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.laddr.ip in (address, "0.0.0.0", "::"):
                if not c.pid:
                    break
                proc = psutil.Process(c.pid)
                return f"pid {c.pid} ({proc.name()})", proc.uids().real
    except Exception:
        pass
    return "another process", None


def port_taken_message(node: str, host: str, port: int, own_range: "loopback.LoopbackRange") -> str:
    """What a student reads when a node's address and port are held: never "stop their process" when the
    holder is not theirs to stop, but the way out (another range)."""
    holder, uid = _port_holder(host, port)
    claim = loopback.owner_of(host)
    if uid == os.getuid():
        return f"port {host}:{port} (needed by {node}) is taken by {holder}, one of your own programs. Stop it (if it is a labkit cluster: `labkit down`) and start again."
    whose = f"{claim.user}'s labkit (home {claim.home})" if claim and claim.home != own_range.home else f"{holder}, not one of your programs"
    return (
        f"port {host}:{port} (needed by {node}) is held by {whose}: this home's loopback range {own_range.cidr} is in use by "
        f"someone else. Choose another range for your clusters, e.g. `export {loopback.OVERRIDE}=127.{(int(own_range.prefix.split('.')[1]) % 254) + 1}.0` "
        "(`labkit status` lists the ranges in use on this host), and start again."
    )


def require_free(wanted: list[tuple[str, str, int]], own_range: "loopback.LoopbackRange", grace: float = 15.0) -> None:
    """Every (process name, host, port) in `wanted` must be free within `grace` seconds (a just-killed JVM may
    hold its ports a moment longer); a LabkitError names the first one held and the way out."""
    deadline = time.monotonic() + grace
    for name, host, port in wanted:
        while processes.port_open(host, port):
            if time.monotonic() > deadline:
                raise LabkitError(port_taken_message(name, host, port, own_range))
            time.sleep(0.25)
