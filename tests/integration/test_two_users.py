"""Two students on one lab server: two Unix users, each with their own labkit home, start 2-node clusters,
run a pattern and stop, at the same time, from one read-only cache of server jars an instructor provided.

As on a shared JupyterHub server (The Littlest JupyterHub and similar): one network namespace, no root
for the students, labkit installed once for everyone. Before loopback ranges per home, the second
student's start failed with "port 127.0.0.1:9042 (needed by node1) is taken by pid ...".
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import psutil
import pytest

from labkit.host import loopback
from labkit.faults.partition import rules

REPO = Path(__file__).resolve().parents[2]
SITE = Path(sysconfig.get_paths()["purelib"])
STUDENTS = ("labkit-student1", "labkit-student2")
SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")

pytestmark = [
    pytest.mark.full,  # two Unix users, each with a cluster of their own (194 s)
    pytest.mark.skipif(os.geteuid() != 0, reason="making two Unix users needs root"),
    pytest.mark.skipif(not SYSTEM_PYTHON.exists(), reason=f"the students need a Python {sys.version_info.major}.{sys.version_info.minor} "
                       f"outside root's home ({SYSTEM_PYTHON} is missing)"),
]


def readable_by_others(path: Path) -> bool:
    """Every directory up to `path` lets other users through (a clone in root's home would not)."""
    return all(p.stat().st_mode & 0o005 == 0o005 for p in [path, *path.parents] if p != Path("/"))


@pytest.fixture(scope="module")
def students():
    if not (readable_by_others(REPO) and readable_by_others(SITE)):
        pytest.skip(f"{REPO} or {SITE} is not readable by other users, so no student could run this labkit")
    made = []
    for name in STUDENTS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", name], check=True, capture_output=True)
            made.append(name)
    yield [pwd.getpwnam(name) for name in STUDENTS]
    for name in STUDENTS:
        for proc in psutil.process_iter(["username"]):
            if proc.info["username"] == name:  # by PID, only the students' own processes
                proc.kill()
    homes = {pwd.getpwnam(name).pw_dir for name in STUDENTS}
    for claim in loopback.claims():  # their loopback claims go with them
        if any(claim.home.startswith(home + "/") for home in homes):
            (loopback.CLAIMS / claim.prefix).unlink(missing_ok=True)
    for name in made:
        subprocess.run(["userdel", "--remove", name], capture_output=True)


@pytest.fixture(scope="module")
def shared_cache():
    """What an instructor does once, as root: `labkit provision --shared DIR`."""
    directory = Path(tempfile.mkdtemp(prefix="labkit-shared-cache-"))
    os.chmod(directory, 0o755)
    made = subprocess.run([str(Path(sys.executable).with_name("labkit")), "provision", "--shared", str(directory / "cache")],
                          capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stdout + made.stderr
    assert (directory / "cache" / "cassandra").is_dir() and "read-only for them" in made.stdout
    yield directory / "cache"
    shutil.rmtree(directory, ignore_errors=True)


def as_student(student: pwd.struct_passwd, shared: Path, *args: str) -> subprocess.Popen:
    """labkit as the student runs it: their own home and environment, the shared install and jar cache."""
    env = {"HOME": student.pw_dir, "USER": student.pw_name, "LOGNAME": student.pw_name, "PATH": "/usr/local/bin:/usr/bin:/bin",
           "PYTHONPATH": f"{REPO}:{SITE}", "LABKIT_SHARED_CACHE": str(shared), "LANG": "C.UTF-8"}
    return subprocess.Popen([str(SYSTEM_PYTHON), "-m", "labkit", *args], user=student.pw_uid, group=student.pw_gid, env=env,
                            cwd=student.pw_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def both(students, shared: Path, *args: str, timeout: int = 600) -> list[tuple[int, str, str]]:
    """The same command by both students at the same time."""
    procs = [as_student(s, shared, *args) for s in students]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        out.append((p.returncode, stdout, stderr))
    return out


def test_two_students_run_a_pattern_on_their_own_clusters_at_the_same_time(students, shared_cache):
    started = both(students, shared_cache, "up", "cassandra", "--nodes", "2")
    try:
        for code, stdout, stderr in started:
            assert code == 0, stdout + stderr
        statuses = [json.loads(stdout) for _code, stdout, _err in both(students, shared_cache, "status", "--json")]
        ranges = []
        for student, status in zip(students, statuses):
            [cluster] = status["clusters"]
            addresses = [n["address"] for n in cluster["nodes"]]
            assert [n["state"] for n in cluster["nodes"]] == ["UP", "UP"]
            [own] = [r for r in status["loopback_ranges"] if r["yours"]]
            assert own["user"] == student.pw_name and all(a.startswith(own["range"][:-4]) for a in addresses)
            ranges.append(own["range"])
            others = {r["user"] for r in status["loopback_ranges"] if not r["yours"] and r["serving"]}
            assert {s.pw_name for s in students if s is not student} <= others  # whose cluster is whose
        assert ranges[0] != ranges[1]
        for student in students:  # no jars of their own: both started from the instructor's copy
            assert not (Path(student.pw_dir) / ".cache" / "labkit" / "cassandra" / "5.0.9" / "lib").exists()
            jvms = [p for p in psutil.process_iter(["username", "name"]) if p.info["username"] == student.pw_name and p.info["name"] == "java"]
            assert len(jvms) == 2 and all(any(str(shared_cache) in part for part in p.cmdline()) for p in jvms)

        ran = both(students, shared_cache, "run", "index-table", "--phase", "login", "--nodes", "2", "--threads", "4",
                   "--operations", "200", "--set", "users=500", "--out", "rows.csv")
        for student, (code, stdout, stderr) in zip(students, ran):
            assert code == 0, stdout + stderr
            rows = list(csv.DictReader((Path(student.pw_dir) / "rows.csv").open()))
            assert {r["approach"] for r in rows} >= {"pattern"} and all(r["verify_state"] == "ok" for r in rows), rows
            assert all(r["nodes"] == "2" and r["provider"] == "local" for r in rows)
    finally:
        stopped = both(students, shared_cache, "down")
    for code, stdout, stderr in stopped:
        assert code == 0 and "stopped: cassandra" in stdout, stdout + stderr
    for student in students:  # stopped by PID: a killed JVM may stay a zombie a moment until init reaps it, holding nothing
        assert not [p for p in psutil.process_iter(["username", "name", "status"])
                    if p.info["username"] == student.pw_name and p.info["name"] == "java" and p.info["status"] != psutil.STATUS_ZOMBIE]

    # the UUID Key partition without root: each student's datacenters are cut through their own toxiproxy links
    cut = both(students, shared_cache, "run", "uuid-key", "--phase", "partition", "--nodes", "2", "--threads", "4",
               "--operations", "80", "--out", "partition.csv")
    for student, (code, stdout, stderr) in zip(students, cut):
        assert code == 0, stdout + stderr
        rows = {r["approach"]: r for r in csv.DictReader((Path(student.pw_dir) / "partition.csv").open())}
        assert {"naive", "pattern"} <= set(rows) and all(r["verify_state"] == "ok" for r in rows.values()), rows
    assert not rules()  # no iptables rule was needed (nor could a student have made one)

    # budgeted nodes without root: the signal helper holds each student's nodes to 0.15 core
    # 600 operations: a window of several seconds, so the credit a node starts with and the debt it ends on (each
    # about one helper tick of CPU, more on a loaded machine) stay small beside the budget it used
    held = both(students, shared_cache, "run", "index-table", "--phase", "login", "--nodes", "2", "--node-cpu", "0.15", "--threads", "8",
                "--operations", "600", "--set", "users=500", "--approaches", "pattern", "--out", "budgeted.csv")
    for student, (code, stdout, stderr) in zip(students, held):
        assert code == 0, stdout + stderr
        [row] = list(csv.DictReader((Path(student.pw_dir) / "budgeted.csv").open()))
        assert row["node_cpu"] == "0.15" and row["verify_state"] == "ok", row
        assert float(row["node_busy_max"]) <= 1.25, row  # a node's CPU over the window stays near its budget (share of 0.15 core)
    for student in students:
        assert not [p for p in psutil.process_iter(["username", "name", "status"])
                    if p.info["username"] == student.pw_name and p.info["name"] in ("java", "server") and p.info["status"] != psutil.STATUS_ZOMBIE]
