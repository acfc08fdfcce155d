"""`make`'s system packages (labkit/system-deps.sh) and `labkit doctor`: one list, the same package names,
and the Go that builds toxiproxy. The script runs here on a PATH of stand-in commands only, so it never
reaches the machine's apt-get."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from labkit import doctor
from labkit.errors import NotAvailableError
from labkit.faults import latency

SCRIPT = doctor.SYSTEM_DEPS
PYVER = "%d.%d" % sys.version_info[:2]


def _program(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def _bin(tmp_path: Path, *, java17=False, mvn=False, go=False, iptables=False, chromium=False, root=False) -> Path:
    """A PATH holding only what the script itself uses (awk, grep) and the stand-ins asked for."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("awk", "grep"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    _program(bin_dir, "id", 'echo 0' if root else f'exec {shutil.which("id")} "$@"')
    if java17:
        _program(bin_dir, "java", "echo 'openjdk version \"17.0.15\" 2025-04-15' >&2")
        _program(bin_dir, "javac", "exit 0")
    for name, wanted in (("mvn", mvn), ("go", go), ("iptables", iptables), ("chromium", chromium)):
        if wanted:
            _program(bin_dir, name, "exit 0")
    return bin_dir


def _python(tmp_path: Path, ensurepip: bool) -> str:
    """A python that answers the version question like this one and has, or lacks, ensurepip."""
    fail = "" if ensurepip else 'case "$*" in *ensurepip*) exit 1;; esac\n'
    return str(_program(tmp_path, "python", fail + f'exec {sys.executable} "$@"'))


def _run(tmp_path: Path, bin_dir: Path, python: str, *groups: str) -> subprocess.CompletedProcess:
    env = {"PATH": str(bin_dir), "PYTHON": python, "HOME": str(tmp_path / "home"),
           "LABKIT_HOME": str(tmp_path / "labkit"), "LABKIT_SHARED_CACHE": str(tmp_path / "shared")}
    return subprocess.run(["/bin/sh", str(SCRIPT), *groups], capture_output=True, text=True, env=env, timeout=30)


def test_make_names_every_missing_package_on_one_line_and_stops(tmp_path):
    r = _run(tmp_path, _bin(tmp_path), _python(tmp_path, ensurepip=False), "required", "optional")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines[-1] == f"  apt-get install openjdk-17-jdk-headless maven golang-go python{PYVER}-venv"
    assert lines[-2] == "install them (as root), then run make again:"
    assert "note: iptables is missing" in r.stdout and "Chromium" not in r.stdout
    for name in ("JDK 17", "Maven", "Go", "Python venv"):
        assert f"  {name}: " in r.stdout


def test_nothing_missing_says_nothing(tmp_path):
    bin_dir = _bin(tmp_path, java17=True, mvn=True, go=True, iptables=True, chromium=True)
    r = _run(tmp_path, bin_dir, _python(tmp_path, ensurepip=True), "required", "optional", "browser")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_an_optional_package_alone_is_a_note_not_a_stop(tmp_path):
    r = _run(tmp_path, _bin(tmp_path, java17=True, mvn=True, go=True), _python(tmp_path, ensurepip=True), "required", "optional", "browser")
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        "note: iptables is missing (it cuts the links of network partitions as root; toxiproxy does it otherwise): apt-get install iptables",
        "note: Chromium is missing (it runs make test's JupyterLab browser test): apt-get install chromium",
    ]


def test_a_built_toxiproxy_stands_in_for_go(tmp_path):
    server = tmp_path / "shared" / "toxiproxy" / latency.VERSION / "server"
    server.parent.mkdir(parents=True)
    _program(server.parent, "server", "exit 0")
    r = _run(tmp_path, _bin(tmp_path, java17=True, mvn=True), _python(tmp_path, ensurepip=True), "required")
    assert r.returncode == 0, r.stdout


def test_as_root_it_installs_only_the_missing_packages(tmp_path):
    bin_dir = _bin(tmp_path, java17=True, mvn=True, root=True)
    calls = tmp_path / "apt-get.calls"
    _program(bin_dir, "apt-get", f'echo "$*" >> {calls}')  # installs nothing: what is missing stays missing
    r = _run(tmp_path, bin_dir, _python(tmp_path, ensurepip=True), "required", "optional")
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq golang-go iptables"]
    assert "installing golang-go (Go), which builds toxiproxy" in r.stdout
    assert r.returncode == 1 and r.stdout.splitlines()[-1] == "  apt-get install golang-go"


def test_doctor_checks_the_same_list_with_the_same_packages(monkeypatch, tmp_path):
    table = doctor.system_packages()
    assert list(table) == ["JDK 17", "Maven", "Go", "Python venv", "iptables", "Chromium"]
    assert table["Python venv"].package == f"python{PYVER}-venv"
    assert [n for n, p in table.items() if p.required] == ["JDK 17", "Maven", "Go", "Python venv"]
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path / "labkit"))
    monkeypatch.setenv("LABKIT_SHARED_CACHE", str(tmp_path / "shared"))
    monkeypatch.setattr(doctor.importlib.util, "find_spec", lambda name: None)
    checks = doctor.system_checks()
    assert [c.name for c in checks] == list(table)
    for check in checks:
        assert not check.ok and check.required == table[check.name].required
        assert f"apt-get install {table[check.name].package} " in check.fix


def test_doctor_takes_the_table_of_the_script_that_make_runs():
    assert doctor.SYSTEM_DEPS == Path(doctor.__file__).with_name("system-deps.sh")
    assert "labkit/system-deps.sh" in (Path(doctor.__file__).parents[1] / "Makefile").read_text()
    assert f"TOXIPROXY={latency.VERSION} " in SCRIPT.read_text()


def _fake_go(tmp_path: Path, version: str, download: str) -> str:
    log = tmp_path / "go.calls"
    body = f"""echo "$*" >> {log}
case "$1" in
  version) echo "go version go{version} linux/amd64" ;;
  env) printf 'linux\\namd64\\n' ;;
  mod) {download} ;;
esac"""
    return str(_program(tmp_path, "go", body))


def test_a_go_new_enough_builds_toxiproxy_itself(tmp_path):
    go = _fake_go(tmp_path, "1.26.8", "exit 1")
    assert latency.go_for_toxiproxy(go)[0] == go


def test_an_older_go_fetches_the_toolchain_toxiproxy_needs(tmp_path, monkeypatch):
    root = tmp_path / "mod" / f"golang.org/toolchain@v0.0.1-{latency.TOOLCHAIN}.linux-amd64"
    for part in ("bin/go", "bin/gofmt", "pkg/tool/linux_amd64/compile"):
        (root / part).parent.mkdir(parents=True, exist_ok=True)
        (root / part).write_text("")
        (root / part).chmod(0o444)  # as a module zip leaves them
    go = _fake_go(tmp_path, "1.19.8", f"echo '{json.dumps({'Dir': str(root)})}'")
    monkeypatch.setenv("GOROOT", "/usr/lib/go-1.19")
    built_with, env = latency.go_for_toxiproxy(go)
    assert built_with == str(root / "bin" / "go")
    assert f"mod download -json golang.org/toolchain@v0.0.1-{latency.TOOLCHAIN}.linux-amd64" in (tmp_path / "go.calls").read_text()
    assert env["GOTOOLCHAIN"] == "local" and "GOROOT" not in env
    for part in ("bin/go", "pkg/tool/linux_amd64/compile"):
        assert (root / part).stat().st_mode & stat.S_IXUSR


def test_an_older_go_that_cannot_fetch_one_says_which_go_is_needed(tmp_path):
    go = _fake_go(tmp_path, "1.19.8", """echo '{"Error": "proxy.golang.org: no such host"}'; exit 1""")
    with pytest.raises(NotAvailableError, match=r"needs Go 1\.23 or newer.*no such host.*go\.dev/dl"):
        latency.go_for_toxiproxy(go)


def test_doctor_says_an_older_go_is_enough(tmp_path, monkeypatch):
    _fake_go(tmp_path, "1.19.8", "exit 1")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("LABKIT_HOME", str(tmp_path / "labkit"))
    monkeypatch.setenv("LABKIT_SHARED_CACHE", str(tmp_path / "shared"))
    check = doctor.check_go()
    assert check.ok and check.required
    assert f"fetches {latency.TOOLCHAIN} from the Go module proxy" in check.detail
