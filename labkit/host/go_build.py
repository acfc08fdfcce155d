"""A Go program labkit builds once into its cache (toxiproxy, the linearizability checker), one build at a time.

Why one helper: both are fetched from the Go module proxy and built on first use, by a lesson or by `labkit provision
all` beside it; the lock lets the second caller find the program built instead of building it again, and both say
the same thing when Go is missing or the build fails.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from ..errors import NotAvailableError


def build_once(target: Path, build: Callable[[str], subprocess.CompletedProcess], *, what: str, needs: str = "Go 1.19 or newer") -> Path:
    """`target` when it is built, else `build(go)` (the `go` on PATH) under a lock beside it; a NotAvailableError
    naming `what` and what to install when Go is missing, or with Go's own words when the build fails."""
    if target.exists():
        return target
    go = shutil.which("go")
    if go is None:
        raise NotAvailableError(f"{what}, which labkit builds with Go: install {needs} (Debian/Ubuntu: apt-get install golang-go) and try again")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time: a second caller finds it built
        if target.exists():
            return target
        proc = build(go)
    if proc.returncode != 0 or not target.exists():
        raise NotAvailableError(f"building {what} failed ({needs}; is proxy.golang.org reachable?):\n{proc.stderr[-2000:]}")
    return target
