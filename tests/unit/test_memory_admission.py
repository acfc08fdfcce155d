"""Local nodes start only when the memory they need is free: the host's, or a control group's limit minus
what the group uses (a container, a hub pod), and a refusal says how many nodes fit."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from labkit.clusters.local import memory
from labkit.errors import NotAvailableError

GIB = memory.GIB


def cgroup_v2(tmp_path: Path, limit: str, current: int, inactive_file: int = 0) -> tuple[Path, Path]:
    root = tmp_path / "cg"
    (root / "hub" / "pod").mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory\n")
    (root / "hub" / "memory.max").write_text("max\n")
    (root / "hub" / "memory.current").write_text(str(current) + "\n")
    (root / "hub" / "pod" / "memory.max").write_text(limit + "\n")
    (root / "hub" / "pod" / "memory.current").write_text(str(current) + "\n")
    (root / "hub" / "pod" / "memory.stat").write_text(f"anon 1\ninactive_file {inactive_file}\nactive_file 3\n")
    own = tmp_path / "self-cgroup"
    own.write_text("0::/hub/pod\n")
    return root, own


def test_a_pod_limit_below_the_hosts_free_memory_is_what_counts(tmp_path):
    root, own = cgroup_v2(tmp_path, str(2 * GIB), current=int(1.25 * GIB), inactive_file=int(0.25 * GIB))
    free = memory.free_memory(root, own)
    assert free.bytes == GIB  # 2 GiB limit - (1.25 GiB used - 0.25 GiB of file cache the kernel gives back)
    assert "control group /hub/pod (2.0 GiB)" in free.source
    assert memory.nodes_that_fit(free) == 1


def test_no_limit_leaves_the_hosts_available_memory(tmp_path):
    root, own = cgroup_v2(tmp_path, "max", current=GIB)
    assert memory.free_memory(root, own).source == "the host"


def test_cgroup_v1_limits_are_read_from_the_memory_hierarchy(tmp_path):
    group = tmp_path / "cg" / "memory" / "lab" / "student7"
    group.mkdir(parents=True)
    (tmp_path / "cg" / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # the root: no limit
    (tmp_path / "cg" / "memory" / "memory.usage_in_bytes").write_text("123\n")
    (group / "memory.limit_in_bytes").write_text(str(3 * GIB))
    (group / "memory.usage_in_bytes").write_text(str(GIB))
    own = tmp_path / "self"
    own.write_text("4:memory:/lab/student7\n1:cpu:/\n")
    free = memory.free_memory(tmp_path / "cg", own)
    assert free.bytes == 2 * GIB and "/lab/student7" in free.source


def test_a_refusal_says_how_many_nodes_fit_and_where_else_to_go():
    small = memory.FreeMemory(int(1.9 * GIB), "the memory limit of control group /hub/pod (2.0 GiB)")
    memory.admit(2, free=small)  # 1.8 GiB: fits
    with pytest.raises(NotAvailableError) as refused:
        memory.admit(3, free=small)
    text = str(refused.value)
    assert "3 more local Cassandra nodes need about 2.7 GiB" in text and "so 2 nodes fit" in text and "--nodes 2" in text
    assert "--provider external" in text and "/hub/pod" in text
    with pytest.raises(NotAvailableError, match="cannot add a node: .*not even one node fits"):
        memory.admit(1, free=memory.FreeMemory(GIB // 4, "the host"), starting="add a node")


CHILD = """
from labkit.clusters.local import memory
free = memory.free_memory()
print(memory.nodes_that_fit(free), free.source)
try:
    memory.admit(3)
except Exception as exc:
    print("refused:", exc)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a memory-limited control group needs root")
def test_a_process_in_a_memory_limited_control_group_is_refused_what_does_not_fit():
    """A real control group with a 1.2 GiB limit (as a hub pod would have): a Python process inside it finds one
    node fits and is refused three."""
    v2 = Path("/sys/fs/cgroup/cgroup.controllers").exists()
    base = Path("/sys/fs/cgroup") if v2 else Path("/sys/fs/cgroup/memory")
    group = base / f"labkit-test-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
        (group / ("memory.max" if v2 else "memory.limit_in_bytes")).write_text(str(int(1.2 * GIB)))
    except OSError as exc:
        pytest.skip(f"no writable memory controller here: {exc}")
    try:
        procs = group / "cgroup.procs"
        child = subprocess.Popen([sys.executable, "-c", f"import os,time\nopen({str(procs)!r},'w').write(str(os.getpid()))\n{CHILD}"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        first, refusal = out.splitlines()[0], out.splitlines()[-1]
        assert first.startswith("1 ") and group.name in first, out
        assert refusal.startswith("refused:") and "so 1 node fits" in refusal and "--nodes 1" in refusal, out
    finally:
        group.rmdir()
