"""Static validation of compose files with the real compose implementation, where no Docker engine runs.

`docker compose config` parses, interpolates and validates a file against the compose specification
without talking to an engine. Where the docker client lacks the compose plugin, Docker Compose v2 is
built from the Go module proxy into labkit's cache (a wrapper module is needed because compose's own
go.mod has `exclude` directives, which `go install module@version` refuses).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from ...errors import LabkitError, NotAvailableError
from ...home import labkit_home

COMPOSE_MODULE = "github.com/docker/compose/v2"
COMPOSE_VERSION = "v2.40.3"


def cached_binary() -> Path:
    return labkit_home() / "tools" / f"docker-compose-{COMPOSE_VERSION}"


def compose_command() -> list[str]:
    """How to call compose here: the docker plugin if present, else labkit's cached build (made on demand)."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    binary = cached_binary()
    if not binary.exists():
        build(binary)
    return [str(binary)]


def _go(args: list[str], cwd: Path, timeout: float = 1800) -> str:
    env = dict(os.environ, GOFLAGS="-mod=mod", CGO_ENABLED="0")
    result = subprocess.run(["go", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if result.returncode != 0:
        raise LabkitError(f"`go {' '.join(args)}` failed while building Docker Compose:\n{result.stderr.strip()[-3000:]}")
    return result.stdout


def build(target: Path) -> Path:
    """Build Docker Compose COMPOSE_VERSION with Go into `target` (a few minutes, once)."""
    if shutil.which("go") is None:
        raise NotAvailableError("validating compose files needs `docker compose`, or Go to build it (apt-get install golang, or go.dev/dl)")
    work = target.parent / f"compose-build-{COMPOSE_VERSION}"
    shutil.rmtree(work, ignore_errors=True)  # a half-written module from an interrupted build would confuse go
    work.mkdir(parents=True)
    info = json.loads(_go(["mod", "download", "-json", f"{COMPOSE_MODULE}@{COMPOSE_VERSION}"], work))
    upstream = Path(info["GoMod"]).read_text()
    go_line = next(line for line in upstream.splitlines() if line.startswith("go "))
    excludes = "\n".join(re.findall(r"^exclude \($.*?^\)$", upstream, flags=re.MULTILINE | re.DOTALL))
    (work / "go.mod").write_text(f"module labkit.invalid/composebuild\n\n{go_line}\n\n{excludes}\n")
    _go(["get", f"{COMPOSE_MODULE}/cmd@{COMPOSE_VERSION}"], work)
    tmp = target.with_suffix(".tmp")
    _go(["build", "-trimpath", "-o", str(tmp), f"{COMPOSE_MODULE}/cmd"], work)
    os.replace(tmp, target)
    return target


def config(path: Path, *extra_files: Path) -> str:
    """`docker compose -f path [-f extra] config`: the normalised model, or an error with compose's own words."""
    cmd = compose_command()
    files = [arg for f in (path, *extra_files) for arg in ("--file", str(f))]
    result = subprocess.run([*cmd, *files, "config"], capture_output=True, text=True, timeout=120, cwd=path.parent)
    if result.returncode != 0:
        raise LabkitError(f"{path.name} is not a valid compose file:\n{result.stderr.strip()}")
    return result.stdout
