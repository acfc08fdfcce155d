"""CPU budgets for local server processes: each node becomes a small machine of its own.

Local nodes share the machine's cores, so without a budget more nodes means more work on the same CPU,
not more capacity. A budget puts a node's process (every thread of it) into a labkit-owned control
group with a CFS quota: cgroup v1's `cpu` controller (cpu.cfs_period_us / cpu.cfs_quota_us) or cgroup
v2's `cpu.max`, whichever this machine offers. Groups live under `<cpu root>/labkit/<cluster>/<node>`
and are removed when the cluster stops, on `labkit down`, and when a later start reaps a dead run.
"""

from __future__ import annotations

import errno
import hashlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import NotAvailableError
from ..contract import check_cores
from . import signal_budgets

DEFAULT_PERIOD_US = 10_000
"""CFS period: the budget is a quota of CPU time per period. Measured here side by side (primary-key
mix, 0.15 core per node, 48 in flight, order 10/100/100/10 ms on one cluster; benchmarks/results/
node_budgets_cfs_period*.md): throughput did not depend on the period beyond the drift between runs (1
node: 402 and 513 ops/s at 10 ms, 482 and 491 at 100 ms; 4 nodes: 477 and 746 vs 586 and 601; the
lowest and highest were the first and the last runs), p95 was 110-145 ms at 100 ms and 138-248 ms at
10 ms. 10 ms stays the default because every committed budgeted benchmark ran with it and the period
does not move throughput; Docker's `--cpus` (the compose provider's `cpus:`) spreads its quota over
100 ms, so compare local and compose tails with that in mind."""

V1_ROOT = Path("/sys/fs/cgroup/cpu")
V2_ROOT = Path("/sys/fs/cgroup")

UNSUPPORTED_ADVICE = (
    "Per-node CPU budgets need Linux control groups that labkit may write: run as root (or with a cgroup "
    "delegated to your user), or use the compose provider, whose per-service `cpus:` limit does the same "
    "inside Docker. Without a budget (node_cpu=None) every node shares all of this machine's cores."
)


@dataclass(frozen=True)
class Backend:
    """Which cgroup interface this machine has and where labkit's groups go."""

    version: str  # "v1" or "v2"
    root: Path  # the cpu hierarchy's root directory

    @property
    def home(self) -> Path:
        return self.root / "labkit"


SIGNALS_FALLBACK = True
"""Budgets fall back to the signal helper (signal_budgets) where control groups are not writable (a lab
server's students, hub pods). Decided by benchmarks/unprivileged_budgets.py (results/unprivileged_budgets*):
Index Table login on 3 nodes at 0.15 core, 32 in flight, 3 interleaved repeats each: pattern / legacy-index
ratio 2.64, 1.95, 2.63 (median 2.63) with control groups, 2.19, 2.38, 1.81 (median 2.19) with the helper,
0.83 of it (the rule: within 25%), every point limited by a node; the two ranges overlap."""


def cgroups_writable() -> bool:
    """Whether this user can budget nodes with control groups (what the cgroup-specific tests need)."""
    return _detect_cgroups()[0] is not None


def _by_signals() -> bool:
    """Budgets through the signal helper: asked for (LABKIT_BUDGETS=signals), or the fallback here."""
    return signal_budgets.wanted() or (SIGNALS_FALLBACK and _detect_cgroups()[0] is None and sys.platform.startswith("linux"))


def _is_signals_group(group: Path) -> bool:
    return (group / "quota").exists()


def detect() -> tuple[Backend | None, str]:
    """(backend, "") where budgets can be set here, else (None, why not)."""
    if _by_signals():
        return Backend("signals", Path("/proc")), ""
    return _detect_cgroups()


def _detect_cgroups() -> tuple[Backend | None, str]:
    if not sys.platform.startswith("linux"):
        return None, f"control groups are Linux only (this is {sys.platform})"
    root = Path(os.environ.get("LABKIT_CGROUP_CPU_ROOT", "")) if os.environ.get("LABKIT_CGROUP_CPU_ROOT") else None
    candidates = [root] if root else [V1_ROOT, V2_ROOT]
    reasons = []
    for path in candidates:
        if (path / "cpu.cfs_quota_us").exists():
            backend = Backend("v1", path)
        elif "cpu" in _read(path / "cgroup.controllers").split():
            backend = Backend("v2", path)
        else:
            reasons.append(f"{path} has no cpu controller")
            continue
        if os.access(path, os.W_OK) or os.access(backend.home, os.W_OK):
            return backend, ""
        reasons.append(f"{path} is not writable by user {os.getuid()}")
    return None, "; ".join(reasons) or "no cgroup cpu controller found"


def checked(node_cpu: object) -> float | None:
    """check_cores, and when a budget is asked for, require() now: a cluster says so before minutes of
    start-up, not after."""
    cores = check_cores(node_cpu)
    if cores is not None:
        require()
    return cores


def budget_processes(directory: Path, processes: dict, cores: float | None, period_us: int = DEFAULT_PERIOD_US) -> None:
    """Give each named process ({node: psutil.Process}) a budget of `cores` per CFS period of `period_us`;
    None removes the cluster's budgets (the processes go back to the root group). One place for every
    local provider."""
    if cores is None:
        remove(directory)
        return
    for node, proc in processes.items():
        apply(directory, node, proc.pid, cores, period_us)


def require() -> Backend:
    backend, why = detect()
    if backend is None:
        raise NotAvailableError(f"cannot give nodes a CPU budget on this machine: {why}. {UNSUPPORTED_ADVICE}")
    return backend


def cluster_group(directory: Path) -> str:
    """The group name of the cluster kept in `directory`: readable, and distinct per LABKIT_HOME."""
    digest = hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:8]
    return f"{directory.name}-{digest}"


def apply(directory: Path, node: str, pid: int, cores: float, period_us: int = DEFAULT_PERIOD_US) -> Path:
    """Put process `pid` (all its threads, and threads it starts later) under a budget of `cores`."""
    backend = require()
    if backend.version == "signals":
        return signal_budgets.apply(directory, node, pid, cores)
    group = backend.home / cluster_group(directory) / node
    if backend.version == "v2":
        _enable_cpu_controller(backend, group)
    _set_group_quota(backend, group, cores, period_us)
    _write(group / "cgroup.procs", str(pid))  # moves the whole thread group
    stray = [tid for tid in _threads(pid) if not _in_group(tid, group, backend)]
    for tid in stray:  # a thread created while moving (v1 moves them one by one)
        _write(group / ("tasks" if backend.version == "v1" else "cgroup.threads"), str(tid))
    return group


def cap_cluster(directory: Path, cores: float, period_us: int = DEFAULT_PERIOD_US) -> Path:
    """Cap the cluster's own group at `cores` in all: its nodes' groups, and any process put into a group of
    its own beside them (a gateway), then share that total (the kernel charges a child group's CPU to its
    parent's quota too). Control groups only: the signal budgets pause one process at a time."""
    backend = require()
    if backend.version == "signals":
        raise NotAvailableError("a CPU total shared by a cluster's processes needs control groups; the signal budgets this machine "
                                f"uses pause one process at a time. {UNSUPPORTED_ADVICE}")
    top = backend.home / cluster_group(directory)
    if backend.version == "v2":
        _enable_cpu_controller(backend, top)
    _set_group_quota(backend, top, cores, period_us)
    return top


def _set_group_quota(backend: Backend, group: Path, cores: float, period_us: int) -> None:
    """Make `group` (if needed) and give it a quota of `cores` per CFS period of `period_us` (v1 or v2 files)."""
    group.mkdir(parents=True, exist_ok=True)
    quota = max(1000, int(round(cores * period_us)))
    if backend.version == "v1":
        _write(group / "cpu.cfs_period_us", str(period_us))
        _write(group / "cpu.cfs_quota_us", str(quota))
    else:
        _write(group / "cpu.max", f"{quota} {period_us}")


def cluster_group_path(directory: Path) -> Path | None:
    """The cluster's own control group (the parent of its nodes' groups), None without control groups."""
    backend, _ = _detect_cgroups()
    return backend.home / cluster_group(directory) if backend is not None else None


def cluster_cap(directory: Path) -> tuple[float, int] | None:
    """(cores, period_us) of the cap on the cluster's own group (cap_cluster), or None when it has none."""
    top = cluster_group_path(directory)
    return budget_of(top) if top is not None and top.exists() else None


def set_quota(group: Path, cores: float | None) -> None:
    """Change the quota of an existing group in place, keeping its CFS period; None lifts it (the members
    stay in the group)."""
    if _is_signals_group(group):
        return signal_budgets.set_quota(group, cores)
    period_us = _period_of(group)
    quota = -1 if cores is None else max(1000, int(round(cores * period_us)))
    if (group / "cpu.cfs_quota_us").exists():
        _write(group / "cpu.cfs_quota_us", str(quota))
    else:
        _write(group / "cpu.max", f"{'max' if quota < 0 else quota} {period_us}")


def _period_of(group: Path) -> int:
    if (group / "cpu.cfs_period_us").exists():
        return int(_read(group / "cpu.cfs_period_us"))
    return int(_read(group / "cpu.max").split()[1])


def group_of(directory: Path, node: str) -> Path | None:
    signalled = signal_budgets.group_of(directory, node)
    if signalled is not None:
        return signalled
    backend, _ = _detect_cgroups()
    if backend is None:
        return None
    group = backend.home / cluster_group(directory) / node
    return group if group.exists() else None


def budget_of(group: Path) -> tuple[float, int] | None:
    """(cores, period_us) set on `group`, or None when it has no quota."""
    if _is_signals_group(group):
        return signal_budgets.budget_of(group)
    if (group / "cpu.cfs_quota_us").exists():
        quota, period = int(_read(group / "cpu.cfs_quota_us")), int(_read(group / "cpu.cfs_period_us"))
    else:
        text = _read(group / "cpu.max").split()
        if len(text) != 2 or text[0] == "max":
            return None
        quota, period = int(text[0]), int(text[1])
    return (quota / period, period) if quota > 0 else None


def throttling(group: Path) -> dict[str, float]:
    """The group's cumulative throttling counters: periods, throttled periods, throttled seconds."""
    if _is_signals_group(group):
        return signal_budgets.throttling(group)
    stat = dict(line.split() for line in _read(group / "cpu.stat").splitlines() if len(line.split()) == 2)
    if "throttled_time" in stat:  # v1: nanoseconds
        throttled_s = int(stat["throttled_time"]) / 1e9
    else:  # v2: microseconds
        throttled_s = int(stat.get("throttled_usec", 0)) / 1e6
    return {"periods": float(stat.get("nr_periods", 0)), "throttled_periods": float(stat.get("nr_throttled", 0)), "throttled_s": throttled_s}


def threads_outside(directory: Path, node: str, pid: int) -> list[int]:
    """Threads of `pid` that are not in the node's group (empty when the budget holds them all)."""
    if signal_budgets.group_of(directory, node) is not None:
        return []  # a signal pauses the whole process: no thread is outside
    backend = require()
    group = backend.home / cluster_group(directory) / node
    return [tid for tid in _threads(pid) if not _in_group(tid, group, backend)]


def remove(directory: Path, node: str | None = None) -> list[Path]:
    """Remove the cluster's groups (or one node's). Processes still inside go back to the root group
    first (a group with members cannot be removed); returns the groups removed."""
    removed = signal_budgets.remove(directory, node) if signal_budgets.root(directory).exists() else []
    backend, _ = _detect_cgroups()
    if backend is None:
        return removed
    top = backend.home / cluster_group(directory)
    targets = [top / node] if node else ([*sorted(p for p in top.iterdir() if p.is_dir()), top] if top.exists() else [])
    for group in targets:
        if group.exists() and _rmdir(group, backend):
            removed.append(group)
    if backend.home.exists() and not any(p.is_dir() for p in backend.home.iterdir()):
        if _rmdir(backend.home, backend):  # labkit's own parent group goes with its last cluster
            removed.append(backend.home)
    return removed


def leftover_groups() -> list[Path]:
    """Every control group labkit made on this machine (for tests and `labkit status`)."""
    backend, _ = _detect_cgroups()
    if backend is None or not backend.home.exists():
        return []
    return [backend.home, *sorted(p for p in backend.home.rglob("*") if p.is_dir())]


# ---- file-system details -------------------------------------------------------------------------


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _write(path: Path, value: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError as exc:
        if exc.errno == errno.ESRCH:
            return  # the process or thread is already gone
        raise NotAvailableError(f"cannot write {value!r} to {path}: {exc.strerror}. {UNSUPPORTED_ADVICE}") from exc


def _enable_cpu_controller(backend: Backend, group: Path) -> None:
    """cgroup v2 delegates a controller level by level: each parent must list +cpu in subtree_control."""
    for parent in [backend.root / p for p in group.relative_to(backend.root).parents][::-1]:
        parent.mkdir(exist_ok=True)
        if "cpu" not in _read(parent / "cgroup.subtree_control").split():
            _write(parent / "cgroup.subtree_control", "+cpu")


def _threads(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def _in_group(tid: int, group: Path, backend: Backend) -> bool:
    relative = "/" + str(group.relative_to(backend.root))
    for line in _read(Path(f"/proc/{tid}/cgroup")).splitlines():
        _id, controllers, path = line.split(":", 2)
        if (backend.version == "v1" and "cpu" in controllers.split(",")) or (backend.version == "v2" and controllers == ""):
            return path == relative
    return False


def _rmdir(group: Path, backend: Backend) -> bool:
    for attempt in range(50):
        try:
            group.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return False
            for pid in _read(group / "cgroup.procs").split():  # still inside: back to the root group
                _write(backend.root / "cgroup.procs", pid)
            time.sleep(0.02 * (attempt + 1))
    return False
