"""The ratings share code through public names only: no module of arena reaches a private name
(`_x`) of a ratings module, and no ratings module reaches one of another module. What one
module relies on of another is then documented and kept on purpose (issue 47: individual.py
and synergy.py used to import eleven private helpers of fit.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of a source file under `root` (a package is its __init__.py)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(path: Path, root: Path = ROOT) -> list[tuple[str, str]]:
    """(module, name) of every private name that `path` takes from another module: imported
    by name (`from m import _x`, relative or absolute), or read off a module it imported
    (`import m as k; k._x`, `from package import m; m._x`)."""
    own = module_name(path, root)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    modules: dict[str, str] = {}  # local name -> the module it is
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.partition(".")[0]] = \
                    alias.name if alias.asname else alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                if private(alias.name) and base != own:
                    found.append((base, alias.name))
                modules[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and private(node.attr)
                and modules[node.value.id] != own):
            found.append((modules[node.value.id], node.attr))
    return found


def test_no_module_of_arena_takes_a_private_name_of_the_ratings():
    taken = {(module_name(path), module, name)
             for path in sorted((ROOT / "arena").rglob("*.py"))
             for module, name in private_uses(path) if module.startswith("arena.ratings")}
    assert not taken, taken


def test_no_ratings_module_takes_a_private_name_of_another_module():
    taken = {(module_name(path), module, name)
             for path in sorted((ROOT / "arena" / "ratings").glob("*.py"))
             for module, name in private_uses(path)}
    assert not taken, taken


def test_the_scan_finds_private_names_taken_every_way(tmp_path):
    # The control: a package whose modules take private names in each way the scan knows,
    # and a public name, a dunder name and a module's own private name that it must pass.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import _hidden\n")
    (package / "a.py").write_text("def _hidden(): ...\n_hidden()\n")
    (package / "b.py").write_text(
        "from pkg.a import _hidden, public, __version__\n"
        "from .a import _relative\n"
        "import pkg.a as alias\n"
        "from pkg import a\n"
        "alias._through_alias()\n"
        "a._through_module()\n"
        "a.public()\n")
    assert private_uses(package / "__init__.py", tmp_path) == [("pkg.a", "_hidden")]
    assert private_uses(package / "a.py", tmp_path) == []
    assert sorted(private_uses(package / "b.py", tmp_path)) == [
        ("pkg.a", "_hidden"), ("pkg.a", "_relative"), ("pkg.a", "_through_alias"),
        ("pkg.a", "_through_module")]
