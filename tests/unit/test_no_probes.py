"""Seams are contracts, not guesses: nothing in labkit asks a cluster, an engine binding, a workload or a server
meter by name whether it has something (getattr/hasattr), outside the one documented adapter of each seam that
gives test doubles and protocol-only objects their defaults. Ordinary look-ups (a consistency level by name, a
row's column) are not probes: only a probe whose first argument names the seam counts."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import labkit

ROOT = Path(labkit.__file__).parent
SEAM = re.compile(r"(^|_)(cluster|binding|workload|meter)s?$")
ADAPTERS = {  # module -> the scope (Class.function) allowed to look a seam's hooks up by name
    "labkit/runner/workload.py": "hooks",
    "labkit/patterns/binding.py": "EngineBinding.of",
    "labkit/clusters/contract.py": "capabilities_of",
}


def _subject(node: ast.expr) -> str:
    """The name a probe asks: `cluster` for cluster, self.cluster and self._cluster."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def probes_in(source: str, rel: str) -> list[str]:
    found: list[str] = []

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = (*scope, node.name)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and node.args:
            subject = _subject(node.args[0])
            allowed = ADAPTERS.get(rel)
            if SEAM.search(subject) and not (allowed and ".".join(scope).startswith(allowed)):
                found.append(f"{rel}:{node.lineno} {node.func.id}({subject}, ...) in {'.'.join(scope) or 'the module'}")
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(ast.parse(source), ())
    return found


def test_no_seam_is_probed_outside_its_adapter():
    found = [p for path in sorted(ROOT.rglob("*.py")) for p in probes_in(path.read_text(), str(path.relative_to(ROOT.parent)))]
    assert found == []


def test_the_scan_finds_a_probe_and_spares_the_adapter_and_ordinary_lookups():
    source = (
        "def run(workload, cluster, level):\n"
        "    close = getattr(workload, 'close_process', None)\n"
        "    if hasattr(self.cluster, 'stop_node'): pass\n"
        "    return getattr(ConsistencyLevel, level)\n"
        "def hooks(workload):\n"
        "    return getattr(workload, 'open_process', None)\n"
    )
    assert [p.split(" ", 1)[1] for p in probes_in(source, "labkit/runner/workload.py")] == [
        "getattr(workload, ...) in run", "hasattr(cluster, ...) in run"]
    assert len(probes_in(source, "labkit/other.py")) == 3


def state_probes_in(source: str, rel: str) -> list[str]:
    """Two more ways of guessing instead of declaring: an object asking itself by name whether it has a piece of state
    (`getattr(self, "x", default)`, `hasattr(self, "x")`: declare the attribute with its default instead), and a
    function writing the private state of an object handed to it (`workload._session = ...`: the object's class
    offers a method for that instead). Reading fields by a computed name (`getattr(self, field)`) is not a probe."""
    found: list[str] = []

    def visit(node: ast.AST, scope: tuple[str, ...], handed: set[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = (*scope, node.name)
            arguments = node.args
            handed = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs} - {"self", "cls"}
        elif isinstance(node, ast.ClassDef):
            scope = (*scope, node.name)
        where = ".".join(scope) or "the module"
        allowed = ADAPTERS.get(rel)
        if not (allowed and where.startswith(allowed)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls") and isinstance(node.args[1], ast.Constant)):
                found.append(f"{rel}:{node.lineno} {node.func.id}({node.args[0].id}, {node.args[1].value!r}) in {where}")
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                for part in ast.walk(target):
                    if (isinstance(part, ast.Attribute) and isinstance(part.ctx, ast.Store) and isinstance(part.value, ast.Name)
                            and part.value.id in handed and part.attr.startswith("_")):
                        found.append(f"{rel}:{node.lineno} {part.value.id}.{part.attr} = ... in {where}")
        for child in ast.iter_child_nodes(node):
            visit(child, scope, handed)

    visit(ast.parse(source), (), set())
    return found


def test_no_object_guesses_its_own_state_or_writes_another_objects():
    found = [p for path in sorted(ROOT.rglob("*.py")) for p in state_probes_in(path.read_text(), str(path.relative_to(ROOT.parent)))]
    assert found == []


def test_the_state_scan_finds_a_self_probe_and_a_write_into_a_handed_object():
    source = (
        "class W:\n"
        "    def load(self):\n"
        "        if not getattr(self, '_load_needed', True): pass\n"
        "        return {f: getattr(self, f) for f in FIELDS}\n"
        "def recording(workload, recorder):\n"
        "    workload._session = recorder\n"
        "    workload.name = 'x'\n"
        "    local = make()\n"
        "    local._cache = None\n"
    )
    assert [p.split(" ", 1)[1] for p in state_probes_in(source, "labkit/other.py")] == [
        "getattr(self, '_load_needed') in W.load", "workload._session = ... in recording"]
