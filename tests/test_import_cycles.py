"""No import circle: the modules of arena/ and protocol/ import one another without a cycle.

import-linter checks the layers between packages; this checks the modules within them too.
Every import counts, including one under `if TYPE_CHECKING:` and one inside a function, as
either of them closing a loop hides a circle rather than cutting it. The graph is read from
the source with `ast`, so that nothing (nor the `train` extra) is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("arena", "protocol")

Graph = dict[str, set[str]]


def module_names(root: Path, tops: Iterable[str] = TOPS) -> dict[str, Path]:
    """Every module under the top packages, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported(node: ast.Import | ast.ImportFrom, name: str, is_package: bool,
             modules: Iterable[str]) -> set[str]:
    """The modules of the project an import statement in module `name` reaches: each module
    named, and for `from X import Y` the submodule X.Y if there is one, else X itself."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & set(modules)
    base = node.module or ""
    if node.level:
        package = name.split(".") if is_package else name.split(".")[:-1]
        package = package[:len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    reached = set()
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        reached.add(submodule if submodule in modules else base)
    return reached & set(modules)


def import_graph(root: Path, tops: Iterable[str] = TOPS) -> Graph:
    """Each module's imports of modules of the project, wherever in the module they are."""
    modules = module_names(root, tops)
    graph: Graph = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[name] |= imported(node, name, is_package, modules) - {name}
    return graph


def tangles(graph: Graph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan): each module of
    one reaches every other of it through imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: set[str] = set()
            while node not in component:
                component.add(stack.pop())
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [frozenset(c) for c in components if len(c) > 1]


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle through each tangle, as the modules in import order, the first repeated at
    the end."""
    return [cycle_in(graph, t) for t in tangles(graph)]


def cycle_in(graph: Graph, component: frozenset[str]) -> list[str]:
    """A cycle within a strongly connected component, from its first module back to it."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:  # breadth first: the shortest way back to start
        node = frontier.pop(0)
        for nxt in sorted(graph[node] & component):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                frontier.append(nxt)
    raise AssertionError(f"no cycle in {sorted(component)}")  # a component always has one


def test_no_module_of_arena_or_protocol_is_in_an_import_cycle():
    graph = import_graph(ROOT)
    found = tangles(graph)
    assert not found, "import cycles:\n" + "\n".join(
        f"{' -> '.join(cycle_in(graph, t))} (in a tangle of {len(t)}: {', '.join(sorted(t))})"
        for t in found)


def test_the_graph_has_the_imports_of_the_source():
    graph = import_graph(ROOT)
    assert "arena.rules.position" in graph["arena.rules.game"]
    assert "arena.rules.moves" in graph["arena.rules.game"]  # from arena.rules import moves
    assert "arena.tournament.records" in graph["arena.tournament.store"]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_cycle_closed_under_type_checking_or_in_a_function_is_found(tmp_path: Path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import B\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n",
        "pkg/c.py": "from . import d\n",
        "pkg/d.py": "def f():\n    from .c import C\n",
        "pkg/e.py": "import pkg.a\n",  # into a cycle, not in one
    })
    found = cycles(import_graph(tmp_path, ["pkg"]))
    assert sorted(found) == [["pkg.a", "pkg.b", "pkg.a"], ["pkg.c", "pkg.d", "pkg.c"]]


def test_a_longer_cycle_is_listed_in_import_order(tmp_path: Path):
    write(tmp_path, {
        "pkg/__init__.py": "from pkg.x import X\n",
        "pkg/x.py": "from pkg.y import Y\n",
        "pkg/y.py": "import pkg.z as z\n",
        "pkg/z.py": "from pkg import X\n",  # the package itself, which imports x
    })
    assert cycles(import_graph(tmp_path, ["pkg"])) == [["pkg", "pkg.x", "pkg.y", "pkg.z", "pkg"]]


def test_a_package_importing_its_own_modules_is_no_cycle(tmp_path: Path):
    write(tmp_path, {
        "pkg/__init__.py": "from pkg.x import X\nfrom pkg.y import Y\n",
        "pkg/x.py": "from pkg.y import Y\n",
        "pkg/y.py": "import os\n",
    })
    assert cycles(import_graph(tmp_path, ["pkg"])) == []
