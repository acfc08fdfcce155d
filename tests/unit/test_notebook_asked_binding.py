"""A lesson's `asked` (its questions, LESSON.ask) is bound once: a later cell that rebinds the name leaves every
card after it calling a method on whatever took its place (02's MongoDB section bound it to an explain() dict,
so its card raised AttributeError wherever a real MongoDB ran, a path make test cannot reach here)."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def bindings(source: str, name: str) -> list[int]:
    """The lines of `source` that bind `name` (assignment, for-loop, with, walrus, import as)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: not code this test reads
        return []
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)})


def rebinds(notebook: Path, name: str = "asked") -> list[str]:
    """Each binding of `name` after its first, as 'cell <id>, line <n>'."""
    found = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "code":
            found += [f"cell {cell.get('id')}, line {line}" for line in bindings(cell.source, name)]
    return found[1:]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_lesson_binds_its_questions_once(notebook):
    assert rebinds(notebook) == [], f"{notebook.name} rebinds `asked` after LESSON.ask: use another name"


def test_the_check_finds_a_rebinding(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("asked = LESSON.ask(predictions)"),
                nbformat.v4.new_code_cell("for w in ws:\n    asked = explain(w)\nasked.card('x', 1, '')")]
    path = tmp_path / "rebinding.ipynb"
    nbformat.write(nb, path)
    assert len(rebinds(path)) == 1
