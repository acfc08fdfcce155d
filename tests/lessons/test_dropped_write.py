"""A lesson run with a workload that deliberately drops a write must fail (#67 item 2).

Lesson 02 (Index Table) at its smallest: one node, the register panel at two client threads and 42 users, and
an extra cell, inserted by this test right after the parameters, that patches the Cassandra workload's
register(): every 7th user is silently not written, yet the run counts the transaction as done. The register
panel's check cell must then raise VerificationFailed, and nothing after it may run. The notebook is executed
as papermill parameterises it and as nbclient runs it (stopping at the first error); the kernel stays up after
the failure just long enough to let its cluster go (its closing cell never ran). It runs on the node `labkit up`
started, in the block of tests that share it (tests/conftest.py), and leaves that node up.

Run it: .venv/bin/python -m pytest -q -m integration tests/lessons/test_dropped_write.py"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

from labkit.home import clusters_dir
from labkit.host.processes import processes_under
from shared_clusters import said_in

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
LESSON = REPO / "notebooks" / "02_index_table.ipynb"
CHECK_CELL = "4b95393a"  # assert_verified(register_panel.results): the register panel's check
EVERY = 7
USERS = 42  # 6 of them dropped
PARAMETERS = {
    "profile": "quick",
    "overrides": {"register": {"nodes": [1], "threads": [2], "operations": USERS, "repeats": 1},  # one run per approach: 3 runs
                  "login": {"nodes": [1]}},  # section 1 traces one login on the one node only
    "predictions": {},  # a batch run: no box waits, every prediction recorded as absent
}
DROP_WRITES = f'''# tests/lessons/test_dropped_write.py only: every {EVERY}th registration is silently not written
from labkit.patterns.index_table.cassandra import IndexTable

_register = IndexTable.register


def _register_dropping_some(self, tx, n):
    if n % {EVERY} == {EVERY - 1}:
        return  # dropped: nothing written, and the run counts the transaction as done
    _register(self, tx, n)


IndexTable.register = _register_dropping_some'''
CLEANUP = 'if "slot" in globals():\n    slot.stop()  # the lesson\'s closing cell, which the failure kept from running (an adopted node stays up)'


def labkit_jvms() -> set[int]:
    return {p.pid for p in processes_under(clusters_dir()) if "java" in p.name()}


def lesson_dropping_writes() -> nbformat.NotebookNode:
    nb = load_notebook_node(str(LESSON))  # as papermill reads it (every cell gets its tags list)
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    patch = nbformat.v4.new_code_cell(DROP_WRITES)
    patch.metadata["tags"] = ["test-drops-writes"]
    nb.cells.insert(at + 1, patch)
    return parameterize_notebook(nb, PARAMETERS)  # papermill's injected-parameters cell, after the parameters cell


def test_a_lesson_whose_workload_drops_a_write_fails_at_its_check_cell(tmp_path, one_node_up):
    nb = lesson_dropping_writes()
    client = NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    failure = None
    with client.setup_kernel():
        try:
            for index, cell in enumerate(nb.cells):  # what client.execute() does: stop at the first error
                client.execute_cell(cell, index)
        except CellExecutionError as error:
            failure = error
        finally:
            nb.cells.append(nbformat.v4.new_code_cell(CLEANUP))  # nbclient writes a cell's outputs back into the notebook
            client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
            nb.cells.pop()
    nbformat.write(nb, tmp_path / "02_index_table.dropped.ipynb")  # for a look afterwards

    assert failure is not None, "the lesson ran to its end although its workload dropped every 7th write"
    assert failure.ename == "VerificationFailed", f"the lesson failed, but not at a check: {failure.ename}: {failure.evalue}"
    ids = [c.get("id") for c in nb.cells]
    check = ids.index(CHECK_CELL)
    failed = [i for i, c in enumerate(nb.cells) if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert failed == [check], f"the error is in cell(s) {failed}, not in the register panel's check cell {check}"
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    assert all(nb.cells[i].execution_count is not None for i in code if i <= check), "a cell before the check did not run"
    assert all(nb.cells[i].execution_count is None and not nb.cells[i].outputs for i in code if i > check), "a cell after the failed check ran"
    assert "FAILED verification" in failure.evalue and "users missing" in failure.evalue
    report = "".join(o.get("text", "") for o in nb.cells[check].outputs if o.get("output_type") == "stream")
    runs = report.strip().splitlines()[-1]
    assert runs.startswith("3 runs, 3 failed verification"), report  # each approach lost its dropped users
    said = said_in(nb)
    assert "using the cluster `labkit up` started" in said, said[:2000]
    assert labkit_jvms() == one_node_up, "the lesson stopped the node `labkit up` started, or left a cluster of its own running"
