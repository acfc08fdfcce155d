"""Every notebook's parameters are what papermill sees: an instructor's `papermill --help-notebook` and
`-p NAME VALUE` rely on papermill reading each assignment of the parameters cell (a second `=` on a line,
even in its comment, hides it), and nbformat wants an id on every cell."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat
import papermill as pm
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def assigned(source: str) -> list[str]:
    return [t.id for node in ast.parse(source).body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_reads_every_parameter_of_the_parameters_cell(path):
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{path.name}: one cell tagged parameters, found {len(cells)}"
    assert list(pm.inspect_notebook(str(path))) == assigned(cells[0].source)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_cell_has_an_id(path):
    cells = json.loads(path.read_text())["cells"]  # as stored: nbformat.read would fill missing ids in
    assert all(c.get("id") for c in cells), f"{path.name}: {sum(not c.get('id') for c in cells)} cells without an id"
