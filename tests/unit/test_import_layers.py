"""labkit's modules import each other without circles (a circle shows up as an import inside a function
that only works because of the order things happen to load in), and the ground floor imports nothing of
labkit's. Read from the source with ast, deferred imports inside functions included, and modules imported by
name (a string such as "labkit.workloads.ycsb" or "labkit.clusters.local.cassandra:LocalCassandraCluster"
that importlib loads)."""

from __future__ import annotations

import ast
from pathlib import Path

import labkit

ROOT = Path(labkit.__file__).parent
GROUND_FLOOR = ("labkit.errors", "labkit.clusters.base", "labkit.machine", "labkit.home")


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The labkit modules `name` imports anywhere in its source (parent packages left out: Python imports
    them first anyway, so they cannot close a circle of their own making)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets.update([target, *(f"{target}.{alias.name}" for alias in node.names)])
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("labkit."):
            targets.add(node.value.split(":")[0])  # imported by name: importlib.import_module("labkit.workloads.ycsb"), "module:Class"
    return {t for t in targets if t in modules and t != name and not name.startswith(t + ".")}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return circles


def test_no_module_of_labkit_imports_itself_back_through_others():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _circles(graph) == []


def test_the_finder_sees_a_circle_made_by_an_import_inside_a_function():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_ground_floor_imports_nothing_of_labkit():
    modules = _modules()
    for name in GROUND_FLOOR:
        assert _imports(name, modules[name], modules) == set(), name


def test_every_relative_import_names_a_labkit_module_that_exists():
    """A deferred `from .x import y` inside a function fails only when that function runs: moving a module
    into a package left one such import pointing nowhere. Every relative import must name a module (or a
    name of a package's __init__) that exists."""
    modules = _modules()
    broken = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                if target not in modules:
                    broken.append(f"{name}: from {'.' * node.level}{node.module or ''} -> {target}")
    assert not broken, broken


def test_imports_made_by_name_are_followed():
    modules = _modules()
    assert "labkit.workloads.ycsb" in _imports("labkit.catalogue", modules["labkit.catalogue"], modules)
    assert "labkit.clusters.local.cassandra" in _imports("labkit.clusters", modules["labkit.clusters"], modules)


LAYERS = [  # bottom to top: a module imports only its own package and packages of lower layers
    ("labkit.errors", "labkit.machine", "labkit.clusters.base", "labkit.home"),
    ("labkit.host", "labkit.runner", "labkit.datasets"),
    ("labkit.engines", "labkit.faults", "labkit.namespace", "labkit.results"),
    ("labkit.clusters", "labkit.predictions", "labkit.consistency"),
    ("labkit.patterns", "labkit.sweeps"),
    ("labkit.profiles", "labkit.workloads"),
    ("labkit.tactics", "labkit.noise"),
    ("labkit.widgets", "labkit.catalogue"),
    ("labkit.lessons", "labkit.report", "labkit.doctor", "labkit.provisioning"),
    ("labkit.class_view", "labkit.batch", "labkit.grading"),
    ("labkit.cli",),
    ("labkit.__main__",),
]


FLOOR = {package: i for i, packages in enumerate(LAYERS) for package in packages}
"""package -> its floor (0: the ground floor)."""


def _package(name: str) -> str:
    """The layer unit a module belongs to: a ground-floor module itself, else labkit.<package>."""
    return name if name in GROUND_FLOOR else ".".join(name.split(".")[:2])


def test_no_import_points_back_up_the_layers():
    layer = FLOOR
    modules = _modules()
    unplaced = sorted({_package(n) for n in modules} - set(layer) - {"labkit"})
    assert unplaced == [], f"packages without a layer: {unplaced}"
    upward = []
    for name, path in modules.items():
        here = _package(name)
        for target in _imports(name, path, modules):
            there = _package(target)
            if there != here and here in layer and there in layer and layer[there] > layer[here]:
                upward.append(f"{name} -> {target}")
    assert upward == []


def _arrows_into_clusters() -> list[str]:
    """Imports of a cluster provider's modules from the floors below labkit.clusters. Only the labels every
    row carries (labkit.clusters.base: ClusterInfo) may be read from down there; the state directories live on
    the ground floor (labkit.home), so the host helpers and the faults find theirs without climbing."""
    layer = FLOOR
    below = {p for p, i in layer.items() if i < layer["labkit.clusters"]} - {"labkit.clusters.base"}
    modules = _modules()
    return sorted(f"{name} -> {target}" for name, path in modules.items() if _package(name) in below
                  for target in _imports(name, path, modules)
                  if target.startswith("labkit.clusters") and (target != "labkit.clusters.base" or _package(name) in ("labkit.host", "labkit.faults")))


def test_nothing_below_the_clusters_climbs_into_them():
    assert _arrows_into_clusters() == []
