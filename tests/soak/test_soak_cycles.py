"""Soak: back-to-back `labkit up` / `labkit run` / `labkit down` cycles on real Cassandra (10 in `make test`, 20 with
`make soak`), node counts alternating, some under CPU budgets, and twice a notebook kernel killed (SIGKILL) in
the middle of a run that holds a network partition. After every `labkit down` nothing of labkit may be left: no server or
client process, no control group, no iptables rule. Why: an instructor runs 40 notebooks overnight and a
student's kernel dies; the next start must find a clean machine, or reap what is not.

Each command runs as a user types it (`python -m labkit ...` in a fresh process); each run must use the
cluster `labkit up` started (not restart it) and verify every transaction.
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from labkit.home import clusters_dir
from labkit.clusters.local import budgets
from labkit.host.processes import processes_under
from labkit.faults.partition import _mounted_net_cls, rules as partition_rules

CYCLES = int(os.environ.get("LABKIT_SOAK_CYCLES", "10"))
"""Ten cover every check once over: each of the five runs on 1 node and on 2 (five is odd, nodes alternate), a budget
on each node count (every third cycle), and two killed kernels. More cycles look for what only builds up slowly."""
KERNEL_KILLED_BEFORE = (max(2, CYCLES * 2 // 5), max(3, CYCLES * 4 // 5))  # a notebook kernel is killed mid-run just before these cycles
RUNS = [  # small runs of every pattern that needs one datacenter: what each cycle's `labkit run` measures
    ["index-table", "--phase", "login", "--set", "users=50"],
    ["fan-out", "--phase", "paginate", "--set", "users=20", "--set", "follows=5", "--set", "posts=3"],
    ["enumerable-keys", "--phase", "paginate", "--set", "comments=60"],
    ["distorted-replicas", "--phase", "read", "--set", "publications=200"],
    ["ycsb", "--workload", "a", "--set", "records=200"],
]
OPERATIONS = "60"

pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="the soak checks CPU budgets and partitions, which need root"), pytest.mark.full]  # full tier: the up/run/down soak


def labkit(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "labkit", *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"labkit {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def iptables_rules() -> list[str]:
    if os.geteuid() != 0:
        return []
    out = subprocess.run(["iptables", "-w", "-S"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "LABKIT" in line.upper()]


def net_cls_groups() -> list[Path]:
    root = _mounted_net_cls()
    return sorted(root.glob("labkit-*")) if root is not None else []


def leftovers(orphans: list[psutil.Process]) -> dict[str, list]:
    """What labkit left on this machine: processes under its cluster directories, the killed kernels'
    client processes, budget control groups, partition groups and iptables rules."""
    alive = [p for p in orphans if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    found = {
        "server processes": [p.pid for p in processes_under(clusters_dir())],
        "killed kernels' processes": [p.pid for p in alive],
        "budget groups": budgets.leftover_groups(),
        "partition groups": net_cls_groups(),
        "iptables rules": iptables_rules(),
    }
    return {what: items for what, items in found.items() if items}


KERNEL_RUN = textwrap.dedent(
    """
    from labkit.catalogue import describe
    from labkit.sweeps import SweepPlan, SweepRequest, run_sweep

    pattern = describe("uuid-key")
    plan = SweepPlan(pattern="uuid-key", approaches=pattern.approaches_for("partition"), threads=[2], nodes=[2], operations=400000, processes=1)
    run_sweep(SweepRequest(pattern, plan, phase="partition", node_cpu=0.5), echo=print)
    """
)


def _outputs(kc) -> str:
    """What the kernel printed so far (its error, when the run failed before the partition)."""
    said = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=0.2)
        except Exception:
            return "".join(said)[-3000:] or "(nothing printed)"
        content = msg["content"]
        said.append(content.get("text", "") + (f"{content['ename']}: {content['evalue']}" if msg["msg_type"] == "error" else ""))


def kill_a_kernel_mid_run() -> list[psutil.Process]:
    """Start a notebook kernel, run a partition sweep in it, SIGKILL the kernel once the partition holds and
    transactions run; return the kernel's descendants other than servers (they must not outlive it)."""
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(Path.cwd()))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        kc.execute(KERNEL_RUN)
        kernel = psutil.Process(km.provisioner.process.pid)
        deadline = time.monotonic() + 240
        while not (partition_rules() and budgets.leftover_groups()):
            assert time.monotonic() < deadline, f"the kernel's run never reached its partition: {_outputs(kc)}"
            assert kernel.is_running(), "the kernel died before the partition"
            time.sleep(0.5)
        time.sleep(3)  # mid-run: transactions in flight against a partitioned, budgeted cluster
        descendants = kernel.children(recursive=True)
        os.kill(kernel.pid, signal.SIGKILL)
        kernel.wait(30)
    finally:
        kc.stop_channels()
        if km.is_alive():  # the test failed before its kill: the kernel's run must not hold the cluster for the tests after it
            km.shutdown_kernel(now=True)
            subprocess.run([sys.executable, "-m", "labkit", "down"], capture_output=True, timeout=300)  # and its cluster, by PID
        km.cleanup_resources()
    return [p for p in descendants if "java" not in p.name()]  # the servers are the next start's to reap


def rows_of(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.timeout(90 * CYCLES)  # 20-25 s a cycle here; the default 600 s is for one test of one thing
def test_up_run_down_cycles_leave_nothing_behind(tmp_path, monkeypatch):
    assert CYCLES >= 6, f"LABKIT_SOAK_CYCLES={CYCLES}: the soak needs at least 6 cycles to run each check on both node counts"
    monkeypatch.chdir(tmp_path)
    labkit("down")
    assert leftovers([]) == {}, "the machine was not clean before the soak"
    orphans: list[psutil.Process] = []
    timings = []
    for cycle in range(1, CYCLES + 1):
        if cycle in KERNEL_KILLED_BEFORE:
            orphans += kill_a_kernel_mid_run()
            assert partition_rules() and processes_under(clusters_dir()), "a killed kernel left no partition or server to reap: nothing was tested"
        nodes = 1 if cycle % 2 else 2
        budget = ["--node-cpu", "0.5"] if cycle % 3 == 0 else []
        run = RUNS[(cycle - 1) % len(RUNS)]
        out = tmp_path / f"cycle{cycle}.csv"
        started = time.monotonic()

        up = labkit("up", "cassandra", "--nodes", str(nodes), *budget)
        assert f"{nodes} node" in up.stdout, up.stdout
        assert not iptables_rules() and not net_cls_groups(), "the start did not heal the partition a killed kernel left"
        status = labkit("status")
        assert status.stdout.count(" UP ") == nodes, status.stdout

        ran = labkit("run", *run, "--nodes", str(nodes), "--threads", "2", "--operations", OPERATIONS, "--processes", "1", *budget, "--out", str(out))
        assert "using the cluster `labkit up` started" in ran.stdout, ran.stdout  # measured, not restarted
        rows = rows_of(out)
        assert rows and all(r["verify_ok"] == "True" and r["nodes"] == str(nodes) and r["provider"] == "local" for r in rows), rows
        assert all(r["complete"] == "True" for r in rows)
        assert labkit("status").stdout.count(" UP ") == nodes, "the run stopped the cluster `labkit up` started"

        down = labkit("down")
        assert "stopped: cassandra" in down.stdout, down.stdout
        deadline = time.monotonic() + 20  # a killed kernel's clients notice their parent is gone
        while (left := leftovers(orphans)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert left == {}, f"cycle {cycle} ({nodes} nodes, {run[0]}) left {left}"
        timings.append((cycle, nodes, run[0], bool(budget), round(time.monotonic() - started, 1)))
    print("\n".join(f"cycle {c:>2}: {n} node(s) {'budget ' if b else ''}{r} in {s} s" for c, n, r, b, s in timings))
