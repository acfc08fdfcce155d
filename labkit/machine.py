"""What this machine has (a JDK, a Docker engine, free ports), asked without importing any of labkit:
`labkit doctor` reports it and the providers choose from it."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess


def run_command(cmd: list[str], timeout: float = 15) -> tuple[int, str]:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return proc.returncode, (proc.stdout + proc.stderr).strip()
    except FileNotFoundError:
        return 127, f"{cmd[0]}: not found"
    except subprocess.TimeoutExpired:
        return 124, f"{' '.join(cmd)}: no answer within {timeout:.0f} s"


def java_major() -> tuple[int | None, str]:
    """Major version of the `java` on PATH (or JAVA_HOME), and the line it printed."""
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    code, out = run_command([java, "-version"])
    if code != 0:
        return None, out
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None, out.splitlines()[0] if out else "no version printed"
    major = int(m.group(1))
    if major == 1 and m.group(2):  # "1.8.0" style
        major = int(m.group(2))
    return major, out.splitlines()[0]


def docker_engine_usable() -> tuple[bool, str]:
    if shutil.which("docker") is None:
        return False, "no docker client on PATH"
    code, out = run_command(["docker", "info", "--format", "{{.ServerVersion}}"], timeout=10)
    if code != 0:
        return False, "docker client present, but no Docker engine answers"
    return True, f"Docker engine {out.splitlines()[-1] if out else ''}".strip()


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False
