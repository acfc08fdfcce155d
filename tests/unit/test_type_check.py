"""The written contracts hold: mypy (pinned in the dev extra, configured in pyproject.toml) finds no error in
labkit/, and it is a checker that can fail: a call of a method the cluster contract does not declare, or a
workload handed where a cluster is expected, is an error."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def mypy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_labkit_has_no_type_error():
    checked = mypy()
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("body,error", [
    ("def flush(cluster: Cluster) -> None:\n    cluster.nodetool('flush')\n", '"Cluster" has no attribute "nodetool"'),
    ("def nodes(workload: Workload) -> int:\n    return len(workload.nodes)\n", '"Workload" has no attribute "nodes"'),
])
def test_the_checker_refuses_what_the_contracts_do_not_declare(tmp_path, body, error):
    probe = tmp_path / "probe.py"
    probe.write_text("from labkit.clusters.contract import Cluster\nfrom labkit.runner.workload import Workload\n\n\n" + textwrap.dedent(body))
    checked = mypy("--config-file", str(ROOT / "pyproject.toml"), str(probe))
    assert checked.returncode == 1 and error in checked.stdout, checked.stdout + checked.stderr
