"""WAN latency between a client and a node through toxiproxy, built on first use from the Go proxy.

The toxiproxy server runs on the labkit home's helper address, 127.X.Y.250:8474 (see
host/loopback; pidfile in the labkit cache); each proxy listens on a port of that address and
forwards to one node's CQL port, with a `latency` toxic on the way back.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ..host import processes
from ..host.go_build import build_once
from ..home import labkit_home
from ..errors import LabkitError, NotAvailableError

VERSION = "2.12.0"
API_PORT = 8474


def binary_path() -> Path:
    """The host's shared build when an instructor provided one (`labkit provision --shared`), else this home's."""
    from ..home import shared_cache

    shared = shared_cache()
    if shared is not None and (shared / "toxiproxy" / VERSION / "server").exists():
        return shared / "toxiproxy" / VERSION / "server"
    return labkit_home() / "toxiproxy" / VERSION / "server"


def install() -> Path:
    """`go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0` into the cache (once)."""
    target = binary_path()

    def build(go: str) -> subprocess.CompletedProcess:
        go, env = go_for_toxiproxy(go)
        env["GOBIN"] = str(target.parent)
        return subprocess.run([go, "install", f"github.com/Shopify/toxiproxy/v2/cmd/server@v{VERSION}"], env=env, capture_output=True, text=True)

    return build_once(target, build, what=f"latency faults need toxiproxy {VERSION}")


# toxiproxy v2.12.0's go.mod says `go 1.23.0`: an older Go refuses it (Debian 12's golang-go, 1.19:
# "invalid go version '1.23.0'"; Go 1.21-1.22 build it only by switching toolchains). Then labkit builds
# it with this Go release, Go's own toolchain module from the Go module proxy.
GO_NEEDED = (1, 23)
TOOLCHAIN = "go1.23.12"


def go_version(go: str) -> tuple[int, int] | None:
    """(major, minor) of `go version`, None when it does not answer like a Go release."""
    from ..machine import run_command

    code, out = run_command([go, "version"])
    m = re.search(r"\bgo(\d+)\.(\d+)", out) if code == 0 else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def go_for_toxiproxy(go: str) -> tuple[str, dict[str, str]]:
    """The `go` that builds toxiproxy, and its environment: `go` itself when it is 1.23 or newer, else Go
    TOOLCHAIN, the module golang.org/toolchain that `go mod download` fetches from the Go module proxy and
    checks against the checksum database (what Go 1.21+ does itself for GOTOOLCHAIN=go1.23.12; Go 1.19 and
    1.20 cannot), kept in the module cache like any module."""
    if (go_version(go) or (0, 0)) >= GO_NEEDED:
        return go, dict(os.environ)
    host = subprocess.run([go, "env", "GOHOSTOS", "GOHOSTARCH"], capture_output=True, text=True)
    goos, goarch = (host.stdout.split() + ["", ""])[:2]
    module = f"golang.org/toolchain@v0.0.1-{TOOLCHAIN}.{goos}-{goarch}"
    with tempfile.TemporaryDirectory() as outside_any_module:
        proc = subprocess.run([go, "mod", "download", "-json", module], cwd=outside_any_module, capture_output=True, text=True)
    try:
        answer = json.loads(proc.stdout)
    except json.JSONDecodeError:
        answer = {}
    root = Path(answer.get("Dir") or "/nonexistent")
    if proc.returncode != 0 or not (root / "bin" / "go").is_file():
        said = answer.get("Error") or proc.stderr.strip()[-1000:]
        raise NotAvailableError(
            f"toxiproxy {VERSION} needs Go {GO_NEEDED[0]}.{GO_NEEDED[1]} or newer and {go} is older; fetching {TOOLCHAIN} "
            f"({module}) from the Go module proxy failed: {said}. Install Go {GO_NEEDED[0]}.{GO_NEEDED[1]}+ "
            "(https://go.dev/dl) and try again")
    for program in [*(root / "bin").iterdir(), *(root / "pkg" / "tool").glob("*/*")]:
        program.chmod(0o555)  # a module zip keeps no execute bits; Go's own toolchain switch sets them the same way
    env = {name: value for name, value in os.environ.items() if name != "GOROOT"}  # the old Go's root would mislead it
    env["GOTOOLCHAIN"] = "local"  # run exactly this one, never switch again
    return str(root / "bin" / "go"), env


def helper_address() -> str:
    """This labkit home's address for toxiproxy and its proxies (another user's are on their own range)."""
    from ..host import loopback

    return loopback.own_range().address(loopback.HELPER_INDEX)


class Toxiproxy:
    """A toxiproxy server labkit started: create proxies to nodes and set their latency. Each server is one
    instance per address (the lessons' WAN link on the helper address, a cluster's internode links on
    another), found and stopped by its own run directory, which its command line names."""

    def __init__(self, host: str | None = None, port: int = API_PORT):
        self.host, self.port = host or helper_address(), port
        self.directory = labkit_home() / "toxiproxy" / f"run-{self.host}"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "Toxiproxy":
        binary = install()
        self.stop()  # reap one an earlier run left
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "proxies.json").write_text("[]")  # none at start; named so the command line says whose server it is
        processes.spawn(
            [str(binary), "-host", self.host, "-port", str(self.port), "-config", str(self.directory / "proxies.json"),
             "-proxy-metrics=false", "-runtime-metrics=false"],
            cwd=self.directory,
            log=self.directory / "toxiproxy.log",
            pidfile=self.directory / "pid",
        )
        processes.wait_until(self._answers, 15, what="toxiproxy's HTTP API")
        return self

    def stop(self) -> None:
        """Stop this instance (the server whose command line names its run directory), by PID."""
        for proc in processes.processes_under(self.directory):
            processes.stop(proc, graceful=False)

    @staticmethod
    def stop_all() -> None:
        """Stop every toxiproxy server this labkit home started (`labkit down`), none of another user's."""
        for proc in processes.processes_under(labkit_home() / "toxiproxy"):
            processes.stop(proc, graceful=False)

    def enable(self, name: str, enabled: bool) -> None:
        """Open or close proxy `name`: closed, it drops its connections and refuses new ones (a cut link)."""
        self._call("POST", f"/proxies/{name}", {"enabled": enabled})

    def __enter__(self) -> "Toxiproxy":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _answers(self) -> bool:
        try:
            self._call("GET", "/version")
            return True
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def _call(self, method: str, path: str, body: dict | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                text = resp.read().decode()
        except urllib.error.HTTPError as exc:
            raise LabkitError(f"toxiproxy {method} {path} failed: {exc.code} {exc.read().decode(errors='replace')}") from exc
        try:
            return json.loads(text) if text else None
        except json.JSONDecodeError:
            return text

    def proxy(self, name: str, listen: str, upstream: str) -> dict:
        """Create (or replace) proxy `name`: clients connect to `listen`, traffic goes to `upstream`."""
        try:
            self._call("DELETE", f"/proxies/{name}")
        except LabkitError:
            pass
        return self._call("POST", "/proxies", {"name": name, "listen": listen, "upstream": upstream, "enabled": True})

    def set_latency(self, name: str, latency_ms: float, jitter_ms: float = 0, stream: str = "downstream") -> None:
        """Delay every chunk of data on proxy `name` in one direction by `latency_ms` (replacing the
        toxic of that direction if present; 0 removes it)."""
        toxic = f"latency_{stream}"
        try:
            self._call("DELETE", f"/proxies/{name}/toxics/{toxic}")
        except LabkitError:
            pass
        if latency_ms > 0:
            self._call(
                "POST",
                f"/proxies/{name}/toxics",
                {"name": toxic, "type": "latency", "stream": stream, "toxicity": 1.0, "attributes": {"latency": int(latency_ms), "jitter": int(jitter_ms)}},
            )

    def set_link_latency(self, name: str, one_way_ms: float, jitter_ms: float = 0) -> None:
        """A WAN link: `one_way_ms` each way, so every request/response pays twice that."""
        for stream in ("upstream", "downstream"):
            self.set_latency(name, one_way_ms, jitter_ms, stream)

    def proxies(self) -> dict:
        return self._call("GET", "/proxies")
